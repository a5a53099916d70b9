//! `liftdb plan` says how many cases and repetitions detect a lift of D at
//! 80% power. Checked against the truth: a gen-runs tree whose every case's
//! pass probabilities are known (`--truth`), and 2,000 suites of each plan's
//! size drawn afresh from those probabilities here, each put to the same
//! sign-flip test: the share that detects the lift is the plan's real power.

use std::path::Path;

use serde_json::Value;

use crate::common::{liftdb_cmd, read_report, stderr_of};

/// Suites drawn per plan: 2,000 (not fewer) keeps this check's own noise
/// (about ±0.9 points at 80%) small beside its ±5-point tolerance.
const REPLICATIONS: usize = 2000;

/// A small deterministic generator (xorshift64*), independent of liftdb's.
struct Draw(u64);

impl Draw {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: usize) -> usize {
        ((self.unit() * n as f64) as usize).min(n - 1)
    }

    /// One run's objective_pass_rate as gen-runs draws it (its truth file
    /// says how): `gates` assertions passing with p each; None when the run
    /// failed (not scorable, its pair blocked).
    fn rate(&mut self, p: f64, gates: u32, failed_share: f64) -> Option<f64> {
        let passed = (0..gates).filter(|_| self.unit() < p).count();
        (self.unit() >= failed_share).then_some(passed as f64 / gates as f64)
    }
}

/// The share of REPLICATIONS suites of `cases` cases (drawn from the truth's,
/// with replacement) and `reps` repetitions per arm whose sign-flip p is at
/// most `alpha`.
fn true_power(truth: &Value, cases: usize, reps: usize, alpha: f64, draw: &mut Draw) -> f64 {
    let all = truth["cases"].as_array().unwrap();
    let gates = truth["gate_assertions"].as_u64().unwrap() as u32;
    let failed = truth["failed_run_share"].as_f64().unwrap();
    let mut detected = 0;
    for _ in 0..REPLICATIONS {
        let mut deltas = Vec::new();
        for _ in 0..cases {
            let case = &all[draw.below(all.len())];
            let (pw, pn) = (
                case["p_with"].as_f64().unwrap(),
                case["p_without"].as_f64().unwrap(),
            );
            let pairs: Vec<f64> = (0..reps)
                .filter_map(|_| {
                    let w = draw.rate(pw, gates, failed);
                    let n = draw.rate(pn, gates, failed);
                    Some(w? - n?)
                })
                .collect();
            if !pairs.is_empty() {
                deltas.push(pairs.iter().sum::<f64>() / pairs.len() as f64);
            }
        }
        // Detected as the gate decides (docs/metrics.md §M6): on p, or on a
        // sampled test's upper bound.
        if liftdb::stats::sign_flip::decision_p(&deltas).is_some_and(|p| p <= alpha) {
            detected += 1;
        }
    }
    detected as f64 / REPLICATIONS as f64
}

