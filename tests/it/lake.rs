//! Team mode: the same store on DuckLake, its catalog in PostgreSQL, many
//! writers at once. The server and the extensions are set up by
//! scripts/test (scripts/lake-services.sh), which exports where they are.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use crate::common::seh_root;

/// A fresh lake: a database of its own on the test server, its data in a
/// folder or under a prefix of its own in the test S3 server's bucket.
pub struct TestLake {
    pub catalog: String,
    pub data: tempfile::TempDir,
    /// `s3://BUCKET/PREFIX/` when the data are in object storage.
    pub s3: Option<String>,
    /// The PostgreSQL database.
    pub dbname: String,
}

/// The password every test lake's connection string carries.
pub const PLANTED_PASSWORD: &str = "PLANTEDpw7c1e";

pub fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is not set: run the tests with scripts/test, which starts PostgreSQL and fetches the DuckLake extensions")
    })
}

/// The server's connection settings as `key=value` pairs.
pub fn setting(key: &str) -> String {
    env("LIFTDB_TEST_PG")
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{key}=")).map(str::to_string))
        .unwrap_or_else(|| panic!("LIFTDB_TEST_PG has no {key}"))
}

impl TestLake {
    pub fn new(name: &str) -> TestLake {
        // Unique in this process too: a test may make several of one name.
        static MADE: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let db = format!("lake_{name}_{}_{n}", std::process::id());
        let created = Command::new(Path::new(&env("LIFTDB_TEST_PG_BIN")).join("createdb"))
            .args([
                "-h",
                &setting("host"),
                "-p",
                &setting("port"),
                "-U",
                "postgres",
                &db,
            ])
            .output()
            .expect("createdb");
        assert!(
            created.status.success(),
            "createdb: {}",
            String::from_utf8_lossy(&created.stderr)
        );
        // Every test lake's connection string carries a password (the test
        // server trusts local connections and ignores it): no output of any
        // command run through `ok` may show it.
        TestLake {
            catalog: format!(
                "ducklake:postgres:dbname={db} {} password={PLANTED_PASSWORD}",
                env("LIFTDB_TEST_PG")
            ),
            data: tempfile::tempdir().unwrap(),
            s3: None,
            dbname: db,
        }
    }

    /// A fresh lake whose data are in the test S3 server's bucket.
    pub fn on_s3(name: &str) -> TestLake {
        let lake = TestLake::new(name);
        TestLake {
            s3: Some(format!(
                "s3://{}/{}/",
                env("LIFTDB_TEST_S3_BUCKET"),
                lake.dbname.replace('_', "-")
            )),
            ..lake
        }
    }

    /// Where its data go, as --data-path gives it.
    pub fn data_path(&self) -> String {
        match &self.s3 {
            Some(url) => url.clone(),
            None => self.data.path().display().to_string(),
        }
    }

    /// The catalog string for another PostgreSQL role.
    pub fn catalog_as(&self, role: &str) -> String {
        self.catalog
            .replace("user=postgres", &format!("user={role}"))
    }

    /// `liftdb` on this lake, with the S3 credentials and endpoint in the
    /// variables CI systems set.
    pub fn liftdb(&self) -> Command {
        self.liftdb_as("postgres")
    }

    /// `liftdb` on this lake as another PostgreSQL role.
    pub fn liftdb_as(&self, role: &str) -> Command {
        self.command(role, &env("LIFTDB_TEST_EXTENSION_DIR"))
    }

