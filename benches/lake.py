#!/usr/bin/env python3
"""Team mode's cost against one file, measured in one run on the same trees.

Run through benches/lake.sh (it builds liftdb, starts PostgreSQL and fetches
the DuckLake extensions, as scripts/test does). Steps, alternating in order
between rounds:

  F   liftdb ingest of the tree + manifest into a new file store
  L   the same into a new lake
  W   eight writers at once, each 1/8 of the runs (its own tree), into a new
      lake with `ingest --defer-refill`, then one `liftdb lake refresh`: the
      fan-out as docs/guide.md describes it
  We  the same eight, each refilling the shared release after its commit
  S   the same as L into a new lake whose data are on S3 (the local
      S3-compatible server scripts/lake-services.sh starts, credentials in
      AWS_* as CI passes them)
  dF  report lift on the file store;  dL  on the lake;  dS  on the S3 lake
  A   DuckDB itself (Python, the same 1.5.5) loading the two extensions,
      attaching the lake and counting its runs: what any read of a lake costs
  C1  CPU-seconds (user + system) of L's one writer;  C8  of W's eight
      writers and its refresh: on one 2-core machine the fan-out's wall
      time measures contention, its CPU-seconds what a fleet pays

Targets (#58): L <= 1.3 F; S <= 2 F; C8 <= 1.5 C1.
"""

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare import measure  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BEGIN = "<!-- benches/lake.py writes from here -->"
END = "<!-- benches/lake.py writes up to here -->"


