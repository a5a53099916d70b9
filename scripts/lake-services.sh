# Sourced by scripts/test: what the team-mode tests drive, set up offline.
# - Debian's PostgreSQL, installed when missing;
# - DuckDB's ducklake and postgres_scanner extensions of the engine's version,
#   from their PyPI packages (pip download), into a cache folder;
# - a PostgreSQL server for this run, as a non-root user, on 127.0.0.1 in a
#   temporary folder, stopped when the sourcing shell exits.
# Exports LIFTDB_TEST_PG (connection settings), LIFTDB_TEST_PG_BIN (its
# programs) and LIFTDB_TEST_EXTENSION_DIR for the tests.

DUCKDB_VERSION=1.5.5
sudo_=""
[ "$(id -u)" -eq 0 ] || sudo_=sudo

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
if [ -z "$(pg_bin)" ] || ! python3 -m pip --version >/dev/null 2>&1; then
    echo "scripts/test: installing postgresql, python3-pip (Debian packages)" >&2
    $sudo_ apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq postgresql python3-pip
fi
export LIFTDB_TEST_PG_BIN="$(pg_bin)"

ext_root="${LIFTDB_EXTENSION_CACHE:-$HOME/.cache/liftdb-extensions}"
ext_dir="$ext_root/v$DUCKDB_VERSION/linux_amd64"
if [ ! -f "$ext_dir/ducklake.duckdb_extension" ] || [ ! -f "$ext_dir/postgres_scanner.duckdb_extension" ]; then
    echo "scripts/test: fetching the DuckLake extensions for DuckDB $DUCKDB_VERSION (PyPI)" >&2
    wheels="$(mktemp -d)"
    python3 -m pip download --quiet --no-deps --dest "$wheels" \
        "duckdb-extension-ducklake==$DUCKDB_VERSION" "duckdb-extension-postgres-scanner==$DUCKDB_VERSION"
    mkdir -p "$ext_dir"
    python3 - "$wheels" "$ext_dir" <<'PY'
import pathlib, sys, zipfile
wheels, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for wheel in wheels.glob("*.whl"):
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.endswith(".duckdb_extension"):
                (out / pathlib.Path(name).name).write_bytes(z.read(name))
PY
    rm -rf "$wheels"
fi
export LIFTDB_TEST_EXTENSION_DIR="$ext_root"

# The server: a free port, a folder the postgres user owns (initdb refuses root).
pg_dir="$(mktemp -d /tmp/liftdb-pg.XXXXXX)"
pg_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
as_pg=()
if [ "$(id -u)" -eq 0 ]; then
    chown postgres "$pg_dir"
    as_pg=(runuser -u postgres --)
fi
"${as_pg[@]}" "$LIFTDB_TEST_PG_BIN/initdb" -D "$pg_dir/data" --auth=trust -U postgres >/dev/null
"${as_pg[@]}" "$LIFTDB_TEST_PG_BIN/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/log" \
    -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $pg_dir -c max_connections=200" -w start >/dev/null
stop_pg() { "${as_pg[@]}" "$LIFTDB_TEST_PG_BIN/pg_ctl" -D "$pg_dir/data" -m fast stop >/dev/null 2>&1; rm -rf "$pg_dir"; }
trap stop_pg EXIT
export LIFTDB_TEST_PG="host=127.0.0.1 port=$pg_port user=postgres"
