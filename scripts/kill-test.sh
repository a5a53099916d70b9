#!/usr/bin/env bash
# The atomicity check with its full 50 trials (CI runs 8): liftdb ingest is
# killed with SIGKILL at spread-out moments; every store must hold all of the
# batch or none of it.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/liftdb-target}"
LIFTDB_KILL_TRIALS="${LIFTDB_KILL_TRIALS:-50}" cargo test --release --test it -- atomicity --nocapture
