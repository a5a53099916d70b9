#!/usr/bin/env python3
"""Matrix jobs at one checkout path against the same jobs at four paths.

Run through benches/one_path.sh (it builds liftdb and starts PostgreSQL as
scripts/test does). One suite's repetitions split across four shard jobs
(`--shard job-N`, each its own host name, its tree and the suite's manifest)
ingest at once into a new lake:

  P   each tree at its own path
  O   each tree at one path, every job in its own mount namespace
      (`unshare --mount` and a bind mount), as GitHub runners check a
      repository out at the same path

CPU-seconds (user + system) of the four jobs, and the tries they took
(`ingest --json`): at one path no job may meet another's runs, so O's CPU is
P's (issue #69: O/P near 1.0, every job on its first try).
"""

import argparse
import json
import os
import resource
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lake import new_lake, write_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BEGIN = "<!-- benches/one_path.py writes from here -->"
END = "<!-- benches/one_path.py writes up to here -->"


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def shards_by_repetition(args, work, runs):
    """One suite of `runs` runs, four repetitions, split into four jobs'
    trees by repetition (each numbering its runs from run-1), each with the
    suite's manifest: one repository checked out by four matrix jobs."""
    gathered = work / f"suite-{runs}"
    if not (gathered / "manifest.json").exists():
        shutil.rmtree(gathered, ignore_errors=True)
        subprocess.run([args.gen_runs, "--runs", str(runs), "--reps", "4", "--seed", "300",
                        "--out", str(gathered)], check=True, stdout=subprocess.DEVNULL)
    trees = []
    for k in range(1, 5):
        out = work / f"job-{runs}-{k}"
        if not (out / "manifest.json").exists():
            shutil.rmtree(out, ignore_errors=True)
            shutil.copytree(gathered, out)
            for run in sorted(out.glob("eval-runs/**/run-*")):
                if run.name != f"run-{k}":
                    shutil.rmtree(run)
                else:
                    run.rename(run.with_name("run-1"))
        trees.append(out)
    return trees


def fan_out(args, work, trees, one_path):
    lake = new_lake(args, "bench_onepath", work)
    subprocess.run([*lake, "lake", "init"], check=True, stderr=subprocess.DEVNULL)
    at = work / "checkout"
    at.mkdir(exist_ok=True)
    started, cpu = time.monotonic(), children_cpu()
    procs = []
    for i, tree in enumerate(trees, start=1):
        where = at if one_path else tree
        ingest = [*lake, "ingest", "--json", "--release", "matrix", "--shard", f"job-{i}",
                  str(where / "eval-runs"), str(where / "manifest.json")]
        cmd = ingest
        if one_path:
            script = f"mount --bind {shlex.quote(str(tree))} {shlex.quote(str(at))} && exec {shlex.join(ingest)}"
            cmd = ["unshare", "--mount", "--propagation", "private", "sh", "-c", script]
        env = dict(os.environ, LIFTDB_HOST=f"runner-{i}")
        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env))
    tries = 0
    for p in procs:
        out, err = p.communicate()
        if p.returncode != 0:
            sys.exit(f"a job failed: {err[-2000:]}")
        tries += json.loads(out)["tries"]
    return time.monotonic() - started, children_cpu() - cpu, tries


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("runs", nargs="?", type=int, default=5_000)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--liftdb", required=True)
    p.add_argument("--gen-runs", required=True)
    p.add_argument("--work", default=os.environ.get("LIFTDB_BENCH_DIR", "/tmp/liftdb-bench") + "/one-path")
    p.add_argument("--out", default=str(ROOT / "BENCHMARKS.md"))
    args = p.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    share = args.runs // 4
    trees = shards_by_repetition(args, work, args.runs)
    results = {}
    for rnd in range(args.rounds):
        for step in (["P", "O"] if rnd % 2 == 0 else ["O", "P"]):
            results.setdefault(step, []).append(fan_out(args, work, trees, step == "O"))
        print(results, flush=True)
    cpu = {k: min(c for _, c, _ in v) for k, v in results.items()}
    wall = {k: min(w for w, _, _ in v) for k, v in results.items()}
    tries = {k: max(t for _, _, t in v) for k, v in results.items()}
    lines = [
        f"## Matrix jobs at one checkout path ({args.runs:,} runs, `bash benches/one_path.sh {args.runs}`)\n",
        f"Date: {time.strftime('%Y-%m-%d')}; {args.rounds} rounds, steps alternating, the least of each; four "
        f"shard jobs of {share:,} runs at once into a new lake (PostgreSQL on this machine, data on local disk), "
        "each its own host name.\n",
        "| step | wall seconds | CPU-seconds | tries (4 = none repeated) | ratio |",
        "|---|---:|---:|---:|---:|",
        f"| (P) four paths | {wall['P']:.2f} | {cpu['P']:.2f} | {tries['P']} | 1.00 |",
        f"| (O) one path, a mount namespace per job | {wall['O']:.2f} | {cpu['O']:.2f} | {tries['O']} | O/P (CPU) = {cpu['O'] / cpu['P']:.2f} |",
        "",
        "All rounds (wall, CPU, tries): " + str({k: [(round(w, 2), round(c, 2), t) for w, c, t in v] for k, v in results.items()}),
        "",
    ]
    text = "\n".join(lines)
    write_section(Path(args.out), BEGIN, END, text)
    print(text)


if __name__ == "__main__":
    main()
