#!/usr/bin/env bash
# Large stores within the memory budget: a million runs under the default budget, 200,000
# under --memory-mb 205, a 100,000-run lake's refresh (benches/memory.py says each step).
# Writes its section of BENCHMARKS.md. Usage: bash benches/memory.sh [RUNS:BUDGET ...] [--lake-runs N]
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/liftdb-target}
cargo build --release --bins
source scripts/lake-services.sh
source benches/venv.sh
exec "$VENV/bin/python" benches/memory.py \
  --liftdb "$CARGO_TARGET_DIR/release/liftdb" \
  --gen-runs "$CARGO_TARGET_DIR/release/gen-runs" \
  --read-tree "$CARGO_TARGET_DIR/release/read-tree" "$@"
