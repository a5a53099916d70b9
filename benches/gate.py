#!/usr/bin/env python3
"""`gate --sequential` against the fixed-sample gate (#70).

Run through benches/gate.sh. Each gate is run ROUNDS times, the two kinds
alternating, the fastest run the figure (seconds of wall time):

  F   gate --min-lift 0 --significant   (the fixed-sample gate: the anchor)
  S   gate --min-lift 0 --sequential
  C   gate --sequential --min-lift 0 --non-inferiority-margin 0.1
      --no-significant-regression against the release before it

on the skill-eval-harness corpus the tests use (558 runs: its run tree, its
manifest, its reports) and on a release of RUNS runs (default 10,000) written
by gen-runs, with a second release of as many runs as its baseline.
Targets: S/F <= 2 on the corpus, S <= 0.5 s at 10,000 runs.
"""

import argparse
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lake import write_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
BEGIN = "<!-- benches/gate.py writes from here -->"
END = "<!-- benches/gate.py writes up to here -->"
ROUNDS = 5


def timed(cmd):
    started = time.monotonic()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.monotonic() - started
    if done.returncode not in (0, 1, 3):
        sys.exit(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr}")
    return elapsed


def ingest(liftdb, db, release, paths):
    subprocess.run([liftdb, "--db", str(db), "ingest", "--release", release, *map(str, paths)],
                   check=True, stdout=subprocess.DEVNULL)


def gates(liftdb, db, release, baseline):
    base = [liftdb, "--db", str(db), "gate", "--release", release, "--format", "json"]
    kinds = {
        "F": base + ["--min-lift", "0", "--significant"],
        "S": base + ["--min-lift", "0", "--sequential"],
    }
    if baseline:
        kinds["C"] = base + ["--baseline", baseline, "--sequential", "--min-lift", "0",
                             "--non-inferiority-margin", "0.1", "--no-significant-regression"]
    for cmd in kinds.values():
        timed(cmd)  # warm: the store's pages, the binary
    times = {k: [] for k in kinds}
    for _ in range(ROUNDS):
        for k, cmd in kinds.items():
            times[k].append(timed(cmd))
    return {k: min(v) for k, v in times.items()}, times


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--liftdb", required=True)
    ap.add_argument("--gen-runs", required=True)
    ap.add_argument("runs", nargs="?", type=int, default=10000)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="liftdb-gate-bench-"))
    seh = ROOT / "tests/fixtures/skill-eval-harness"
    corpus = work / "corpus.duckdb"
    ingest(args.liftdb, corpus, "corpus",
           [seh / "runs/eval-runs", seh / "input/evals/shared-benchmark.json", seh / "reference"])
    small, small_all = gates(args.liftdb, corpus, "corpus", None)

    big = work / "big.duckdb"
    for release, seed in (("r1", 1), ("r2", 2)):
        tree = work / release
        subprocess.run([args.gen_runs, "--runs", str(args.runs), "--seed", str(seed), "--out", str(tree)],
                       check=True, stdout=subprocess.DEVNULL)
        ingest(args.liftdb, big, release, [tree / "eval-runs", tree / "manifest.json"])
    large, large_all = gates(args.liftdb, big, "r2", "r1")

    text = f"""## The sequential gate (#70, `bash benches/gate.sh {args.runs}`)

Each gate run {ROUNDS} times, the kinds alternating, the fastest the figure; machine: {platform.machine()},
{subprocess.run(['nproc'], capture_output=True, text=True).stdout.strip()} cores, {platform.platform()};
date: {time.strftime('%Y-%m-%d')}. F: `gate --min-lift 0 --significant` (the fixed-sample gate, the
anchor); S: `gate --min-lift 0 --sequential`; C: `--sequential` with `--min-lift 0
--non-inferiority-margin 0.1 --no-significant-regression` against the release before.

| store | F (s) | S (s) | S/F | C (s) | C/F |
|---|---:|---:|---:|---:|---:|
| skill-eval-harness corpus, 558 runs | {small['F']:.3f} | {small['S']:.3f} | {small['S'] / small['F']:.2f} | | |
| gen-runs, {args.runs:,} runs a release (two releases) | {large['F']:.3f} | {large['S']:.3f} | {large['S'] / large['F']:.2f} | {large['C']:.3f} | {large['C'] / large['F']:.2f} |

Targets: S/F ≤ 2 on the corpus: {small['S'] / small['F']:.2f} — {'met' if small['S'] <= 2 * small['F'] else '**missed**'};
S ≤ 0.5 s on a 10,000-run release: {large['S']:.3f} s — {'met' if large['S'] <= 0.5 else '**missed**'}.

All runs (seconds): corpus {({k: [round(x, 3) for x in v] for k, v in small_all.items()})};
{args.runs:,} runs {({k: [round(x, 3) for x in v] for k, v in large_all.items()})}.

"""
    write_section(ROOT / "BENCHMARKS.md", BEGIN, END, text)
    print(text)


if __name__ == "__main__":
    main()
