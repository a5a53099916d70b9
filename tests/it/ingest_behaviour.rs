//! Ingest guarantees: idempotent re-ingest, bad files isolated, changed
//! files replace their runs, stores from elsewhere refused.

use std::path::Path;

use crate::common::{
    assert_aggregates_current, copy_tree, corpus_paths, fixture, ingest_paths, new_store,
    read_report, rows, scalar, seh_root, sql_str,
};

const TABLES: &[&str] = &[
    "run",
    "grading",
    "assertion_result",
    "trace_event",
    "trace_line",
    "measurement",
    "skill_activation",
    "suite",
    "case_def",
    "peer_metric",
    "trigger_observation",
    "source_file",
    "ingest_batch",
    "ingest_error",
];

fn table_counts(store: &liftdb::store::Store) -> Vec<(String, i64)> {
    TABLES
        .iter()
        .map(|t| {
            let n = scalar(store, &format!("SELECT count(*) FROM {t}"))
                .as_i64()
                .unwrap();
            (t.to_string(), n)
        })
        .collect()
}

/// A writable copy of the corpus parts that ingest reads.
fn corpus_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = seh_root();
    copy_tree(
        &root.join("runs/eval-runs"),
        &dir.path().join("runs/eval-runs"),
    );
    std::fs::create_dir_all(dir.path().join("input/evals")).unwrap();
    std::fs::copy(
        root.join("input/evals/shared-benchmark.json"),
        dir.path().join("input/evals/shared-benchmark.json"),
    )
    .unwrap();
    copy_tree(&root.join("reference"), &dir.path().join("reference"));
    dir
}

#[test]
fn second_ingest_of_the_same_tree_adds_nothing() {
    let mut ts = new_store();
    let paths = corpus_paths(&seh_root());
    let first = ingest_paths(&mut ts, &paths);
    assert!(first.runs_written > 0);
    let before = table_counts(&ts.store);
    let second = ingest_paths(&mut ts, &paths);
    assert_eq!(second.units_changed, 0);
    assert_eq!(second.rows_written, 0);
    assert_eq!(second.files_unchanged, first.files_seen);
    assert_eq!(table_counts(&ts.store), before, "no table grew");
}

#[test]
fn malformed_metadata_is_an_error_row_and_the_rest_is_ingested() {
    let copy = corpus_copy();
    let bad_dir = copy
        .path()
        .join("runs/eval-runs/add-not-null-column/claude-haiku-4-5/with_skill/run-2");
    let bad = bad_dir.join("metadata.json");
    std::fs::write(
        &bad,
        b"{\"case_id\": \"add-not-null-column\", \"returncode\": 0,, }",
    )
    .unwrap();
    let total_dirs = walkdir::WalkDir::new(copy.path().join("runs/eval-runs"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "output.md")
        .count();

    let mut ts = new_store();
    let summary = ingest_paths(&mut ts, &corpus_paths(copy.path()));
    assert_eq!(summary.errors.len(), 1, "{:?}", summary.errors);
    let canonical_bad = std::fs::canonicalize(&bad).unwrap();
    assert_eq!(summary.errors[0].path, canonical_bad.display().to_string());
    assert!(
        summary.errors[0].reason.contains("invalid JSON"),
        "{}",
        summary.errors[0].reason
    );

    let err_rows = rows(&ts.store, "SELECT path, stage, reason FROM ingest_error");
    assert_eq!(err_rows.len(), 1);
    assert_eq!(
        err_rows[0]["path"].as_str(),
        Some(canonical_bad.display().to_string().as_str())
    );

    // Every run directory is in the store; the broken one is kept but unscorable.
    assert_eq!(
        scalar(&ts.store, "SELECT count(*) FROM run").as_u64(),
        Some(total_dirs as u64)
    );
    let broken = rows(
        &ts.store,
        &format!(
            "SELECT scorable, unscorable_reason FROM runs WHERE run_dir = '{}'",
            std::fs::canonicalize(&bad_dir).unwrap().display()
        ),
    );
    assert_eq!(broken.len(), 1);
    assert_eq!(broken[0]["scorable"].as_bool(), Some(false));
    assert_eq!(
        broken[0]["unscorable_reason"].as_str(),
        Some("invalid_metadata")
    );
}

/// The harness grades from the first existing of metadata.json, timing.json,
/// metrics.json (docs/grading.md §2.2: one file, not merged): a broken
/// metadata.json is read as a `metadata_error` dict, with no returncode or
/// provider, and `timed_out` false. The run's metrics.json (corpus file:
/// returncode 0) is never consulted for them.
#[test]
fn a_broken_metadata_json_is_still_the_metadata_grading_reads() {
    let copy = corpus_copy();
    let run_dir = copy
        .path()
        .join("runs/eval-runs/add-not-null-column/claude-haiku-4-5/with_skill/run-2");
    let metrics: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run_dir.join("metrics.json")).unwrap()).unwrap();
    assert_eq!(metrics["returncode"], 0, "the corpus run's metrics.json");
    std::fs::write(run_dir.join("metadata.json"), b"{\"returncode\": 0,, }").unwrap();

    let mut ts = new_store();
    ingest_paths(&mut ts, &corpus_paths(copy.path()));
    let broken = rows(
        &ts.store,
        &format!(
            "SELECT returncode, provider, timed_out FROM run WHERE run_dir = '{}'",
            std::fs::canonicalize(&run_dir).unwrap().display()
        ),
    );
    assert_eq!(broken.len(), 1);
    assert!(broken[0]["returncode"].is_null(), "{:?}", broken[0]);
    assert!(broken[0]["provider"].is_null(), "{:?}", broken[0]);
    assert_eq!(broken[0]["timed_out"].as_bool(), Some(false));
}

