//! skill-benchmark 0.6.0's `trend` across two releases whose shapes differ:
//! a single-model root first, then a release of two models in two runs
//! roots (tests/fixtures/seh-trend-shapes, written by the tool; r1's report
//! written last, so liftdb's order of reports alone differs from the
//! history's). Every figure of the tool's trend.json, read here, must be
//! liftdb's, whether the second release is the tool's report of the whole
//! tree or its two roots' reports, each a report the tool wrote.

use std::path::PathBuf;

use liftdb::batch::{self, IngestOptions};
use serde_json::Value;

use crate::common::{f, fixture, new_store, read_report, rows, scalar, TestStore};

fn shapes(file: &str) -> PathBuf {
    fixture("seh-trend-shapes").join(file)
}

/// `paths` ingested as `release` (None: the files name it), no error.
fn ingest(ts: &mut TestStore, release: Option<&str>, paths: &[PathBuf]) {
    let opts = IngestOptions {
        release: release.map(str::to_string),
        ..Default::default()
    };
    let summary = batch::ingest(&mut ts.store, paths, &opts).unwrap();
    assert!(summary.errors.is_empty(), "{:?}", summary.errors);
}

/// r1 from its report; r2 from `r2` (report files of the fixture); the trend.
fn store_with_r2(r2: &[&str]) -> TestStore {
    let mut ts = new_store();
    ingest(&mut ts, Some("r1"), &[shapes("r1/benchmark.json.gz")]);
    let r2: Vec<PathBuf> = r2.iter().map(|f| shapes(f)).collect();
    ingest(&mut ts, Some("r2"), &r2);
    ingest(&mut ts, None, &[shapes("trend.json")]);
    ts
}

fn reconcile_trend(ts: &TestStore) -> Vec<Value> {
    let report = liftdb::report::find("reconcile-trend").unwrap();
    let rs = liftdb::report::run(&ts.store.conn, &report, &Default::default()).unwrap();
    let mut out = Vec::new();
    liftdb::output::render(&rs, liftdb::output::Format::Json, &mut out).unwrap();
    serde_json::from_slice(&out).unwrap()
}

/// The row of `metric` (its release given), as reconcile-trend prints it.
fn row<'a>(rows: &'a [Value], release: &str, metric: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["release"] == release && r["metric"] == metric)
        .unwrap_or_else(|| panic!("no row {release} {metric}: {rows:#?}"))
}

/// Every row of reconcile-trend has liftdb's value and agrees, and the
/// figures the tool's trend.json holds are liftdb's, each read from the
/// file here: the series of both reports, the diff's arm means, its case
/// deltas and new and resolved flags.
fn assert_the_tools_trend(ts: &TestStore) {
    let trend = read_report(&shapes("trend.json"));
    let rows = reconcile_trend(ts);
    let missing: Vec<&Value> = rows
        .iter()
        .filter(|r| r["liftdb_value"].is_null())
        .collect();
    assert!(
        missing.is_empty(),
        "rows without liftdb's value: {missing:#?}"
    );
    let disagreeing: Vec<&Value> = rows.iter().filter(|r| r["agrees"] != true).collect();
    assert!(disagreeing.is_empty(), "{disagreeing:#?}");
    // And every benchmark report of the store against liftdb's figures.
    let reconciled = crate::common::reconcile_rows(&ts.store);
    let disagreeing: Vec<&Value> = reconciled.iter().filter(|r| r["agrees"] != true).collect();
    assert!(disagreeing.is_empty(), "{disagreeing:#?}");

    for (i, release) in ["r1", "r2"].into_iter().enumerate() {
        let series = &trend["series"][i];
        for key in [
            "with_skill",
            "without_skill",
            "lift",
            "flagged_cases",
            "saturated_cases",
        ] {
            let ours = row(&rows, release, &format!("trend series: {key}"));
            assert_eq!(f(&ours["liftdb_value"]), f(&series[key]), "{release} {key}");
        }
    }
    let diff = &trend["diffs"][0]["diff"];
    let from = "trend change from run-001.json";
    for (what, list) in [
        ("case deltas", "case_deltas"),
        ("new flags", "new_flags"),
        ("resolved flags", "resolved_flags"),
    ] {
        let tool = diff[list].as_array().unwrap().len() as f64;
        assert!(tool > 0.0, "the fixture's diff has {list}");
        for alike in ["", " (given alike)"] {
            let ours = row(&rows, "r2", &format!("{from}: {what}{alike}"));
            assert_eq!(f(&ours["liftdb_value"]), tool, "{what}{alike}");
        }
    }
    let variants = diff["variant_deltas"].as_object().unwrap();
    assert_eq!(variants.len(), 2, "with_skill and without_skill");
    for (variant, rates) in variants {
        for (rate, values) in rates.as_object().unwrap() {
            for (key, value) in values.as_object().unwrap() {
                let ours = row(&rows, "r2", &format!("{from}: {variant}/{rate}/{key}"));
                assert_eq!(f(&ours["liftdb_value"]), f(value), "{variant} {rate} {key}");
            }
        }
    }
}

