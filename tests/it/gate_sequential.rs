//! `gate --sequential` stays honest when it is run after every batch: by
//! simulation, suites drawn as gen-runs draws them (each case's pass
//! probability without the skill uniform on [0.15, 0.85], three gate
//! assertions a run, 1 run in 100 failing) with a true lift of 0, decided
//! after each of 20 batches, pass `--min-lift 0 --sequential` at most 5% of
//! the time ever; the fixed-sample decision (`--min-lift 0 --significant`)
//! beside it passes more often. End to end, `liftdb gate --sequential`
//! through five real ingests decides as the test function does on the
//! store's own pairs.

use liftdb::stats::mt19937::PyRandom;
use liftdb::stats::sequential;
use liftdb::stats::sign_flip;

use crate::common::{liftdb_cmd, rows, stderr_of};

const SUITES: usize = 1000;
const LOOKS: usize = 20;
const CASES: usize = 10;
const ALPHA: f64 = 0.05;

/// One run's objective pass rate: three assertions, each passing with p
/// (gen-runs's truth: Binomial(3, p) / 3); None when the run failed
/// (1 in 100, not scorable: its pair does not count).
fn run_rate(rng: &mut PyRandom, p: f64) -> Option<f64> {
    if rng.random() < 0.01 {
        return None;
    }
    let passed = (0..3).filter(|_| rng.random() < p).count();
    Some(passed as f64 / 3.0)
}

/// What one simulated suite shows at each look: (sequential passed by now,
/// fixed-sample passed at this look).
struct Suite {
    sequential_ever: bool,
    fixed_ever: bool,
    /// The look the sequential gate first passed at.
    passed_at: Option<usize>,
}

fn simulate(rng: &mut PyRandom, lift: f64) -> Suite {
    let cases: Vec<(f64, f64)> = (0..CASES)
        .map(|_| {
            let p_without = 0.15 + 0.7 * rng.random();
            (p_without, (p_without + lift).clamp(0.0, 1.0))
        })
        .collect();
    let mut rounds = Vec::new();
    let mut units: Vec<Vec<f64>> = vec![Vec::new(); CASES];
    let mut suite = Suite {
        sequential_ever: false,
        fixed_ever: false,
        passed_at: None,
    };
    for look in 1..=LOOKS {
        // One batch: every case run once in both arms.
        let deltas: Vec<(usize, f64)> = cases
            .iter()
            .enumerate()
            .filter_map(|(i, (p_without, p_with))| {
                let with = run_rate(rng, *p_with);
                let without = run_rate(rng, *p_without);
                Some((i, with? - without?))
            })
            .collect();
        rounds.push(deltas.iter().map(|d| d.1).collect::<Vec<f64>>());
        for (i, d) in deltas {
            units[i].push(d);
        }
        // The sequential gate: min-lift 0 shown by the betting test.
        if sequential::test(&rounds, -1.0, 1.0, 0.0, ALPHA).above && !suite.sequential_ever {
            suite.sequential_ever = true;
            suite.passed_at = Some(look);
        }
        // The fixed-sample gate: the lift over the case units at least 0
        // and significant, its sign-flip p (a sampled test's upper bound;
        // these 10 units are tested exactly) at most α (gate --min-lift 0
        // --significant).
        let d: Vec<f64> = units
            .iter()
            .filter(|u| !u.is_empty())
            .map(|u| u.iter().sum::<f64>() / u.len() as f64)
            .collect();
        let lift = d.iter().sum::<f64>() / d.len().max(1) as f64;
        let p = sign_flip(&d).p_upper.unwrap_or(1.0);
        suite.fixed_ever |= !d.is_empty() && lift >= 0.0 && p <= ALPHA;
    }
    suite
}

/// The share of `suites` with `pick`, and its 95% margin (normal approximation).
fn share(suites: &[Suite], pick: impl Fn(&Suite) -> bool) -> (f64, f64) {
    let p = suites.iter().filter(|s| pick(s)).count() as f64 / suites.len() as f64;
    (p, 1.96 * (p * (1.0 - p) / suites.len() as f64).sqrt())
}