#[test]
fn a_changed_file_replaces_its_run() {
    let copy = corpus_copy();
    let mut ts = new_store();
    ingest_paths(&mut ts, &corpus_paths(copy.path()));
    let before = table_counts(&ts.store);

    let run_dir = copy
        .path()
        .join("runs/eval-runs/fk-not-valid/gpt-5-codex/with_skill/run-1");
    std::fs::write(
        run_dir.join("output.md"),
        "[CODEX FAILURE: rewritten for the test]",
    )
    .unwrap();
    let summary = ingest_paths(&mut ts, &corpus_paths(copy.path()));
    assert_eq!(summary.units_changed, 1);
    assert_eq!(summary.runs_written, 1);

    let after = table_counts(&ts.store);
    for ((table, a), (_, b)) in after.iter().zip(before.iter()) {
        if table != "ingest_batch" {
            assert_eq!(a, b, "{table} keeps its size when a run is replaced");
        }
    }
    let run = rows(
        &ts.store,
        &format!(
            "SELECT scorable, unscorable_reason FROM runs WHERE run_dir = '{}'",
            std::fs::canonicalize(&run_dir).unwrap().display()
        ),
    );
    assert_eq!(run[0]["scorable"].as_bool(), Some(false));
    assert_eq!(
        run[0]["unscorable_reason"].as_str(),
        Some("failure_marker:CODEX FAILURE")
    );
}

/// The change check compares each run directory's files (names, sizes,
/// mtimes) with the stored ones. A file rewritten with the same bytes is
/// not a change: its new mtime is stored, so the next ingest finds the run
/// as stored. A file added or removed is a change: the run is replaced.
#[test]
fn a_run_is_replaced_when_its_files_change_not_when_one_is_touched() {
    let copy = corpus_copy();
    let mut ts = new_store();
    let paths = corpus_paths(copy.path());
    ingest_paths(&mut ts, &paths);
    let run_dir = std::fs::canonicalize(
        copy.path()
            .join("runs/eval-runs/fk-not-valid/gpt-5-codex/with_skill/run-1"),
    )
    .unwrap();
    let output = run_dir.join("output.md");
    let bytes = std::fs::read(&output).unwrap();
    std::fs::write(&output, &bytes).unwrap();
    let moved = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000);
    std::fs::File::options()
        .write(true)
        .open(&output)
        .unwrap()
        .set_modified(moved)
        .unwrap();
    let touched = ingest_paths(&mut ts, &paths);
    assert_eq!(touched.units_changed, 0, "the same bytes");
    let stored_mtime = rows(
        &ts.store,
        &format!(
            "SELECT mtime_ns FROM source_file WHERE path = '{}'",
            output.display()
        ),
    );
    assert_eq!(
        stored_mtime[0]["mtime_ns"].as_i64(),
        Some(1_600_000_000 * 1_000_000_000)
    );
    // The file's print moved with its mtime (`liftdb check` holds each
    // stored print to liftdb_file_print of its row).
    assert_aggregates_current(&ts.store);
    let again = ingest_paths(&mut ts, &paths);
    assert_eq!(
        (again.units_changed, again.units_unchanged),
        (0, touched.units_unchanged)
    );

    std::fs::write(run_dir.join("notes.txt"), "added after the first ingest").unwrap();
    let added = ingest_paths(&mut ts, &paths);
    assert_eq!(
        (added.units_changed, added.units_replaced),
        (1, 1),
        "a file added"
    );
    std::fs::remove_file(run_dir.join("notes.txt")).unwrap();
    let removed = ingest_paths(&mut ts, &paths);
    assert_eq!(
        (removed.units_changed, removed.units_replaced),
        (1, 1),
        "a file removed"
    );
    let files = rows(
        &ts.store,
        &format!(
            "SELECT count(*) AS n FROM source_file WHERE owner_key = '{}' AND path LIKE '%notes.txt'",
            run_dir.display()
        ),
    );
    assert_eq!(
        files[0]["n"].as_i64(),
        Some(0),
        "the removed file's row is gone"
    );
}

