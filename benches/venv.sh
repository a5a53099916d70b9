# Sourced by the benchmarks: a Python venv with the DuckDB the duckdb crate
# bundles (=1.10505.0 is DuckDB 1.5.5) and the peer harness; sets VENV.
VENV=${LIFTDB_BENCH_VENV:-$HOME/.cache/liftdb-bench-venv-1.5.5}
if [ ! -x "$VENV/bin/skill-benchmark" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet duckdb==1.5.5 skill-eval-harness==0.6.0
fi