#[test]
fn a_skill_without_lift_ever_passes_the_sequential_gate_at_most_alpha_of_the_time() {
    let mut rng = PyRandom::new(59);
    let suites: Vec<Suite> = (0..SUITES).map(|_| simulate(&mut rng, 0.0)).collect();
    let (sequential_share, sequential_margin) = share(&suites, |s| s.sequential_ever);
    let (fixed_share, fixed_margin) = share(&suites, |s| s.fixed_ever);
    println!(
        "true lift 0, {SUITES} suites x {LOOKS} looks: ever passed sequential {sequential_share:.3} ± {sequential_margin:.3}, fixed-sample {fixed_share:.3} ± {fixed_margin:.3}"
    );
    assert!(sequential_share <= ALPHA, "sequential {sequential_share}");
    // Peeking inflates the fixed-sample test past its α.
    assert!(fixed_share > ALPHA, "fixed-sample {fixed_share}");

    // At a true lift of 0.2 (docs/metrics.md reports these): the share
    // passing within 20 looks and the median look it passes at.
    let suites: Vec<Suite> = (0..SUITES).map(|_| simulate(&mut rng, 0.2)).collect();
    let (power, margin) = share(&suites, |s| s.sequential_ever);
    let mut at: Vec<usize> = suites.iter().filter_map(|s| s.passed_at).collect();
    at.sort_unstable();
    let median = at.get(at.len().saturating_sub(1) / 2).copied().unwrap_or(0);
    let (fixed_power, _) = share(&suites, |s| s.fixed_ever);
    println!(
        "true lift 0.2: sequential passed {power:.3} ± {margin:.3} within {LOOKS} looks, median look {median} ({} runs), fixed-sample ever passed {fixed_power:.3}",
        median * CASES * 2
    );
    assert!(
        power > 0.5,
        "the sequential gate finds a lift of 0.2: {power}"
    );
}

/// A gen-runs tree of one batch (40 runs: 20 cases, one model, one
/// repetition) under `dir`/batch-N, seeded by `seed`.
fn gen_batch(dir: &std::path::Path, batch: i32, seed: i32) -> std::path::PathBuf {
    let tree = dir.join(format!("batch-{batch}"));
    assert_cmd::Command::cargo_bin("gen-runs")
        .unwrap()
        .args([
            "--runs",
            "40",
            "--models",
            "claude-sonnet-4-5",
            "--reps",
            "1",
        ])
        .args(["--seed", &seed.to_string(), "--out"])
        .arg(&tree)
        .assert()
        .success();
    tree
}

/// `report` (a benchmark report defining runs) ingested into `release`.
fn ingest_report(db: &std::path::Path, release: &str, report: &std::path::Path) {
    let out = liftdb_cmd(db)
        .args(["ingest", "--release", release])
        .arg(report)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
}