#[test]
fn a_store_from_a_newer_liftdb_is_refused() {
    let ts = new_store();
    ts.store
        .conn
        .execute_batch("INSERT INTO schema_migrations VALUES (9999, 'future', 'x', now()::TIMESTAMP, '99.0.0')")
        .unwrap();
    let db = ts.db.clone();
    drop(ts.store);
    let err = liftdb::store::open_write(&db).err().expect("refused");
    assert!(err.to_string().contains("newer liftdb"), "{err}");
    let err = liftdb::store::open_read_after_upkeep(&db)
        .err()
        .expect("refused read-only too");
    assert!(err.to_string().contains("newer liftdb"), "{err}");
}

#[test]
fn a_tampered_migration_is_refused() {
    let ts = new_store();
    ts.store
        .conn
        .execute_batch("UPDATE schema_migrations SET checksum = 'deadbeef' WHERE version = 1")
        .unwrap();
    let db = ts.db.clone();
    drop(ts.store);
    let err = liftdb::store::open_write(&db).err().expect("refused");
    assert!(err.to_string().contains("checksum"), "{err}");
}

#[test]
fn runs_with_neither_a_report_nor_a_manifest_have_null_rates() {
    // Without the manifest liftdb has no assertions to grade against (with
    // it, it grades the runs itself: tests/it/grading.rs).
    let mut ts = new_store();
    let root = seh_root();
    ingest_paths(&mut ts, &[root.join("runs/eval-runs/fk-not-valid")]);
    let r = rows(&ts.store, "SELECT count(*) AS n, count(objective_pass_rate) AS rated, bool_or(graded) AS any_graded FROM runs");
    assert!(r[0]["n"].as_i64().unwrap() > 0);
    assert_eq!(r[0]["rated"].as_i64(), Some(0), "no grading: NULL, never 0");
    assert_eq!(r[0]["any_graded"].as_bool(), Some(false));
}

#[test]
fn a_deleted_run_directory_is_reported_and_pruned_on_request() {
    let (_dir, tree) = handbook_copy();
    let mut ts = new_store();
    let first = ingest_paths(&mut ts, std::slice::from_ref(&tree));
    assert_eq!(
        (first.units_added, first.units_replaced),
        (first.units_changed, 0)
    );
    let runs = |ts: &crate::common::TestStore| {
        scalar(&ts.store, "SELECT count(*) FROM run")
            .as_i64()
            .unwrap()
    };
    assert_eq!(runs(&ts), 14);

    let gone = tree.join("sql-migration-review/iteration-1/eval-3/with_skill");
    std::fs::remove_dir_all(&gone).unwrap();
    let second = ingest_paths(&mut ts, std::slice::from_ref(&tree));
    assert_eq!(
        second.units_missing,
        [
            std::fs::canonicalize(tree.join("sql-migration-review/iteration-1/eval-3"))
                .unwrap()
                .join("with_skill")
                .display()
                .to_string()
        ]
    );
    assert!(!second.pruned);
    assert_eq!(runs(&ts), 14, "kept by default");
    assert_aggregates_current(&ts.store);

    let opts = liftdb::batch::IngestOptions {
        prune: true,
        ..Default::default()
    };
    let third = liftdb::batch::ingest(&mut ts.store, std::slice::from_ref(&tree), &opts).unwrap();
    assert!(third.pruned);
    assert_eq!(runs(&ts), 13, "pruned on request");
    assert_aggregates_current(&ts.store);
    let leftovers = scalar(
        &ts.store,
        "SELECT count(*) FROM source_file WHERE path LIKE '%eval-3/with_skill%'",
    );
    assert_eq!(leftovers.as_i64(), Some(0));
}

