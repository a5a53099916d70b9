#!/usr/bin/env python3
"""Team mode across a network: the catalog's round trips per command, and
what a catalog D ms away costs, measured in one run.

Run through `bash benches/lake.sh network` (it builds liftdb, starts
PostgreSQL and fetches the extensions as scripts/test does). Every command
reaches PostgreSQL through benches/netproxy.py, which counts round trips (a
client send after a server reply) and holds each chunk D ms each way. For
each D in 0, 2 and 10 ms, on a new lake:

  init     liftdb lake init
  ingest   liftdb ingest of a 1,250-run tree (its refill included)
  report   liftdb report lift (the fastest of three)
  defer    liftdb ingest of another 1,250-run tree, --defer-refill
  ro-wait  report lift by a role that may only read, while that batch waits
  refresh  liftdb lake refresh (refills the deferred batch's release)
  ro       report lift by that role when nothing waits
  floor    DuckDB itself (Python, the same engine and extensions): attach
           the lake and read the view report lift reads: DuckLake's own
           round trips for the same answer

The anchor of each ratio is measured in the same run: an ingest at D = 10
against the same ingest at D = 0; the read-only answer while a batch waits
against the same answer when nothing waits. The ingest's phases
(LIFTDB_TIMINGS) at D = 10 minus D = 0, over 2·D, say where its round trips
go. Targets (#72): ≤ 300 round trips for one ingest, ≤ 200 for a refresh,
≤ 40 for a report; at D = 10 an ingest ≤ 2× its time at D = 0.
"""

import argparse
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lake import gen, write_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BEGIN = "<!-- benches/lake_network.py writes from here -->"
END = "<!-- benches/lake_network.py writes up to here -->"
PROXY, CONTROL = 47101, 47102
DELAYS = (0, 2, 10)


def pg_settings():
    return dict(kv.split("=", 1) for kv in os.environ["LIFTDB_TEST_PG"].split())


def pg(*cmd, sql=None):
    s = pg_settings()
    args = [os.path.join(os.environ["LIFTDB_TEST_PG_BIN"], cmd[0]), "-h", s["host"], "-p", s["port"],
            "-U", "postgres", *cmd[1:]]
    if sql:
        args += ["-v", "ON_ERROR_STOP=1", "-c", sql]
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def control(line):
    """Send the proxy a control line; its counts since the last one."""
    with socket.create_connection(("127.0.0.1", CONTROL)) as s:
        s.sendall(line.encode() + b"\n")
        round_trips, _ = s.recv(100).decode().split()
    return int(round_trips)


def timed(cmd, env=None):
    """(seconds, round trips, stderr) of one command through the proxy."""
    control("reset")
    started = time.monotonic()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          env={**os.environ, **(env or {})})
    seconds = time.monotonic() - started
    trips = control("count")
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd[-4:])}: exit {done.returncode}\n{done.stderr[-3000:]}")
    return seconds, trips, done.stderr


def phases(stderr):
    """The ingest's phases as LIFTDB_TIMINGS prints them: name -> seconds."""
    found = {}
    for m in re.finditer(r"^timing: (.+?)\s+([0-9.]+) s ", stderr, re.M):
        found[m.group(1).strip()] = found.get(m.group(1).strip(), 0) + float(m.group(2))
    return found