#[test]
fn reports_of_two_shapes_alone_give_the_tools_trend_on_every_row() {
    // The case: each history report ingested alone as its release;
    // r1's report was written last, so liftdb orders r2 first. The diff is
    // compared between the releases the tool names, and said so.
    let ts = store_with_r2(&["r2/benchmark.json.gz"]);
    let first: String = serde_json::from_value(scalar(
        &ts.store,
        "SELECT release_label FROM skill_release_order WHERE previous_release IS NULL",
    ))
    .unwrap();
    assert_eq!(
        first, "r2",
        "reports alone sort by generated_at (r1's is later)"
    );
    assert_the_tools_trend(&ts);
    let named = reconcile_trend(&ts)
        .into_iter()
        .filter(|r| {
            r["metric"]
                .as_str()
                .unwrap()
                .starts_with("trend change from")
        })
        .all(|r| {
            r["definition"]
                .as_str()
                .is_some_and(|d| d.contains("is not r1"))
        });
    assert!(named, "a pair liftdb orders otherwise is named");
}

#[test]
fn a_release_of_two_roots_pools_as_the_tools_report_of_one_tree() {
    // r2 as its two runs roots' reports (claude-a, gpt-b): liftdb pools the
    // release as the tool's report of the tree holding both; the history's
    // report of r2 is not held, so it is the release whose paired rates are
    // its series'.
    let ts = store_with_r2(&["r2/benchmark-runs-a.json.gz", "r2/benchmark-runs-b.json.gz"]);
    assert_the_tools_trend(&ts);
    let matched = rows(
        &ts.store,
        "SELECT idx, release_label, matched_by FROM trend_history_release ORDER BY idx",
    );
    assert_eq!(matched[0]["matched_by"], "generated_at");
    assert_eq!(matched[1]["release_label"], "r2");
    assert_eq!(matched[1]["matched_by"], "series");
    // Per experiment the flags stay each root's own: their flagged cases
    // are each root report's case_flags (read here), not the release's.
    for (root, report) in [
        ("runs-a", "r2/benchmark-runs-a.json.gz"),
        ("runs-b", "r2/benchmark-runs-b.json.gz"),
    ] {
        // The tool's flagged cases: the report's case_flags entries (trend
        // counts them so).
        let tool = read_report(&shapes(report))["case_flags"]
            .as_array()
            .map(Vec::len)
            .unwrap();
        let ours: i64 = serde_json::from_value(scalar(
            &ts.store,
            &format!(
                "SELECT count(*) FROM case_flag_rows WHERE release_label = 'r2' AND experiment = '{root}' AND len(flags) > 0"
            ),
        ))
        .unwrap();
        assert_eq!(ours as usize, tool, "{root}");
    }
}

