//! The statistics beside the sign-flip p (lift_evidence, report lift):
//! each checked against an independent computation from the raw pairs and
//! units — Wilson by its closed form, BH by hand, the bootstrap by a slow
//! reference that builds every resample.

use std::collections::BTreeMap;

use liftdb::stats::mt19937::PyRandom;
use serde_json::Value;

use crate::common::{corpus_store, f, rows};

/// The release rows of the skill-eval-harness corpus, objective channel,
/// every split pooled, against without_skill.
const ROW: &str = "channel = 'objective' AND split = 'all' AND row_kind = 'release' AND control_arm = 'without_skill'";

/// Wilson 95% interval by its closed form (Wilson 1927; z = Φ⁻¹(0.975)).
fn wilson(k: f64, n: f64) -> (f64, f64) {
    let z = 1.959963984540054_f64;
    let p = k / n;
    let centre = p + z * z / (2.0 * n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    let scale = 1.0 + z * z / n;
    ((centre - half) / scale, (centre + half) / scale)
}

/// Benjamini–Hochberg q-values, by hand: sort, scale by m/rank, take the
/// running minimum from the largest p down, cap at 1.
fn bh(ps: &[f64]) -> Vec<f64> {
    let m = ps.len() as f64;
    let mut order: Vec<usize> = (0..ps.len()).collect();
    order.sort_by(|&a, &b| ps[a].total_cmp(&ps[b]));
    let mut q = vec![0.0; ps.len()];
    let mut running = 1.0_f64;
    for (rank, &i) in order.iter().enumerate().rev() {
        running = running.min(ps[i] * m / (rank as f64 + 1.0));
        q[i] = running;
    }
    q
}

#[test]
fn benjamini_hochberg_by_hand_on_a_small_list() {
    // p = 0.01, 0.04, 0.03, 0.005 (m = 4): sorted 0.005, 0.01, 0.03, 0.04 →
    // 4p/rank = 0.02, 0.02, 0.04, 0.04 → running minimum from the top: the same.
    let q = bh(&[0.01, 0.04, 0.03, 0.005]);
    let expected = [0.02, 0.04, 0.04, 0.02];
    for (a, b) in q.iter().zip(expected) {
        assert!((a - b).abs() < 1e-15, "{q:?}");
    }
}

#[test]
fn wilson_wins_ties_losses_and_q_equal_an_independent_computation() {
    let ts = corpus_store();
    let store = &ts.store;

    // Wilson per arm on the overall row: successes counted from the pairs.
    let counted = &rows(
        store,
        "SELECT count(*) FILTER (WHERE eligible) AS n,
                count(*) FILTER (WHERE eligible AND with_rate >= 1 - 1e-12) AS with_k,
                count(*) FILTER (WHERE eligible AND control_rate >= 1 - 1e-12) AS control_k
         FROM pairs WHERE control_arm = 'without_skill'",
    )[0];
    let ours = &rows(
        store,
        &format!("SELECT * FROM lift_evidence WHERE {ROW} AND scope = 'overall'"),
    )[0];
    let n = f(&counted["n"]);
    for (arm, k) in [("with", "with_k"), ("control", "control_k")] {
        let (lo, hi) = wilson(f(&counted[k]), n);
        assert!(
            (f(&ours[&format!("{arm}_wilson_lower")]) - lo).abs() < 1e-12,
            "{arm} lower"
        );
        assert!(
            (f(&ours[&format!("{arm}_wilson_upper")]) - hi).abs() < 1e-12,
            "{arm} upper"
        );
    }

    // Wins, ties, losses: the signs of the unit deltas, from lift_units.
    let signs = &rows(
        store,
        &format!(
            "SELECT count(*) FILTER (WHERE delta > 0) AS w, count(*) FILTER (WHERE delta = 0) AS t,
                    count(*) FILTER (WHERE delta < 0) AS l
             FROM lift_units WHERE {} AND eligible_pairs > 0",
            ROW.replace("split = 'all' AND ", "")
        ),
    )[0];
    assert_eq!(ours["units_won"], signs["w"]);
    assert_eq!(ours["units_tied"], signs["t"]);
    assert_eq!(ours["units_lost"], signs["l"]);
    let total = ["w", "t", "l"]
        .iter()
        .map(|k| signs[*k].as_i64().unwrap())
        .sum::<i64>();
    assert_eq!(
        Some(total),
        ours["units"].as_i64(),
        "every unit is a win, a tie or a loss"
    );

    // BH across the report's case rows, from the p each decides on
    // (p_upper: p for an exact test, a sampled test's upper bound).
    let cases = rows(
        store,
        &format!("SELECT case_id, p_upper AS p, bh_q FROM lift_evidence WHERE {ROW} AND scope = 'case' ORDER BY case_id"),
    );
    assert!(cases.len() >= 5, "the corpus has {} cases", cases.len());
    let ps: Vec<f64> = cases.iter().map(|r| f(&r["p"])).collect();
    for (row, q) in cases.iter().zip(bh(&ps)) {
        assert!(
            (f(&row["bh_q"]) - q).abs() < 1e-12,
            "{}: {} vs {q}",
            row["case_id"],
            row["bh_q"]
        );
    }
    // Rows other than cases carry no q.
    assert_eq!(ours["bh_q"], Value::Null);
}

/// The bootstrap, slowly: every resample built as the list of its units'
/// deltas (a case drawn twice brings its units twice), its mean taken, the
/// 2,000 means sorted, the percentiles interpolated.
fn bootstrap_reference(by_case: &BTreeMap<String, Vec<f64>>) -> (f64, f64) {
    let cases: Vec<&Vec<f64>> = by_case.values().collect();
    let mut rng = PyRandom::new(20261201);
    let mut means = Vec::new();
    for _ in 0..2000 {
        let mut resample: Vec<f64> = Vec::new();
        for _ in 0..cases.len() {
            let drawn = (rng.random() * cases.len() as f64).floor() as usize;
            resample.extend(cases[drawn].iter());
        }
        means.push(resample.iter().sum::<f64>() / resample.len() as f64);
    }
    means.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let at = |q: f64| {
        let h = (means.len() - 1) as f64 * q;
        let (lo, frac) = (h.floor() as usize, h - h.floor());
        means[lo] * (1.0 - frac) + means[lo + 1] * frac
    };
    (at(0.025), at(0.975))
}

#[test]
fn the_case_clustered_bootstrap_equals_a_slow_reference() {
    let ts = corpus_store();
    let store = &ts.store;
    for scope in ["overall", "model"] {
        let rows_of_scope = rows(
            store,
            &format!("SELECT model, bootstrap_lower, bootstrap_upper FROM lift_evidence WHERE {ROW} AND scope = '{scope}'"),
        );
        assert!(!rows_of_scope.is_empty());
        for row in rows_of_scope {
            let model_filter = match row["model"].as_str() {
                Some(m) => format!("AND model = '{m}'"),
                None => String::new(),
            };
            let units = rows(
                store,
                &format!(
                    "SELECT case_id, delta FROM lift_units WHERE {} AND eligible_pairs > 0 {model_filter}",
                    ROW.replace("split = 'all' AND ", "")
                ),
            );
            let mut by_case: BTreeMap<String, Vec<f64>> = BTreeMap::new();
            for u in &units {
                by_case
                    .entry(u["case_id"].as_str().unwrap().to_string())
                    .or_default()
                    .push(f(&u["delta"]));
            }
            let (lo, hi) = bootstrap_reference(&by_case);
            let what = format!("{scope} {}", row["model"]);
            assert!(
                (f(&row["bootstrap_lower"]) - lo).abs() < 1e-9,
                "{what}: {} vs {lo}",
                row["bootstrap_lower"]
            );
            assert!(
                (f(&row["bootstrap_upper"]) - hi).abs() < 1e-9,
                "{what}: {} vs {hi}",
                row["bootstrap_upper"]
            );
            assert!(lo <= hi);
        }
    }
    // A case row is one cluster: nothing to resample.
    let case_rows = rows(
        store,
        &format!("SELECT count(*) FILTER (WHERE bootstrap_lower IS NOT NULL) AS n FROM lift_evidence WHERE {ROW} AND scope = 'case'"),
    );
    assert_eq!(case_rows[0]["n"].as_i64(), Some(0));
}

#[test]
fn report_lift_names_each_interval_for_what_it_bounds_and_prints_it_clean() {
    // The report's intervals are lift_evidence's (checked above against
    // independent computations), each rounded to 4 places as Python's round.
    let ts = corpus_store();
    let report = liftdb::report::find("lift").unwrap();
    let rs = liftdb::report::run(&ts.store.conn, &report, &Default::default()).unwrap();
    let names = rs.column_names();
    let pairs = [
        ("lift_ci_lower", "ci_lower"),
        ("lift_ci_upper", "ci_upper"),
        ("with_all_passed_share_lower", "with_wilson_lower"),
        ("with_all_passed_share_upper", "with_wilson_upper"),
        ("control_all_passed_share_lower", "control_wilson_lower"),
        ("control_all_passed_share_upper", "control_wilson_upper"),
        ("lift_bootstrap_lower", "bootstrap_lower"),
        ("lift_bootstrap_upper", "bootstrap_upper"),
    ];
    for (ours, _) in pairs {
        assert!(names.iter().any(|n| n == ours), "{ours} in {names:?}");
    }
    assert!(!names.iter().any(|n| n.contains("wilson")), "{names:?}");
    // The overall release row against the view, value by value.
    let report_row = crate::common::result_rows(&rs)
        .into_iter()
        .find(|r| r["scope"] == "overall" && r["kind"] == "release" && r["split"] == "all")
        .unwrap();
    let view_row = rows(
        &ts.store,
        &format!("SELECT * FROM lift_evidence WHERE {ROW} AND scope = 'overall'"),
    )
    .remove(0);
    let round4 = |x: f64| (x * 1e4).round() / 1e4;
    for (ours, theirs) in pairs {
        match view_row[theirs].as_f64() {
            Some(v) => {
                let printed = f(&report_row[ours]);
                assert!(
                    (printed - round4(v)).abs() < 1e-12,
                    "{ours} {printed} vs {v}"
                );
                assert!(
                    !printed.to_string().contains('e'),
                    "{ours} prints clean: {printed}"
                );
            }
            None => assert!(report_row[ours].is_null(), "{ours}"),
        }
    }
}
