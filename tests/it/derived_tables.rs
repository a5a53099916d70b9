//! The stored aggregates reports read (src/store/derived.rs): each holds
//! exactly its live view's rows after every batch, reports over them give
//! what the live views give, and `liftdb check` finds one left stale.

use crate::common::*;

/// The seh corpus (real skill-eval-harness output) with two variant folders
/// removed, as in tests/fixtures/seh-phantoms/README.md (147 eligible and 6
/// blocked pairs there), beside the no-scripts twin: pairs eligible and
/// blocked, several experiments.
fn corpus() -> TestStore {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    copy_tree(&seh_root().join("runs"), &runs);
    for removed in [
        "eval-runs/enum-add-value/gpt-5-codex/without_skill",
        "eval-runs/fk-not-valid/claude-haiku-4-5/with_skill",
    ] {
        std::fs::remove_dir_all(runs.join(removed)).unwrap();
    }
    let manifest = seh_root().join("input/evals/shared-benchmark.json");
    store_of(&[
        runs.join("eval-runs"),
        manifest,
        fixture("skill-eval-harness-no-scripts"),
    ])
}

#[test]
fn every_stored_aggregate_holds_its_views_rows() {
    let ts = corpus();
    let checked = liftdb::store::check::check(&ts.store.conn).unwrap();
    for (table, view) in liftdb::store::derived::DERIVED {
        let stored = f(&scalar(&ts.store, &format!("SELECT count(*) FROM {table}")));
        let live = f(&scalar(&ts.store, &format!("SELECT count(*) FROM {view}")));
        assert!(stored > 0.0, "{table} is empty");
        assert_eq!(stored, live, "{table} against {view}");
        let found = checked
            .iter()
            .find(|c| c.kind == "derived" && c.name == format!("{table} = {view}"))
            .unwrap_or_else(|| panic!("check does not compare {table}"));
        assert_eq!(found.problem, None, "{table}");
    }
}

/// `report pairs` reads the stored units; the pairs view counted directly
/// (the report's query before the units were stored) is the independent
/// computation it must equal, row for row.
#[test]
fn report_pairs_counts_what_the_pairs_view_counts() {
    let ts = corpus();
    let by_view = rows(
        &ts.store,
        "SELECT release_label AS release, skill_name AS skill, experiment, split, case_id AS \"case\",
                model, control_arm AS control,
                count(*) FILTER (WHERE eligible) AS eligible,
                count(*) FILTER (WHERE NOT eligible) AS blocked,
                string_agg(DISTINCT blocked_reason, ', ' ORDER BY blocked_reason) AS blocked_reasons
         FROM pairs WHERE control_arm = 'without_skill'
         GROUP BY ALL
         ORDER BY release, skill, experiment NULLS FIRST, \"case\", model NULLS FIRST",
    );
    let report = liftdb::report::find("pairs").unwrap();
    let rs = liftdb::report::run(&ts.store.conn, &report, &Default::default()).unwrap();
    let by_report = result_rows(&rs);
    assert!(
        by_view.iter().any(|r| !r["blocked_reasons"].is_null()),
        "the corpus has blocked pairs"
    );
    assert_eq!(by_report.len(), by_view.len());
    for (ours, theirs) in by_report.iter().zip(&by_view) {
        assert_eq!(ours, theirs);
    }
}

#[test]
fn check_finds_a_stale_aggregate_and_the_next_batch_refills_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.duckdb");
    liftdb_cmd(&db)
        .args(["ingest", "-q"])
        .args(corpus_paths(&seh_root()))
        .assert()
        .success();
    liftdb_cmd(&db)
        .args(["sql", "DELETE FROM lift_rows WHERE scope = 'case'"])
        .assert()
        .success();
    let (code, listing) = check_listing(&db);
    assert_eq!(code, Some(1), "{listing}");
    assert_damaged(&listing, "lift_rows = lift", "rows differ");
    liftdb_cmd(&db)
        .args(["ingest", "-q"])
        .arg(fixture("skill-eval-harness-no-scripts"))
        .assert()
        .success();
    let (code, listing) = check_listing(&db);
    assert_eq!(code, Some(0), "{listing}");
}