    /// `liftdb` on this lake as `role`, its extensions from `extensions`.
    pub fn command(&self, role: &str, extensions: &str) -> Command {
        let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("liftdb"));
        cmd.arg("--db")
            .arg(self.catalog_as(role))
            .arg("--data-path")
            .arg(self.data_path())
            .arg("--extension-dir")
            .arg(extensions)
            .env_remove("LIFTDB_DB")
            .env_remove("LIFTDB_SHARD")
            .env_remove("LIFTDB_HOST");
        with_s3_credentials(&mut cmd);
        cmd
    }

    /// psql on this lake's database, as `role`.
    pub fn psql(&self, role: &str, sql: &str) -> String {
        let out = Command::new(Path::new(&env("LIFTDB_TEST_PG_BIN")).join("psql"))
            .args(["-h", &setting("host"), "-p", &setting("port"), "-U", role])
            .args(["-d", &self.dbname, "-v", "ON_ERROR_STOP=1", "-tAc", sql])
            .output()
            .unwrap();
        ok(out, sql).trim().to_string()
    }

    /// A role that may only read this lake, as docs/ci.md sets it up.
    pub fn reader_role(&self, role: &str) {
        self.psql(
            "postgres",
            &format!(
                "CREATE ROLE {role} LOGIN; GRANT CONNECT ON DATABASE {db} TO {role};
                 GRANT USAGE ON SCHEMA public TO {role};
                 GRANT SELECT ON ALL TABLES IN SCHEMA public TO {role};
                 ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO {role};",
                db = self.dbname
            ),
        );
    }

    /// One query's rows as CSV.
    pub fn sql(&self, query: &str) -> String {
        let out = self
            .liftdb()
            .args(["sql", query, "--format", "csv"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{query}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    pub fn count(&self, query: &str) -> i64 {
        self.sql(query)
            .lines()
            .nth(1)
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    }
}

/// The test S3 server's endpoint and the tests' access key, as CI systems
/// pass them: in AWS_* variables.
pub fn with_s3_credentials(cmd: &mut Command) {
    cmd.env("AWS_ACCESS_KEY_ID", env("LIFTDB_TEST_S3_KEY_ID"))
        .env("AWS_SECRET_ACCESS_KEY", env("LIFTDB_TEST_S3_SECRET"))
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ENDPOINT_URL", env("LIFTDB_TEST_S3_ENDPOINT"))
        .env_remove("AWS_SESSION_TOKEN");
}

pub fn file_liftdb(db: &Path) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("liftdb"));
    cmd.arg("--db").arg(db).env_remove("LIFTDB_DB");
    cmd
}

pub fn ok(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: exit {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    no_password(&out, what);
    String::from_utf8(out.stdout).unwrap()
}

/// Neither stream of `out` shows the planted password.
pub fn no_password(out: &Output, what: &str) {
    for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        assert!(
            !text.contains(PLANTED_PASSWORD),
            "{what}: {stream} shows the connection string's password:\n{text}"
        );
    }
}

/// The corpora ingested in the lake and file equality test: runs with a
/// manifest (graded by liftdb), the tool's reports, another harness.
fn corpus() -> Vec<PathBuf> {
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut paths = crate::common::corpus_paths(&seh_root());
    paths.push(fixtures.join("promptfoo/runs"));
    paths.push(fixtures.join("skill-creator/runs"));
    paths
}

/// Every canned report, and every view and table read in a fixed order,
/// gives the same rows on a lake as on a one-file store of the same trees;
/// `liftdb check` passes on the lake.
#[test]
fn a_lake_answers_every_report_and_view_as_a_file_store_does() {
    answers_as_a_file_store(TestLake::new("equal"));
}

/// The same with the lake's data in object storage (an S3-compatible
/// server checking its credentials).
#[test]
fn a_lake_on_s3_answers_every_report_and_view_as_a_file_store_does() {
    answers_as_a_file_store(TestLake::on_s3("equal"));
}

/// Two CSV texts equal cell by cell, numbers to 12 digits (relative, or
/// absolute below 1: a difference of two such sums is itself noise near 0):
/// a sum over many rows (a stddev, a mean) is added in whatever order
/// DuckDB's threads meet the rows, on either store, and may differ in its
/// last digit.
fn assert_same_csv(ours: &str, theirs: &str, what: &str) {
    let cells = |text: &str| -> Vec<Vec<String>> {
        text.lines()
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect()
    };
    let (a, b) = (cells(ours), cells(theirs));
    let same = a.len() == b.len()
        && a.iter().zip(&b).all(|(x, y)| {
            x.len() == y.len()
                && x.iter().zip(y).all(|(p, q)| {
                    p == q
                        || matches!((p.parse::<f64>(), q.parse::<f64>()), (Ok(u), Ok(v))
                            if (u - v).abs() <= 1e-12 * u.abs().max(v.abs()).max(1.0))
                })
        });
    assert!(same, "{what}\n  lake: {ours}\n  file: {theirs}");
}