/// `tree` (a gen-runs batch: its runs and manifest) ingested into release r
/// as shard batch-N.
fn ingest_shard(db: &std::path::Path, tree: &std::path::Path, batch: i32) {
    let out = liftdb_cmd(db)
        .args([
            "ingest",
            "--release",
            "r",
            "--shard",
            &format!("batch-{batch}"),
        ])
        .arg(tree.join("eval-runs"))
        .arg(tree.join("manifest.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
}

/// The rounds of a store's release read here on their own: each
/// (experiment, case, model) unit's eligible deltas in the order their
/// shards were ingested (the shards' names sort so), round j the j-th of
/// every unit, only as many rounds as every unit has (docs/metrics.md §M14).
fn rounds_in_shard_order(db: &std::path::Path) -> Vec<Vec<f64>> {
    let store = liftdb::store::open_read_after_upkeep(db).unwrap();
    let units: Vec<Vec<f64>> = rows(
        &store,
        "SELECT coalesce(list(with_rate - control_rate ORDER BY shard, repetition) FILTER (WHERE eligible), []) AS d
         FROM pairs WHERE control_arm = 'without_skill'
         GROUP BY experiment, case_id, model
         ORDER BY experiment NULLS FIRST, case_id, model NULLS FIRST",
    )
    .iter()
    .map(|r| {
        r["d"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect()
    })
    .collect();
    let complete = units.iter().map(Vec::len).min().unwrap_or(0);
    (0..complete)
        .map(|j| units.iter().map(|u| u[j]).collect())
        .collect()
}

/// Five gen-runs batches of one suite (the same cases, each batch its own
/// shard), ingested one after another; after each, `liftdb gate --min-lift 0
/// --sequential` decides as `stats::sequential::test` does on the store's
/// eligible pairs dealt into complete rounds (each unit's pairs in ingest
/// order), and its wealth is that function's.
#[test]
fn gate_sequential_decides_through_real_ingests_as_the_test_function_does() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.duckdb");
    let mut decided = Vec::new();
    for batch in 1..=5 {
        let tree = gen_batch(dir.path(), batch, 100 + batch);
        ingest_shard(&db, &tree, batch);
        let (code, verdict) = gate_json(&db, &["--min-lift", "0"]);
        let check = &verdict["checks"][0];
        let rounds = rounds_in_shard_order(&db);
        assert!(rounds.len() <= batch as usize);
        let expected = sequential::test(&rounds, -1.0, 1.0, 0.0, ALPHA);
        let seen = &check["sequential"];
        assert_eq!(seen["rounds"], expected.rounds, "{check}");
        assert_eq!(seen["observations"], expected.observations, "{check}");
        assert!(
            (seen["wealth_above"].as_f64().unwrap() - expected.wealth_above).abs()
                < 1e-9 * expected.wealth_above.max(1.0),
            "{check} {expected:?}"
        );
        assert!(
            (seen["wealth_below"].as_f64().unwrap() - expected.wealth_below).abs() < 1e-9,
            "{check} {expected:?}"
        );
        let outcome = match (expected.above, expected.below) {
            (true, false) => "pass",
            (false, true) => "fail",
            _ => "undecided",
        };
        assert_eq!(check["outcome"], outcome, "batch {batch}: {check}");
        let exit = match outcome {
            "pass" => 0,
            "fail" => 1,
            _ => 3,
        };
        assert_eq!(code, Some(exit));
        decided.push(outcome);
    }
    // gen-runs's cases mostly gain from the skill: five rounds of twenty
    // cases show it.
    assert_eq!(decided.last(), Some(&"pass"), "{decided:?}");
}

/// A skill-eval-harness benchmark report defining runs (docs/harnesses.md
/// §C.7): each row one run, graded by three gate assertions of which
/// `passed` pass, at run_base ROOT/CASE/MODEL/ARM/run-N.
struct ReportRun<'a> {
    root: &'a str,
    case: String,
    arm: &'a str,
    rep: i64,
    passed: usize,
}

fn write_report(path: &std::path::Path, runs: &[ReportRun]) {
    write_skill_report(path, "synthetic-skill", runs)
}

fn write_skill_report(path: &std::path::Path, skill: &str, runs: &[ReportRun]) {
    let results: Vec<serde_json::Value> = runs
        .iter()
        .map(|r| {
            let assertions: Vec<serde_json::Value> = (0..3)
                .map(|i| {
                    serde_json::json!({"name": format!("check-{i}"), "type": "contains",
                        "passed": i < r.passed, "evidence": "", "score": if i < r.passed { 1.0 } else { 0.0 },
                        "severity": "gate", "oracle": "strong"})
                })
                .collect();
            let rate = r.passed as f64 / 3.0;
            serde_json::json!({
                "case_id": r.case, "split": "tune", "variant": r.arm, "run_number": r.rep,
                "model": "claude-sonnet-4-5",
                "run_base": format!("{}/{}/claude-sonnet-4-5/{}/run-{}", r.root, r.case, r.arm, r.rep),
                "missing_output": false, "execution_valid": true,
                "objective_passed": r.passed, "objective_total": 3, "objective_pass_rate": rate,
                "combined_passed": r.passed, "combined_total": 3, "combined_pass_rate": rate,
                "vetoed": false, "graded_score": rate, "assertions": assertions,
                "qualitative_assertions": [], "deferred_judge_tasks": 0
            })
        })
        .collect();
    let doc = serde_json::json!({"manifest": "manifest.json", "skill_name": skill,
        "generated_at": 1796147628, "population": "answer", "results": results});
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_vec(&doc).unwrap()).unwrap();
}