#[test]
fn editing_a_handbook_case_json_updates_the_runs_under_it() {
    // The handbook names a mode directory's case by case.json's `id`, one
    // folder up: the run directories declare that file, so editing it
    // re-ingests them (before, only the case definition changed).
    let (_dir, tree) = handbook_copy();
    let mut ts = new_store();
    ingest_paths(&mut ts, std::slice::from_ref(&tree));
    let arms_of = |ts: &crate::common::TestStore, case: &str| {
        rows(
            &ts.store,
            &format!("SELECT arm FROM run WHERE case_id = '{case}' ORDER BY arm"),
        )
        .iter()
        .map(|r| r["arm"].as_str().unwrap().to_string())
        .collect::<Vec<_>>()
    };
    assert_eq!(arms_of(&ts, "3"), ["with_skill", "without_skill"]);

    let case_json = tree.join("sql-migration-review/iteration-1/eval-3/case.json");
    let edited = std::fs::read_to_string(&case_json)
        .unwrap()
        .replace("\"id\": 3,", "\"id\": 33,");
    std::fs::write(&case_json, edited).unwrap();
    let second = ingest_paths(&mut ts, std::slice::from_ref(&tree));
    // case.json itself and the two mode directories that read it.
    assert_eq!(second.units_replaced, 3, "{second:?}");
    assert!(arms_of(&ts, "3").is_empty(), "no run keeps the old case id");
    assert_aggregates_current(&ts.store);
    assert_eq!(arms_of(&ts, "33"), ["with_skill", "without_skill"]);
    assert_eq!(
        scalar(
            &ts.store,
            "SELECT count(*) FROM case_def WHERE case_id = '33'"
        )
        .as_i64(),
        Some(1)
    );
    let third = ingest_paths(&mut ts, std::slice::from_ref(&tree));
    assert_eq!(third.units_changed, 0, "unchanged now: {third:?}");
}

/// A writable copy of one handbook run id (seed000 corpus, single model).
fn handbook_copy() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let src = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "tests/fixtures/seed000-skill-eval/runs/tmp/skills-eval/corpus-claude-sonnet-4-5-single",
    );
    let tree = dir.path().join("corpus");
    copy_tree(&src, &tree);
    (dir, tree)
}

fn sha_of(path: &Path) -> String {
    use sha2::{Digest, Sha256};
    format!("{:x}", Sha256::digest(std::fs::read(path).unwrap()))
}

#[test]
fn an_older_store_is_backed_up_and_upgraded_with_its_data() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("old.duckdb");
    {
        let v1 = liftdb::store::open_write_up_to(&db, 1).unwrap();
        assert_eq!(liftdb::store::schema_version(&v1.conn).unwrap(), 1);
        v1.conn
            .execute_batch(
                "INSERT INTO run (run_id, batch_id, release_label, source_format, skill_name, case_id, arm, repetition,
                                  repetition_source, run_dir, output_present, execution_valid)
                 VALUES ('r1', 1, 'v1', 'C_seh', 'skill', 'case-a', 'with_skill', 1, 'single', '/runs/case-a/with_skill', true, true);
                 INSERT INTO ingest_batch (batch_id, release_label, paths, liftdb_version, started_at)
                 VALUES (1, 'v1', '[]', '0.0.1', now()::TIMESTAMP);",
            )
            .unwrap();
    }
    let upgraded = liftdb::store::open_write(&db).unwrap();
    let latest = liftdb::sqlfiles::MIGRATIONS.last().unwrap().version;
    assert_eq!(
        liftdb::store::schema_version(&upgraded.conn).unwrap(),
        latest
    );
    assert_eq!(
        scalar(&upgraded, "SELECT count(*) FROM runs WHERE run_id = 'r1'").as_i64(),
        Some(1)
    );
    assert_eq!(
        scalar(&upgraded, "SELECT release_label FROM releases").as_str(),
        Some("v1"),
        "0003 backfilled releases"
    );
    let backup = dir.path().join("old.duckdb.bak-v1");
    assert!(backup.exists(), "copied aside before the upgrade");
    drop(upgraded);
    let old = liftdb::store::open_write_up_to(&backup, 1).unwrap();
    assert_eq!(
        liftdb::store::schema_version(&old.conn).unwrap(),
        1,
        "the backup keeps the old schema"
    );
}

