//! What changed per case between releases (case_trend, report trend-cases),
//! on skill-creator's three real iterations (each a release): every lift and
//! change's p recomputed here from the pairs, the p by enumerating every sign
//! pattern.

use std::collections::BTreeMap;

use crate::common::{f, fixture, rows, store_of};

/// Exact two-sided sign-flip p: the share of the 2^n sign patterns whose
/// |mean| reaches the observed |mean| (less the harness's 1e-12).
fn sign_flip_p(changes: &[f64]) -> f64 {
    let n = changes.len();
    let observed = (changes.iter().sum::<f64>() / n as f64).abs() - 1e-12;
    let hits = (0..1u32 << n)
        .filter(|mask| {
            let total: f64 = changes
                .iter()
                .enumerate()
                .map(|(i, c)| if mask >> i & 1 == 1 { -c } else { *c })
                .sum();
            (total / n as f64).abs() >= observed
        })
        .count();
    hits as f64 / (1u64 << n) as f64
}

#[test]
fn each_cases_change_and_its_significance_equal_a_recomputation_from_the_pairs() {
    let ts = store_of(&[fixture("skill-creator-anthropic")]);
    let store = &ts.store;
    // Per (release, case, model, repetition): the eligible pair's with and control rates.
    let pairs = rows(
        store,
        "SELECT release_label, case_id, coalesce(model, '') AS model, repetition, with_rate, control_rate
         FROM pairs WHERE eligible AND control_arm = 'without_skill'",
    );
    type Key = (String, String, String);
    let mut by_unit: BTreeMap<Key, BTreeMap<i64, (f64, f64)>> = BTreeMap::new();
    for p in &pairs {
        let key = (
            p["release_label"].as_str().unwrap().to_string(),
            p["case_id"].as_str().unwrap().to_string(),
            p["model"].as_str().unwrap().to_string(),
        );
        let rep = p["repetition"].as_i64().unwrap();
        by_unit
            .entry(key)
            .or_default()
            .insert(rep, (f(&p["with_rate"]), f(&p["control_rate"])));
    }
    let unit_lift = |reps: &BTreeMap<i64, (f64, f64)>| {
        let n = reps.len() as f64;
        reps.values().map(|r| r.0).sum::<f64>() / n - reps.values().map(|r| r.1).sum::<f64>() / n
    };
    let changes = rows(
        store,
        "SELECT release_label, previous_release, case_id, coalesce(model, '') AS model, lift, previous_lift,
                change_matched, change_p_value
         FROM case_trend WHERE scope = 'case_model' AND previous_lift IS NOT NULL",
    );
    assert!(
        changes.len() >= 5,
        "the iterations share cases: {}",
        changes.len()
    );
    let mut moved = 0;
    for c in &changes {
        let text = |k: &str| c[k].as_str().unwrap().to_string();
        let now = &by_unit[&(text("release_label"), text("case_id"), text("model"))];
        let before = &by_unit[&(text("previous_release"), text("case_id"), text("model"))];
        let what = format!(
            "{} {} vs {}",
            text("case_id"),
            text("release_label"),
            text("previous_release")
        );
        assert!(
            (f(&c["lift"]) - unit_lift(now)).abs() < 1e-12,
            "{what}: lift"
        );
        assert!(
            (f(&c["previous_lift"]) - unit_lift(before)).abs() < 1e-12,
            "{what}: previous lift"
        );
        // Repetitions present in both releases, each one's delta change.
        let matched: Vec<f64> = now
            .iter()
            .filter_map(|(rep, (w, n))| before.get(rep).map(|(w0, n0)| (w - n) - (w0 - n0)))
            .collect();
        assert_eq!(
            c["change_matched"].as_i64(),
            Some(matched.len() as i64),
            "{what}"
        );
        let p = sign_flip_p(&matched);
        assert!(
            (f(&c["change_p_value"]) - p).abs() < 5e-7,
            "{what}: p {} vs {p}",
            c["change_p_value"]
        );
        moved += usize::from(matched.iter().any(|m| m.abs() > 1e-12));
    }
    assert!(moved > 0, "some case changed across the iterations");
}

#[test]
fn report_trend_cases_lists_the_latest_releases_regressions_first() {
    let ts = store_of(&[fixture("skill-creator-anthropic")]);
    let store = &ts.store;
    let latest = rows(
        store,
        "SELECT release_label FROM releases ORDER BY ordinal DESC LIMIT 1",
    )[0]["release_label"]
        .clone();
    let report = liftdb::report::find("trend-cases").unwrap();
    let rs = liftdb::report::run(&store.conn, &report, &Default::default()).unwrap();
    let names = rs.column_names();
    let mut changes = Vec::new();
    for batch in &rs.batches {
        for i in 0..batch.num_rows() {
            let cell = |name: &str| {
                let at = names.iter().position(|n| n == name).unwrap();
                liftdb::output::cell_json(batch.column(at), i)
            };
            assert_eq!(cell("release"), latest, "the latest release by default");
            let (lift, before, change) = (
                f(&cell("lift")),
                f(&cell("previous_lift")),
                f(&cell("lift_change")),
            );
            assert!(
                (lift - before - change).abs() < 2e-4,
                "change = lift - previous (each rounded 4)"
            );
            // Regressed / improved only where the change's own test is
            // significant; otherwise it moved (or was not tested).
            let direction = cell("direction");
            let significant = cell("significant").as_bool();
            let p = cell("change_p");
            let expected = match (change, significant) {
                (0.0, _) => "unchanged".to_string(),
                (c, Some(true)) => (if c < 0.0 { "regressed" } else { "improved" }).to_string(),
                (c, _) => format!(
                    "moved {}, {}",
                    if c < 0.0 { "down" } else { "up" },
                    if p.is_null() {
                        "not tested"
                    } else {
                        "not significant"
                    }
                ),
            };
            assert_eq!(direction.as_str(), Some(expected.as_str()), "p {p}");
            if expected == "regressed" || expected == "improved" {
                // Decided on the p the test decides on (p, or a sampled
                // test's upper bound: docs/metrics.md §M6).
                assert!(f(&p) <= 0.05);
                assert!(f(&cell("change_p_upper")) <= 0.05);
            }
            changes.push(change);
        }
    }
    assert!(!changes.is_empty());
    assert!(
        changes.windows(2).all(|w| w[0] <= w[1]),
        "regressions first: {changes:?}"
    );
}