/// Both arms of `reps` repetitions (from `first_rep`) of each case of
/// `root`, case k's pair delta of mean `mu[k]` (with the skill p = ½ + μ/2,
/// without ½ − μ/2, three assertions).
fn runs_of<'a>(
    rng: &mut PyRandom,
    root: &'a str,
    mu: &[f64],
    first_rep: i64,
    reps: i64,
) -> Vec<ReportRun<'a>> {
    let mut runs = Vec::new();
    for rep in first_rep..first_rep + reps {
        for (k, m) in mu.iter().enumerate() {
            for (arm, p) in [
                ("with_skill", 0.5 + m / 2.0),
                ("without_skill", 0.5 - m / 2.0),
            ] {
                runs.push(ReportRun {
                    root,
                    case: format!("case-{k:02}"),
                    arm,
                    rep,
                    passed: (0..3).filter(|_| rng.random() < p).count(),
                });
            }
        }
    }
    runs
}

/// Ten case lifts spread uniformly over ±0.3 around `center`, averaging it exactly.
fn lifts(rng: &mut PyRandom, center: f64) -> Vec<f64> {
    let o: Vec<f64> = (0..10).map(|_| 0.6 * rng.random() - 0.3).collect();
    let mean = o.iter().sum::<f64>() / 10.0;
    o.iter().map(|x| center + x - mean).collect()
}

fn gate_json(db: &std::path::Path, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let out = liftdb_cmd(db)
        .arg("gate")
        .args(args)
        .args(["--sequential", "--format", "json"])
        .output()
        .unwrap();
    let verdict =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{}", stderr_of(&out)));
    (out.status.code(), verdict)
}

/// The pooled shape end to end (#70): twenty releases, each two runs roots
/// of one skill with opposite lifts (+0.2 and −0.2 around D = 0.1, so the
/// pooled lift is exactly D), five repetitions each, defined by one report
/// and stored by one ingest. Before #70 the gate bet on one root's rounds
/// first and passed every such suite whose first root was the better;
/// now each round holds both roots, and `--min-lift 0.1 --sequential`
/// passes no more often than α allows (at most 3 of 20: at a true rate of
/// 5%, 4 or more happen 1.6% of the time).
#[test]
fn a_pooled_release_with_opposite_lifts_at_d_passes_no_more_than_alpha_allows() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.duckdb");
    let mut rng = PyRandom::new(70);
    let mut passed = 0;
    for suite in 1..=20 {
        let mu = lifts(&mut rng, 0.1);
        let better: Vec<f64> = mu.iter().map(|m| m + 0.2).collect();
        let worse: Vec<f64> = mu.iter().map(|m| m - 0.2).collect();
        // The better root's name sorts first: stored order and name order
        // both favour it.
        let mut runs = runs_of(&mut rng, "a-better", &better, 1, 5);
        runs.extend(runs_of(&mut rng, "b-worse", &worse, 1, 5));
        let report = dir.path().join(format!("suite-{suite}/benchmark.json"));
        write_report(&report, &runs);
        let release = format!("s{suite:02}");
        ingest_report(&db, &release, &report);
        let (code, verdict) = gate_json(&db, &["--release", &release, "--min-lift", "0.1"]);
        let check = &verdict["checks"][0];
        assert_eq!(verdict["experiments"], "pooled", "{verdict}");
        // Every round holds both roots' ten cases (the report defines every
        // run, none fails): 20 units, 5 complete rounds.
        assert_eq!(check["sequential"]["units"], 20, "{check}");
        assert_eq!(check["sequential"]["rounds"], 5, "{check}");
        assert_eq!(check["sequential"]["observations"], 100, "{check}");
        passed += (code == Some(0)) as usize;
    }
    assert!(passed <= 3, "{passed} of 20 null suites passed");
}

