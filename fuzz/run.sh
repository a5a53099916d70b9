#!/usr/bin/env bash
# Fuzz the format adapters: bash fuzz/run.sh [SECONDS per target] [TARGET ...]
# Needs a nightly toolchain and cargo-fuzz (cargo install cargo-fuzz). The
# targets link liftdb without its `store` feature, so no DuckDB is compiled.
# Crashes land in fuzz/artifacts/<target>/; each target's last stats line in
# fuzz/logs/<target>.log.
set -euo pipefail
cd "$(dirname "$0")"
SECS=${1:-600}; shift || true
TARGETS=${*:-seh handbook skill_creator promptfoo}
python3 seed_corpus.py
mkdir -p logs
for t in $TARGETS; do
  cargo +nightly fuzz run "$t" corpus/"$t" -- \
    -max_total_time="$SECS" -max_len=65536 -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
    > "logs/$t.log" 2>&1 || { echo "$t: crash, see fuzz/logs/$t.log and fuzz/artifacts/$t/"; exit 1; }
  grep -E "^(#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb)" "logs/$t.log" | sed "s/^/$t: /"
done
