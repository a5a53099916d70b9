# Sourced by scripts/test: a Python venv holding the real consumers some tests
# hand liftdb's output to (junitparser reads the gate's JUnit as CI tools do).
# Exports LIFTDB_TEST_PYTHON, its interpreter.
test_venv="${LIFTDB_TEST_VENV:-$HOME/.cache/liftdb-test-venv}"
if ! "$test_venv/bin/python" -c 'import junitparser' >/dev/null 2>&1; then
    echo "scripts/test: installing junitparser (PyPI) into $test_venv" >&2
    python3 -m venv "$test_venv"
    "$test_venv/bin/pip" install --quiet "junitparser==3.*"
fi
export LIFTDB_TEST_PYTHON="$test_venv/bin/python"