fn generated(dir: &Path, seed: u32) -> (std::path::PathBuf, Value) {
    let tree = dir.join("tree");
    let truth = dir.join("truth.json");
    assert_cmd::Command::cargo_bin("gen-runs")
        .unwrap()
        .args([
            "--runs",
            "8000",
            "--models",
            "claude-haiku-4-5",
            "--reps",
            "5",
        ])
        .args(["--seed", &seed.to_string(), "--out"])
        .arg(&tree)
        .arg("--truth")
        .arg(&truth)
        .assert()
        .success();
    let db = dir.join("s.duckdb");
    let out = liftdb_cmd(&db)
        .args(["ingest", "--release", "g"])
        .arg(tree.join("eval-runs"))
        .arg(tree.join("manifest.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    (db, read_report(&truth))
}

#[test]
fn the_power_of_each_plan_is_the_share_of_suites_that_detect_the_lift() {
    let dir = tempfile::tempdir().unwrap();
    let (db, truth) = generated(dir.path(), 11);
    // The true lift: the mean over the cases of p_with − p_without (a run's
    // expected rate is its p).
    let cases = truth["cases"].as_array().unwrap();
    let lift = cases
        .iter()
        .map(|c| c["p_with"].as_f64().unwrap() - c["p_without"].as_f64().unwrap())
        .sum::<f64>()
        / cases.len() as f64;
    assert!(lift > 0.05, "{lift}");

    let out = liftdb_cmd(&db)
        .args([
            "plan",
            "--lift",
            &format!("{lift}"),
            "--simulate",
            "--replications",
            "2000",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    let skill = &plan["skills"][0];
    assert_eq!(skill["observed"]["cases"], cases.len());
    let options = skill["options"].as_array().unwrap();
    let reps: Vec<u64> = options
        .iter()
        .map(|o| o["repetitions"].as_u64().unwrap())
        .collect();
    assert_eq!(reps, vec![1, 2, 3, 5, 10]);

    let mut draw = Draw(0x9E37_79B9_7F4A_7C15);
    for o in options {
        let (k, r) = (
            o["cases"].as_u64().unwrap() as usize,
            o["repetitions"].as_u64().unwrap() as usize,
        );
        let said = o["power"].as_f64().unwrap();
        assert!(said >= 0.8, "{o}");
        let truly = true_power(&truth, k, r, 0.05, &mut draw);
        assert!(
            (said - truly).abs() <= 0.05,
            "{k} cases × {r} reps: plan says power {said:.3}, {REPLICATIONS} suites detect {truly:.3}"
        );
        // The resampled power (--simulate, 2,000 replications) agrees as well.
        let simulated = o["simulated_power"].as_f64().unwrap();
        assert!(
            (simulated - truly).abs() <= 0.05,
            "{k} cases × {r} reps: simulated {simulated:.3}, true {truly:.3}"
        );
    }
}

/// Each option priced from the cost ledger: runs × the mean known cost of
/// one with-skill plus one without-skill run of the release.
#[test]
fn each_plan_is_priced_from_the_cost_ledger() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = generated(dir.path(), 5);
    let store = liftdb::store::open_read_after_upkeep(&db).unwrap();
    let per_pair = crate::common::scalar(
        &store,
        "SELECT (SELECT avg(cost_usd) FROM runs WHERE arm = 'with_skill' AND cost_usd IS NOT NULL)
              + (SELECT avg(cost_usd) FROM runs WHERE arm = 'without_skill' AND cost_usd IS NOT NULL)",
    );
    let per_pair = crate::common::f(&per_pair);
    drop(store);
    let out = liftdb_cmd(&db)
        .args(["plan", "--lift", "0.1", "--format", "json"])
        .output()
        .unwrap();
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    for o in plan["skills"][0]["options"].as_array().unwrap() {
        let pairs = o["runs"].as_f64().unwrap() / 2.0;
        let cost = o["cost_usd"].as_f64().unwrap();
        assert!(
            (cost - pairs * per_pair).abs() < 1e-9 * cost.max(1.0),
            "{o}"
        );
    }
    // A lift that is no lift is refused, saying what to give.
    let out = liftdb_cmd(&db)
        .args(["plan", "--lift", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("--lift 0.1"),
        "{}",
        stderr_of(&out)
    );
}

/// `liftdb plan`'s sequential estimate (the rounds `gate --sequential
/// --min-lift 0` takes at a lift of D, by `stats::sequential::
/// rounds_to_decide` over the release's own rounds) against a simulation
/// of this test's own: rounds of every case of the truth drawn afresh (a
/// run as gen-runs draws it), each pair's delta moved by D less the true
/// lift (the plan moves its observed pairs the same way), the betting test
/// run round by round until it decides; the median over 400 sequences.
#[test]
fn the_sequential_estimate_is_the_rounds_a_simulated_gate_takes() {
    let dir = tempfile::tempdir().unwrap();
    let (db, truth) = generated(dir.path(), 11);
    let cases = truth["cases"].as_array().unwrap();
    let gates = truth["gate_assertions"].as_u64().unwrap() as u32;
    let failed = truth["failed_run_share"].as_f64().unwrap();
    let lift = cases
        .iter()
        .map(|c| c["p_with"].as_f64().unwrap() - c["p_without"].as_f64().unwrap())
        .sum::<f64>()
        / cases.len() as f64;
    let d = 0.02;
    let out = liftdb_cmd(&db)
        .args(["plan", "--lift", &d.to_string(), "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    let said = plan["skills"][0]["sequential"]["rounds"].as_u64().unwrap() as usize;

    let mut draw = Draw(0x5DEE_CE66_D1CE_4E5B);
    let mut taken: Vec<usize> = (0..400)
        .map(|_| {
            let mut bettor = liftdb::stats::sequential::Bettor::new(-1.0, 1.0, 0.0, 0.05);
            (1..=1000)
                .find(|_| {
                    let round: Vec<f64> = cases
                        .iter()
                        .filter_map(|c| {
                            let w = draw.rate(c["p_with"].as_f64().unwrap(), gates, failed);
                            let n = draw.rate(c["p_without"].as_f64().unwrap(), gates, failed);
                            Some((w? - n? + d - lift).clamp(-1.0, 1.0))
                        })
                        .collect();
                    let r = bettor.add_round(&round);
                    r.above || r.below
                })
                .unwrap_or(usize::MAX)
        })
        .collect();
    taken.sort_unstable();
    let simulated = taken[199];
    println!("plan says {said} rounds at a lift of {d}; simulated from the truth: {simulated}");
    assert!(
        said.abs_diff(simulated) <= 1.max(simulated / 4),
        "plan {said} rounds, simulated {simulated}"
    );
}
