#!/usr/bin/env bash
# Benchmark liftdb against DuckDB's own JSON readers and skill-eval-harness on
# generated run trees; writes BENCHMARKS.md. Usage: bash benches/compare.sh [RUNS ...]
# (default: 10000 100000). Trees and stores go to $LIFTDB_BENCH_DIR (/tmp/liftdb-bench).
# LIFTDB_BASELINE=BINARY (and LIFTDB_BASELINE_NAME) measures another build's ingest beside this one's.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/liftdb-target}
cargo build --release --bins
source benches/venv.sh
exec "$VENV/bin/python" benches/compare.py \
  --liftdb "$CARGO_TARGET_DIR/release/liftdb" \
  --gen-runs "$CARGO_TARGET_DIR/release/gen-runs" \
  --read-tree "$CARGO_TARGET_DIR/release/read-tree" \
  --skill-benchmark "$VENV/bin/skill-benchmark" \
  ${LIFTDB_BASELINE:+--baseline "$LIFTDB_BASELINE" --baseline-name "${LIFTDB_BASELINE_NAME:-baseline}"} "$@"
