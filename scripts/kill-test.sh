#!/usr/bin/env bash
# The atomicity check with its full trials (CI runs 8): liftdb ingest is
# killed with SIGKILL at spread-out moments; every store must hold all of the
# batch or none of it. `--runs N` makes the batch a gen-runs tree of N runs
# (e.g. 100000: kills then land in parse, append and the final commit and
# checkpoint alike); `--trials T` sets the number of kills (default 50, 10
# with --runs).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/liftdb-target}"
runs=""
trials=""
while (($#)); do
    case "$1" in
        --runs) runs="$2"; shift 2 ;;
        --trials) trials="$2"; shift 2 ;;
        *) echo "usage: $0 [--runs N] [--trials T]" >&2; exit 2 ;;
    esac
done
if [ -n "$runs" ]; then
    export LIFTDB_KILL_RUNS="$runs"
    trials="${trials:-10}"
fi
LIFTDB_KILL_TRIALS="${trials:-50}" cargo test --release --test it -- atomicity --nocapture
