#!/usr/bin/env bash
# The sequential gate against the fixed-sample gate, on the skill-eval-harness
# corpus (558 runs) and on a 10,000-run release. Writes its section of
# BENCHMARKS.md. Usage: bash benches/gate.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/liftdb-target}
cargo build --release --bins
exec python3 benches/gate.py \
  --liftdb "$CARGO_TARGET_DIR/release/liftdb" \
  --gen-runs "$CARGO_TARGET_DIR/release/gen-runs" "$@"