#[test]
fn changes_per_model_and_experiment_where_both_releases_have_them() {
    // r1 ran claude-a alone (root eval-runs); r2 ran claude-a in runs-a and
    // gpt-b in runs-b. Only claude-a is in both: its change is the tool's
    // diff of r1's report and runs-a's (each report's summary, read here).
    let ts = store_with_r2(&["r2/benchmark-runs-a.json.gz", "r2/benchmark-runs-b.json.gz"]);
    let scopes = rows(
        &ts.store,
        "SELECT DISTINCT scope, experiment, model FROM trend_arm_changes
          WHERE previous_release = 'r1' AND release_label = 'r2' ORDER BY ALL",
    );
    let scopes: Vec<(String, String)> = scopes
        .iter()
        .map(|r| {
            (
                r["scope"].as_str().unwrap().to_string(),
                r["model"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        scopes,
        [
            ("model".into(), "claude-a".into()),
            ("release".into(), String::new())
        ],
        "no experiment is in both; gpt-b is not in r1"
    );
    let before = read_report(&shapes("r1/benchmark.json.gz"));
    let after = read_report(&shapes("r2/benchmark-runs-a.json.gz"));
    for arm in ["with_skill", "without_skill"] {
        let rate = |r: &Value| f(&r["summary"][arm]["mean_objective_pass_rate"]);
        let ours = rows(
            &ts.store,
            &format!(
                "SELECT objective_before, objective_after FROM trend_arm_changes
                  WHERE previous_release = 'r1' AND release_label = 'r2'
                    AND scope = 'model' AND model = 'claude-a' AND arm = '{arm}'"
            ),
        );
        assert_eq!(ours.len(), 1, "{arm}");
        assert!(
            (f(&ours[0]["objective_before"]) - rate(&before)).abs() < 1e-12,
            "{arm}"
        );
        assert!(
            (f(&ours[0]["objective_after"]) - rate(&after)).abs() < 1e-12,
            "{arm}"
        );
    }
}

#[test]
fn cases_run_in_one_release_only_are_named_added_or_dropped() {
    // Two gen-runs suites: 30 cases, then 50 (the first 30 among them).
    // The tool's case deltas leave a case of one report out; liftdb names
    // each as added, both arms, and its moved rows
    // are only cases of both.
    let dir = tempfile::tempdir().unwrap();
    let gen = |runs: &str, seed: &str, out: &str| {
        let tree = dir.path().join(out);
        assert_cmd::Command::cargo_bin("gen-runs")
            .unwrap()
            .args(["--runs", runs, "--models", "claude-a", "--reps", "2"])
            .args(["--seed", seed, "--out"])
            .arg(&tree)
            .assert()
            .success();
        tree
    };
    let (small, large) = (gen("120", "5", "v1"), gen("200", "6", "v2"));
    let case_ids = |tree: &PathBuf| -> std::collections::BTreeSet<String> {
        let manifest = read_report(&tree.join("manifest.json"));
        manifest["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap().to_string())
            .collect()
    };
    let added: Vec<String> = case_ids(&large)
        .difference(&case_ids(&small))
        .cloned()
        .collect();
    assert_eq!(added.len(), 20, "the manifests: 50 cases and 30 of them");

    let mut ts = new_store();
    ingest(
        &mut ts,
        Some("v1"),
        &[small.join("eval-runs"), small.join("manifest.json")],
    );
    ingest(
        &mut ts,
        Some("v2"),
        &[large.join("eval-runs"), large.join("manifest.json")],
    );
    let kinds = |kind: &str| -> Vec<String> {
        rows(
            &ts.store,
            &format!(
                "SELECT case_id, count(*) AS arms, bool_and(before IS NULL) AS no_before, bool_and(change IS NULL) AS no_change
                   FROM trend_case_changes
                  WHERE scope = 'release' AND previous_release = 'v1' AND change_kind = '{kind}'
                  GROUP BY case_id ORDER BY case_id"
            ),
        )
        .iter()
        .map(|r| {
            if kind == "added" {
                assert_eq!(r["arms"], 2, "{r:?}");
                assert_eq!(r["no_before"], true, "{r:?}");
                assert_eq!(r["no_change"], true, "{r:?}");
            }
            r["case_id"].as_str().unwrap().to_string()
        })
        .collect()
    };
    assert_eq!(kinds("added"), added);
    assert!(kinds("dropped").is_empty());
    let moved = kinds("moved");
    assert!(!moved.is_empty(), "seeds 5 and 6 draw other rates");
    assert!(moved.iter().all(|c| !added.contains(c)), "{moved:?}");
}

#[test]
fn a_trend_is_reconciled_over_its_own_history_beside_later_releases_and_other_copies() {
    // The store grows past the trend (r3, another release of the skill) and
    // holds the trend twice (a copy in another folder): each copy's rows
    // are its own, and its whole-history lists count its two reports, not
    // the store's three releases (the tool's figures, read from trend.json).
    let mut ts = store_with_r2(&["r2/benchmark.json.gz"]);
    ingest(
        &mut ts,
        Some("r3"),
        &[shapes("r2/benchmark-runs-a.json.gz")],
    );
    let copy = tempfile::tempdir().unwrap();
    std::fs::copy(shapes("trend.json"), copy.path().join("trend.json")).unwrap();
    ingest(&mut ts, None, &[copy.path().join("trend.json")]);
    let trend = read_report(&shapes("trend.json"));
    let rows = reconcile_trend(&ts);
    let bad: Vec<&Value> = rows.iter().filter(|r| r["agrees"] != true).collect();
    assert!(bad.is_empty(), "{bad:#?}");
    let lists: Vec<&Value> = rows
        .iter()
        .filter(|r| r["metric"] == "trend recurring failures (given alike)")
        .collect();
    assert_eq!(lists.len(), 2, "one per copy");
    let tool = trend["recurring_failures"].as_array().unwrap().len() as f64;
    assert!(
        lists.iter().all(|r| f(&r["liftdb_value"]) == tool),
        "{lists:#?}"
    );
    // The store's own view ranks over its three releases.
    let releases: i64 = serde_json::from_value(scalar(
        &ts.store,
        "SELECT max(releases) FROM recurring_failures",
    ))
    .unwrap();
    assert_eq!(releases, 3);
}
