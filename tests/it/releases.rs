//! Releases a user controls: `liftdb release rename` relabels a release
//! everywhere (its trend the same numbers under the new name), `release
//! drop` takes it and all it holds out (its batches kept in the ledger, its
//! files read again by the next ingest), and `rebuild` makes both again.

use std::path::{Path, PathBuf};

use crate::common::{fixture, liftdb_cmd, stderr_of};

fn csv(db: &Path, sql: &str) -> String {
    let out = liftdb_cmd(db)
        .args(["sql", "--format", "csv", sql])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    String::from_utf8(out.stdout).unwrap()
}

fn release(db: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = liftdb_cmd(db).arg("release").args(args).output().unwrap();
    (out.status.code(), stderr_of(&out))
}

const RUNS_PER_RELEASE: &str =
    "SELECT release_label, count(*) FROM runs GROUP BY ALL ORDER BY release_label";
const TREND: &str =
    "SELECT release_label, scope, model, units, lift, p_value, previous_release, lift_change
                     FROM trend ORDER BY release_order, scope, model";

/// A store of both kinds of release: skill-creator's iteration-N folders,
/// each a release liftdb derived (no --release), and a batch named
/// "named" with --release, which holds all of it, iterations included.
fn derived_and_named(dir: &Path) -> std::path::PathBuf {
    let db = dir.join("s.duckdb");
    liftdb_cmd(&db)
        .args(["ingest", "-q"])
        .arg(fixture("skill-creator-anthropic"))
        .assert()
        .success();
    liftdb_cmd(&db)
        .args(["ingest", "-q", "--release", "named"])
        .arg(fixture("skill-creator"))
        .assert()
        .success();
    db
}

/// `liftdb rebuild` of `db` into `dir`/new.duckdb.
fn rebuilt(db: &Path, dir: &Path) -> PathBuf {
    let new = dir.join("new.duckdb");
    liftdb_cmd(db)
        .args(["rebuild", "--out"])
        .arg(&new)
        .assert()
        .success();
    new
}

#[test]
fn rebuild_keeps_skill_creator_iterations_as_releases_and_a_named_release_whole() {
    let dir = tempfile::tempdir().unwrap();
    let db = derived_and_named(dir.path());
    let new = rebuilt(&db, dir.path());
    // The workspace's iteration folders are its releases, in both stores.
    let iterations: Vec<String> = std::fs::read_dir(
        fixture("skill-creator-anthropic").join("runs/dockerfile-hardening-workspace"),
    )
    .unwrap()
    .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
    .filter(|n| n.starts_with("iteration-"))
    .collect();
    assert_eq!(iterations.len(), 3);
    for store in [&db, &new] {
        let held = csv(store, RUNS_PER_RELEASE);
        for iteration in &iterations {
            assert!(
                held.contains(&format!("\n{iteration},")),
                "{iteration}: {held}"
            );
        }
        assert!(held.contains("\nnamed,"), "{held}");
    }
    // The rebuilt store equals the original: runs per release, the
    // releases in their order, and the trend across them.
    let releases = "SELECT release_label, ordinal FROM releases ORDER BY ordinal";
    assert_eq!(csv(&new, RUNS_PER_RELEASE), csv(&db, RUNS_PER_RELEASE));
    assert_eq!(csv(&new, releases), csv(&db, releases));
    let trend_rows = csv(&db, TREND);
    assert!(trend_rows.lines().count() > 3, "{trend_rows}");
    assert_eq!(csv(&new, TREND), trend_rows);
}

#[test]
fn a_release_renamed_keeps_its_runs_and_numbers_and_a_dropped_one_can_come_back() {
    let dir = tempfile::tempdir().unwrap();
    let db = derived_and_named(dir.path());
    let runs_before = csv(&db, RUNS_PER_RELEASE);
    let trend_before = csv(&db, TREND);
    assert!(runs_before.contains("\niteration-2,"), "{runs_before}");

    // Rename: the same rows under the new label, everything else as it was.
    assert_eq!(release(&db, &["rename", "iteration-2", "v2"]).0, Some(0));
    let relabel = |text: &str| text.replace("iteration-2", "v2");
    let mut expected: Vec<String> = relabel(&runs_before).lines().map(String::from).collect();
    expected[1..].sort();
    assert_eq!(
        csv(&db, RUNS_PER_RELEASE).lines().collect::<Vec<_>>(),
        expected
    );
    assert_eq!(csv(&db, TREND), relabel(&trend_before));
    // A name taken, or no such release: refused, naming what exists.
    let (code, said) = release(&db, &["rename", "v2", "iteration-1"]);
    assert_eq!(code, Some(2));
    assert!(said.contains("'iteration-1' exists already"), "{said}");
    let (code, said) = release(&db, &["rename", "iteration-2", "x"]);
    assert_eq!(code, Some(2));
    assert!(said.contains("iteration-1, v2, iteration-3"), "{said}");

    // Drop: without --yes nothing changes.
    let named_runs = csv(
        &db,
        "SELECT count(*) FROM runs WHERE release_label = 'named'",
    );
    let (code, said) = release(&db, &["drop", "named"]);
    assert_eq!(code, Some(2));
    assert!(said.contains("add --yes"), "{said}");
    assert_eq!(
        csv(
            &db,
            "SELECT count(*) FROM runs WHERE release_label = 'named'"
        ),
        named_runs
    );
    let others = "SELECT release_label, count(*) FROM runs WHERE release_label <> 'named' GROUP BY ALL ORDER BY ALL";
    let others_before = csv(&db, others);
    let batches = csv(
        &db,
        "SELECT batch_id, release_label FROM ingest_batch ORDER BY ALL",
    );
    assert_eq!(release(&db, &["drop", "named", "--yes"]).0, Some(0));
    for table in [
        "run",
        "case_def_record",
        "trigger_observation",
        "peer_metric",
    ] {
        assert_eq!(
            csv(
                &db,
                &format!("SELECT count(*) FROM {table} WHERE release_label = 'named'")
            ),
            "count_star()\n0\n",
            "{table}"
        );
    }
    assert!(!csv(&db, "SELECT release_label FROM releases").contains("named"));
    assert_eq!(
        csv(&db, others),
        others_before,
        "the other releases untouched"
    );
    assert_eq!(
        csv(
            &db,
            "SELECT batch_id, release_label FROM ingest_batch ORDER BY ALL"
        ),
        batches,
        "the batches stay in the ledger"
    );
    liftdb_cmd(&db).arg("check").assert().success();

    // The rebuild makes the store as it is now: the rename and the drop again.
    let new = rebuilt(&db, dir.path());
    assert_eq!(csv(&new, RUNS_PER_RELEASE), csv(&db, RUNS_PER_RELEASE));
    assert_eq!(csv(&new, TREND), csv(&db, TREND));

    // The dropped release's files are read again by the next ingest.
    liftdb_cmd(&db)
        .args(["ingest", "-q", "--release", "named"])
        .arg(fixture("skill-creator"))
        .assert()
        .success();
    assert_eq!(
        csv(
            &db,
            "SELECT count(*) FROM runs WHERE release_label = 'named'"
        ),
        named_runs
    );
}

