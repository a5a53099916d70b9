//! What the tools keep apart stays apart: one ingest of every corpus keeps
//! each tool run (experiment) equal to that tool's own report, and the
//! release rows pool experiments with each (case, model) counted once.

use serde_json::Value;

use crate::common::{
    assert_close, copy_tree, f, fixture, new_store, read_report, reference, rows, scalar, seh_root,
    sql_str, store_of, TestStore,
};
use crate::seh_reference::check_experiment_summary;

fn every_corpus() -> TestStore {
    store_of(&[
        fixture("seed000-skill-eval"),
        fixture("skill-eval-harness"),
        fixture("skill-creator"),
        fixture("promptfoo"),
        fixture("skill-creator-anthropic"),
    ])
}

/// The objective lift rows of one kind, overall, every split pooled.
fn overall(ts: &TestStore, cond: &str) -> Vec<serde_json::Map<String, Value>> {
    rows(
        &ts.store,
        &format!(
            "SELECT * FROM lift WHERE channel = 'objective' AND control_arm = 'without_skill'
               AND split = 'all' AND scope = 'overall' AND {cond} ORDER BY experiment"
        ),
    )
}

#[test]
fn one_ingest_of_every_corpus_keeps_each_tool_run_equal_to_its_report() {
    let ts = every_corpus();
    // Handbook: one experiment per run id, each equal to its benchmark.json.
    for path in crate::common::seed_benchmarks() {
        let b = read_report(&path);
        let run_id = b["run_id"].as_str().unwrap();
        let row = overall(
            &ts,
            &format!(
                "row_kind = 'experiment' AND experiment = {}",
                sql_str(run_id)
            ),
        );
        assert_eq!(row.len(), 1, "{run_id}");
        let what = |m: &str| format!("{run_id} {m}");
        assert_close(
            f(&row[0]["with_rate"]),
            f(&b["with_skill"]["pass_rate"]),
            1e-12,
            &what("with"),
        );
        assert_close(
            f(&row[0]["without_rate"]),
            f(&b["without_skill"]["pass_rate"]),
            1e-12,
            &what("without"),
        );
        assert_close(
            f(&row[0]["absolute_delta"]),
            f(&b["pass_rate_lift"]),
            1e-12,
            &what("lift"),
        );
    }
    // skill-eval-harness: its runs root is one experiment, equal to the
    // tool's report whatever else the release holds.
    check_experiment_summary(
        &ts,
        &reference("benchmark.json.gz"),
        "all",
        "row_kind = 'experiment' AND experiment = 'eval-runs'",
    );
}

#[test]
fn a_pooled_release_row_counts_each_case_and_model_once() {
    let ts = every_corpus();
    for release in overall(&ts, "row_kind = 'release'") {
        let (rel, skill) = (
            release["release_label"].as_str().unwrap(),
            release["skill_name"].as_str().unwrap(),
        );
        let scope = format!(
            "release_label = {} AND skill_name = {} AND control_arm = 'without_skill'",
            sql_str(rel),
            sql_str(skill)
        );
        // Independent count from the pairs: distinct (case, model) with an
        // eligible pair, where the model is known (units of unknown model
        // are pooled only when one experiment holds them).
        let experiments_unknown = f(&scalar(
            &ts.store,
            &format!(
                "SELECT count(DISTINCT experiment) FROM pairs WHERE {scope} AND model IS NULL"
            ),
        ));
        let distinct = f(&scalar(
            &ts.store,
            &format!(
                "SELECT count(DISTINCT (case_id, model)) FROM pairs WHERE {scope} AND eligible
                   AND (model IS NOT NULL OR {experiments_unknown} = 1)"
            ),
        ));
        assert_eq!(f(&release["units"]), distinct, "{rel} {skill}");
        let deltas = release["deltas"].as_array().unwrap().len() as f64;
        assert_eq!(deltas, distinct, "{rel} {skill}: one delta per unit");
    }
    // The skill all four tools ran: its release row pools seh, skill-creator
    // and promptfoo units of the same (case, model) into one unit each.
    let pooled = overall(
        &ts,
        "row_kind = 'release' AND skill_name = 'sql-migration-review'",
    );
    assert_eq!(pooled.len(), 1);
    let experiment_units: f64 = overall(
        &ts,
        "row_kind = 'experiment' AND skill_name = 'sql-migration-review' AND experiment IN
           (SELECT experiment FROM pairs WHERE model IS NOT NULL)",
    )
    .iter()
    .map(|r| f(&r["units"]))
    .sum();
    assert!(
        f(&pooled[0]["units"]) < experiment_units,
        "pooling merged nothing"
    );
}

#[test]
fn two_copies_of_a_run_tree_in_one_release_pool_into_the_same_units() {
    // The seh dev tree twice, under two runs-root names, with the manifest:
    // one release, two experiments.
    let dir = tempfile::tempdir().unwrap();
    for copy in ["eval-runs-a", "eval-runs-b"] {
        copy_tree(&seh_root().join("runs/eval-runs"), &dir.path().join(copy));
    }
    let manifest = seh_root().join("input/evals/shared-benchmark.json");
    let mut ts = new_store();
    let summary = liftdb::batch::ingest(
        &mut ts.store,
        &[
            dir.path().join("eval-runs-a"),
            dir.path().join("eval-runs-b"),
            manifest.clone(),
        ],
        &liftdb::batch::IngestOptions {
            release: Some("r1".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(summary.errors.is_empty(), "{:?}", summary.errors);
    let one = store_of(&[seh_root().join("runs/eval-runs"), manifest]);
    let tune = |ts: &TestStore, cond: &str| {
        rows(
            &ts.store,
            &format!(
                "SELECT units, eligible_pairs, absolute_delta FROM lift WHERE channel = 'objective'
                   AND control_arm = 'without_skill' AND split = 'tune' AND scope = 'overall' AND {cond}"
            ),
        )
    };
    let single = tune(&one, "row_kind = 'release'");
    let pooled = tune(&ts, "row_kind = 'release'");
    assert_eq!((single.len(), pooled.len()), (1, 1));
    // 21 tune units (the tool's report: paired_summary of benchmark-tune).
    let report = reference("benchmark-tune.json.gz");
    let units = report["paired_summary"]["significance"]["n"]
        .as_f64()
        .unwrap();
    assert_eq!(f(&single[0]["units"]), units);
    assert_eq!(f(&pooled[0]["units"]), units, "the same units");
    assert_eq!(
        f(&pooled[0]["eligible_pairs"]),
        2.0 * f(&single[0]["eligible_pairs"]),
        "twice the pairs"
    );
    assert_close(
        f(&pooled[0]["absolute_delta"]),
        f(&single[0]["absolute_delta"]),
        1e-12,
        "same lift",
    );
    // Each copy is its own experiment, equal to the single tree.
    let experiments = tune(&ts, "row_kind = 'experiment'");
    assert_eq!(experiments.len(), 2);
    assert!(experiments.iter().all(|e| e["units"] == single[0]["units"]));
    // And the p-value is the single tree's: pooling added no units.
    let p = |ts: &TestStore| {
        scalar(
            &ts.store,
            "SELECT p_value FROM lift_stats WHERE channel = 'objective' AND control_arm = 'without_skill'
               AND split = 'tune' AND scope = 'overall' AND row_kind = 'release'",
        )
    };
    assert_eq!(p(&ts), p(&one));
}