fn answers_as_a_file_store(lake: TestLake) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file.duckdb");
    for (release, paths) in [("v1", &corpus()[..3]), ("v2", &corpus()[..])] {
        let mut args = vec![
            "ingest".to_string(),
            "--quiet".into(),
            "--release".into(),
            release.into(),
        ];
        args.extend(paths.iter().map(|p| p.display().to_string()));
        ok(
            file_liftdb(&file).args(&args).output().unwrap(),
            "file ingest",
        );
        ok(lake.liftdb().args(&args).output().unwrap(), "lake ingest");
    }
    let reports = liftdb::report::all();
    assert!(reports.len() > 15);
    for report in &reports {
        let args = ["report", report.name.as_str(), "--format", "csv"];
        let on_file = ok(
            file_liftdb(&file).args(args).output().unwrap(),
            &report.name,
        );
        let on_lake = ok(lake.liftdb().args(args).output().unwrap(), &report.name);
        assert_same_csv(&on_lake, &on_file, &format!("report {}", report.name));
    }
    let names = ok(
        file_liftdb(&file)
            .args([
                "sql",
                "SELECT view_name FROM duckdb_views() WHERE NOT internal AND schema_name = 'main'
                 UNION ALL SELECT table_name FROM duckdb_tables() WHERE NOT internal AND schema_name = 'main'
                   AND table_name NOT IN ('schema_migrations', 'ingest_batch', 'ingest_error', 'release_record',
                                          'setting_record', 'refill_mark', 'refill_turn', 'source_file')
                 ORDER BY 1",
                "--format",
                "csv",
            ])
            .output()
            .unwrap(),
        "names",
    );
    // Ids and times are the batch's own on each store; the rest is equal.
    let varying = [
        "batch_id",
        "ingested_at",
        "started_at",
        "finished_at",
        "first_ingested_at",
        "recorded_at",
        "occurred_at",
        // A release's default place is when a batch first named it.
        "sort_key",
    ];
    for name in names.lines().skip(1) {
        let columns = ok(
            file_liftdb(&file)
                .args([
                    "sql",
                    &format!("SELECT column_name FROM (DESCRIBE \"{name}\")"),
                    "--format",
                    "csv",
                ])
                .output()
                .unwrap(),
            name,
        );
        let kept: Vec<String> = columns
            .lines()
            .skip(1)
            .filter(|c| !varying.contains(c) && !c.ends_with("_at"))
            .map(|c| format!("\"{c}\""))
            .collect();
        let query = format!("SELECT {} FROM \"{name}\" ORDER BY ALL", kept.join(", "));
        let on_file = ok(
            file_liftdb(&file)
                .args(["sql", &query, "--format", "csv"])
                .output()
                .unwrap(),
            name,
        );
        let on_lake = lake.sql(&query);
        assert_same_csv(&on_lake, &on_file, name);
    }
    // The other commands read the lake as they read a file: an export, the
    // shell fed on stdin, the schema listing.
    for (store, out) in [("file", "ledger-file.csv"), ("lake", "ledger-lake.csv")] {
        let mut cmd = if store == "file" {
            file_liftdb(&file)
        } else {
            lake.liftdb()
        };
        ok(
            cmd.args(["export", "cost_ledger", "--out"])
                .arg(dir.path().join(out))
                .output()
                .unwrap(),
            "export",
        );
    }
    // A view has no order of its own: the same lines, in any order.
    let exported = |out: &str| {
        let text = std::fs::read_to_string(dir.path().join(out)).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines.sort();
        lines
    };
    let (on_lake, on_file) = (exported("ledger-lake.csv"), exported("ledger-file.csv"));
    assert!(on_file.len() > 100, "the ledger has its runs");
    assert!(on_lake == on_file, "the exported ledgers differ");
    let shell = |mut cmd: Command| {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b".mode csv\nSELECT count(*) AS n, sum(cost_usd) AS cost FROM runs;\n")
            .unwrap();
        ok(child.wait_with_output().unwrap(), "shell")
    };
    assert_eq!(shell(lake.liftdb()), shell(file_liftdb(&file)));
    let schema = ok(lake.liftdb().arg("schema").output().unwrap(), "schema");
    assert!(
        schema.contains("case_flags") && schema.contains("cost_ledger"),
        "{schema}"
    );
    let checked = lake.liftdb().arg("check").output().unwrap();
    assert!(
        checked.status.success(),
        "check: {}",
        String::from_utf8_lossy(&checked.stderr)
    );
}