/// Non-inferiority and no-significant-regression end to end against a
/// baseline that is itself a sample: a baseline of 3 repetitions, then a
/// release whose every case is exactly M worse stored 8 repetitions a
/// batch, the gate run after each of three batches. Each verdict is what
/// `gate::sequential` decides on the store's pairs read here on their own
/// (a batch's repetitions first stored by it), and the release never
/// passes non-inferiority nor (its cases' drops are exactly M, not
/// regressions shown beyond the baseline's bound) is failed as regressed
/// by a chance the bet does not allow.
#[test]
fn comparisons_with_a_sampled_baseline_decide_as_the_library_does_on_the_stored_pairs() {
    use liftdb::gate::rounds::{Pair, Place, Unit};
    use liftdb::gate::sequential as seq;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.duckdb");
    let mut rng = PyRandom::new(71);
    let margin = 0.1;
    let base = lifts(&mut rng, 0.3);
    let report = dir.path().join("base/benchmark.json");
    write_report(&report, &runs_of(&mut rng, "eval-runs", &base, 1, 3));
    ingest_report(&db, "base", &report);
    let new: Vec<f64> = base.iter().map(|b| b - margin).collect();
    let pairs_of = |release: &str, reps_per_batch: i64| -> Vec<Pair> {
        let store = liftdb::store::open_read_after_upkeep(&db).unwrap();
        let read = rows(
            &store,
            &format!(
                "SELECT experiment, case_id, repetition, CASE WHEN eligible THEN with_rate - control_rate END AS d
                 FROM pairs WHERE release_label = '{release}' AND control_arm = 'without_skill'"
            ),
        );
        read.iter()
            .map(|r| {
                let rep = r["repetition"].as_i64().unwrap();
                Pair {
                    unit: Unit {
                        experiment: r["experiment"].as_str().map(str::to_string),
                        case: r["case_id"].as_str().unwrap().into(),
                        model: Some("claude-sonnet-4-5".into()),
                    },
                    place: Place {
                        first_stored: (rep - 1) / reps_per_batch,
                        shard: None,
                        repetition: rep,
                    },
                    x: r["d"].as_f64(),
                }
            })
            .collect()
    };
    let before = pairs_of("base", 3);
    for batch in 0..3 {
        let report = dir.path().join(format!("new-{batch}/benchmark.json"));
        write_report(
            &report,
            &runs_of(&mut rng, "eval-runs", &new, 1 + 8 * batch, 8),
        );
        ingest_report(&db, "new", &report);
        let (_, verdict) = gate_json(
            &db,
            &[
                "--release",
                "new",
                "--baseline",
                "base",
                "--non-inferiority-margin",
                "0.1",
                "--no-significant-regression",
            ],
        );
        let here = pairs_of("new", 8);
        // Report rows declare their cases as they run them: from the start.
        let declared: Vec<liftdb::gate::rounds::Declared> = (0..10)
            .map(|k| liftdb::gate::rounds::Declared::from_start(format!("case-{k:02}")))
            .collect();
        let expected = seq::change(&here, &declared, &before, -margin, 0.05).check;
        let ni = &verdict["checks"][0];
        assert_eq!(ni["check"], "non-inferiority", "{verdict}");
        let seen = &ni["sequential"];
        assert_eq!(seen["rounds"], expected.test.rounds, "{ni}");
        assert_eq!(seen["rounds"], 8 * (batch + 1), "{ni}");
        assert_eq!(seen["baseline_rounds"], 3, "{ni}");
        for (field, value) in [
            ("wealth_above", expected.test.wealth_above),
            ("wealth_below", expected.test.wealth_below),
            ("pass_above", expected.pass_above),
            ("fail_below", expected.fail_below),
        ] {
            let got = seen[field].as_f64().unwrap();
            assert!(
                (got - value).abs() <= 1e-9 * value.abs().max(1.0),
                "{field}: {got} vs {value}: {ni}"
            );
        }
        assert_ne!(ni["outcome"], "pass", "{ni}");
        let regression = &verdict["checks"][1];
        assert_eq!(
            regression["check"], "no-significant-regression",
            "{verdict}"
        );
        let r = seq::regression(&here, &declared, &before, 0.05);
        let shown_worse = r.cases.iter().any(|(_, d)| d.check.test.below);
        assert_eq!(regression["outcome"] == "fail", shown_worse, "{regression}");
    }
}

