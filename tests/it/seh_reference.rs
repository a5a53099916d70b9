//! The views must reproduce skill-eval-harness 0.6.0's own reports on the
//! corpus. Every expected figure is read from the tool's files at test time.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::common::{
    assert_close, corpus_store, f, ingest_paths, new_store, read_report, reference, rows, scalar,
    seh_root, sql_str, TestStore,
};

/// paired_summary (and its by_model blocks) of one report against the lift
/// view's experiment rows (the store holds that one experiment).
pub(crate) fn check_paired_summary(ts: &TestStore, report: &Value, split: &str) {
    check_experiment_summary(ts, report, split, "row_kind = 'experiment'")
}

/// The same, for the experiment rows `experiment_cond` selects.
pub(crate) fn check_experiment_summary(
    ts: &TestStore,
    report: &Value,
    split: &str,
    experiment_cond: &str,
) {
    let ps = &report["paired_summary"];
    let lift = |scope: &str, model: Option<&str>| {
        let model_cond = model.map_or("model IS NULL".to_string(), |m| {
            format!("model = {}", sql_str(m))
        });
        let r = rows(
            &ts.store,
            &format!(
                "SELECT * FROM lift WHERE channel = 'objective' AND control_arm = 'without_skill' AND split = {} AND scope = {} AND {model_cond} AND {experiment_cond}",
                sql_str(split),
                sql_str(scope)
            ),
        );
        assert_eq!(
            r.len(),
            1,
            "one {scope} lift row for split {split} model {model:?}"
        );
        r.into_iter().next().unwrap()
    };
    let check_block = |ours: &serde_json::Map<String, Value>, theirs: &Value, what: &str| {
        assert_close(
            f(&ours["with_rate"]),
            f(&theirs["with_skill_objective_pass_rate"]),
            1e-12,
            &format!("{what} with_skill"),
        );
        assert_close(
            f(&ours["without_rate"]),
            f(&theirs["without_skill_objective_pass_rate"]),
            1e-12,
            &format!("{what} without_skill"),
        );
        assert_close(
            f(&ours["absolute_delta"]),
            f(&theirs["absolute_delta"]),
            1e-12,
            &format!("{what} absolute_delta"),
        );
        match theirs["normalized_gain"].as_f64() {
            Some(g) => assert_close(
                f(&ours["normalized_gain"]),
                g,
                1e-12,
                &format!("{what} normalized_gain"),
            ),
            None => assert!(
                ours["normalized_gain"].is_null(),
                "{what} normalized_gain should be null"
            ),
        }
        // The significance n counts the units the lift averages over.
        assert_eq!(
            ours["units"].as_i64(),
            theirs["significance"]["n"].as_i64(),
            "{what} units"
        );
        let negatives: BTreeSet<(String, Option<String>)> = theirs["negative_delta_cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["case_id"].as_str().unwrap().to_string(),
                    c["model"].as_str().map(str::to_string),
                )
            })
            .collect();
        let ours_neg: BTreeSet<(String, Option<String>)> = ours["negative_delta_cases"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|c| {
                        (
                            c["case_id"].as_str().unwrap().to_string(),
                            c["model"].as_str().map(str::to_string),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let ours_cases: BTreeSet<&String> = ours_neg.iter().map(|(c, _)| c).collect();
        let their_cases: BTreeSet<&String> = negatives.iter().map(|(c, _)| c).collect();
        assert_eq!(ours_cases, their_cases, "{what} negative_delta_cases");
        assert_eq!(
            ours["negative_delta_units"].as_u64(),
            Some(negatives.len() as u64),
            "{what} negative units"
        );
    };

    let overall = lift("overall", None);
    check_block(&overall, ps, &format!("{split} overall"));
    assert_eq!(
        overall["eligible_pairs"].as_i64(),
        ps["pairing"]["eligible_pairs"].as_i64(),
        "{split} eligible pairs"
    );
    assert_eq!(
        overall["blocked_pairs"].as_i64(),
        ps["pairing"]["blocked_pairs"].as_i64(),
        "{split} blocked pairs"
    );

    let by_model = ps["by_model"].as_object().expect("by_model");
    assert!(!by_model.is_empty());
    for (model, block) in by_model {
        let ours = lift("model", Some(model));
        check_block(&ours, block, &format!("{split} model {model}"));
    }
    let our_models = scalar(
        &ts.store,
        &format!("SELECT count(*) FROM lift WHERE channel = 'objective' AND control_arm = 'without_skill' AND scope = 'model' AND split = {} AND {experiment_cond}", sql_str(split)),
    );
    assert_eq!(
        our_models.as_u64(),
        Some(by_model.len() as u64),
        "{split}: same models"
    );
}

pub(crate) fn check_case_flags(ts: &TestStore, report: &Value, split: &str) {
    let theirs: BTreeMap<String, &Value> = report["case_flags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["case_id"].as_str().unwrap().to_string(), c))
        .collect();
    let ours = rows(
        &ts.store,
        &format!(
            // A report over every split flags the cases of all of them.
            "SELECT * FROM case_flags WHERE ({0} = 'all' OR split = {0}) AND len(flags) > 0 ORDER BY case_id",
            sql_str(split)
        ),
    );
    let our_cases: Vec<String> = ours
        .iter()
        .map(|r| r["case_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        our_cases,
        theirs.keys().cloned().collect::<Vec<_>>(),
        "{split}: flagged cases"
    );
    for row in &ours {
        let case = row["case_id"].as_str().unwrap();
        let t = theirs[case];
        assert_eq!(
            row["flags"], t["flags"],
            "{split} {case}: flags (exact labels and order)"
        );
        assert_close(
            f(&row["with_skill"]),
            f(&t["with_skill"]),
            1e-12,
            &format!("{case} with_skill"),
        );
        assert_close(
            f(&row["without_skill"]),
            f(&t["without_skill"]),
            1e-12,
            &format!("{case} without_skill"),
        );
        assert_eq!(
            row["eligible_pairs"].as_i64(),
            t["pairing"]["eligible_pairs"].as_i64(),
            "{case} pairs"
        );
    }
}

pub(crate) fn check_reliability(ts: &TestStore, report: &Value, split: &str) {
    let by_case = report["reliability"]["by_case_variant"]
        .as_object()
        .unwrap();
    let mut checked = 0;
    for (case, variants) in by_case {
        for (variant, stats) in variants.as_object().unwrap() {
            let ours = rows(
                &ts.store,
                &format!(
                    "SELECT * FROM reliability WHERE case_id = {} AND arm = {} ORDER BY k",
                    sql_str(case),
                    sql_str(variant)
                ),
            );
            let n = stats["n"].as_i64().unwrap();
            assert_eq!(
                ours.len() as i64,
                n,
                "{split} {case}/{variant}: one row per k"
            );
            for row in &ours {
                assert_eq!(row["n"].as_i64(), Some(n));
                assert_eq!(row["c"].as_i64(), stats["c"].as_i64(), "{case}/{variant} c");
                let k = row["k"].as_i64().unwrap().to_string();
                // The tool prints these rounded to 6 decimals.
                assert_close(
                    f(&row["pass_at_k"]),
                    f(&stats["pass_at_k"][&k]),
                    5e-7 + 1e-12,
                    &format!("{case}/{variant} pass@{k}"),
                );
                assert_close(
                    f(&row["pass_hat_k"]),
                    f(&stats["pass_hat_k"][&k]),
                    5e-7 + 1e-12,
                    &format!("{case}/{variant} pass^{k}"),
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 0);
}

/// Every graded run: our recomputed rate and status equal the tool's row.
pub(crate) fn check_run_rows(ts: &TestStore, report: &Value) {
    let ours: BTreeMap<(String, String, String, i64), serde_json::Map<String, Value>> = rows(
        &ts.store,
        "SELECT case_id, model, arm, repetition, objective_pass_rate, combined_pass_rate, vetoed, scorable, graded_score FROM runs",
    )
    .into_iter()
    .map(|r| {
        let key = (
            r["case_id"].as_str().unwrap().to_string(),
            r["model"].as_str().unwrap_or("").to_string(),
            r["arm"].as_str().unwrap().to_string(),
            r["repetition"].as_i64().unwrap(),
        );
        (key, r)
    })
    .collect();
    let results = report["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for row in results {
        let key = (
            row["case_id"].as_str().unwrap().to_string(),
            row["model"].as_str().unwrap_or("").to_string(),
            row["variant"].as_str().unwrap().to_string(),
            row["run_number"].as_i64().unwrap(),
        );
        let mine = ours
            .get(&key)
            .unwrap_or_else(|| panic!("run {key:?} not in the store"));
        for field in ["objective_pass_rate", "combined_pass_rate", "graded_score"] {
            match row[field].as_f64() {
                Some(v) => assert_close(f(&mine[field]), v, 1e-12, &format!("{key:?} {field}")),
                None => assert!(mine[field].is_null(), "{key:?} {field} should be NULL"),
            }
        }
        assert_eq!(mine["vetoed"], row["vetoed"], "{key:?} vetoed");
        let scorable =
            !row["missing_output"].as_bool().unwrap() && row["execution_valid"].as_bool().unwrap();
        assert_eq!(
            mine["scorable"].as_bool(),
            Some(scorable),
            "{key:?} scorable"
        );
    }
}

#[test]
fn tune_benchmark_is_reproduced() {
    let ts = corpus_store();
    let report = reference("benchmark-tune.json.gz");
    check_paired_summary(&ts, &report, "tune");
    check_case_flags(&ts, &report, "tune");
    check_reliability(&ts, &report, "tune");
    check_run_rows(&ts, &report);
    for variant in [
        "with_skill",
        "without_skill",
        "ablation:no-severity",
        "ablation:no-checklist",
    ] {
        let runs = scalar(
            &ts.store,
            &format!(
                "SELECT count(*) FROM runs WHERE split = 'tune' AND arm = {}",
                sql_str(variant)
            ),
        );
        assert_eq!(
            runs.as_i64(),
            report["summary"][variant]["runs"].as_i64(),
            "tune {variant} runs"
        );
    }
}

#[test]
fn holdout_benchmark_is_reproduced() {
    let ts = corpus_store();
    let report = reference("benchmark-holdout.json.gz");
    check_paired_summary(&ts, &report, "holdout");
    check_case_flags(&ts, &report, "holdout");
    check_reliability(&ts, &report, "holdout");
    check_run_rows(&ts, &report);
}

#[test]
fn all_splits_benchmark_lift_is_reproduced() {
    let ts = corpus_store();
    let report = reference("benchmark.json.gz");
    check_paired_summary(&ts, &report, "all");
    check_run_rows(&ts, &report);
}

#[test]
fn cost_totals_match_cost_summary() {
    let ts = corpus_store();
    let cs = reference("cost-summary.json");
    let coverage = &cs["coverage"];
    assert_eq!(
        scalar(&ts.store, "SELECT count(*) FROM cost_ledger").as_i64(),
        coverage["runs_seen"].as_i64()
    );
    assert_eq!(
        scalar(&ts.store, "SELECT count(cost_usd) FROM cost_ledger").as_i64(),
        coverage["runs_with_dollar_cost"].as_i64()
    );
    assert_eq!(
        scalar(&ts.store, "SELECT count(total_tokens) FROM cost_ledger").as_i64(),
        coverage["runs_with_token_usage"].as_i64()
    );
    // Runs without a dollar cost are NULL, never 0.
    assert_eq!(
        scalar(&ts.store, "SELECT count(*) FROM cost_ledger WHERE cost_availability = 'unavailable' AND cost_usd IS NULL").as_i64(),
        coverage["runs_missing_cost"].as_i64()
    );
    let known = cs["totals"]["total_cost_usd_aggregate"]["known_subtotal"]
        .as_str()
        .unwrap();
    let ours = scalar(
        &ts.store,
        "SELECT CAST(CAST(sum(cost_usd) AS DECIMAL(38, 6)) AS VARCHAR) FROM cost_ledger",
    );
    assert_eq!(
        ours.as_str(),
        Some(known),
        "known dollar subtotal (exact decimal)"
    );
    for (variant, spend) in cs["by_variant"].as_object().unwrap() {
        let known = spend["total_cost_usd_aggregate"]["known_subtotal"]
            .as_str()
            .unwrap();
        let ours = scalar(
            &ts.store,
            &format!("SELECT CAST(CAST(sum(cost_usd) AS DECIMAL(38, 6)) AS VARCHAR) FROM cost_ledger WHERE arm = {}", sql_str(variant)),
        );
        assert_eq!(
            ours.as_str(),
            Some(known),
            "{variant} known dollar subtotal"
        );
    }
}

#[test]
fn tool_reports_are_kept_as_peer_metrics() {
    let ts = corpus_store();
    let report = reference("benchmark-tune.json.gz");
    let v = scalar(
        &ts.store,
        "SELECT value FROM peer_metric WHERE source_path LIKE '%benchmark-tune.json.gz'
           AND json_path = '/paired_summary/absolute_delta'",
    );
    assert_close(
        f(&v),
        f(&report["paired_summary"]["absolute_delta"]),
        0.0,
        "peer absolute_delta",
    );
    let trig = reference("trigger-matrix-stub.json");
    let n = scalar(
        &ts.store,
        "SELECT count(*) FROM trigger_observation WHERE source_path LIKE '%trigger-matrix-stub.json'",
    );
    assert_eq!(
        n.as_u64(),
        Some(trig["results"].as_array().unwrap().len() as u64)
    );
}

/// A benchmark ingested after its run tree (another call, written on another
/// machine) grades the runs already stored: it takes their release, and the
/// lift equals the report's.
#[test]
fn benchmark_ingested_after_its_runs_joins_their_release() {
    let root = seh_root();
    let mut ts = new_store();
    let first = ingest_paths(
        &mut ts,
        &[
            root.join("runs/eval-runs"),
            root.join("input/evals/shared-benchmark.json"),
        ],
    );
    let second = ingest_paths(&mut ts, &[root.join("reference/benchmark-tune.json.gz")]);
    assert_eq!(second.release, first.release);
    assert_eq!(second.release_source, "graded runs");
    check_paired_summary(&ts, &reference("benchmark-tune.json.gz"), "tune");
}

/// The generator's seed-11 tree (1,500 runs), exactly as skill-benchmark
/// graded it: same tree (fingerprint), then every paired-summary figure,
/// case flag, reliability row and run rate of the tool's report — including
/// the two units the harness calls negative by a last-bit difference of its
/// exact means.
#[test]
fn generated_tree_matches_skill_benchmark() {
    let fixture = crate::common::fixture("generated-seed11");
    let (_dir, tree) = crate::common::generated_tree(11, &fixture);
    let mut ts = new_store();
    let summary = ingest_paths(&mut ts, &[tree, fixture.join("benchmark.json.gz")]);
    assert!(summary.errors.is_empty(), "{:?}", summary.errors);
    let report = read_report(&fixture.join("benchmark.json.gz"));
    let tiny: Vec<&Value> = report["paired_summary"]["negative_delta_cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["delta"].as_f64().unwrap().abs() < 1e-12)
        .collect();
    assert_eq!(tiny.len(), 2, "the fixture keeps its last-bit cases");
    check_paired_summary(&ts, &report, "all");
    check_case_flags(&ts, &report, "all");
    check_reliability(&ts, &report, "all");
    check_run_rows(&ts, &report);
}

/// The harness's trigger-run trace folders (`skill-trigger-matrix
/// --trace-runs`) with the manifest give the matrix the harness reported
/// from the same runs (reference/trigger-matrix-stub-weaker-description.json,
/// read at test time): per agent × model and polarity the observations,
/// passes and incomplete ones, per query the runs that fired.
#[test]
fn trigger_run_traces_give_the_harness_matrix() {
    let root = seh_root();
    let ts = crate::common::store_of(&[
        root.join("runs/trigger-traces-weaker-description"),
        root.join("input/evals/shared-benchmark.json"),
    ]);
    let report = reference("trigger-matrix-stub-weaker-description.json");
    let cells = report["matrix"].as_array().unwrap();
    assert!(!cells.is_empty());
    for cell in cells {
        let (agent, model) = (
            cell["agent"].as_str().unwrap(),
            cell["model"].as_str().unwrap(),
        );
        let mut incomplete = 0.0;
        for (block, polarity) in [
            ("should_trigger", "should fire"),
            ("should_not_trigger", "should not fire"),
        ] {
            let theirs = &cell["summary"][block];
            let ours = rows(
                &ts.store,
                &format!(
                    "SELECT observations, pass_rate, incomplete FROM trigger_rates
                     WHERE agent = {} AND model = {} AND scope = 'polarity' AND polarity = {}",
                    sql_str(agent),
                    sql_str(model),
                    sql_str(polarity)
                ),
            );
            assert_eq!(ours.len(), 1, "{agent} {model} {polarity}: {ours:?}");
            assert_eq!(
                f(&ours[0]["observations"]),
                f(&theirs["total"]),
                "{polarity}"
            );
            assert_close(
                f(&ours[0]["pass_rate"]),
                f(&theirs["pass_rate"]),
                1e-12,
                polarity,
            );
            incomplete += f(&ours[0]["incomplete"]);
        }
        assert_eq!(incomplete, f(&cell["summary"]["incomplete_observations"]));
        for q in cell["queries"].as_array().unwrap() {
            let ours = rows(
                &ts.store,
                &format!(
                    "SELECT observations, triggered FROM trigger_rates
                     WHERE agent = {} AND model = {} AND scope = 'query' AND query_text = {}",
                    sql_str(agent),
                    sql_str(model),
                    sql_str(q["query"].as_str().unwrap())
                ),
            );
            assert_eq!(ours.len(), 1, "{q}: {ours:?}");
            assert_eq!(f(&ours[0]["observations"]), f(&q["runs"]), "{q}");
            assert_eq!(f(&ours[0]["triggered"]), f(&q["triggered_runs"]), "{q}");
        }
    }
}

/// A report ingested under another release than its runs defines that
/// release from what it carries: one run per results[] row (the count read
/// at test time), each marked as the report's; ingested with its runs, the
/// same report defines none (it grades them, a reference for reconcile).
#[test]
fn a_report_under_a_release_of_its_own_defines_its_runs() {
    let root = seh_root();
    let mut ts = new_store();
    let opts = |release: &str| liftdb::batch::IngestOptions {
        release: Some(release.into()),
        ..Default::default()
    };
    liftdb::batch::ingest(
        &mut ts.store,
        &[
            root.join("runs/eval-runs"),
            root.join("input/evals/shared-benchmark.json"),
        ],
        &opts("r1"),
    )
    .unwrap();
    let report = root.join("reference/benchmark-tune.json.gz");
    let summary =
        liftdb::batch::ingest(&mut ts.store, std::slice::from_ref(&report), &opts("r2")).unwrap();
    let results = read_report(&report)["results"].as_array().unwrap().len() as u64;
    assert_eq!(summary.runs_reported, results, "{summary:?}");
    assert_eq!(summary.runs_written, results);
    assert!(summary.reports_without_runs.is_empty(), "{summary:?}");
    let defined = rows(
        &ts.store,
        "SELECT count(*) AS n, count(DISTINCT defined_by) AS reports, bool_and(output_text IS NULL) AS no_output
         FROM run WHERE release_label = 'r2'",
    );
    assert_eq!(defined[0]["n"], results);
    assert_eq!(defined[0]["reports"], 1);
    assert_eq!(defined[0]["no_output"], true);
    // Ingested with its runs, the same report defines none.
    let mut whole = new_store();
    let with_runs = liftdb::batch::ingest(
        &mut whole.store,
        &[
            root.join("runs/eval-runs"),
            root.join("input/evals/shared-benchmark.json"),
            report,
        ],
        &opts("r1"),
    )
    .unwrap();
    assert_eq!(with_runs.runs_reported, 0);
    assert!(with_runs.reports_without_runs.is_empty(), "{with_runs:?}");
}

/// lift_summary: one row per release, skill and split, each the tool's own
/// paired summary (benchmark.json for every split pooled, benchmark-tune /
/// benchmark-holdout for each split, read at test time).
#[test]
fn lift_summary_is_the_tools_paired_summary_one_row_per_split() {
    let ts = corpus_store();
    let ours = rows(&ts.store, "SELECT * FROM lift_summary ORDER BY split");
    let splits: Vec<&str> = ours.iter().map(|r| r["split"].as_str().unwrap()).collect();
    assert_eq!(splits, ["all", "holdout", "tune"], "one row per split");
    for (split, file) in [
        ("all", "benchmark.json.gz"),
        ("tune", "benchmark-tune.json.gz"),
        ("holdout", "benchmark-holdout.json.gz"),
    ] {
        let paired = &reference(file)["paired_summary"];
        let row = ours.iter().find(|r| r["split"] == split).unwrap();
        for (column, key) in [
            ("with_skill", "with_skill_objective_pass_rate"),
            ("without_skill", "without_skill_objective_pass_rate"),
            ("lift", "absolute_delta"),
        ] {
            assert_close(
                f(&row[column]),
                f(&paired[key]),
                1e-12,
                &format!("{split} {column}"),
            );
        }
        let test = &paired["significance"];
        let p = f(&test["p_value"]);
        assert_close(f(&row["p"]), p, 1e-12, &format!("{split} p"));
        // liftdb's significance (docs/metrics.md §M6): on p for an exact
        // test; for a sampled one on the upper bound of its estimate, from
        // the tool's p = (hits + 1)/4097 (hits exact: 6 places move p·4097
        // by at most 0.002), hits/4096 + sqrt(ln(1000)/8192), at most 1.
        let p_upper = match test["method"].as_str() {
            Some("sign-flip-sampled") => {
                let hits = (p * 4097.0 - 1.0).round();
                (hits / 4096.0 + (1000f64.ln() / 8192.0).sqrt()).min(1.0)
            }
            _ => p,
        };
        assert_close(
            f(&row["p_upper"]),
            p_upper,
            5e-7,
            &format!("{split} p_upper"),
        );
        assert_eq!(
            row["significant"].as_bool(),
            Some(p_upper <= 0.05),
            "{split}"
        );
    }
}

/// The corpus's three benchmark reports — every split pooled, tune and
/// holdout — kept alone as one release: each run they carry is defined
/// once (a run two reports list is the first's): as many as the distinct
/// (case, variant, model, run number) their results name, read at test
/// time; and `report reconcile` puts each
/// report's figures beside liftdb's from those runs: every one agrees or
/// names the definition liftdb follows.
#[test]
fn the_corpus_reports_alone_define_their_runs_once_and_reconcile() {
    let reference = seh_root().join("reference");
    let reports = [
        "benchmark.json.gz",
        "benchmark-tune.json.gz",
        "benchmark-holdout.json.gz",
    ]
    .map(|r| reference.join(r));
    let mut ts = new_store();
    let summary = liftdb::batch::ingest(
        &mut ts.store,
        &reports,
        &liftdb::batch::IngestOptions {
            release: Some("archived".into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(summary.errors.is_empty(), "{:?}", summary.errors);
    let listed: std::collections::BTreeSet<String> = reports
        .iter()
        .flat_map(|r| {
            read_report(r)["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|row| {
                    format!(
                        "{} {} {} {}",
                        row["case_id"], row["variant"], row["model"], row["run_number"]
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let listed = listed.len();
    let counts = rows(
        &ts.store,
        "SELECT count(*) AS runs, count(DISTINCT run_id) AS ids FROM run",
    );
    assert_eq!(counts[0]["runs"].as_u64(), Some(listed as u64));
    assert_eq!(counts[0]["ids"].as_u64(), Some(listed as u64));
    assert_eq!(summary.runs_reported as usize, listed);
    let rec = crate::common::reconcile_rows(&ts.store);
    for report in [
        "benchmark.json.gz",
        "benchmark-tune.json.gz",
        "benchmark-holdout.json.gz",
    ] {
        assert!(
            rec.iter().any(|r| r["report"] == report),
            "{report}: {rec:#?}"
        );
    }
    let unexplained: Vec<&Value> = rec
        .iter()
        .filter(|r| r["agrees"] != true && r["definition"].as_str().is_none_or(str::is_empty))
        .collect();
    assert!(unexplained.is_empty(), "{unexplained:#?}");
}

/// Trigger-run traces flag no query falsely: never_triggered names exactly
/// the queries the harness's own matrix says should trigger and fired in
/// none of their runs (reference/trigger-matrix-stub-weaker-description.json,
/// read at test time), never one that should not, and ingest says them in
/// one note for the kind, not one per trace folder.
#[test]
fn never_triggered_names_the_matrixs_silent_positive_queries_in_one_note() {
    let root = seh_root();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.duckdb");
    let out = crate::common::succeeded(
        crate::common::liftdb_cmd(&db)
            .arg("ingest")
            .arg(root.join("runs/trigger-traces-weaker-description"))
            .arg(root.join("input/evals/shared-benchmark.json")),
    );
    let report = reference("trigger-matrix-stub-weaker-description.json");
    let silent: BTreeSet<String> = report["matrix"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|cell| cell["queries"].as_array().unwrap())
        .filter(|q| q["should_trigger"] == true && f(&q["triggered_runs"]) == 0.0)
        .map(|q| q["query"].as_str().unwrap().to_string())
        .collect();
    let store = liftdb::store::open_read_after_upkeep(&db).unwrap();
    let flagged: BTreeSet<String> = rows(
        &store,
        "SELECT subject FROM suspect_measurements WHERE kind = 'never_triggered'",
    )
    .iter()
    .map(|r| r["subject"].as_str().unwrap().to_string())
    .collect();
    assert_eq!(flagged, silent);
    let stderr = crate::common::stderr_of(&out);
    let notes = stderr
        .lines()
        .filter(|l| l.contains("never_triggered"))
        .count();
    assert_eq!(notes, usize::from(!silent.is_empty()), "{stderr}");
    assert!(
        !stderr.contains("capital of France"),
        "a negative query is no suspect: {stderr}"
    );
}