#[test]
fn a_newer_store_is_refused_without_being_touched() {
    let ts = new_store();
    ts.store
        .conn
        .execute_batch("INSERT INTO schema_migrations VALUES (9999, 'future', 'x', now()::TIMESTAMP, '99.0.0'); CHECKPOINT;")
        .unwrap();
    let db = ts.db.clone();
    drop(ts.store);
    let before = sha_of(&db);
    assert!(liftdb::store::open_write(&db).is_err());
    assert!(liftdb::store::open_read_after_upkeep(&db).is_err());
    assert_eq!(sha_of(&db), before, "the file is untouched");
}

#[test]
fn a_manifest_ingested_again_for_a_second_release_defines_that_release_too() {
    // The same manifest with two run trees, one release each: the second
    // ingest must not skip the (unchanged) manifest, or release v2's runs
    // have no case definitions (no split, no tune/holdout lift).
    let dir = tempfile::tempdir().unwrap();
    for copy in ["runs-v1", "runs-v2"] {
        copy_tree(&seh_root().join("runs/eval-runs"), &dir.path().join(copy));
    }
    let manifest = seh_root().join("input/evals/shared-benchmark.json");
    let cases = serde_json::from_slice::<serde_json::Value>(&std::fs::read(&manifest).unwrap())
        .unwrap()["cases"]
        .as_array()
        .unwrap()
        .len();
    let mut ts = new_store();
    for release in ["v1", "v2"] {
        let summary = liftdb::batch::ingest(
            &mut ts.store,
            &[dir.path().join(format!("runs-{release}")), manifest.clone()],
            &liftdb::batch::IngestOptions {
                release: Some(release.into()),
                ..Default::default()
            },
        )
        .unwrap();
        assert!(summary.errors.is_empty(), "{:?}", summary.errors);
    }
    let per_release = rows(
        &ts.store,
        "SELECT release_label, count(*) AS n FROM case_def GROUP BY 1 ORDER BY 1",
    );
    assert_eq!(per_release.len(), 2, "{per_release:?}");
    for r in &per_release {
        assert_eq!(r["n"].as_u64(), Some(cases as u64), "{r:?}");
    }
    assert_eq!(
        scalar(
            &ts.store,
            "SELECT count(*) FROM runs WHERE release_label = 'v2' AND split IS NULL AND population = 'answer'"
        ),
        serde_json::Value::from(0)
    );
    // Both releases keep their suite from the one manifest.
    assert_eq!(
        scalar(&ts.store, "SELECT count(DISTINCT release_label) FROM suite"),
        serde_json::Value::from(2)
    );
    assert_aggregates_current(&ts.store);
}