def floor(catalog, release):
    """DuckDB alone reading report lift's view over the proxy: (s, round trips)."""
    import duckdb
    control("reset")
    started = time.monotonic()
    conn = duckdb.connect(config={"extension_directory": os.environ["LIFTDB_TEST_EXTENSION_DIR"],
                                  "autoinstall_known_extensions": "false"})
    conn.execute("LOAD ducklake; LOAD postgres_scanner; SET pg_pool_health_check_query = ''")
    conn.execute(f"ATTACH '{catalog}' AS lake (READ_ONLY); USE lake")
    conn.execute("SELECT * FROM lift WHERE release_label = ?", [release]).fetchall()
    conn.close()
    return time.monotonic() - started, control("count")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--liftdb", required=True)
    p.add_argument("--gen-runs", required=True)
    p.add_argument("--runs", type=int, default=1250)
    p.add_argument("--work", default=os.environ.get("LIFTDB_BENCH_DIR", "/tmp/liftdb-bench") + "/network")
    p.add_argument("--out", default=str(ROOT / "BENCHMARKS.md"))
    args = p.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    a = gen(args, work / f"a-{args.runs}", args.runs, 11, "runs-a")
    b = gen(args, work / f"b-{args.runs}", args.runs, 12, "runs-b")
    s = pg_settings()
    proxy = subprocess.Popen([sys.executable, str(ROOT / "benches/netproxy.py"), "--listen", str(PROXY),
                              "--to", f"{s['host']}:{s['port']}", "--control", str(CONTROL)])
    time.sleep(1)
    reader = f"bench_reader_{os.getpid()}"
    pg("psql", "-d", "postgres", sql=f"DROP ROLE IF EXISTS {reader}; CREATE ROLE {reader} LOGIN")
    results = {}
    try:
        for delay in DELAYS:
            name = f"bench_net_{delay}"
            pg("dropdb", "--if-exists", name)
            pg("createdb", name)
            data = work / f"{name}-data"
            subprocess.run(["rm", "-rf", str(data)], check=True)
            data.mkdir()
            catalog = f"ducklake:postgres:dbname={name} host=127.0.0.1 port={PROXY} user=postgres"
            as_role = lambda role: [args.liftdb, "--db", catalog.replace("user=postgres", f"user={role}"),
                                    "--extension-dir", os.environ["LIFTDB_TEST_EXTENSION_DIR"]]
            lake = as_role("postgres")
            control(f"delay {delay}")
            r = results[delay] = {}
            r["init"] = timed([*lake, "--data-path", str(data), "lake", "init"])
            pg("psql", "-d", name, sql=f"GRANT CONNECT ON DATABASE {name} TO {reader}; GRANT USAGE ON SCHEMA public TO {reader}; "
                                       f"GRANT SELECT ON ALL TABLES IN SCHEMA public TO {reader}; "
                                       f"ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO {reader}")
            r["ingest"] = timed([*lake, "ingest", "--quiet", "--release", "a", *a], env={"LIFTDB_TIMINGS": "1"})
            r["report"] = min((timed([*lake, "report", "lift", "--format", "csv"]) for _ in range(3)),
                              key=lambda t: t[0])
            r["defer"] = timed([*lake, "ingest", "--quiet", "--release", "b", "--defer-refill", *b])
            r["ro-wait"] = min((timed([*as_role(reader), "report", "lift", "--format", "csv"]) for _ in range(3)),
                               key=lambda t: t[0])
            r["refresh"] = timed([*lake, "lake", "refresh"])
            r["ro"] = min((timed([*as_role(reader), "report", "lift", "--format", "csv"]) for _ in range(3)),
                          key=lambda t: t[0])
            r["floor"] = floor(catalog, "b") + ("",)
            print(delay, {k: (round(v[0], 2), v[1]) for k, v in r.items()}, flush=True)
    finally:
        control("delay 0")
        proxy.terminate()
    d0, d10 = results[0], results[10]
    ingest_phases = (phases(d0["ingest"][2]), phases(d10["ingest"][2]))
    by_phase = sorted(((name, (ingest_phases[1].get(name, 0) - secs) / 0.020)
                       for name, secs in ingest_phases[0].items()), key=lambda x: -x[1])
    target = {"ingest": 300, "refresh": 200, "report": 40, "ro": 40}
    labels = {
        "init": "`lake init`", "ingest": f"ingest of {args.runs:,} runs (its refill included)",
        "report": "`report lift`", "defer": f"ingest of {args.runs:,} runs, `--defer-refill`",
        "ro-wait": "`report lift`, read-only role, a batch waiting", "refresh": "`lake refresh` (one release waits)",
        "ro": "`report lift`, read-only role, nothing waiting",
        "floor": "DuckDB alone: attach the lake, read the view `lift`",
    }
    lines = [
        f"## Team mode across a network (`bash benches/lake.sh network`)\n",
        f"Date: {time.strftime('%Y-%m-%d')}; DuckDB 1.5.5 with its ducklake and postgres_scanner; PostgreSQL "
        "(Debian) on this machine reached through benches/netproxy.py, which counts round trips and holds each "
        "chunk D ms each way (a round trip costs 2·D more); one run per D, reports the fastest of three.\n",
        "| command | round trips | target | s at D = 0 | s at D = 2 | s at D = 10 | D = 10 / D = 0 |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for key, label in labels.items():
        trips = d0[key][1]
        goal = target.get(key)
        verdict = "" if goal is None else f"≤ {goal} — {'met' if trips <= goal else '**missed**'}"
        lines.append(f"| {label} | {trips:,} | {verdict} | {d0[key][0]:.2f} | {results[2][key][0]:.2f} | "
                     f"{d10[key][0]:.2f} | {d10[key][0] / d0[key][0]:.1f} |")
    ratio = d10["ingest"][0] / d0["ingest"][0]
    lines += [
        "",
        f"- Ingest at D = 10 against D = 0 (same run): {ratio:.1f}× (target ≤ 2 — "
        f"{'met' if ratio <= 2 else '**missed**'}).",
        f"- The read-only answer while a batch waits against the same answer when nothing waits (D = 0, same run): "
        f"{d0['ro-wait'][0] / d0['ro'][0]:.2f}× ({d0['ro-wait'][1]} against {d0['ro'][1]} round trips).",
        "- Where the ingest's round trips go (phase seconds at D = 10 minus D = 0, over 20 ms): "
        + "; ".join(f"{name} ≈ {trips:.0f}" for name, trips in by_phase[:8] if trips >= 5) + ".",
        "",
    ]
    text = "\n".join(lines)
    write_section(Path(args.out), BEGIN, END, text)
    print(text)


if __name__ == "__main__":
    main()