/// A gen-runs tree of `runs` runs whose runs root is named `root` (the
/// experiment: trees in one release must not claim each other's runs).
pub fn tree(dir: &Path, root: &str, runs: usize, seed: u64) -> PathBuf {
    let out = dir.join(root);
    let made = Command::new(assert_cmd::cargo::cargo_bin("gen-runs"))
        .args([
            "--runs",
            &runs.to_string(),
            "--seed",
            &seed.to_string(),
            "--out",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "gen-runs: {}",
        String::from_utf8_lossy(&made.stderr)
    );
    std::fs::rename(out.join("eval-runs"), out.join(root)).unwrap();
    out
}

/// Counts that must each be the trees' sum, once per row: rows held once.
pub fn held_once(lake: &TestLake) -> [(i64, i64); 4] {
    let pair = |table: &str, key: &str| {
        let rows = lake.sql(&format!(
            "SELECT count(*), count(DISTINCT {key}) FROM {table}"
        ));
        let line = rows.lines().nth(1).unwrap().to_string();
        let (a, b) = line.split_once(',').unwrap();
        (a.parse().unwrap(), b.parse().unwrap())
    };
    [
        pair("run", "run_id"),
        pair("measurement", "(run_id, metric)"),
        pair("trace_event", "(run_id, seq)"),
        pair("source_file", "(path, owner_key, release_label, shard)"),
    ]
}

/// Eight `liftdb ingest` at once into one lake, half into one shared
/// release: all exit 0, every row is held once (count = count distinct = the
/// trees' sum), eight batch ids, one release per label; a reader polling
/// meanwhile never sees a batch's runs in part; the same eight again at once
/// change nothing.
#[test]
fn eight_writers_at_once_store_each_batch_once_and_whole() {
    eight_writers(TestLake::new("fanout"));
}

/// The same with the lake's data on S3.
#[test]
fn eight_writers_on_s3_store_each_batch_once_and_whole() {
    eight_writers(TestLake::on_s3("fanout"));
}

fn eight_writers(lake: TestLake) {
    let dir = tempfile::tempdir().unwrap();
    let trees: Vec<(PathBuf, String)> = (0..8)
        .map(|i| {
            let root = format!("runs-{i}");
            let release = if i % 2 == 0 {
                "shared".to_string()
            } else {
                format!("own-{i}")
            };
            (tree(dir.path(), &root, 60 + 6 * i, 100 + i as u64), release)
        })
        .collect();
    // Created before the fan-out, as a team's lake is.
    ok(
        lake.liftdb().args(["lake", "init"]).output().unwrap(),
        "create",
    );
    // The independent count: the same trees ingested one after another
    // into a file store (its keys enforced by the file's own checks).
    let file = dir.path().join("one-by-one.duckdb");
    for (i, (t, release)) in trees.iter().enumerate() {
        ok(
            file_liftdb(&file)
                .args(["ingest", "--quiet", "--release", release])
                .arg(t.join(format!("runs-{i}")))
                .arg(t.join("manifest.json"))
                .output()
                .unwrap(),
            "file ingest",
        );
    }
    let file_count = |query: &str| -> i64 {
        let out = ok(
            file_liftdb(&file)
                .args(["sql", query, "--format", "csv"])
                .output()
                .unwrap(),
            query,
        );
        out.lines().nth(1).unwrap().trim().parse().unwrap()
    };
    let expected = [
        file_count("SELECT count(*) FROM run"),
        file_count("SELECT count(*) FROM measurement"),
        file_count("SELECT count(*) FROM trace_event"),
        file_count("SELECT count(*) FROM source_file"),
    ];
    assert!(
        expected[0] >= walk_runs(dir.path()),
        "every run directory stored"
    );

    let fan_out = |trees: &[(PathBuf, String)]| -> Vec<Child> {
        trees
            .iter()
            .enumerate()
            .map(|(i, (t, release))| {
                lake.liftdb()
                    .args(["ingest", "--quiet", "--release", release])
                    .arg(t.join(format!("runs-{i}")))
                    .arg(t.join("manifest.json"))
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect()
    };
    let children = fan_out(&trees);
    // The reader: every batch it sees holds all its runs or none.
    let mut polls = 0;
    let mut children = children;
    while children.iter_mut().any(|c| c.try_wait().unwrap().is_none()) {
        let partial = lake.count(
            "SELECT count(*) FROM (SELECT b.batch_id FROM ingest_batch b LEFT JOIN run r USING (batch_id)
             GROUP BY b.batch_id, b.runs_written HAVING count(r.run_id) <> coalesce(b.runs_written, 0))",
        );
        assert_eq!(partial, 0, "a reader saw a batch in part");
        polls += 1;
    }
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "a writer failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(polls > 0, "the reader polled during the fan-out");
    let counts = held_once(&lake);
    for (all, distinct) in counts {
        assert_eq!(all, distinct, "a row held twice: {counts:?}");
    }
    assert_eq!(
        counts.map(|(all, _)| all),
        expected,
        "the trees' sums: runs, measurements, trace events, files"
    );
    assert_eq!(
        lake.count("SELECT count(DISTINCT batch_id) FROM ingest_batch"),
        8
    );
    assert_eq!(
        lake.count("SELECT count(*) FROM releases"),
        5,
        "shared and four own"
    );
    assert_eq!(
        lake.count("SELECT count(*) FROM releases WHERE release_label = 'shared'"),
        1
    );
    assert_eq!(
        lake.count("SELECT count(*) FROM refill_waiting"),
        0,
        "nothing left waiting"
    );
    // Each tree's manifest defines the same cases: the shared release's
    // writers each stored a copy, and the views give each case and suite once.
    assert_eq!(
        lake.count("SELECT count(*) - count(DISTINCT case_pk) FROM case_def"),
        0
    );
    assert_eq!(
        lake.count("SELECT count(*) - count(DISTINCT suite_id) FROM suite"),
        0
    );

    // The same eight again at once: a re-ingest under contention.
    let again = fan_out(&trees);
    for child in again {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "a re-ingest failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(held_once(&lake), counts, "counts unchanged");
    let checked = lake.liftdb().arg("check").output().unwrap();
    assert!(
        checked.status.success(),
        "check: {}\n{}",
        String::from_utf8_lossy(&checked.stderr),
        String::from_utf8_lossy(&checked.stdout)
    );
}

/// A lake's catalog lists a table's files in no set order (DuckLake asks
/// for them without one): here the first file of each listed table is moved
/// last in PostgreSQL's heap, where an update or a vacuum may move it. The
/// listing reports still print in their order — checked by sorting their
/// rows here on the order each report's header comment states, and against
/// a file store that stored the same batches — and `check` passes.
#[test]
fn a_lake_lists_runs_in_order_whatever_order_its_catalog_gives_its_files() {
    let dir = tempfile::tempdir().unwrap();
    let lake = TestLake::new("listorder");
    ok(
        lake.liftdb().args(["lake", "init"]).output().unwrap(),
        "create",
    );
    let file = dir.path().join("same.duckdb");
    // Three releases, then a second shard of r-b's runs (another tree, the
    // same runs root): its runs tie with the first shard's on every listed
    // column but the run id.
    let batches = [
        ("r-a", "runs-0", 300, None),
        ("r-b", "runs-1", 301, None),
        ("r-c", "runs-2", 302, None),
        ("r-b", "runs-1", 401, Some("second")),
    ];
    for (n, (release, root, seed, shard)) in batches.into_iter().enumerate() {
        let t = tree(&dir.path().join(format!("batch-{n}")), root, 40, seed);
        for mut liftdb in [lake.liftdb(), file_liftdb(&file)] {
            liftdb.args(["ingest", "--quiet", "--release", release]);
            if let Some(shard) = shard {
                liftdb.args(["--shard", shard]);
            }
            let out = liftdb
                .arg(t.join(root))
                .arg(t.join("manifest.json"))
                .output()
                .unwrap();
            ok(out, "ingest");
        }
    }
    // The catalog's file rows written again with the first file of each
    // listed table last: PostgreSQL then returns them in that order.
    lake.psql(
        "postgres",
        "CREATE TEMP TABLE files AS SELECT * FROM ducklake_data_file;
         TRUNCATE ducklake_data_file;
         INSERT INTO ducklake_data_file SELECT * FROM files ORDER BY data_file_id IN (
             SELECT min(f.data_file_id) FROM files f JOIN ducklake_table t USING (table_id)
             WHERE t.table_name IN ('run_listing_rows', 'reliability_rows')
               AND t.end_snapshot IS NULL AND f.end_snapshot IS NULL
             GROUP BY t.table_name), data_file_id;",
    );
    for table in ["run_listing_rows", "reliability_rows"] {
        // The precondition: read as stored, the lake's rows are no longer
        // in release order (else this test could not fail).
        let labels = lake.sql(&format!("SELECT release_label FROM {table}"));
        let labels: Vec<&str> = labels.lines().skip(1).collect();
        assert!(
            labels.windows(2).any(|w| w[0] > w[1]),
            "{table}: the catalog still gives its files in order"
        );
    }
    // (report, its sort keys as columns of its CSV: numbers compared as numbers)
    // The ledger prints no run id: its ties keep the file's order.
    let run_keys = [
        "release",
        "skill",
        "experiment",
        "case",
        "model",
        "arm",
        "#rep",
        "run_id",
    ];
    let listings: [(&str, &[&str]); 3] = [
        ("runs", &run_keys),
        ("ledger", &run_keys[..7]),
        (
            "reliability",
            &["release", "skill", "experiment", "case", "arm", "#k"],
        ),
    ];
    for (report, keys) in listings {
        let from_lake = ok(
            lake.liftdb()
                .args(["report", report, "--format", "csv"])
                .output()
                .unwrap(),
            report,
        );
        let from_file = ok(
            file_liftdb(&file)
                .args(["report", report, "--format", "csv"])
                .output()
                .unwrap(),
            report,
        );
        let mut lines = from_lake.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let key_of = |line: &str| -> Vec<(i64, String)> {
            let cells: Vec<&str> = line.split(',').collect();
            keys.iter()
                .map(|key| {
                    let (numeric, name) = match key.strip_prefix('#') {
                        Some(name) => (true, name),
                        None => (false, *key),
                    };
                    let at = header.iter().position(|h| *h == name).unwrap();
                    match numeric {
                        true => (cells[at].parse().unwrap(), String::new()),
                        // A NULL (an empty cell) sorts first, as NULLS FIRST.
                        false => (0, cells[at].to_string()),
                    }
                })
                .collect()
        };
        let rows: Vec<&str> = lines.collect();
        assert!(rows.len() > 100, "{report}: {} rows", rows.len());
        let mut sorted = rows.clone();
        sorted.sort_by_key(|line| key_of(line));
        assert!(rows == sorted, "{report}: rows out of its order on a lake");
        assert_eq!(
            from_lake, from_file,
            "{report}: the lake's listing is the file's"
        );
    }
    ok(lake.liftdb().arg("check").output().unwrap(), "check");
}

/// Run directories of a gen-runs tree: each `run-N` folder (an independent
/// count of what the ingest must store).
pub fn walk_runs(tree: &Path) -> i64 {
    walkdir::WalkDir::new(tree)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_dir() && e.file_name().to_string_lossy().starts_with("run-"))
        .count() as i64
}

/// A writer killed during its batch leaves the lake with all of the batch
/// or none of it, and the next ingest works.
#[test]
fn a_writer_killed_mid_batch_leaves_all_or_nothing() {
    killed_writer(TestLake::new("kill"));
}

/// The same with the lake's data on S3.
#[test]
fn a_writer_on_s3_killed_mid_batch_leaves_all_or_nothing() {
    killed_writer(TestLake::on_s3("kill"));
}

fn killed_writer(lake: TestLake) {
    let dir = tempfile::tempdir().unwrap();
    let t = tree(dir.path(), "runs-k", 600, 7);
    let runs = walk_runs(&t);
    ok(
        lake.liftdb().args(["lake", "init"]).output().unwrap(),
        "create",
    );
    for delay_ms in [300, 900, 1600] {
        let mut child = lake
            .liftdb()
            .args(["ingest", "--quiet"])
            .arg(t.join("runs-k"))
            .arg(t.join("manifest.json"))
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        // SIGKILL: no chance to roll back.
        child.kill().unwrap();
        child.wait().unwrap();
        let held = lake.count("SELECT count(*) FROM run");
        assert!(
            held == 0 || held == runs,
            "after a kill at {delay_ms} ms: {held} of {runs} runs"
        );
    }
    ok(
        lake.liftdb()
            .args(["ingest", "--quiet"])
            .arg(t.join("runs-k"))
            .arg(t.join("manifest.json"))
            .output()
            .unwrap(),
        "the next ingest",
    );
    assert_eq!(lake.count("SELECT count(*) FROM run"), runs);
}

/// A report names the snapshot it read, and `--snapshot N` reads the lake
/// as it was then: a later batch does not change that report.
#[test]
fn a_report_names_its_snapshot_and_reads_it_again() {
    let lake = TestLake::new("snapshot");
    let paths = corpus();
    ok(
        lake.liftdb()
            .args(["ingest", "--quiet", "--release", "v1"])
            .args(&paths[..3])
            .output()
            .unwrap(),
        "ingest",
    );
    let first = lake
        .liftdb()
        .args(["report", "lift", "--format", "csv"])
        .output()
        .unwrap();
    let named = String::from_utf8_lossy(&first.stderr).to_string();
    let snapshot: i64 = named
        .split("read lake snapshot ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no snapshot named: {named}"));
    ok(
        lake.liftdb()
            .args(["ingest", "--quiet", "--release", "v2"])
            .args(&paths)
            .output()
            .unwrap(),
        "a later batch",
    );
    let again = lake
        .liftdb()
        .args([
            "report",
            "lift",
            "--format",
            "csv",
            "--snapshot",
            &snapshot.to_string(),
        ])
        .output()
        .unwrap();
    let first = ok(first, "first");
    assert_eq!(ok(again, "--snapshot"), first);
    let now = ok(
        lake.liftdb()
            .args(["report", "lift", "--format", "csv"])
            .output()
            .unwrap(),
        "now",
    );
    assert!(
        now.contains("v2"),
        "the latest snapshot holds the later batch"
    );
    let at_snapshot = || {
        lake.liftdb()
            .args(["report", "lift", "--format", "csv", "--snapshot"])
            .arg(snapshot.to_string())
            .output()
            .unwrap()
    };
    let maintain = |grace: &str| {
        ok(
            lake.liftdb()
                .args(["lake", "maintain", "--grace", grace])
                .output()
                .unwrap(),
            "maintain",
        )
    };
    // Upkeep keeps what is younger than its grace period readable...
    maintain("1 hour");
    assert_eq!(ok(at_snapshot(), "--snapshot within the grace"), first);
    // ...and expires the rest: the old snapshot is refused, saying so, and
    // the lake as it is now reads the same.
    maintain("0 seconds");
    let expired = at_snapshot();
    let said = String::from_utf8_lossy(&expired.stderr);
    assert!(
        !expired.status.success() && said.contains(&snapshot.to_string()),
        "an expired snapshot: {said}"
    );
    assert_eq!(
        ok(
            lake.liftdb()
                .args(["report", "lift", "--format", "csv"])
                .output()
                .unwrap(),
            "after maintain"
        ),
        now
    );
}

/// `liftdb rebuild` moves a store between a file and a lake, both ways,
/// with the same runs.
#[test]
fn rebuild_moves_a_store_from_a_file_to_a_lake_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file.duckdb");
    let mut args = vec![
        "ingest".to_string(),
        "--quiet".into(),
        "--release".into(),
        "v1".into(),
    ];
    args.extend(corpus()[..3].iter().map(|p| p.display().to_string()));
    ok(file_liftdb(&file).args(&args).output().unwrap(), "ingest");
    let lake = TestLake::new("rebuild");
    // The flags as given on the command line reach the new lake (a file
    // --db keeps neither).
    ok(
        file_liftdb(&file)
            .args(["rebuild", "--out", &lake.catalog, "--data-path"])
            .arg(lake.data.path())
            .arg("--extension-dir")
            .arg(env("LIFTDB_TEST_EXTENSION_DIR"))
            .output()
            .unwrap(),
        "file to lake",
    );
    let files_written = walkdir::WalkDir::new(lake.data.path())
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "parquet"))
        .count();
    assert!(files_written > 0, "the lake's data are under --data-path");
    let back = dir.path().join("back.duckdb");
    ok(
        lake.liftdb()
            .args(["rebuild", "--out"])
            .arg(&back)
            .output()
            .unwrap(),
        "lake to file",
    );
    let runs = "SELECT release_label, count(*) FROM run GROUP BY ALL ORDER BY ALL";
    let on_file = ok(
        file_liftdb(&file).args(["sql", runs]).output().unwrap(),
        "file",
    );
    assert_eq!(lake.sql(runs), on_file);
    assert_eq!(
        ok(
            file_liftdb(&back).args(["sql", runs]).output().unwrap(),
            "back"
        ),
        on_file
    );
}