#[test]
fn a_layout_no_metadata_or_manifest_settles_is_read_from_the_folder_given_and_announced() {
    // <case>/<model>/<variant> with output.md only: no metadata.json names the case.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("latest");
    for arm in ["with_skill", "without_skill"] {
        let run = root.join("add-col/claude-haiku-4-5").join(arm);
        std::fs::create_dir_all(&run).unwrap();
        std::fs::write(run.join("output.md"), "answer\n").unwrap();
    }
    // Given the runs root itself: its children are cases, as skill-benchmark --runs reads it.
    let mut ts = new_store();
    let summary = ingest_paths(&mut ts, std::slice::from_ref(&root));
    assert_eq!(summary.layout.from_runs_root, 2);
    assert_eq!(summary.layout.guessed, 0);
    let r = rows(
        &ts.store,
        "SELECT DISTINCT case_id, model, layout_reading FROM run",
    );
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!(
        (&r[0]["case_id"], &r[0]["model"], &r[0]["layout_reading"]),
        (
            &serde_json::Value::from("add-col"),
            &serde_json::Value::from("claude-haiku-4-5"),
            &serde_json::Value::from("runs root")
        )
    );
    // Given the folder above it, nothing tells: the single-model reading,
    // and the CLI says so.
    let db = dir.path().join("guessed.duckdb");
    let out = crate::common::liftdb_cmd(&db)
        .args(["ingest"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("2 runs: nothing tells <case>/<variant> from <case>/<model>/<variant>"),
        "{stderr}"
    );
}

#[test]
fn a_tree_given_from_above_its_runs_root_reads_the_model_its_runs_name() {
    // tests/fixtures/seh-dataset-template/README.md: harness run folders copied
    // under the template's case names, so metadata.json's case_id names no
    // folder, but its model names the folder above each variant. Given the
    // folder above the runs root without the manifest, the identities are the
    // ones skill-benchmark read from the same tree (its report, at test time).
    let fixture_dir = fixture("seh-dataset-template");
    let dir = tempfile::tempdir().unwrap();
    copy_tree(
        &fixture_dir.join("eval-runs"),
        &dir.path().join("eval-runs"),
    );
    let mut ts = new_store();
    let summary = ingest_paths(&mut ts, &[dir.path().to_path_buf()]);
    assert_eq!(summary.layout.guessed, 0);
    let report = read_report(&fixture_dir.join("benchmark-template.json.gz"));
    let mut theirs: Vec<(String, String, String, i64)> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["case_id"].as_str().unwrap().to_string(),
                r["model"].as_str().unwrap().to_string(),
                r["variant"].as_str().unwrap().to_string(),
                r["run_number"].as_i64().unwrap(),
            )
        })
        .collect();
    theirs.sort();
    let ours: Vec<(String, String, String, i64)> = rows(
        &ts.store,
        "SELECT case_id, model, arm, repetition, layout_reading FROM run ORDER BY ALL",
    )
    .into_iter()
    .map(|r| {
        assert_eq!(r["layout_reading"], "metadata", "{r:?}");
        (
            r["case_id"].as_str().unwrap().to_string(),
            r["model"].as_str().unwrap().to_string(),
            r["arm"].as_str().unwrap().to_string(),
            r["repetition"].as_i64().unwrap(),
        )
    })
    .collect();
    assert_eq!(ours, theirs);
}

#[test]
fn a_tree_added_beside_another_leaves_it_alone_and_a_changed_run_keeps_its_release() {
    // Two copies of the corpus's run tree: the first under --release first;
    // the second added by its own call (the stored state is loaded for the
    // second tree's paths only) must neither replace nor prune the first.
    let first_copy = corpus_copy();
    let second_copy = corpus_copy();
    let mut ts = new_store();
    let opts = liftdb::batch::IngestOptions {
        release: Some("first".into()),
        ..Default::default()
    };
    let first =
        liftdb::batch::ingest(&mut ts.store, &corpus_paths(first_copy.path()), &opts).unwrap();
    let stored = scalar(&ts.store, "SELECT count(*) FROM run")
        .as_i64()
        .unwrap();
    assert_eq!(first.runs_written as i64, stored);

    let prune = liftdb::batch::IngestOptions {
        prune: true,
        ..Default::default()
    };
    let second_runs = second_copy.path().join("runs/eval-runs");
    let second =
        liftdb::batch::ingest(&mut ts.store, std::slice::from_ref(&second_runs), &prune).unwrap();
    assert_eq!(
        second.units_replaced, 0,
        "nothing of the first tree replaced"
    );
    assert!(
        second.units_missing.is_empty(),
        "{:?}",
        second.units_missing
    );
    let first_runs = scalar(
        &ts.store,
        &format!(
            "SELECT count(*) FROM run WHERE starts_with(run_dir, '{}')",
            std::fs::canonicalize(first_copy.path()).unwrap().display()
        ),
    );
    assert_eq!(first_runs.as_i64(), Some(stored), "the first tree is whole");

    // A run of the first tree changes: ingested again with no --release, it
    // keeps the release its directory had (the owner's release).
    let run_dir = first_copy
        .path()
        .join("runs/eval-runs/fk-not-valid/gpt-5-codex/with_skill/run-1");
    std::fs::write(run_dir.join("output.md"), "rewritten for the test\n").unwrap();
    let third = ingest_paths(&mut ts, &[first_copy.path().join("runs/eval-runs")]);
    assert_eq!(third.units_changed, 1);
    assert_eq!(
        (third.release.as_str(), third.release_source.as_str()),
        ("first", "previous ingest")
    );
}

