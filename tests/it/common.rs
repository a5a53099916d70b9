//! Shared helpers: fixture paths, reading the tools' own reference reports,
//! building a store from the corpus, and querying it.

use std::io::Read;
use std::path::{Path, PathBuf};

use liftdb::batch::{self, IngestOptions, IngestSummary};
use liftdb::output::cell_json;
use liftdb::report::{self, Filters};
use liftdb::store::Store;
use serde_json::Value;

pub fn seh_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/skill-eval-harness")
}

/// A report of the tool, as it wrote it (gzipped ones are inflated).
pub fn reference(name: &str) -> Value {
    read_report(&seh_root().join("reference").join(name))
}

/// A JSON report file (inflated when `*.gz`).
pub fn read_report(path: &Path) -> Value {
    let raw = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let text = if path.extension().is_some_and(|e| e == "gz") {
        let mut out = String::new();
        flate2::read::GzDecoder::new(&raw[..])
            .read_to_string(&mut out)
            .expect("gunzip");
        out
    } else {
        String::from_utf8(raw).expect("utf8")
    };
    serde_json::from_str(&text).expect("reference JSON")
}

/// The paths an analyst ingests: the run tree, the manifest, the tool's reports.
pub fn corpus_paths(root: &Path) -> Vec<PathBuf> {
    vec![
        root.join("runs/eval-runs"),
        root.join("input/evals/shared-benchmark.json"),
        root.join("reference"),
    ]
}

pub struct TestStore {
    pub _dir: tempfile::TempDir,
    pub db: PathBuf,
    pub store: Store,
}

pub fn new_store() -> TestStore {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("test.duckdb");
    let store = liftdb::store::open_write(&db).expect("open store");
    TestStore {
        _dir: dir,
        db,
        store,
    }
}

pub fn ingest_paths(ts: &mut TestStore, paths: &[PathBuf]) -> IngestSummary {
    batch::ingest(&mut ts.store, paths, &IngestOptions::default()).expect("ingest")
}

/// A store of `paths` ingested in one call, with no ingest error.
pub fn store_of(paths: &[PathBuf]) -> TestStore {
    let mut ts = new_store();
    let summary = ingest_paths(&mut ts, paths);
    assert!(summary.errors.is_empty(), "{:?}", summary.errors);
    ts
}

pub fn corpus_store() -> TestStore {
    let mut ts = new_store();
    let summary = ingest_paths(&mut ts, &corpus_paths(&seh_root()));
    assert!(
        summary.errors.is_empty(),
        "corpus ingest errors: {:?}",
        summary.errors
    );
    ts
}

/// Rows of a query as JSON objects keyed by column name.
pub fn rows(store: &Store, sql: &str) -> Vec<serde_json::Map<String, Value>> {
    let rs =
        report::query(&store.conn, sql, &Filters::new()).unwrap_or_else(|e| panic!("{sql}: {e}"));
    result_rows(&rs)
}

/// A result's rows as JSON objects keyed by column name.
pub fn result_rows(rs: &liftdb::output::ResultSet) -> Vec<serde_json::Map<String, Value>> {
    let names = rs.column_names();
    let mut out = Vec::new();
    for batch in &rs.batches {
        for i in 0..batch.num_rows() {
            let mut obj = serde_json::Map::new();
            for (name, col) in names.iter().zip(batch.columns()) {
                obj.insert(name.clone(), cell_json(col, i));
            }
            out.push(obj);
        }
    }
    out
}

pub fn scalar(store: &Store, sql: &str) -> Value {
    let r = rows(store, sql);
    assert_eq!(r.len(), 1, "{sql} returned {} rows", r.len());
    r[0].values().next().cloned().unwrap_or(Value::Null)
}

pub fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Equal as the tool prints it: values it rounded to `digits` decimals.
pub fn assert_close(ours: f64, theirs: f64, tol: f64, what: &str) {
    assert!(
        (ours - theirs).abs() <= tol,
        "{what}: liftdb {ours} vs tool {theirs} (tolerance {tol})"
    );
}

pub fn sql_str(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// A corpus copied under tests/fixtures (by folder name, "" for all of them).
pub fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The handbook corpus's benchmark.json files, one per run id (the corpus has three).
pub fn seed_benchmarks() -> Vec<PathBuf> {
    let benchmarks: Vec<PathBuf> = walkdir::WalkDir::new(fixture("seed000-skill-eval/runs"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "benchmark.json")
        .map(|e| e.path().to_path_buf())
        .collect();
    assert_eq!(benchmarks.len(), 3);
    benchmarks
}

/// A writable copy of a tree (fixtures are read-only in the corpora).
pub fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.path_is_symlink() {
            // Links are copied as links (the bad-input corpus holds a loop).
            std::os::unix::fs::symlink(std::fs::read_link(entry.path()).unwrap(), &target).unwrap();
        } else if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
            let mut perms = std::fs::metadata(&target).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            std::fs::set_permissions(&target, perms).unwrap();
        }
    }
}