def pg(args, *cmd):
    settings = dict(kv.split("=", 1) for kv in os.environ["LIFTDB_TEST_PG"].split())
    subprocess.run([os.path.join(os.environ["LIFTDB_TEST_PG_BIN"], cmd[0]), "-h", settings["host"],
                    "-p", settings["port"], "-U", "postgres", *cmd[1:]], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def new_lake(args, name, work, s3_prefix=None):
    pg(args, "dropdb", "--if-exists", name)
    pg(args, "createdb", name)
    if s3_prefix:
        data = f"s3://{os.environ['LIFTDB_TEST_S3_BUCKET']}/{s3_prefix}/"
    else:
        data = work / f"{name}-data"
        shutil.rmtree(data, ignore_errors=True)
        data.mkdir()
    return [args.liftdb, "--db", f"ducklake:postgres:dbname={name} {os.environ['LIFTDB_TEST_PG']}",
            "--data-path", str(data), "--extension-dir", os.environ["LIFTDB_TEST_EXTENSION_DIR"]]


# The S3 server's credentials, as CI systems pass them.
os.environ.update({
    "AWS_ACCESS_KEY_ID": os.environ.get("LIFTDB_TEST_S3_KEY_ID", ""),
    "AWS_SECRET_ACCESS_KEY": os.environ.get("LIFTDB_TEST_S3_SECRET", ""),
    "AWS_REGION": "us-east-1",
    "AWS_ENDPOINT_URL": os.environ.get("LIFTDB_TEST_S3_ENDPOINT", ""),
})


def children_cpu():
    """CPU-seconds (user + system) of every child waited for so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def gen(args, out, runs, seed, root):
    if not (out / "manifest.json").exists():
        shutil.rmtree(out, ignore_errors=True)
        subprocess.run([args.gen_runs, "--runs", str(runs), "--seed", str(seed), "--out", str(out)],
                       check=True, stdout=subprocess.DEVNULL)
        (out / "eval-runs").rename(out / root)
    return [str(out / root), str(out / "manifest.json")]


def write_section(out, begin, end, text):
    """`text` between the markers `begin` and `end` of `out`, replacing what
    they held (appended with them when absent)."""
    old = out.read_text() if out.exists() else ""
    if begin in old and end in old:
        head, rest = old.split(begin, 1)
        new = head + begin + "\n" + text + end + rest.split(end, 1)[1]
    else:
        new = old + "\n" + begin + "\n" + text + end + "\n"
    out.write_text(new)


def attach_floor(lake):
    """Seconds DuckDB itself takes to load the extensions, attach the lake
    (liftdb's command line: --db, --data-path, --extension-dir) and count its runs."""
    import duckdb
    catalog, data, extensions = lake[2], lake[4], lake[6]
    started = time.monotonic()
    conn = duckdb.connect(config={"extension_directory": extensions, "autoinstall_known_extensions": "false",
                                  "autoload_known_extensions": "false"})
    conn.execute("LOAD ducklake; LOAD postgres_scanner")
    conn.execute(f"ATTACH '{catalog}' AS lake (DATA_PATH '{data}')")
    conn.execute("SELECT count(*) FROM lake.run").fetchall()
    elapsed = time.monotonic() - started
    conn.close()
    return elapsed


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="?", type=int, default=10_000)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--writers", type=int, default=8)
    p.add_argument("--liftdb", required=True)
    p.add_argument("--gen-runs", required=True)
    p.add_argument("--work", default=os.environ.get("LIFTDB_BENCH_DIR", "/tmp/liftdb-bench") + "/lake")
    p.add_argument("--out", default=str(ROOT / "BENCHMARKS.md"))
    args = p.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    whole = gen(args, work / f"tree-{args.runs}", args.runs, 7, "eval-runs")
    share = args.runs // args.writers
    parts = [gen(args, work / f"part-{share}-{i}", share, 200 + i, f"runs-{i}") for i in range(args.writers)]
    results = {}
    for rnd in range(args.rounds):
        order = ["F", "L", "S", "W"] if rnd % 2 == 0 else ["W", "S", "L", "F"]
        for step in order:
            if step == "F":
                store = work / "file.duckdb"
                store.unlink(missing_ok=True)
                results.setdefault("F", []).append(measure([args.liftdb, "--db", str(store), "ingest", "--quiet", *whole]))
                results.setdefault("dF", []).append(measure([args.liftdb, "--db", str(store), "--format", "csv", "report", "lift"]))
            elif step == "L":
                lake = new_lake(args, "bench_lake", work)
                cpu = children_cpu()
                results.setdefault("L", []).append(measure([*lake, "ingest", "--quiet", *whole]))
                results.setdefault("C1", []).append((children_cpu() - cpu, 0.0))
                results.setdefault("dL", []).append(measure([*lake, "--format", "csv", "report", "lift"]))
            elif step == "S":
                lake = new_lake(args, "bench_s3", work, s3_prefix=f"bench-{os.getpid()}-{rnd}")
                results.setdefault("S", []).append(measure([*lake, "ingest", "--quiet", *whole]))
                results.setdefault("dS", []).append(measure([*lake, "--format", "csv", "report", "lift"]))
            else:
                for key, deferred in (("W", True), ("We", False)):
                    lake = new_lake(args, "bench_fanout", work)
                    subprocess.run([*lake, "lake", "init"], check=True, stderr=subprocess.DEVNULL)
                    started, cpu = time.monotonic(), children_cpu()
                    flags = ["--defer-refill"] if deferred else []
                    procs = [subprocess.Popen([*lake, "ingest", "--quiet", *flags, *part], stdout=subprocess.DEVNULL,
                                              stderr=subprocess.PIPE, text=True) for part in parts]
                    failed = [p.stderr.read() for p in procs if p.wait() != 0]
                    if failed:
                        sys.exit(f"a writer failed: {failed[0][-2000:]}")
                    if deferred:
                        subprocess.run([*lake, "lake", "refresh"], check=True, stderr=subprocess.DEVNULL)
                    results.setdefault(key, []).append((time.monotonic() - started, 0.0))
                    if deferred:
                        results.setdefault("C8", []).append((children_cpu() - cpu, 0.0))
                results.setdefault("A", []).append((attach_floor(lake), 0.0))
        print({k: [round(s, 2) for s, _ in v] for k, v in results.items()}, flush=True)
    best = {k: min(s for s, _ in v) for k, v in results.items()}
    rss = {k: max(m for _, m in v) for k, v in results.items()}
    lines = [
        f"## Team mode against one file ({args.runs:,} runs, `bash benches/lake.sh {args.runs}`)\n",
        f"Date: {time.strftime('%Y-%m-%d')}; {args.rounds} rounds, steps alternating, the fastest of each; "
        "PostgreSQL (Debian) on this machine, the lake's files on local disk (S: on the local S3-compatible server, moto).\n",
        "| step | seconds | peak RSS (MB) | ratio | target |",
        "|---|---:|---:|---:|---|",
        f"| (F) ingest into a new file store | {best['F']:.2f} | {rss['F']:.0f} | 1.00 | |",
        f"| (L) the same into a new lake | {best['L']:.2f} | {rss['L']:.0f} | L/F = {best['L'] / best['F']:.2f} | ≤ 1.3 — {'met' if best['L'] <= 1.3 * best['F'] else '**missed**'} |",
        f"| (S) the same into a new lake on S3 | {best['S']:.2f} | {rss['S']:.0f} | S/F = {best['S'] / best['F']:.2f} | ≤ 2 — {'met' if best['S'] <= 2 * best['F'] else '**missed**'} |",
        f"| (W) {args.writers} writers at once, {share:,} runs each, `--defer-refill`, then one `lake refresh` | {best['W']:.2f} | | W/L = {best['W'] / best['L']:.2f} | ≤ 1.2 — {'met' if best['W'] <= 1.2 * best['L'] else '**missed**'} |",
        f"| (We) the same {args.writers}, each refilling the release after its commit | {best['We']:.2f} | | We/L = {best['We'] / best['L']:.2f} | |",
        f"| (dF) report lift, file store | {best['dF']:.2f} | {rss['dF']:.0f} | 1.00 | |",
        f"| (dL) report lift, lake | {best['dL']:.2f} | {rss['dL']:.0f} | dL/dF = {best['dL'] / best['dF']:.2f} | ≤ 2 — {'met' if best['dL'] <= 2 * best['dF'] else '**missed**'} |",
        f"| (dS) report lift, lake on S3 | {best['dS']:.2f} | {rss['dS']:.0f} | dS/dF = {best['dS'] / best['dF']:.2f} | |",
        f"| (C1) CPU-seconds of L's one writer | {best['C1']:.2f} | | 1.00 | |",
        f"| (C8) CPU-seconds of W's {args.writers} writers and its refresh | {best['C8']:.2f} | | C8/C1 = {best['C8'] / best['C1']:.2f} | ≤ 1.5 — {'met' if best['C8'] <= 1.5 * best['C1'] else '**missed**'} |",
        f"| (A) DuckDB alone: load the extensions, attach the lake, count its runs | {best['A']:.2f} | | dL/A = {best['dL'] / best['A']:.2f} | |",
        "",
        "All rounds (seconds): " + str({k: [round(s, 2) for s, _ in v] for k, v in results.items()}),
        "",
    ]
    text = "\n".join(lines)
    write_section(Path(args.out), BEGIN, END, text)
    print(text)


if __name__ == "__main__":
    main()