/// Two trees whose runs have the same identity (same runs root name, case,
/// model, arm, repetition) cannot share a release. In two batches: a copy
/// with the same content is already stored (nothing twice, the batch that
/// stored it named); other content is refused whole, naming --shard and
/// --release, nothing stored. In one batch the second tree's runs are
/// refused, each naming the directory that holds its identity. Under its
/// own --release it is taken.
#[test]
fn a_second_tree_with_the_same_run_identities_is_refused_in_that_release() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first/eval-runs");
    let second = dir.path().join("second/eval-runs");
    let case = "enum-add-value";
    for tree in [&first, &second] {
        copy_tree(
            &seh_root().join("runs/eval-runs").join(case),
            &tree.join(case),
        );
    }
    let ingest = |ts: &mut crate::common::TestStore, release: &str, paths: &[&Path]| {
        let opts = liftdb::batch::IngestOptions {
            release: Some(release.into()),
            ..Default::default()
        };
        let paths: Vec<_> = paths.iter().map(|p| p.to_path_buf()).collect();
        liftdb::batch::ingest(&mut ts.store, &paths, &opts).unwrap()
    };
    let stored = |ts: &crate::common::TestStore| scalar(&ts.store, "SELECT count(*) FROM run");
    let first_dirs = std::fs::canonicalize(&first).unwrap().display().to_string();

    // Two batches, the second tree a copy: already stored.
    let mut ts = new_store();
    let one = ingest(&mut ts, "r", &[&first]);
    assert!(one.errors.is_empty(), "{:?}", one.errors);
    let runs = stored(&ts);
    let two = ingest(&mut ts, "r", &[&second]);
    assert!(two.errors.is_empty(), "{:?}", two.errors);
    assert_eq!(two.already_stored as i64, runs.as_i64().unwrap());
    assert_eq!(two.already_stored_by, [one.batch_id.unwrap()]);
    assert_eq!(stored(&ts), runs, "the first tree's runs stay, none added");
    // The second tree's runs changed: another tree's content under the
    // same identities is refused whole.
    for metrics in walkdir::WalkDir::new(&second)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "metrics.json")
    {
        let text = std::fs::read_to_string(metrics.path()).unwrap();
        std::fs::write(metrics.path(), text.replacen('{', "{\"rerun\": true, ", 1)).unwrap();
    }
    let refused = liftdb::batch::ingest(
        &mut ts.store,
        std::slice::from_ref(&second),
        &liftdb::batch::IngestOptions {
            release: Some("r".into()),
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        refused.contains(&first_dirs)
            && refused.contains("release 'r'")
            && refused.contains("--shard")
            && refused.contains("nothing is stored"),
        "{refused}"
    );
    assert_eq!(stored(&ts), runs, "nothing of the refused batch stored");

    // One batch: the first directory in path order keeps each identity.
    let mut ts = new_store();
    let both = ingest(&mut ts, "r", &[&first, &second]);
    assert_eq!(both.errors.len() as i64, runs.as_i64().unwrap());
    assert_eq!(stored(&ts), runs);

    // Its own release: taken whole.
    let mut ts = new_store();
    ingest(&mut ts, "r", &[&first]);
    let own = ingest(&mut ts, "s", &[&second]);
    assert!(own.errors.is_empty(), "{:?}", own.errors);
    assert_eq!(stored(&ts).as_i64(), runs.as_i64().map(|n| 2 * n));
}