/// The real binary on a store, without the caller's LIFTDB_DB.
pub fn liftdb_cmd(db: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("liftdb").unwrap();
    cmd.env_remove("LIFTDB_DB").arg("--db").arg(db);
    cmd
}

/// The output of a liftdb command that must succeed (else its stderr fails the test).
pub fn succeeded(cmd: &mut assert_cmd::Command) -> std::process::Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The gen-runs tree of `seed` (1,500 runs) in a temporary directory, after
/// checking it is the tree the fixture's skill-benchmark report graded
/// (`tree.sha256`: sha256 over the sorted lines `relative path NUL sha256(file)`).
pub fn generated_tree(seed: u64, fixture: &Path) -> (tempfile::TempDir, PathBuf) {
    gen_runs_tree(
        &["--runs", "1500", "--seed", &seed.to_string()],
        &fixture.join("tree.sha256"),
    )
}

/// gen-runs' tree of `args` in a temporary directory, checked against the
/// digest in `digest_file` (as `generated_tree`): the tree a tool's report
/// kept as a fixture describes.
pub fn gen_runs_tree(args: &[&str], digest_file: &Path) -> (tempfile::TempDir, PathBuf) {
    use sha2::{Digest, Sha256};
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("gfix");
    assert_cmd::Command::cargo_bin("gen-runs")
        .unwrap()
        .args(args)
        .arg("--out")
        .arg(&tree)
        .assert()
        .success();
    let mut files: Vec<String> = walkdir::WalkDir::new(&tree)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            e.path()
                .strip_prefix(&tree)
                .unwrap()
                .to_string_lossy()
                .to_string()
        })
        .collect();
    files.sort();
    let mut h = Sha256::new();
    for rel in &files {
        let file_sha = Sha256::digest(std::fs::read(tree.join(rel)).unwrap());
        h.update(format!("{rel}\0{file_sha:x}\n"));
    }
    let expected = std::fs::read_to_string(digest_file).unwrap();
    assert_eq!(
        format!("{:x}", h.finalize()),
        expected.trim(),
        "gen-runs no longer writes the tree the tool graded ({args:?})"
    );
    (dir, tree)
}

/// `liftdb check` on `db`: its exit code and its listing.
pub fn check_listing(db: &Path) -> (Option<i32>, String) {
    let out = liftdb_cmd(db).arg("check").output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).to_string(),
    )
}

/// The listing has a DAMAGED line naming `what` and saying `problem`.
pub fn assert_damaged(listing: &str, what: &str, problem: &str) {
    assert!(
        listing
            .lines()
            .any(|l| l.starts_with("DAMAGED") && l.contains(what) && l.contains(problem)),
        "{what}: {listing}"
    );
}

/// Every stored aggregate holds exactly its live view's rows, and each
/// listed one is in its order (`liftdb check`'s derived and order passes):
/// what a batch's refill of the releases it changed must leave behind.
pub fn assert_aggregates_current(store: &Store) {
    let checked = liftdb::store::check::check(&store.conn).unwrap();
    let derived: Vec<_> = checked
        .iter()
        .filter(|c| c.kind == "derived" || c.kind == "order")
        .collect();
    assert!(!derived.is_empty(), "check compares the stored aggregates");
    for c in derived {
        assert_eq!(c.problem, None, "{}", c.name);
    }
}

/// The five tool corpora (each README states who wrote it), as one ingest
/// takes them: tests/fixtures/bad/ and the single-purpose fixtures are not.
pub fn tool_corpora() -> Vec<PathBuf> {
    [
        "seed000-skill-eval",
        "skill-eval-harness",
        "skill-creator",
        "skill-creator-anthropic",
        "promptfoo",
    ]
    .into_iter()
    .map(fixture)
    .collect()
}

/// `report reconcile`'s rows as it prints them in JSON.
pub fn reconcile_rows(store: &Store) -> Vec<Value> {
    let report = liftdb::report::find("reconcile").unwrap();
    let rs = liftdb::report::run(&store.conn, &report, &Default::default()).unwrap();
    let mut out = Vec::new();
    liftdb::output::render(&rs, liftdb::output::Format::Json, &mut out).unwrap();
    serde_json::from_slice(&out).unwrap()
}

/// One column of a query's rows, as `liftdb sql --format csv` prints them
/// (the header left out).
pub fn sql_column(db: &Path, sql: &str) -> Vec<String> {
    let out = liftdb_cmd(db)
        .args(["sql", sql, "--format", "csv"])
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .skip(1)
        .map(str::to_string)
        .collect()
}

/// What a command said on stderr.
pub fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}
