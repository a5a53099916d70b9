#!/usr/bin/env bash
# Four matrix jobs at one checkout path (a mount namespace each) against the
# same four at four paths, into one lake: CPU-seconds and tries. Writes its
# section of BENCHMARKS.md. Usage: bash benches/one_path.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/liftdb-target}
cargo build --release --bins
source scripts/lake-services.sh
source benches/venv.sh
exec "$VENV/bin/python" benches/one_path.py \
  --liftdb "$CARGO_TARGET_DIR/release/liftdb" \
  --gen-runs "$CARGO_TARGET_DIR/release/gen-runs" "$@"
