#!/usr/bin/env bash
# Team mode against one file, on the same trees: a lake (PostgreSQL catalog,
# Parquet data) ingesting a 10,000-run tree beside a file store; eight writers
# of 1,250 runs each at once beside one writer of the 10,000; report lift on
# both, beside DuckDB itself attaching the lake. Writes its section of BENCHMARKS.md. Usage: bash benches/lake.sh [RUNS]
# `bash benches/lake.sh network`: the catalog's round trips per command and
# what a catalog 2 and 10 ms away costs (benches/lake_network.py, its own section).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/liftdb-target}
cargo build --release --bins
source scripts/lake-services.sh
source benches/venv.sh
if [ "${1:-}" = network ]; then
  shift
  exec "$VENV/bin/python" benches/lake_network.py \
    --liftdb "$CARGO_TARGET_DIR/release/liftdb" \
    --gen-runs "$CARGO_TARGET_DIR/release/gen-runs" "$@"
fi
exec "$VENV/bin/python" benches/lake.py \
  --liftdb "$CARGO_TARGET_DIR/release/liftdb" \
  --gen-runs "$CARGO_TARGET_DIR/release/gen-runs" "$@"
