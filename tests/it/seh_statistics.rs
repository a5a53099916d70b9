//! Statistics equal to skill-eval-harness 0.6.0 to the printed digit: the
//! sign-flip test (exact and Python-stream sampled), the graded and pass@1
//! channels, ablation confirmation. Expected values come from its reports.

use serde_json::Value;

use crate::common::{assert_close, corpus_store, f, reference, rows, scalar, sql_str, TestStore};

fn stats_row(
    ts: &TestStore,
    channel: &str,
    split: &str,
    scope: &str,
    model: Option<&str>,
) -> serde_json::Map<String, Value> {
    let model_cond = model.map_or("model IS NULL".to_string(), |m| {
        format!("model = {}", sql_str(m))
    });
    let r = rows(
        &ts.store,
        &format!(
            "SELECT * FROM lift_stats WHERE control_arm = 'without_skill' AND channel = {} AND split = {}
               AND scope = {} AND {model_cond} AND case_id IS NULL AND row_kind = 'experiment'",
            sql_str(channel),
            sql_str(split),
            sql_str(scope)
        ),
    );
    assert_eq!(r.len(), 1, "{channel}/{split}/{scope}/{model:?}");
    r.into_iter().next().unwrap()
}

/// The harness's significance block against one lift_stats row.
fn check_significance(ours: &serde_json::Map<String, Value>, theirs: &Value, what: &str) {
    assert_eq!(
        ours["method"].as_str(),
        theirs["method"].as_str(),
        "{what} method"
    );
    assert_eq!(ours["n"].as_i64(), theirs["n"].as_i64(), "{what} n");
    assert_eq!(
        ours["p_value"].as_f64(),
        theirs["p_value"].as_f64(),
        "{what} p_value"
    );
    assert_eq!(
        ours["observed_mean_delta"].as_f64(),
        theirs["observed_mean_delta"].as_f64(),
        "{what} observed mean"
    );
    assert_eq!(
        ours["significant_at_0_05"].as_bool(),
        theirs["significant_at_0_05"].as_bool(),
        "{what} significant"
    );
}

#[test]
fn lift_significance_matches_every_report() {
    let ts = corpus_store();
    for (file, split) in [
        ("benchmark-tune.json.gz", "tune"),
        ("benchmark-holdout.json.gz", "holdout"),
        ("benchmark.json.gz", "all"),
    ] {
        let ps = &reference(file)["paired_summary"];
        check_significance(
            &stats_row(&ts, "objective", split, "overall", None),
            &ps["significance"],
            &format!("{split} overall"),
        );
        for (model, block) in ps["by_model"].as_object().unwrap() {
            check_significance(
                &stats_row(&ts, "objective", split, "model", Some(model)),
                &block["significance"],
                &format!("{split} {model}"),
            );
        }
    }
}

#[test]
fn graded_channel_matches() {
    let ts = corpus_store();
    for (file, split) in [
        ("benchmark-tune.json.gz", "tune"),
        ("benchmark.json.gz", "all"),
    ] {
        let graded = &reference(file)["paired_summary"]["graded"];
        let lift = rows(
            &ts.store,
            &format!(
                "SELECT with_rate, without_rate FROM lift WHERE channel = 'graded' AND control_arm = 'without_skill'
                   AND scope = 'overall' AND split = {} AND row_kind = 'experiment'",
                sql_str(split)
            ),
        );
        assert_close(
            f(&lift[0]["with_rate"]),
            f(&graded["with_skill_mean_score"]),
            5e-5,
            "graded with",
        );
        assert_close(
            f(&lift[0]["without_rate"]),
            f(&graded["without_skill_mean_score"]),
            5e-5,
            "graded without",
        );
        let s = stats_row(&ts, "graded", split, "overall", None);
        assert_eq!(
            s["mean_delta_rounded4"].as_f64(),
            graded["delta"].as_f64(),
            "graded delta"
        );
        check_significance(&s, &graded["significance"], &format!("{split} graded"));
    }
}

