#!/usr/bin/env python3
"""liftdb against the alternatives an analyst has, on the same generated trees.

Run through benches/compare.sh (it builds liftdb, gen-runs and read-tree and prepares the
Python peers). For each size it generates a skill-eval-harness tree with
gen-runs, warms the page cache, then measures in alternating order:

  a   liftdb ingest of the tree into a new store (every file of every run parsed)
  b1  DuckDB (PyPI, same version as liftdb's) CREATE TABLE AS SELECT * FROM read_json(metadata.json)
  b2  DuckDB read_json_objects(metadata.json, filename=true): the floor of loading the files
  c   skill-benchmark benchmark (skill-eval-harness 0.6.0): the peer's ingest + report
  g   liftdb ingest of the peer's benchmark.json (the grades) into the store of a
  d   liftdb report lift on that store
  e   liftdb re-ingest of the unchanged tree, the page cache as a' and the reports left it
  e2  the same re-ingest again at once: the tree's directories and inodes cached
  s   the floor of e2: every file of the tree listed and stat'ed
  i   liftdb ingest of 1% more runs (another runs root) into that store
  i2  the same 1% as a shard job of the store's own release (`--shard`): a few of its cases changed
  f   the physical floor: every byte of the tree read from the page cache (cat through xargs)
  f'  the same bytes read by read-tree: folders walked in parallel, each file opened once and
      read whole, no process per file batch (the leaner floor, closer to the hardware's)
  every canned report on the store of a' (the fastest of three runs each, the first shown
      too), and the store's size per run;
      for the slowest (r): its rows printed by DuckDB's own COPY (k)

Above --peer-max-runs (100,000) liftdb runs alone: the peer (c, and g which
ingests its report) and DuckDB's readers (b1, b2) are skipped, with the
reason printed. Wall time and peak RSS come from /usr/bin/time. Figures are
the minimum over rounds; BENCHMARKS.md gets them with ratios against b1, b2,
c, f and f'.
"""

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def measure(cmd, cwd=None, env=None, allow_failure=False, phases=None):
    """Run cmd under /usr/bin/time; return (seconds, peak RSS in MB). With
    `phases` (a list), LIFTDB_TIMINGS=1 is set and liftdb's phase timings are
    appended to it as (name, seconds)."""
    if phases is not None:
        env = dict(env or os.environ, LIFTDB_TIMINGS="1")
    fmt = "LIFTDB_BENCH %e %M"
    proc = subprocess.run(
        ["/usr/bin/time", "-f", fmt] + cmd,
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = [l for l in proc.stderr.splitlines() if l.startswith("LIFTDB_BENCH")]
    if proc.returncode != 0 or not line:
        if allow_failure:
            # e.g. DuckDB's schema inference running out of memory: a result too.
            print(f"failed ({proc.returncode}): {' '.join(cmd)[:200]}\n{proc.stderr[-600:]}", flush=True)
            return None
        sys.exit(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stderr[-2000:]}")
    if phases is not None:
        phases.clear()
        for l in proc.stderr.splitlines():
            # "timing: <phase>  <secs> s  peak RSS <mib> MiB, now ..." (the RSS off Linux absent)
            m = re.match(r"timing: (.+?)\s+([0-9.]+) s(?:\s|$)", l)
            if m:
                phases.append((m.group(1), float(m.group(2))))
    _, secs, kb = line[-1].split()
    return float(secs), int(kb) / 1024.0


def duckdb_cmd(python, db, query):
    code = (
        "import duckdb, sys\n"
        "con = duckdb.connect(sys.argv[1])\n"
        "con.execute(sys.argv[2])\n"
        "print(con.execute('SELECT count(*) FROM t').fetchone()[0])\n"
    )
    return [python, "-c", code, str(db), query]


# Requests in flight while the floor reads the tree: liftdb's reading threads (readers.rs).
FLOOR_READERS = 16


def store_copy(store, name):
    """A copy of a store (closed, so one file) beside it, for a step that changes it."""
    copy = store.with_name(f"{store.stem}-{name}{store.suffix}")
    shutil.copyfile(store, copy)
    return copy


def store_release(liftdb, store):
    """The first release of a store (the one its first ingest derived)."""
    out = subprocess.run([liftdb, "--db", str(store), "--format", "csv", "sql",
                          "SELECT release_label FROM releases ORDER BY ordinal LIMIT 1"],
                         check=True, capture_output=True, text=True).stdout
    return out.splitlines()[1].strip()


def shard_addition_cmd(liftdb, store, addition):
    """(i2): the addition as a shard job of the store's own release. gen-runs names cases
    by number, so the seed-8 tree's runs are runs of the release's cases; the shard keeps
    their identities apart."""
    return [liftdb, "--db", str(store), "ingest", "--quiet", "--release", store_release(liftdb, store),
            "--shard", "bench-addition", str(addition / "eval-runs"), str(addition / "manifest.json")]


def release_addition_cmd(liftdb, store, addition):
    """(i): the addition as a release of its own (without a shard its run identities would
    repeat the store's release's, refused as identity errors)."""
    return [liftdb, "--db", str(store), "ingest", "--quiet", "--release", "bench-addition",
            str(addition / "eval-runs"), str(addition / "manifest.json")]


def floor_cmd(tree):
    """Read every byte of every file of the tree (cat to /dev/null), as many files at a time as
    liftdb reads: the least any reader pays. (One cat at a time read a cold million-run tree in
    551 s, slower than liftdb's whole ingest: a floor of one reader is not the floor.)"""
    return ["sh", "-c", f"find '{tree}' -type f -print0 | xargs -0 -P {FLOOR_READERS} -n 512 cat > /dev/null"]


def stat_floor_cmd(tree):
    """List every file of the tree and stat it (find's %s), the top-level directories split among
    as many finds at a time as liftdb has reading threads: the least a re-ingest's change check
    pays (a rewrite in place changes no directory's mtime, so every file is stat'ed)."""
    return ["sh", "-c", f"find '{tree}' -mindepth 1 -maxdepth 1 -print0 | xargs -0 -P {FLOOR_READERS} -n 256 "
            "sh -c 'find \"$@\" -printf \"%s\\n\"' sh > /dev/null"]


def copy_cmd(liftdb, store, report):
    """A canned report's rows (its parameters NULL: every row) printed by DuckDB's own CSV writer
    (COPY to /dev/null) in the same liftdb process: what the rows cost through DuckDB alone."""
    sql = (ROOT / "sql" / "reports" / f"{report}.sql").read_text()
    select = re.sub(r"\$[a-z_]+", "NULL", "\n".join(l for l in sql.splitlines() if not l.startswith("--")))
    return [liftdb, "--db", str(store), "sql", f"COPY ({select.strip().rstrip(';')}) TO '/dev/null' (FORMAT csv)"]


def tree_size(root):
    """(files, MB) of a tree: one `find` pass (pathlib's rglob took over 10 min at 5.3M files)."""
    out = subprocess.run(["find", str(root), "-type", "f", "-printf", "%s\n"],
                         capture_output=True, text=True, check=True).stdout
    sizes = [int(x) for x in out.split()]
    return len(sizes), sum(sizes) / 1e6


def warm(tree):
    for path in Path(tree).rglob("*"):
        if path.is_file():
            with open(path, "rb") as f:
                while f.read(1 << 20):
                    pass


def bench_size(args, runs, work):
    tree = work / f"tree-{runs}"
    if not (tree / "manifest.json").exists():
        shutil.rmtree(tree, ignore_errors=True)
        subprocess.run([args.gen_runs, "--runs", str(runs), "--out", str(tree)], check=True)
    files, size_mb = tree_size(tree / "eval-runs")
    cacheable = size_mb * 1e6 < 0.5 * os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    if cacheable:
        warm(tree)
    else:
        print(f"{runs} runs: the tree ({size_mb:,.0f} MB) is over half the RAM: not warmed, "
              "every step reads it from disk as it goes (f included)", flush=True)
    glob = str(tree / "eval-runs" / "**" / "metadata.json")
    results = {}

    def record(step, value):
        results.setdefault(step, []).append(value)

    rounds = args.rounds if runs < 50_000 else args.rounds_large
    alone = runs > args.peer_max_runs
    if alone:
        print(f"{runs} runs: liftdb alone (above --peer-max-runs {args.peer_max_runs:,}): the peer "
              "(c, g) is skipped, its grading grew faster than linearly (999 s at 100,000 runs); "
              "DuckDB's readers (b1, b2) too, their floor is replaced by (f)", flush=True)
    addition = work / f"tree-{runs}-add"
    if not (addition / "manifest.json").exists():
        shutil.rmtree(addition, ignore_errors=True)
        subprocess.run([args.gen_runs, "--runs", str(max(runs // 100, 10)), "--seed", "8",
                        "--out", str(addition)], check=True)
    reports = {}
    reports_first = {}
    phases = []  # of the last (a')
    reingest_phases = []  # of the last (e)
    reingest2_phases = []  # of the last (e2)
    for rnd in range(rounds):
        # Alone, the ungraded ingest (a) is skipped too: one full ingest per size is enough.
        order = ["f", "f2", "a2"] if alone else ["f", "f2", "a", "a2", "b1", "b2", "c"]
        if args.baseline:
            order.insert(order.index("a2") + 1, "a0")
        if rnd % 2 == 1:
            order.reverse()
        for step in order:
            if step == "f":
                record("f", measure(floor_cmd(tree / "eval-runs")))
            elif step == "f2":
                record("f2", measure([args.read_tree, "--threads", str(FLOOR_READERS), str(tree / "eval-runs")]))
            elif step == "a":
                # The run tree alone: no manifest, so nothing is graded.
                store = work / f"store-{runs}-{rnd}-tree-only.duckdb"
                store.unlink(missing_ok=True)
                record("a", measure([args.liftdb, "--db", str(store), "ingest", "--quiet",
                                     str(tree / "eval-runs")]))
                store.unlink(missing_ok=True)
            elif step == "a2":
                # Tree + manifest: liftdb grades every run itself (the store the later steps use).
                store = work / f"store-{runs}-{rnd}.duckdb"
                store.unlink(missing_ok=True)
                record("a2", measure([args.liftdb, "--db", str(store), "ingest", "--quiet",
                                      str(tree / "eval-runs"), str(tree / "manifest.json")],
                                     phases=phases))
            elif step == "a0":
                # The same ingest by the baseline build (--baseline), beside (a') in every round.
                store = work / f"store-{runs}-{rnd}-baseline.duckdb"
                store.unlink(missing_ok=True)
                record("a0", measure([args.baseline, "--db", str(store), "ingest", "--quiet",
                                      str(tree / "eval-runs"), str(tree / "manifest.json")]))
                if not alone:
                    record("d0", measure([args.baseline, "--db", str(store), "--format", "csv", "report", "lift"]))
                # (i2) and (i) by the baseline build, each on a copy of its own store.
                record("i20", measure(shard_addition_cmd(args.baseline, store_copy(store, "i2"), addition)))
                record("i0", measure(release_addition_cmd(args.baseline, store_copy(store, "i"), addition)))
                store.unlink(missing_ok=True)
            elif step == "b1" and runs > args.b1_max_runs:
                continue  # see --b1-max-runs
            elif step in ("b1", "b2"):
                db = work / f"duckdb-{step}-{runs}-{rnd}.duckdb"
                db.unlink(missing_ok=True)
                source = (
                    f"read_json('{glob}')"
                    if step == "b1"
                    else f"read_json_objects('{glob}', filename=true)"
                )
                result = measure(duckdb_cmd(args.python, db, f"CREATE TABLE t AS SELECT * FROM {source}"),
                                 allow_failure=True)
                if result is not None:
                    record(step, result)
                db.unlink(missing_ok=True)
            elif step == "c":
                out = work / f"peer-benchmark-{runs}.json"
                record("c", measure([args.skill_benchmark, "benchmark", "manifest.json", "--runs", "eval-runs",
                                     "--out", str(out)], cwd=tree))
        # On the store of a': the lift report, the peer's grades, a re-ingest.
        store = work / f"store-{runs}-{rnd}.duckdb"
        grades = work / f"peer-benchmark-{runs}.json"
        results.setdefault("store_mb", []).append((store.stat().st_size / 1e6, 0))
        record("d", measure([args.liftdb, "--db", str(store), "--format", "csv", "report", "lift"]))
        # Each report REPORT_RUNS times in a row, the fastest the figure: single runs right after
        # a million-run ingest were up to 0.2 s slower, and not for the store's pages (BENCHMARKS.md).
        timed = []
        for name in canned_reports(args.liftdb):
            runs_of = [measure([args.liftdb, "--db", str(store), "--format", "csv", "report", name])
                       for _ in range(REPORT_RUNS)]
            reports_first.setdefault(name, []).append(runs_of[0])
            timed.append(min(runs_of) + (name,))
        for secs, rss, name in timed:
            reports.setdefault(name, []).append((secs, rss))
        slowest = max(timed, key=lambda m: m[0])
        record("r", slowest[:2])
        results.setdefault("r_name", []).append(slowest[2])
        record("k", measure(copy_cmd(args.liftdb, store, slowest[2])))
        record("e", measure([args.liftdb, "--db", str(store), "ingest", "--quiet",
                             str(tree / "eval-runs"), str(tree / "manifest.json")],
                            phases=reingest_phases))
        # At once again: the tree's directories and inodes now in the page cache, as (s) finds them.
        record("e2", measure([args.liftdb, "--db", str(store), "ingest", "--quiet",
                              str(tree / "eval-runs"), str(tree / "manifest.json")],
                             phases=reingest2_phases))
        # After (e) and (e2): its cache as warm as (e2) found it, the floor (e2) is held to.
        record("s", measure(stat_floor_cmd(tree / "eval-runs")))
        if not alone:
            record("g", measure([args.liftdb, "--db", str(store), "ingest", "--quiet", str(grades)]))
        # A shard job of the store's release (the same cases, more runs), on a copy:
        # the addition's folders, once stored, would be unchanged for (i).
        record("i2", measure(shard_addition_cmd(args.liftdb, store_copy(store, "i2"), addition)))
        record("i", measure(release_addition_cmd(args.liftdb, store, addition)))
        if rnd + 1 < rounds:
            store.unlink(missing_ok=True)
    slowest_names = results.pop("r_name")
    store_mb = results.pop("store_mb")
    best = fastest(results)
    best["r_name"] = slowest_names
    return {"runs": runs, "files": files, "tree_mb": size_mb, "best": best, "all": results,
            "alone": alone, "cacheable": cacheable, "store_mb": store_mb[-1][0], "phases": phases,
            "reingest_phases": reingest_phases,
            "reingest2_phases": reingest2_phases,
            "reports": fastest(reports), "reports_first": fastest(reports_first)}


def fastest(measured):
    """Each step's (seconds, MB) runs as one figure: the fastest time and the largest peak RSS."""
    return {k: (min(secs for secs, _ in v), max(mb for _, mb in v)) for k, v in measured.items()}


def machine():
    cpu = "unknown"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "unknown"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.0f} GiB"
    except OSError:
        pass
    return f"{os.cpu_count()} cores ({cpu}), {mem} RAM, {platform.system()} {platform.release()}"


def canned_reports(liftdb):
    """Every canned report but html (a file, not a table): `liftdb report --list` names them."""
    out = subprocess.run([liftdb, "report", "--list", "--max-width", "0"], capture_output=True, text=True).stdout
    names = [line.split()[0] for line in out.splitlines() if line.strip() and not line[0].isspace()]
    return [n for n in names if n != "html"] or FALLBACK_REPORTS


# Runs of each canned report in a row (the first shown beside the fastest).
REPORT_RUNS = 3

FALLBACK_REPORTS = ["lift", "pairs", "blocked", "flags", "reliability", "cost", "ledger", "cost-per-lift",
                    "triggers", "trend", "runs", "formats", "reconcile"]

LABELS = {
    "a": "(a) liftdb ingest of the run tree, new store (no manifest: ungraded)",
    "a2": "(a') liftdb ingest of tree + manifest, graded by liftdb",
    "a0": "(a0) the baseline build's (a'): `--baseline BINARY`, same tree, same rounds",
    "d0": "(d0) the baseline build's (d) on its own store",
    "b1": "(b1) DuckDB read_json → table",
    "b2": "(b2) DuckDB read_json_objects (floor)",
    "c": "(c) skill-benchmark benchmark (peer)",
    "g": "(g) liftdb ingest of the peer's grades",
    "d": "(d) liftdb report lift",
    "e": "(e) liftdb re-ingest, unchanged tree (the page cache as the ingest and the reports left it)",
    "e2": "(e2) the same re-ingest again at once (the tree's directories and inodes in the page cache)",
    "i": "(i) liftdb ingest of 1% more runs into that store, as a release of their own",
    "i2": "(i2) the same 1% as a shard job of the store's own release (a few of its cases changed)",
    "i0": "(i0) the baseline build's (i), on its store of (a0)",
    "i20": "(i20) the baseline build's (i2), on its store of (a0)",
    "f": f"(f) physical floor: every byte of the tree read, {FLOOR_READERS} files at a time (from the page cache where the tree fits it)",
    "f2": f"(f') the same bytes read by `read-tree`: folders walked in parallel, each file opened once and read whole, {FLOOR_READERS} at a time",
    "r": "(r) slowest canned report",
    "k": "(k) that report's rows printed by DuckDB's own COPY (CSV, to /dev/null)",
    "s": f"(s) floor of (e2): every file of the tree listed and stat'ed, {FLOOR_READERS} at a time (run after e2)",
}


BEGIN = "<!-- benches/compare.py writes from here -->"
END = "<!-- benches/compare.py writes up to here -->"


def verdict(ok):
    return "met" if ok else "**missed**"


def write_markdown(args, sizes, path):
    out = []
    out.append("## The last run of `benches/compare.sh`\n")
    out.append(
        "Measured by `benches/compare.sh` in one run, steps alternating between rounds "
        f"({args.rounds} rounds below 50,000 runs, {args.rounds_large} above; figures are the fastest round, peak RSS the largest). "
        "Trees are written by `gen-runs` (skill-eval-harness 0.6.0 layout: metadata.json, "
        "metrics.json, events.json, environment.json, output.md, and a JSONL trace for the "
        "codex-runner model) with its manifest; the page cache is warmed before timing.\n"
    )
    out.append(f"Machine: {machine()}.  \n")
    out.append(f"Peers: DuckDB {args.duckdb_version} (PyPI), skill-eval-harness {args.seh_version} (PyPI).  \n")
    out.append(f"Date: {time.strftime('%Y-%m-%d')}.  \n")
    out.append(f"Rerun: `bash benches/compare.sh {' '.join(str(s['runs']) for s in sizes)}`\n")
    for s in sizes:
        b = s["best"]
        steps = ("f", "f2", "a", "a2", "a0", "b1", "b2", "c", "g", "d", "d0", "e", "e2", "s", "i", "i0", "i2", "i20", "r", "k")
        sec = {k: (b[k][0] if k in b else None) for k in steps}
        f, a, a2, b1, b2, c, g, d, e, i = (sec[k] for k in ("f", "a", "a2", "b1", "b2", "c", "g", "d", "e", "i"))

        def ratio(x, y, fmt):
            return format(x / y, fmt) if x is not None and y else "—"

        out.append(f"\n## {s['runs']:,} runs ({s['files']:,} files, {s['tree_mb']:.0f} MB)\n")
        if s["alone"]:
            out.append(f"liftdb alone at this size (above {args.peer_max_runs:,} runs): the peer (c, g) and "
                       "DuckDB's readers (b1, b2) are not run; (f) is the anchor.\n")
        if not s["cacheable"]:
            out.append("The tree is larger than half the RAM: it was not warmed, and every step (f included) "
                       "read what the page cache could not keep from disk.\n")
        out.append("| step | seconds | peak RSS (MB) | ÷ f | ÷ f' | ÷ b2 | ÷ c |")
        out.append("|---|---:|---:|---:|---:|---:|---:|")
        for k in steps:
            if k not in b:
                if k in ("a0", "d0", "i0", "i20"):
                    continue
                if not s["alone"] or k not in ("a", "b1", "b2", "c", "g"):
                    out.append(f"| {LABELS[k]} | not run (see below) | | | | | |")
                continue
            secs, rss = b[k]
            out.append(
                f"| {LABELS[k]} | {secs:.2f} | {rss:.0f} | {ratio(secs, f, '.2f')} | {ratio(secs, sec['f2'], '.2f')} | {ratio(secs, b2, '.3f')} | {ratio(secs, c, '.4f')} |"
            )
        out.append(f"\nStore: {s['store_mb']:.0f} MB, {s['store_mb'] * 1e6 / s['runs'] / 1024:.1f} KiB per run "
                   f"(the tree: {s['tree_mb'] * 1e6 / s['runs'] / 1024:.1f} KiB per run).\n")
        out.append("Ingest phases of the last (a') (`LIFTDB_TIMINGS=1`): "
                   + ", ".join(f"{name} {secs:.1f} s" for name, secs in s["phases"]) + ".\n")
        for step, key in (("e", "reingest_phases"), ("e2", "reingest2_phases")):
            out.append(f"Phases of the last ({step}): "
                       + ", ".join(f"{name} {secs:.1f} s" for name, secs in s[key]) + ".\n")
        out.append(f"Canned reports on the store of (a'), seconds (peak RSS MB), the fastest of {REPORT_RUNS} runs each: "
                   + ", ".join(f"{n} {t:.2f} ({m:.0f})" for n, (t, m) in sorted(s["reports"].items(), key=lambda kv: -kv[1][0]))
                   + ".\n")
        out.append("The first of those runs: "
                   + ", ".join(f"{n} {t:.2f}" for n, (t, _) in sorted(s["reports_first"].items(), key=lambda kv: -kv[1][0]))
                   + ".\n")
        out.append("Targets:\n")
        if not s["alone"]:
            out.append(f"- (a) within 2× of (b2): a/b2 = {ratio(a, b2, '.2f')} — {verdict(a <= 2 * b2)}")
            out.append(
                f"- (a')+(d) ≥ {20 if s['runs'] < 50_000 else 50}× faster than (c), liftdb grading natively: "
                f"c/(a'+d) = {c / (a2 + d):.1f} — {verdict(c >= (20 if s['runs'] < 50_000 else 50) * (a2 + d))}"
            )
            out.append(f"- (d) ≥ 100× faster than (c): c/d = {c / d:.0f} — {verdict(c >= 100 * d)}")
        if a is not None:
            out.append(f"- native grading's share of (a'): (a'-a)/a' = {(a2 - a) / a2:.3f}")
        if "a0" in b:
            out.append(f"- (a') against the baseline build ({args.baseline_name}): a'/a0 = {ratio(a2, sec['a0'], '.3f')}"
                       + (f", (d)/(d0) = {ratio(d, sec['d0'], '.3f')}" if sec.get("d0") else ""))
        out.append(f"- (a') against the floor: a'/f = {ratio(a2, f, '.2f')}, against the leaner floor a'/f' = {ratio(a2, sec['f2'], '.2f')}")
        if s["runs"] >= 1_000_000:
            out.append(f"- (a') ≤ 5 min at 1M runs: {a2:.0f} s — {verdict(a2 <= 300)}")
        out.append(f"- peak RSS of (a') ≤ 1 GB: {b['a2'][1]:.0f} MB — {verdict(b['a2'][1] <= 1024)}")
        out.append(f"- (e) unchanged re-ingest ≤ 5% of (a'): e/a' = {e / a2:.3f} — {verdict(e <= 0.05 * a2)}; "
                   f"at once again (e2): e2/a' = {ratio(sec['e2'], a2, '.3f')} — {verdict(sec['e2'] is not None and sec['e2'] <= 0.05 * a2)}; "
                   f"its floor (s) alone is s/a' = {ratio(sec['s'], a2, '.3f')}, e2/s = {ratio(sec['e2'], sec['s'], '.2f')}")
        out.append(f"- (i) 1% more runs ≤ 5% of (a'): i/a' = {i / a2:.3f} — {verdict(i <= 0.05 * a2)}"
                   + (f"; against the baseline build i/i0 = {ratio(i, sec['i0'], '.3f')}" if sec.get("i0") else ""))
        out.append(f"- (i2) the same 1% as a shard job of the store's release: i2/a' = {ratio(sec['i2'], a2, '.3f')}, "
                   f"i2/i = {ratio(sec['i2'], i, '.2f')}"
                   + (f"; against the baseline build i2/i20 = {ratio(sec['i2'], sec['i20'], '.3f')}" if sec.get("i20") else ""))
        out.append(f"- every canned report ≤ 0.5 s: slowest {b['r'][0]:.2f} s ({', '.join(sorted(set(b['r_name'])))}) — "
                   f"{verdict(b['r'][0] <= 0.5)}; DuckDB's own COPY of its rows (k) {ratio(sec['k'], 1, '.2f')} s, "
                   f"r/k = {ratio(b['r'][0], sec['k'], '.2f')}; the slowest first run "
                   f"{max(t for t, _ in s['reports_first'].values()):.2f} s")
        out.append("")
        out.append("All rounds (seconds, MB): " + json.dumps({k: [[round(x, 2), round(m)] for x, m in v] for k, v in s["all"].items()}))
    out.append(
        f"\n(b1) is not run above {args.b1_max_runs:,} runs: on these trees DuckDB's read_json schema "
        "inference already took ~17 GB of RAM at 10,000 runs (the nested telemetry objects of metadata.json), "
        "and this machine has 24 GB.\n"
    )
    out.append(
        "\n(g): skill-eval-harness writes no grades into run directories; its `benchmark` command "
        "grades at report time (docs/harnesses.md §C). liftdb stores those grades by ingesting the report, "
        "once; (d) then answers from the store without re-reading the tree.\n"
    )
    generated = "\n".join(out) + "\n"
    # BENCHMARKS.md keeps its hand-kept head (the current figures, the history);
    # only what lies between the markers is this script's.
    old = Path(path).read_text() if Path(path).exists() else ""
    if BEGIN in old and END in old:
        head, rest = old.split(BEGIN, 1)
        tail = rest.split(END, 1)[1]
        Path(path).write_text(head + BEGIN + "\n" + generated + END + tail)
    else:
        Path(path).write_text(old + ("\n" if old else "") + BEGIN + "\n" + generated + END + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sizes", nargs="*", type=int, default=[10_000, 100_000])
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--rounds-large", type=int, default=1, help="rounds for trees of 50,000 runs or more")
    p.add_argument("--peer-max-runs", type=int, default=100_000,
                   help="above this size liftdb runs alone (the peer and DuckDB's readers are skipped)")
    p.add_argument("--b1-max-runs", type=int, default=20_000,
                   help="skip b1 above this size: its schema inference needs ~17 GB at 10,000 runs of these trees")
    p.add_argument("--work", default=os.environ.get("LIFTDB_BENCH_DIR", "/tmp/liftdb-bench"))
    p.add_argument("--liftdb", required=True)
    p.add_argument("--gen-runs", required=True)
    p.add_argument("--read-tree", required=True)
    p.add_argument("--python", default=sys.executable)
    p.add_argument("--skill-benchmark", default="skill-benchmark")
    p.add_argument("--out", default=str(ROOT / "BENCHMARKS.md"))
    p.add_argument("--baseline", help="another liftdb binary whose (a') and (d) are measured beside this one's")
    p.add_argument("--baseline-name", default="baseline", help="what the baseline is, for the write-up")
    args = p.parse_args()
    args.duckdb_version = subprocess.run(
        [args.python, "-c", "import duckdb; print(duckdb.__version__)"], capture_output=True, text=True
    ).stdout.strip()
    args.seh_version = subprocess.run(
        [args.python, "-c", "import importlib.metadata as m; print(m.version('skill-eval-harness'))"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    sizes = []
    for runs in args.sizes:
        print(f"== {runs} runs", flush=True)
        s = bench_size(args, runs, work)
        print(json.dumps({k: [round(v[0], 2), round(v[1])] for k, v in s["best"].items() if k != "r_name"}), flush=True)
        sizes.append(s)
        write_markdown(args, sizes, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
