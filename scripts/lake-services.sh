# Sourced by scripts/test: what the team-mode tests drive, set up offline.
# - Debian's PostgreSQL, installed when missing;
# - DuckDB's ducklake, postgres_scanner, httpfs and aws extensions of the
#   engine's version, from their PyPI packages (pip download), into a cache
#   folder in DuckDB's own layout;
# - a PostgreSQL server for this run, as a non-root user, on 127.0.0.1 in a
#   temporary folder;
# - an S3-compatible server (PyPI moto[server], in a venv) on 127.0.0.1 that
#   checks credentials: an access key made for the tests, a bucket for them;
# both stopped when the sourcing shell exits.
# Exports LIFTDB_TEST_PG (connection settings), LIFTDB_TEST_PG_BIN (its
# programs), LIFTDB_TEST_EXTENSION_DIR (DuckDB's layout),
# LIFTDB_TEST_EXTENSION_WHEELS (the same as pip download wrote them), and LIFTDB_TEST_S3_ENDPOINT,
# LIFTDB_TEST_S3_KEY_ID, LIFTDB_TEST_S3_SECRET, LIFTDB_TEST_S3_BUCKET.

DUCKDB_VERSION=1.5.5
sudo_=""
[ "$(id -u)" -eq 0 ] || sudo_=sudo

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }
# The S3 server's venv needs ensurepip (Debian's python3-venv).
if [ -z "$(pg_bin)" ] || ! python3 -m pip --version >/dev/null 2>&1 \
    || ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
    echo "scripts/test: installing postgresql, python3-pip, python3-venv (Debian packages)" >&2
    $sudo_ apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq postgresql python3-pip python3-venv
fi
export LIFTDB_TEST_PG_BIN="$(pg_bin)"

ext_root="${LIFTDB_EXTENSION_CACHE:-$HOME/.cache/liftdb-extensions}"
ext_dir="$ext_root/v$DUCKDB_VERSION/linux_amd64"
wheel_dir="$ext_root/wheels"
extensions=(ducklake postgres_scanner httpfs aws)
missing_wheels=()
for ext in "${extensions[@]}"; do
    compgen -G "$wheel_dir/duckdb_extension_${ext}-$DUCKDB_VERSION-*.whl" >/dev/null \
        || missing_wheels+=("duckdb-extension-${ext//_/-}==$DUCKDB_VERSION")
done
if ((${#missing_wheels[@]})); then
    echo "scripts/test: fetching DuckDB $DUCKDB_VERSION extensions from PyPI: ${missing_wheels[*]}" >&2
    mkdir -p "$wheel_dir"
    python3 -m pip download --quiet --no-deps --dest "$wheel_dir" "${missing_wheels[@]}"
fi
# DuckDB's own layout, unpacked from the wheels (the tests read both).
mkdir -p "$ext_dir"
python3 - "$wheel_dir" "$ext_dir" <<'PY'
import pathlib, sys, zipfile
wheels, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for wheel in wheels.glob("*.whl"):
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            target = out / pathlib.Path(name).name
            if name.endswith(".duckdb_extension") and not target.exists():
                target.write_bytes(z.read(name))
PY
export LIFTDB_TEST_EXTENSION_DIR="$ext_root"
export LIFTDB_TEST_EXTENSION_WHEELS="$wheel_dir"

# The server: a free port, a folder the postgres user owns (initdb refuses root).
pg_dir="$(mktemp -d /tmp/liftdb-pg.XXXXXX)"
pg_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
as_pg=()
if [ "$(id -u)" -eq 0 ]; then
    chown postgres "$pg_dir"
    as_pg=(runuser -u postgres --)
fi
"${as_pg[@]}" "$LIFTDB_TEST_PG_BIN/initdb" -D "$pg_dir/data" --auth=trust -U postgres >/dev/null
# Every role is trusted but one, whose password is checked: the tests of a
# wrong password in a connection string log in as it.
{ echo "host all liftdb_password_checked 127.0.0.1/32 scram-sha-256"; cat "$pg_dir/data/pg_hba.conf"; } \
    > "$pg_dir/hba" && cat "$pg_dir/hba" > "$pg_dir/data/pg_hba.conf"
"${as_pg[@]}" "$LIFTDB_TEST_PG_BIN/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/log" \
    -o "-c listen_addresses=127.0.0.1 -p $pg_port -k $pg_dir -c max_connections=200" -w start >/dev/null
export LIFTDB_TEST_PG="host=127.0.0.1 port=$pg_port user=postgres"

# The S3-compatible server: moto in a venv of its own, credentials checked
# (its first 3 requests are free: they make the tests' user, its access key
# and its policy; every later request must be signed with that key).
s3_venv="${LIFTDB_S3_VENV:-$HOME/.cache/liftdb-s3-venv}"
if [ ! -x "$s3_venv/bin/moto_server" ]; then
    echo "scripts/test: installing moto[server] (PyPI) into $s3_venv" >&2
    python3 -m venv "$s3_venv"
    "$s3_venv/bin/pip" install --quiet "moto[server]==5.*"
fi
s3_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
INITIAL_NO_AUTH_ACTION_COUNT=3 "$s3_venv/bin/moto_server" -H 127.0.0.1 -p "$s3_port" >"$pg_dir/s3.log" 2>&1 &
s3_pid=$!
stop_services() {
    kill "$s3_pid" 2>/dev/null
    "${as_pg[@]}" "$LIFTDB_TEST_PG_BIN/pg_ctl" -D "$pg_dir/data" -m fast stop >/dev/null 2>&1
    rm -rf "$pg_dir"
}
trap stop_services EXIT
export LIFTDB_TEST_S3_ENDPOINT="http://127.0.0.1:$s3_port"
export LIFTDB_TEST_S3_BUCKET=liftdb-tests
read -r LIFTDB_TEST_S3_KEY_ID LIFTDB_TEST_S3_SECRET < <("$s3_venv/bin/python" - "$LIFTDB_TEST_S3_ENDPOINT" "$LIFTDB_TEST_S3_BUCKET" <<'PY'
import json, sys, time, urllib.request
import boto3
endpoint, bucket = sys.argv[1], sys.argv[2]
for _ in range(100):  # the server starts in about a second
    try:
        urllib.request.urlopen(endpoint + "/moto-api/data.json", timeout=1)
        break
    except Exception:
        time.sleep(0.1)
anon = dict(endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="setup", aws_secret_access_key="setup")
iam = boto3.client("iam", **anon)
iam.create_user(UserName="liftdb-tests")
key = iam.create_access_key(UserName="liftdb-tests")["AccessKey"]
iam.put_user_policy(UserName="liftdb-tests", PolicyName="all", PolicyDocument=json.dumps(
    {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id=key["AccessKeyId"],
             aws_secret_access_key=key["SecretAccessKey"]).create_bucket(Bucket=bucket)
print(key["AccessKeyId"], key["SecretAccessKey"])
PY
)
export LIFTDB_TEST_S3_KEY_ID LIFTDB_TEST_S3_SECRET