#[test]
fn reliability_paired_lift_matches() {
    let ts = corpus_store();
    for (file, split) in [
        ("benchmark-tune.json.gz", "tune"),
        ("benchmark-holdout.json.gz", "holdout"),
    ] {
        let pl = &reference(file)["reliability"]["paired_lift"];
        let pooled = &pl["pooled"];
        let s = stats_row(&ts, "pass_at_1", split, "overall", None);
        assert_eq!(s["n"].as_i64(), pooled["cases"].as_i64());
        assert_eq!(
            s["observed_mean_delta"].as_f64(),
            pooled["mean_pass_at_1_delta"].as_f64(),
            "{split} mean delta pass@1"
        );
        check_significance(&s, &pooled["significance"], &format!("{split} pass@1"));
        for (unit, block) in pl["by_case"].as_object().unwrap() {
            let (case, model) = unit.split_once('@').expect("case@model");
            let d = scalar(
                &ts.store,
                &format!(
                    "SELECT delta FROM lift_units WHERE channel = 'pass_at_1' AND control_arm = 'without_skill'
                       AND case_id = {} AND model = {} AND row_kind = 'experiment'",
                    sql_str(case),
                    sql_str(model)
                ),
            );
            assert_close(
                f(&d),
                f(&block["pass_at_1_delta"]),
                5e-7 + 1e-12,
                &format!("{unit} delta pass@1"),
            );
        }
    }
}

#[test]
fn paired_pass_at_k_and_pass_hat_k_lift_match_for_every_k() {
    let ts = corpus_store();
    for (file, split) in [
        ("benchmark-tune.json.gz", "tune"),
        ("benchmark-holdout.json.gz", "holdout"),
        ("benchmark.json.gz", "all"),
    ] {
        let pl = &reference(file)["reliability"]["paired_lift"];
        // Pooled per k (the report's rounding, 6 places) overall and per model.
        let mut blocks = vec![(None, &pl["pooled"])];
        for (model, block) in pl["by_model"].as_object().unwrap() {
            blocks.push((Some(model.as_str()), &block["pooled"]));
        }
        for (model, pooled) in blocks {
            let ours = rows(
                &ts.store,
                &format!(
                    "SELECT k, units, liftdb_pyround(pass_at_k_delta, 6) AS at_k, liftdb_pyround(pass_hat_k_delta, 6) AS hat_k
                     FROM reliability_lift WHERE control_arm = 'without_skill' AND split = {} AND {} ORDER BY k",
                    sql_str(split),
                    match model {
                        Some(m) => format!("scope = 'model' AND model = {}", sql_str(m)),
                        None => "scope = 'overall'".to_string(),
                    }
                ),
            );
            let what = format!("{split} {model:?}");
            let at_k = pooled["mean_pass_at_k_delta"].as_object().unwrap();
            let hat_k = pooled["mean_pass_hat_k_delta"].as_object().unwrap();
            assert_eq!(ours.len(), at_k.len(), "{what}: every k");
            for r in &ours {
                let k = r["k"].to_string();
                assert_eq!(r["at_k"].as_f64(), at_k[&k].as_f64(), "{what} pass@{k}");
                assert_eq!(r["hat_k"].as_f64(), hat_k[&k].as_f64(), "{what} pass^{k}");
            }
            assert_eq!(
                ours[0]["units"].as_i64(),
                pooled["cases"].as_i64(),
                "{what} units"
            );
        }
        // Per unit, every k.
        for (unit, block) in pl["by_case"].as_object().unwrap() {
            let (case, model) = unit.split_once('@').expect("case@model");
            let ours = rows(
                &ts.store,
                &format!(
                    "SELECT k, liftdb_pyround(pass_at_k_delta, 6) AS at_k, liftdb_pyround(pass_hat_k_delta, 6) AS hat_k
                     FROM reliability_lift WHERE control_arm = 'without_skill' AND split = {} AND scope = 'unit'
                       AND case_id = {} AND model = {} ORDER BY k",
                    sql_str(split),
                    sql_str(case),
                    sql_str(model)
                ),
            );
            let at_k = block["pass_at_k_delta"].as_object().unwrap();
            assert_eq!(ours.len(), at_k.len(), "{unit}");
            for r in &ours {
                let k = r["k"].to_string();
                assert_eq!(r["at_k"].as_f64(), at_k[&k].as_f64(), "{unit} pass@{k}");
                assert_eq!(
                    r["hat_k"].as_f64(),
                    block["pass_hat_k_delta"][&k].as_f64(),
                    "{unit} pass^{k}"
                );
            }
        }
    }
}