/// A release gated sequentially grows by new runs only (#70): a run
/// stored again with other content (one run of the first of three gen-runs
/// batches changed on disk, its batch ingested again), or runs deleted by a
/// later batch (a report rewritten at its path with the next repetitions),
/// may change rounds a gate run bet on. The check is refused as an error
/// (exit 2) that counts them and names their cases, never decided.
#[test]
fn a_release_whose_stored_runs_changed_is_refused_not_decided() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.duckdb");
    for batch in 1..=3 {
        let tree = gen_batch(dir.path(), batch, 200 + batch);
        ingest_shard(&db, &tree, batch);
    }
    let (code, verdict) = gate_json(&db, &["--min-lift", "0"]);
    assert_ne!(code, Some(2), "{verdict}");
    // One with-skill run of the first batch, changed.
    let store = liftdb::store::open_read_after_upkeep(&db).unwrap();
    let found = rows(
        &store,
        "SELECT r.run_dir, r.case_id FROM pairs p JOIN run r ON r.run_id = p.with_run_id
         WHERE p.shard = 'batch-1' AND p.control_arm = 'without_skill'
         ORDER BY r.run_dir LIMIT 1",
    );
    drop(store);
    let (run_dir, case) = (
        found[0]["run_dir"].as_str().unwrap().to_string(),
        found[0]["case_id"].as_str().unwrap().to_string(),
    );
    let output = std::path::Path::new(&run_dir).join("output.md");
    let mut text = std::fs::read_to_string(&output).unwrap();
    text.push_str("\nStored again.\n");
    std::fs::write(&output, text).unwrap();
    ingest_shard(&db, &dir.path().join("batch-1"), 1);
    let (code, verdict) = gate_json(&db, &["--min-lift", "0"]);
    let check = &verdict["checks"][0];
    assert_eq!(code, Some(2), "{verdict}");
    assert_eq!(check["outcome"], "error", "{check}");
    assert_eq!(check["sequential"]["replaced"], 1, "{check}");
    let said = check["measured"].as_str().unwrap();
    assert!(
        said.contains("1 of the release's runs were stored again"),
        "{said}"
    );
    assert!(said.contains(&case), "{said}");

    // A report rewritten at its path: the next repetitions replace the
    // runs it defined before.
    let db = dir.path().join("report.duckdb");
    let mut rng = PyRandom::new(74);
    let mu = lifts(&mut rng, 0.3);
    let report = dir.path().join("rewritten/benchmark.json");
    for batch in 0..2 {
        write_report(
            &report,
            &runs_of(&mut rng, "eval-runs", &mu, 1 + 3 * batch, 3),
        );
        ingest_report(&db, "r", &report);
    }
    let (code, verdict) = gate_json(&db, &["--min-lift", "0"]);
    let check = &verdict["checks"][0];
    assert_eq!(code, Some(2), "{verdict}");
    // The first report's 3 repetitions of 10 cases in both arms are gone.
    assert_eq!(check["sequential"]["deleted"], 60, "{check}");
}