/// `ingest --defer-refill` commits the batch and leaves its stored
/// aggregates waiting (a report at that snapshot is refused: it would lack
/// the batch); `liftdb lake refresh` refills them once, and the report then
/// reads what a file store's does.
#[test]
fn a_deferred_refill_waits_for_lake_refresh() {
    let lake = TestLake::new("deferred");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file.duckdb");
    let paths = &corpus()[..3];
    ok(
        file_liftdb(&file)
            .args(["ingest", "--quiet", "--release", "v1"])
            .args(paths)
            .output()
            .unwrap(),
        "file ingest",
    );
    ok(
        lake.liftdb()
            .args(["ingest", "--quiet", "--defer-refill", "--release", "v1"])
            .args(paths)
            .output()
            .unwrap(),
        "deferred ingest",
    );
    // The catalog's latest snapshot, read from PostgreSQL itself: any liftdb
    // reader of the lake as it is now would refill what waits.
    let latest = lake.psql("postgres", "SELECT max(snapshot_id) FROM ducklake_snapshot");
    let at_latest = lake
        .liftdb()
        .args(["report", "lift", "--format", "csv", "--snapshot", &latest])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&at_latest.stderr);
    assert!(
        !at_latest.status.success() && said.contains("wait for a refill"),
        "a snapshot whose aggregates wait is refused, saying why: {said}"
    );
    let lift = || {
        ok(
            lake.liftdb()
                .args(["report", "lift", "--format", "csv"])
                .output()
                .unwrap(),
            "report lift",
        )
    };
    ok(
        lake.liftdb().args(["lake", "refresh"]).output().unwrap(),
        "refresh",
    );
    let on_file = ok(
        file_liftdb(&file)
            .args(["report", "lift", "--format", "csv"])
            .output()
            .unwrap(),
        "file lift",
    );
    assert!(on_file.lines().count() > 1);
    assert_eq!(lift(), on_file);
}