#[test]
fn ablations_are_confirmed_causal_like_the_tool() {
    check_ablations(&corpus_store(), &reference("benchmark-tune.json.gz"));
}

#[test]
fn a_blocked_ablation_pair_is_no_evidence_like_the_tool() {
    // The dev tree with one ablation run made a runner failure (fixture
    // seh-blocked-ablation-pair: the same change, and skill-benchmark's report on it).
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("eval-runs");
    crate::common::copy_tree(&crate::common::seh_root().join("runs/eval-runs"), &runs);
    std::fs::write(
        runs.join("add-not-null-column/claude-haiku-4-5/ablation:no-severity/run-1/output.md"),
        "[CLAUDE FAILURE] exit 1: the runner crashed before answering\n",
    )
    .unwrap();
    let mut ts = crate::common::new_store();
    let summary = liftdb::batch::ingest(
        &mut ts.store,
        &[
            runs,
            crate::common::seh_root().join("input/evals/shared-benchmark.json"),
        ],
        &liftdb::batch::IngestOptions {
            allow_scripts: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert!(summary.errors.is_empty(), "{:?}", summary.errors);
    let report = crate::common::read_report(&crate::common::fixture(
        "seh-blocked-ablation-pair/benchmark-tune.json.gz",
    ));
    // The cohort with the blocked pair is tested on its 5 other pairs.
    let by_case = &report["ablation_regressions"][0]["regressions"][0]["significance"]["by_case"];
    assert_eq!(by_case["add-not-null-column@claude-haiku-4-5"]["n"], 5);
    check_ablations(&ts, &report);
}

/// Every ablation regression of a report against ablation_stats.
fn check_ablations(ts: &TestStore, report: &Value) {
    let ablations = report["ablation_regressions"].as_array().unwrap();
    let measured: Vec<&Value> = ablations
        .iter()
        .filter(|a| a["status"] == "measured")
        .collect();
    assert_eq!(measured.len(), 2);
    for ab in ablations.iter().filter(|a| a["status"] != "measured") {
        let n = scalar(
            &ts.store,
            &format!("SELECT count(*) FROM ablation_stats WHERE status = 'measured' AND ablation_id = {}", sql_str(ab["id"].as_str().unwrap())),
        );
        assert_eq!(n.as_i64(), Some(0), "{} is unmeasured", ab["id"]);
    }
    for ab in measured {
        let id = ab["id"].as_str().unwrap();
        for (index, reg) in ab["regressions"].as_array().unwrap().iter().enumerate() {
            let ours = rows(
                &ts.store,
                &format!(
                    "SELECT * FROM ablation_stats WHERE ablation_id = {} AND regression_index = {index}",
                    sql_str(id)
                ),
            );
            assert_eq!(ours.len(), 1, "{id} regression {index}");
            let o = &ours[0];
            assert_eq!(
                o["evidence_class"].as_str(),
                reg["evidence_class"].as_str(),
                "{id} evidence class"
            );
            assert_eq!(
                o["expected_regression_confirmed"].as_bool(),
                reg["expected_regression_confirmed"].as_bool()
            );
            assert_eq!(
                o["provenance_verified"].as_bool(),
                ab["provenance_verified"].as_bool(),
                "{id} provenance"
            );
            let sig = &reg["significance"];
            assert_eq!(
                o["min_p_value"].as_f64(),
                sig["min_p_value"].as_f64(),
                "{id} min p"
            );
            assert_eq!(
                o["significant_at_0_05"].as_bool(),
                sig["significant_at_0_05"].as_bool()
            );
            let parse = |v: &Value| -> Value { serde_json::from_str(v.as_str().unwrap()).unwrap() };
            assert_eq!(
                parse(&o["confirmed_cases"]),
                reg["confirmed_cases"],
                "{id} confirmed cases"
            );
            assert_eq!(
                parse(&o["measured_cases"]),
                reg["measured_cases"],
                "{id} measured cases"
            );
            assert_eq!(
                parse(&o["cohort_tests"]),
                sig["by_case"],
                "{id} per-cohort tests"
            );
            // The evidence of each flip: rates over the cohort's eligible pairs only.
            for ev in reg["evidence"].as_array().unwrap() {
                let ours = rows(
                    &ts.store,
                    &format!(
                        "SELECT e.pairs, x.* FROM ablation_evidence e, unnest(e.assertion_evidence) AS t(x)
                         WHERE e.ablation_id = {} AND e.regression_index = {index} AND e.case_id = {}
                           AND e.model IS NOT DISTINCT FROM {} AND x.assertion = {}",
                        sql_str(id),
                        sql_str(ev["case"].as_str().unwrap()),
                        ev["model"].as_str().map_or("NULL".into(), sql_str),
                        sql_str(ev["assertion"].as_str().unwrap())
                    ),
                );
                assert_eq!(ours.len(), 1, "{id} {ev}");
                let what = format!("{id} {} {}", ev["case"], ev["model"]);
                assert_eq!(
                    ours[0]["paired_observations"], ev["paired_observations"],
                    "{what}"
                );
                assert_eq!(ours[0]["pairs"], ev["paired_observations"], "{what} pairs");
                assert_eq!(
                    ours[0]["with_skill_rate"].as_f64(),
                    ev["with_skill_rate"].as_f64(),
                    "{what}"
                );
                assert_eq!(
                    ours[0]["ablation_rate"].as_f64(),
                    ev["ablation_rate"].as_f64(),
                    "{what}"
                );
            }
            // Coverage is over the cohort's eligible pairs: a blocked pair is no gap.
            assert_eq!(
                o["coverage_gaps"].as_u64(),
                Some(reg["assertion_coverage_gaps"].as_array().unwrap().len() as u64),
                "{id} coverage gaps"
            );
        }
    }
}

/// Brute-force two-sided sign-flip p, written independently of src/stats.
fn brute_force_p(d: &[f64]) -> f64 {
    let n = d.len();
    let observed = (d.iter().sum::<f64>() / n as f64).abs();
    let mut hits = 0;
    for mask in 0..(1u32 << n) {
        let s: f64 = (0..n)
            .map(|i| if mask & (1 << i) != 0 { -d[i] } else { d[i] })
            .sum();
        if (s / n as f64).abs() >= observed - 1e-12 {
            hits += 1;
        }
    }
    hits as f64 / (1u32 << n) as f64
}

#[test]
fn sign_flip_p_sql_function_equals_exact_enumeration() {
    let ts = corpus_store();
    let d = [0.5, 0.25, 1.0, 0.0, 0.75, 0.5];
    let p = scalar(
        &ts.store,
        "SELECT sign_flip_p([0.5, 0.25, 1.0, 0.0, 0.75, 0.5])",
    );
    assert_eq!(p.as_f64(), Some(brute_force_p(&d)));
    let s = rows(
        &ts.store,
        "SELECT s.method, s.p_value FROM (SELECT sign_flip([1.0, 1.0, 1.0, 1.0, 1.0, 1.0]) AS s)",
    );
    assert_eq!(s[0]["p_value"].as_f64(), Some(0.03125));
    assert_eq!(s[0]["method"].as_str(), Some("sign-flip-exact"));
    let iv = rows(
        &ts.store,
        "SELECT i.bounded FROM (SELECT sign_flip_interval([0.5, 0.4, 0.6]) AS i)",
    );
    assert_eq!(
        iv[0]["bounded"].as_bool(),
        Some(false),
        "three units cannot bound an interval"
    );
    // The functions compose with the views: the tune lift's p from its unit deltas.
    let p = scalar(
        &ts.store,
        "SELECT round(sign_flip_p(deltas), 6) FROM lift WHERE channel = 'objective' AND control_arm = 'without_skill'
           AND split = 'tune' AND scope = 'overall' AND row_kind = 'experiment'",
    );
    let expected =
        reference("benchmark-tune.json.gz")["paired_summary"]["significance"]["p_value"].clone();
    assert_eq!(p.as_f64(), expected.as_f64());
}

/// token-overhead grades without `--allow-scripts` (the corpus ran it so), so
/// its objective deltas differ from the benchmark's on the case whose oracle is
/// a script; cost and token deltas do not depend on grading and must match
/// everywhere, and the ratios must match wherever the grading agrees.
#[test]
fn cost_per_lift_matches_token_overhead() {
    let ts = corpus_store();
    let report = &reference("token-overhead.json.gz")["reports"][0];
    let summary = &report["summary"];
    for (ours, theirs) in [
        ("cost_delta", "cost_delta_usd"),
        ("total_token_delta", "total_token_delta"),
        ("input_token_delta", "input_token_delta"),
        ("output_token_delta", "output_token_delta"),
    ] {
        let s = rows(
            &ts.store,
            &format!("SELECT avg({ours}) AS mean, count({ours}) AS n, min({ours}) AS min, max({ours}) AS max FROM cost_per_lift"),
        )
        .remove(0);
        let t = &summary[theirs];
        assert_eq!(s["n"].as_i64(), t["n"].as_i64(), "{ours} n");
        for k in ["mean", "min", "max"] {
            assert_close(
                f(&s[k]),
                f(&t[k]),
                1e-9 * f(&t[k]).abs().max(1.0),
                &format!("{ours} {k}"),
            );
        }
    }
    let reasons = rows(
        &ts.store,
        "SELECT cost_blocked_reason AS reason, count(*) AS n FROM cost_per_lift
          WHERE cost_blocked_reason IS NOT NULL GROUP BY 1 ORDER BY 1",
    );
    let theirs = summary["cost_delta_coverage"]["blocked_reason_counts"]
        .as_object()
        .unwrap();
    assert_eq!(reasons.len(), theirs.len());
    for r in reasons {
        assert_eq!(
            r["n"].as_i64(),
            theirs[r["reason"].as_str().unwrap()].as_i64(),
            "{:?}",
            r["reason"]
        );
    }

    let script_cases: Vec<String> = rows(
        &ts.store,
        "SELECT DISTINCT case_id FROM case_def, unnest(from_json(assertions, '[\"JSON\"]')) AS a(x)
          WHERE x ->> 'type' = 'script'",
    )
    .into_iter()
    .map(|r| r["case_id"].as_str().unwrap().to_string())
    .collect();
    assert!(!script_cases.is_empty());
    let by_pair: std::collections::HashMap<(String, String, i64), serde_json::Map<String, Value>> =
        rows(&ts.store, "SELECT * FROM cost_per_lift")
            .into_iter()
            .map(|r| {
                let k = (
                    r["case_id"].as_str().unwrap().to_string(),
                    r["model"].as_str().unwrap().to_string(),
                    r["repetition"].as_i64().unwrap(),
                );
                (k, r)
            })
            .collect();
    let mut compared = 0;
    for pair in report["pairs"].as_array().unwrap() {
        let case = pair["case_id"].as_str().unwrap();
        let key = (
            case.to_string(),
            pair["model"].as_str().unwrap().to_string(),
            pair["run_number"].as_i64().unwrap(),
        );
        let ours = &by_pair[&key];
        let close_or_null = |o: &Value, t: &Value, what: &str| match t.as_f64() {
            Some(v) => assert_close(f(o), v, 1e-9 * v.abs().max(1.0), what),
            None => assert!(o.is_null(), "{what}: expected NULL, got {o}"),
        };
        close_or_null(
            &ours["cost_delta"],
            &pair["cost_delta_usd"],
            &format!("{case} cost delta"),
        );
        close_or_null(
            &ours["total_token_delta"],
            &pair["total_token_delta"],
            &format!("{case} token delta"),
        );
        if script_cases.iter().any(|c| c == case) {
            continue;
        }
        close_or_null(
            &ours["objective_delta"],
            &pair["objective_delta"],
            &format!("{case} objective delta"),
        );
        close_or_null(
            &ours["lift_per_dollar"],
            &pair["objective_lift_per_dollar"],
            &format!("{case} lift per $"),
        );
        close_or_null(
            &ours["lift_per_1k_tokens"],
            &pair["objective_lift_per_1k_total_tokens"],
            &format!("{case} lift per 1k tokens"),
        );
        compared += 1;
    }
    assert!(compared >= 100, "compared {compared} pairs");
}

/// The harness's basis rule (docs/metrics.md §M9 compare_cost_pair), one
/// case each: comparable pairs of the corpus with the with_skill arm's basis
/// changed one way each, and the reason the rule gives for that change.
#[test]
fn each_basis_difference_blocks_a_cost_pair_with_the_harness_reason() {
    let ts = corpus_store();
    let changes = [
        (
            r#"json_merge_patch(m.basis, '{"population": null}')"#,
            "basis_missing",
        ),
        (
            r#"json_merge_patch(m.basis, '{"population": "other"}')"#,
            "population_mismatch",
        ),
        (
            r#"json_merge_patch(m.basis, '{"run_number": 99}')"#,
            "pair_key_mismatch",
        ),
        (
            r#"json_merge_patch(m.basis, '{"case_id": "elsewhere"}')"#,
            "pair_key_mismatch",
        ),
        (
            r#"json_merge_patch(m.basis, '{"provider": "x"}')"#,
            "basis_mismatch",
        ),
        (
            r#"json_merge_patch(m.basis, '{"billing_scope": "batch"}')"#,
            "basis_mismatch",
        ),
        // One arm with a tree hash and the other without is a missing basis;
        // two different hashes are a mismatch.
        (
            r#"json_merge_patch(m.basis, '{"skill_tree_hash": "changed"}')"#,
            "basis_missing if the control has none, else basis_mismatch",
        ),
        // A key present with a JSON null counts as missing.
        (
            r#"regexp_replace(json_merge_patch(m.basis, '{"run_number": null}')::VARCHAR, '}$', ',"run_number":null}')::JSON"#,
            "basis_missing",
        ),
        ("NULL", "basis_missing"),
    ];
    let targets = rows(
        &ts.store,
        "SELECT pair_key, metric, with_run_id,
                (SELECT basis ->> 'skill_tree_hash' FROM measurement c
                  WHERE c.run_id = p.control_run_id AND c.metric = p.metric) IS NULL AS control_unhashed
           FROM cost_pairs p
          WHERE comparable AND with_run_id IN (SELECT run_id FROM measurement WHERE basis IS NOT NULL)
          ORDER BY pair_key, metric",
    );
    assert!(
        targets.len() >= changes.len(),
        "{} comparable pairs",
        targets.len()
    );
    let mut expected = Vec::new();
    for (target, (change, reason)) in targets.iter().zip(changes) {
        let (pair, metric, run) = (
            target["pair_key"].as_str().unwrap(),
            target["metric"].as_str().unwrap(),
            target["with_run_id"].as_str().unwrap(),
        );
        ts.store
            .conn
            .execute_batch(&format!(
                "UPDATE measurement m SET basis = {change}
                  WHERE run_id = {} AND metric = {}",
                sql_str(run),
                sql_str(metric)
            ))
            .unwrap();
        let reason = match reason.split_once(" if ") {
            Some(_) if target["control_unhashed"] == Value::Bool(true) => "basis_missing",
            Some(_) => "basis_mismatch",
            None => reason,
        };
        expected.push((pair.to_string(), metric.to_string(), change, reason));
    }
    for (pair, metric, change, reason) in expected {
        let got = scalar(
            &ts.store,
            &format!(
                "SELECT blocked_reason FROM cost_pairs WHERE pair_key = {} AND metric = {}",
                sql_str(&pair),
                sql_str(&metric)
            ),
        );
        assert_eq!(got.as_str(), Some(reason), "{pair} {metric}: {change}");
    }
}

/// The exact mean as an aggregate (what the views use where a list per group
/// would not spill) gives statistics.mean's value, as the list form does,
/// where a float sum does not. Expected values: Python's
/// statistics.mean([0.1] * 10) == 0.1 and statistics.mean([0.3, 0.1, 0.2])
/// == 0.2 (exact fractions, rounded once), against 0.09999999999999999 and
/// 0.20000000000000004 summed in floats.
#[test]
fn exact_mean_aggregate_is_statistics_mean() {
    let ts = crate::common::new_store();
    for (values, mean) in [
        ("0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1", 0.1),
        ("0.3, 0.1, 0.2", 0.2),
    ] {
        let r = &rows(
            &ts.store,
            &format!(
                "SELECT liftdb_mean_agg(x) AS agg, liftdb_mean(list(x)) AS list_form,
                        liftdb_mean_signed_agg(-x) AS negated, sum(x) / count(x) AS float_sum,
                        liftdb_mean_agg(CASE WHEN x < 0 THEN x END) AS none
                 FROM unnest([{values}]::DOUBLE[]) t(x)"
            ),
        )[0];
        assert_eq!(r["agg"].as_f64(), Some(mean), "{values}");
        assert_eq!(r["list_form"].as_f64(), Some(mean), "{values}");
        assert_eq!(r["negated"].as_f64(), Some(-mean), "{values}");
        assert_ne!(
            r["float_sum"].as_f64(),
            Some(mean),
            "{values}: the float sum differs"
        );
        assert!(r["none"].is_null(), "no value: NULL, not 0");
    }
}

/// A pair whose control run is missing is blocked `missing_right` in
/// cost_pairs, as the harness's token-overhead report blocks it (the
/// reasons are read from the tool's report on the same tree, at test time).
#[test]
fn a_pair_missing_its_control_run_is_missing_right_like_the_tool() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("eval-runs");
    crate::common::copy_tree(&crate::common::seh_root().join("runs/eval-runs"), &runs);
    std::fs::remove_dir_all(runs.join("add-not-null-column/claude-haiku-4-5/without_skill/run-2"))
        .unwrap();
    let ts = crate::common::store_of(&[
        runs,
        crate::common::seh_root().join("input/evals/shared-benchmark.json"),
    ]);
    let report = crate::common::read_report(&crate::common::fixture(
        "seh-missing-control/token-overhead.json.gz",
    ));
    let blocked = report["reports"][0]["blocked_pairs"].as_array().unwrap();
    assert!(!blocked.is_empty(), "the tool blocked the pair");
    for pair in blocked {
        let ours = crate::common::scalar(
            &ts.store,
            &format!(
                "SELECT blocked_reason FROM cost_pairs WHERE metric = 'total_tokens'
                 AND case_id = {} AND model = {} AND repetition = {}",
                crate::common::sql_str(pair["case_id"].as_str().unwrap()),
                crate::common::sql_str(pair["model"].as_str().unwrap()),
                pair["run_number"]
            ),
        );
        assert_eq!(ours, pair["pair_status"]["reason"], "{pair}");
    }
}

/// report cost-per-lift's overall row is skill-eval-harness token-overhead's
/// summary (its means of per-pair values, read from the tool's report at
/// test time) rounded as the report prints it (Python's round: the means are
/// exact, as statistics.mean takes them, so a mean just below a tie, such
/// as 0.0007804999999999999, prints as Python prints it); the per-model rows
/// pool to it. The store holds the runs and the manifest, graded by liftdb
/// without running scripts, as token-overhead grades them (with the
/// benchmark's gradings ingested too, the objective deltas are those of the
/// benchmark, which ran them).
#[test]
fn cost_per_lift_overall_row_is_the_token_overhead_summary() {
    let root = crate::common::seh_root();
    let ts = crate::common::store_of(&[
        root.join("runs/eval-runs"),
        root.join("input/evals/shared-benchmark.json"),
    ]);
    let summary = &reference("token-overhead.json.gz")["reports"][0]["summary"];
    let report = liftdb::report::find("cost-per-lift").unwrap();
    let rs = liftdb::report::run(&ts.store.conn, &report, &Default::default()).unwrap();
    let rows = crate::common::result_rows(&rs);
    let overall: Vec<_> = rows.iter().filter(|r| r["scope"] == "overall").collect();
    assert_eq!(
        overall.len(),
        1,
        "one experiment, one overall row: {overall:?}"
    );
    let overall = overall[0];
    assert_eq!(overall["split"], "all");
    assert_eq!(
        overall["pairs"].as_i64(),
        summary["objective_delta"]["n"].as_i64(),
        "pairs"
    );
    for (ours, theirs, places) in [
        ("mean_lift", "objective_delta", 4),
        ("mean_cost_delta_usd", "cost_delta_usd", 6),
        ("mean_token_delta", "total_token_delta", 1),
        ("lift_per_dollar", "objective_lift_per_dollar", 2),
        (
            "lift_per_1k_tokens",
            "objective_lift_per_1k_total_tokens",
            4,
        ),
    ] {
        let expected = liftdb::stats::py_round(f(&summary[theirs]["mean"]), places);
        assert_eq!(f(&overall[ours]), expected, "{ours}");
    }
    // One row per model, their pairs adding up to the overall row's.
    let models: Vec<_> = rows.iter().filter(|r| r["scope"] == "model").collect();
    assert_eq!(models.len(), 3);
    let pairs: i64 = models.iter().map(|r| r["pairs"].as_i64().unwrap()).sum();
    assert_eq!(Some(pairs), overall["pairs"].as_i64());
}

/// The headline tells one story: "significant" exactly when its interval
/// (which inverts the test, on a sampled p's upper bound as main decides)
/// leaves 0 out, on every tool corpus in one store and split by split
/// (the demo's releases are these corpora). Source of the bounds and p:
/// lift_stats, the same release row the sentence is made from.
#[test]
fn no_headline_calls_a_lift_significant_beside_an_interval_holding_0() {
    let ts = crate::common::store_of(&crate::common::tool_corpora());
    let rows = rows(
        &ts.store,
        "SELECT h.sentence, s.method, s.p_value, s.ci_lower, s.ci_upper
         FROM lift_headline h
         JOIN lift_stats s
           ON s.release_label = h.release_label AND s.skill_name = h.skill_name
          AND s.control_arm = h.control_arm AND s.split = h.split AND s.channel = 'objective'
          AND s.row_kind = 'release' AND s.scope = 'overall' AND s.experiment IS NULL",
    );
    assert!(rows.len() >= 6, "{rows:?}");
    let mut sampled_disagreeing = 0;
    for row in &rows {
        let sentence = row["sentence"].as_str().unwrap();
        let significant = sentence.contains("— significant");
        let excludes_0 = match (row["ci_lower"].as_f64(), row["ci_upper"].as_f64()) {
            (Some(lo), Some(hi)) => lo > 0.0 || hi < 0.0,
            _ => false,
        };
        assert_eq!(significant, excludes_0, "{row:?}");
        if row["method"] == "sign-flip-sampled" && f(&row["p_value"]) <= 0.05 && !significant {
            assert!(sentence.contains("allowing for the sampling"), "{sentence}");
            sampled_disagreeing += 1;
        }
    }
    // The corpora hold the demo's case: split tune, 21 units, sampled p under
    // 0.05 whose upper bound is not.
    assert!(sampled_disagreeing >= 1, "{rows:?}");
}