#[test]
fn the_html_report_says_what_changed_since_the_previous_release() {
    let ts = store_of(&[fixture("skill-creator-anthropic")]);
    let store = &ts.store;
    let html = liftdb::report::html::render(&store.conn, None, None).unwrap();
    let at = html
        .find("What changed since the previous release")
        .expect("the section");
    let section = &html[at..html[at..].find("<h3>").map_or(html.len(), |e| at + e)];
    // The cases that moved in the latest release, from case_trend, largest
    // drop first, each labelled as its test allows.
    let moved = rows(
        store,
        "SELECT case_id, direction FROM case_trend
         WHERE scope = 'case' AND direction <> 'unchanged'
           AND release_label = (SELECT release_label FROM releases ORDER BY ordinal DESC LIMIT 1)
         ORDER BY lift_change, case_id",
    );
    assert!(!moved.is_empty(), "iteration-3 moved some case");
    let mut last = 0;
    for m in &moved {
        let cell = format!("<td>{}</td>", m["case_id"].as_str().unwrap());
        let label = format!("<td>{}</td>", m["direction"].as_str().unwrap());
        assert!(section.contains(&label), "{label} in {section}");
        let pos = section[last..]
            .find(&cell)
            .unwrap_or_else(|| panic!("{cell} in order in {section}"));
        last += pos + cell.len();
    }
    assert!(
        html.contains("<h3>Recurring failures</h3>") && html.contains("<h3>Prune candidates</h3>")
    );
}

#[test]
fn idle_spend_is_the_known_cost_of_the_saturated_and_no_lift_cases() {
    let ts = crate::common::corpus_store();
    let store = &ts.store;
    let flagged: std::collections::BTreeSet<String> =
        rows(store, "SELECT case_id, flags FROM case_flags")
            .into_iter()
            .filter(|r| {
                r["flags"].as_array().unwrap().iter().any(|f| {
                    let f = f.as_str().unwrap();
                    f.contains("saturated") || f.contains("no objective lift")
                })
            })
            .map(|r| r["case_id"].as_str().unwrap().to_string())
            .collect();
    assert!(
        !flagged.is_empty(),
        "the corpus flags some case without lift"
    );
    let runs = rows(store, "SELECT case_id, cost_usd FROM runs");
    let idle: Vec<f64> = runs
        .iter()
        .filter(|r| flagged.contains(r["case_id"].as_str().unwrap()))
        .filter_map(|r| r["cost_usd"].as_f64())
        .collect();
    let all: f64 = runs.iter().filter_map(|r| r["cost_usd"].as_f64()).sum();
    let ours = &rows(store, "SELECT * FROM idle_case_spend")[0];
    assert_eq!(ours["idle_cases"].as_u64(), Some(flagged.len() as u64));
    assert!((f(&ours["idle_known_cost_usd"]) - idle.iter().sum::<f64>()).abs() < 1e-9);
    assert!((f(&ours["known_cost_usd"]) - all).abs() < 1e-9);
    assert!((f(&ours["idle_cost_share"]) - idle.iter().sum::<f64>() / all).abs() < 1e-9);
}

#[test]
fn a_significant_change_is_named_by_its_tested_mean_not_the_difference_of_lifts() {
    // The change's test runs over the matched units; the lifts' difference
    // counts every unit of each release, and the two can point opposite
    // ways (a unit's repetitions run in one release only). The words follow
    // the test: rows of skill-creator's iterations whose stored test is made
    // significant with a mean change against their lifts' difference read
    // as the test, not as the lifts.
    let ts = store_of(&[fixture("skill-creator-anthropic")]);
    let store = &ts.store;
    let moved = rows(
        store,
        "SELECT release_label, skill_name, scope, case_id, coalesce(model, '') AS model, lift_change
           FROM case_trend WHERE abs(lift_change) > 1e-9 AND change_p_value IS NOT NULL",
    );
    assert!(!moved.is_empty(), "the iterations have tested changes");
    for r in &moved {
        let against = -f(&r["lift_change"]).signum() * 0.25;
        store
            .conn
            .execute(
                "UPDATE trend_stats SET significant = true, p_upper = 0.01, mean_change = ?
                  WHERE release_label = ? AND skill_name = ? AND scope = ? AND case_id = ?
                    AND coalesce(model, '') = ?",
                duckdb::params![
                    against,
                    r["release_label"].as_str(),
                    r["skill_name"].as_str(),
                    r["scope"].as_str(),
                    r["case_id"].as_str(),
                    r["model"].as_str()
                ],
            )
            .unwrap();
    }
    let read = rows(
        store,
        "SELECT direction, lift_change FROM case_trend
          WHERE abs(lift_change) > 1e-9 AND change_p_value IS NOT NULL",
    );
    assert_eq!(read.len(), moved.len());
    for r in &read {
        // The tested mean is against the lifts' difference.
        let expected = if f(&r["lift_change"]) > 0.0 {
            "regressed"
        } else {
            "improved"
        };
        assert_eq!(r["direction"], expected, "{r:?}");
    }
}