/// The seh corpus's runs as v1 and, copied to another folder, as v2.
fn two_releases(dir: &Path) -> PathBuf {
    let db = dir.join("s.duckdb");
    let manifest = crate::common::seh_root().join("input/evals/shared-benchmark.json");
    for release in ["v1", "v2"] {
        let tree = dir.join(release).join("eval-runs");
        crate::common::copy_tree(&crate::common::seh_root().join("runs/eval-runs"), &tree);
        let out = liftdb_cmd(&db)
            .args(["ingest", "-q", "--release", release])
            .arg(&tree)
            .arg(&manifest)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    }
    db
}

/// What the gate decides on by default: (release, baseline).
fn gated(db: &Path) -> (String, String) {
    let out = liftdb_cmd(db)
        .args(["gate", "--min-lift", "0", "--format", "json"])
        .output()
        .unwrap();
    let verdict: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", stderr_of(&out)));
    (
        verdict["release"].as_str().unwrap().to_string(),
        verdict["baseline"].as_str().unwrap_or("-").to_string(),
    )
}

const ORDER: &str = "SELECT release_label FROM releases ORDER BY ordinal";
const TREND_ORDER: &str =
    "SELECT DISTINCT release_label, release_order, previous_release FROM trend WHERE scope = 'overall' ORDER BY release_order";

/// `release move` gives a release its place: the gate's default release
/// (the latest) and baseline (the one before) and the trend's order follow
/// it; `--first` moves it back; a rebuild makes the same order again.
#[test]
fn a_moved_release_leads_the_gate_and_the_trend_and_a_rebuild_keeps_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = two_releases(dir.path());
    assert_eq!(csv(&db, ORDER), "release_label\nv1\nv2\n");
    assert_eq!(gated(&db), ("v2".into(), "v1".into()));

    let (code, err) = release(&db, &["move", "v1", "--after", "v2"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(csv(&db, ORDER), "release_label\nv2\nv1\n");
    assert_eq!(gated(&db), ("v1".into(), "v2".into()));
    let trend = csv(&db, TREND_ORDER);
    assert_eq!(trend.lines().nth(2).unwrap(), "v1,2,v2", "{trend}");

    // Rebuilt from its batches, the store replays the move.
    let rebuilt = rebuilt(&db, dir.path());
    assert_eq!(csv(&rebuilt, ORDER), "release_label\nv2\nv1\n");

    let (code, err) = release(&db, &["move", "v1", "--first"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(csv(&db, ORDER), "release_label\nv1\nv2\n");
    assert_eq!(gated(&db), ("v2".into(), "v1".into()));
    // Moves a release cannot make: after itself, after one that is not there.
    let (code, err) = release(&db, &["move", "v1", "--after", "v1"]);
    assert_eq!(code, Some(2), "{err}");
    let (code, err) = release(&db, &["move", "v1", "--after", "v9"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("v9") && err.contains("v1, v2"), "{err}");
}

/// The same run folders given again under a new label: nothing is
/// recorded (no empty release that would be the latest), and the ingest
/// says which release holds them and how to relabel it.
#[test]
fn a_new_label_over_stored_runs_makes_no_empty_release() {
    let dir = tempfile::tempdir().unwrap();
    let db = two_releases(dir.path());
    let manifest = crate::common::seh_root().join("input/evals/shared-benchmark.json");
    let out = liftdb_cmd(&db)
        .args(["ingest", "--release", "v3"])
        .arg(dir.path().join("v2/eval-runs"))
        .arg(&manifest)
        .output()
        .unwrap();
    let said = stderr_of(&out);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains("stored, unchanged, in release 'v2'")
            && said.contains("liftdb release rename v2 v3"),
        "{said}"
    );
    assert_eq!(csv(&db, ORDER), "release_label\nv1\nv2\n");
    assert_eq!(gated(&db), ("v2".into(), "v1".into()));
    // As the note says: the rename gives them the label.
    let (code, err) = release(&db, &["rename", "v2", "v3"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(csv(&db, ORDER), "release_label\nv1\nv3\n");
}