/// Shards by case with the suite's cases declared (#70): a gen-runs tree
/// split into two shards by case, the manifest (declaring every case)
/// ingested with the first. After the first shard no round is complete (the
/// second shard's cases are awaited, named); after the second the rounds
/// hold every case and the check decides, as the test function does on
/// the store's pairs.
#[test]
fn shards_by_case_with_declared_cases_wait_for_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.duckdb");
    let tree = dir.path().join("suite");
    assert_cmd::Command::cargo_bin("gen-runs")
        .unwrap()
        .args([
            "--runs",
            "120",
            "--models",
            "claude-sonnet-4-5",
            "--reps",
            "3",
        ])
        .args(["--seed", "301", "--out"])
        .arg(&tree)
        .assert()
        .success();
    let mut cases: Vec<String> = std::fs::read_dir(tree.join("eval-runs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    cases.sort();
    let half = cases.len() / 2;
    for (k, shard_cases) in [&cases[..half], &cases[half..]].into_iter().enumerate() {
        let shard = dir.path().join(format!("shard-{k}/eval-runs"));
        std::fs::create_dir_all(&shard).unwrap();
        for case in shard_cases {
            crate::common::copy_tree(&tree.join("eval-runs").join(case), &shard.join(case));
        }
        let mut cmd = liftdb_cmd(&db);
        cmd.args(["ingest", "--release", "r", "--shard", &format!("cases-{k}")])
            .arg(&shard);
        if k == 0 {
            cmd.arg(tree.join("manifest.json"));
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
        let (code, verdict) = gate_json(&db, &["--min-lift", "0"]);
        let check = &verdict["checks"][0];
        let seen = &check["sequential"];
        match k {
            0 => {
                assert_eq!(code, Some(3), "{verdict}");
                assert_eq!(seen["rounds"], 0, "{check}");
                assert_eq!(
                    seen["lacking"].as_array().unwrap().len(),
                    cases.len() - half,
                    "{check}"
                );
            }
            _ => {
                assert_ne!(check["outcome"], "error", "{check}");
                assert!(seen["rounds"].as_u64().unwrap() >= 1, "{check}");
                assert_eq!(seen["units"], cases.len(), "{check}");
            }
        }
    }
}

/// A suite that grows after it had a complete round cannot be tested
/// validly (a look between bet on part of it): two reports of one release,
/// the second defining five cases the first neither ran nor declared. The
/// sequential check is refused as an error (exit 2) naming the cases and
/// why, never passed; the first report alone is tested as usual.
#[test]
fn a_suite_that_grew_after_a_complete_round_is_refused_not_passed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.duckdb");
    let mut rng = PyRandom::new(72);
    let mu = lifts(&mut rng, 0.5);
    let all = runs_of(&mut rng, "eval-runs", &mu, 1, 4);
    let (first, later): (Vec<ReportRun>, Vec<ReportRun>) =
        all.into_iter().partition(|r| r.case.as_str() < "case-05");
    for (name, runs) in [("first", &first), ("later", &later)] {
        let report = dir.path().join(format!("{name}/benchmark.json"));
        write_report(&report, runs);
        ingest_report(&db, "r", &report);
        let (code, verdict) = gate_json(&db, &["--min-lift", "0"]);
        let check = &verdict["checks"][0];
        match name {
            "first" => {
                assert_ne!(check["outcome"], "error", "{check}");
                assert_eq!(check["sequential"]["rounds"], 4, "{check}");
            }
            _ => {
                assert_eq!(code, Some(2), "{verdict}");
                assert_eq!(check["outcome"], "error", "{check}");
                let said = check["measured"].as_str().unwrap();
                assert!(
                    said.contains("case-05, case-06, case-07, case-08, case-09"),
                    "{said}"
                );
                assert!(said.contains("Hint: declare every case"), "{said}");
            }
        }
    }
}

/// Several skills in one call: α covers each skill's checks, said in a
/// note; `--family-wise` divides it among them: for two skills each
/// sequential check is decided at α/2, its wealth measured against 2/α = 40.
#[test]
fn several_skills_say_what_alpha_covers_and_family_wise_divides_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.duckdb");
    let mut rng = PyRandom::new(73);
    for skill in ["skill-a", "skill-b"] {
        let mu = lifts(&mut rng, 0.3);
        let report = dir.path().join(format!("{skill}/benchmark.json"));
        write_skill_report(&report, skill, &runs_of(&mut rng, "eval-runs", &mu, 1, 3));
        ingest_report(&db, "r", &report);
    }
    let (_, each) = gate_json(&db, &["--min-lift", "0"]);
    let notes = each["notes"].to_string();
    assert!(notes.contains("covers each of the 2 skills"), "{notes}");
    assert_eq!(each["checks"][0]["sequential"]["level"], 0.05, "{each}");
    let (_, family) = gate_json(&db, &["--min-lift", "0", "--family-wise"]);
    let notes = family["notes"].to_string();
    assert!(
        notes.contains("covers the 2 skills gated together"),
        "{notes}"
    );
    for check in family["checks"].as_array().unwrap() {
        assert_eq!(check["sequential"]["level"], 0.025, "{check}");
        assert_eq!(check["sequential"]["target"], 40.0, "{check}");
    }
}