/// Two copies of one promptfoo export describe the same runs. run and
/// grading hold their keys without an index (migration 0013): the batch
/// that would store a key twice is refused whole, naming both sources, as
/// the index refused it.
#[test]
fn two_copies_of_one_export_are_refused_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let export = crate::common::fixture("promptfoo/runs/results.json");
    let copies: Vec<_> = ["export-one", "export-two"]
        .iter()
        .map(|name| {
            let copy = dir.path().join(name).join("results.json");
            std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
            std::fs::copy(&export, &copy).unwrap();
            copy
        })
        .collect();
    let refused = |err: liftdb::Error| {
        let text = err.to_string();
        assert!(matches!(err, liftdb::Error::DuplicateKey { .. }), "{text}");
        assert!(
            text.contains("export-one") && text.contains("export-two"),
            "{text}"
        );
    };

    // Two batches: the first stays as it was.
    let mut ts = new_store();
    ingest_paths(&mut ts, &copies[..1]);
    let before = table_counts(&ts.store);
    let opts = liftdb::batch::IngestOptions::default();
    refused(liftdb::batch::ingest(&mut ts.store, &copies[1..], &opts).unwrap_err());
    assert_eq!(
        table_counts(&ts.store),
        before,
        "nothing of the second batch"
    );

    // One batch: nothing at all.
    let mut ts = new_store();
    let empty = table_counts(&ts.store);
    refused(liftdb::batch::ingest(&mut ts.store, &copies, &opts).unwrap_err());
    assert_eq!(table_counts(&ts.store), empty);
}

/// The same clash across a batch larger than one parse chunk (2,048 run
/// directories): a directory written in an earlier chunk no longer holds its
/// path in memory, and is named from the batch's rows instead. Every run of
/// the second copy is refused naming its own counterpart in the first.
#[test]
fn clashes_across_parse_chunks_name_the_directory_written_first() {
    let dir = tempfile::tempdir().unwrap();
    let tree = |name: &str| {
        let out = dir.path().join(name);
        assert_cmd::Command::cargo_bin("gen-runs")
            .unwrap()
            .args(["--runs", "2100", "--seed", "3", "--out"])
            .arg(&out)
            .assert()
            .success();
        std::fs::canonicalize(out.join("eval-runs")).unwrap()
    };
    let (first, second) = (tree("first"), tree("second"));
    let mut ts = new_store();
    let opts = liftdb::batch::IngestOptions {
        release: Some("r".into()),
        ..Default::default()
    };
    let summary =
        liftdb::batch::ingest(&mut ts.store, &[first.clone(), second.clone()], &opts).unwrap();
    let clashes: Vec<_> = summary
        .errors
        .iter()
        .filter(|e| e.stage == "identity")
        .collect();
    // Each run the first copy stored is refused once in the second.
    let stored = scalar(&ts.store, "SELECT count(*) FROM run")
        .as_i64()
        .unwrap();
    assert!(stored > 2048, "more than one chunk: {stored}");
    assert_eq!(clashes.len() as i64, stored);
    let elsewhere = scalar(
        &ts.store,
        &format!(
            "SELECT count(*) FROM run WHERE NOT starts_with(run_dir, {})",
            sql_str(&first.display().to_string())
        ),
    );
    assert_eq!(elsewhere.as_i64(), Some(0), "only the first copy is stored");
    for e in clashes {
        let rel = Path::new(&e.path).strip_prefix(&second).unwrap();
        let counterpart = first.join(rel).display().to_string();
        assert!(
            e.reason.contains(&format!(
                "same run identity as {counterpart} in release 'r'"
            )),
            "{e:?}"
        );
    }
}

#[test]
fn a_batch_that_stores_nothing_records_no_release() {
    // An empty folder and a wrong path: their errors go to the ledger, and
    // no release is left behind in `releases` (issue #50: it stayed for ever).
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let mut ts = new_store();
    for path in [empty, dir.path().join("no-such-folder")] {
        let summary = ingest_paths(&mut ts, &[path]);
        assert_eq!(summary.errors.len(), 1, "{:?}", summary.errors);
        assert!(!summary.release_recorded);
    }
    assert_eq!(scalar(&ts.store, "SELECT count(*) FROM releases"), 0);
    assert_eq!(scalar(&ts.store, "SELECT count(*) FROM ingest_error"), 2);
    // A batch with runs records its release.
    let summary = ingest_paths(&mut ts, &[seh_root().join("runs/eval-runs")]);
    assert!(summary.release_recorded);
    assert_eq!(
        scalar(&ts.store, "SELECT list(release_label) FROM releases"),
        serde_json::json!([summary.release])
    );
}
