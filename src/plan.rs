//! `liftdb plan`: how many cases and repetitions a suite needs to detect a
//! lift of D, from what a release observed (its query: `sql/plan/pairs.sql`,
//! priced by `sql/plan/cost.sql`).
//!
//! The lift test is the paired sign-flip test over (case, model) units
//! (docs/metrics.md §M6): unit u's delta is the mean of its r pairs'
//! deltas. Its variance has two parts, estimated from the release's
//! eligible pairs: between units (τ², the spread of the units' true lifts)
//! and within a unit (σ², one pair's spread around its unit's lift), so
//! Var(d_u) = τ² + σ²/r. A plan of k cases runs every model the release ran:
//! n = k·M units. Its power at lift D is the two-sided t test's at level α
//! (n − 1 degrees of freedom, the statistic's distribution approximated by
//! the t shifted by D over the standard error); it is 0 when n units
//! cannot reach α at all (the exact test's smallest p is 2/2^n). With
//! `simulate`, each option is also run: cases drawn with their units from
//! the observed ones, r pairs drawn within each unit, every delta moved by
//! D − observed lift, the sign-flip test applied, the share that detects it.

use std::collections::BTreeMap;

use duckdb::Connection;
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::report::query;
use crate::sqlfiles::PLAN_QUERIES;
use crate::stats::mt19937::PyRandom;
use crate::stats::sign_flip::{self, EXACT_MAX_N};
use crate::{Error, Result};

/// Repetitions each plan is worked out for (and the release's own).
pub const REPETITIONS: &[u32] = &[1, 2, 3, 5, 10];
/// The most cases a plan proposes; beyond it the lift is out of reach.
const MAX_CASES: u32 = 5_000;

#[derive(Debug, Clone)]
pub struct PlanSpec {
    pub release: Option<String>,
    pub skill: Option<String>,
    pub split: Option<String>,
    /// The lift to detect.
    pub lift: f64,
    /// Power wanted (default 0.8).
    pub power: f64,
    /// Significance level (default 0.05).
    pub alpha: f64,
    /// Replications per option for the simulated power (None: not run).
    pub simulate: Option<u32>,
}

/// What a release observed of one skill.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Observed {
    pub release: String,
    pub skill: String,
    pub split: String,
    pub cases: usize,
    /// Models per case (units = cases × models).
    pub models: usize,
    pub units: usize,
    pub pairs: usize,
    /// Mean pairs per unit.
    pub repetitions: f64,
    pub lift: f64,
    /// τ: standard deviation of the units' lifts.
    pub between_unit_sd: f64,
    /// σ: standard deviation of one pair's delta within its unit; None when
    /// no unit has two pairs (then τ holds all the spread).
    pub within_unit_sd: Option<f64>,
    /// Mean USD of one with-skill run plus one control run (the cost
    /// ledger's known costs); None when no cost is known.
    pub cost_per_pair_usd: Option<f64>,
}

/// One way to reach the power wanted.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PlanOption {
    pub repetitions: u32,
    pub cases: u32,
    pub units: u32,
    /// Runs of both arms.
    pub runs: u64,
    pub power: f64,
    pub simulated_power: Option<f64>,
    pub cost_usd: Option<f64>,
    /// False when even MAX_CASES cases fall short (the option shows them).
    pub reached: bool,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct SkillPlan {
    pub observed: Observed,
    pub options: Vec<PlanOption>,
    /// `gate --sequential --min-lift 0` run after every round of the
    /// release's own suite: what it takes to decide at a lift of D.
    pub sequential: SequentialPlan,
}

/// The runs a sequential gate takes to decide, by simulation: rounds of the
/// release's suite (each unit run once in both arms) drawn from its
/// observed rounds, every pair moved so the lift is D, the anytime-valid
/// test of lift above 0 after each (median over `SEQUENTIAL_DRAWS`).
#[derive(Debug, Clone, serde::Serialize)]
pub struct SequentialPlan {
    /// None: not decided within `SEQUENTIAL_CAP` rounds in most draws.
    pub rounds: Option<usize>,
    pub runs: Option<u64>,
    /// Runs of one round: units × 2 arms.
    pub runs_per_round: u64,
}

const SEQUENTIAL_DRAWS: usize = 200;
const SEQUENTIAL_CAP: usize = 1000;

#[derive(Debug, Clone, serde::Serialize)]
pub struct Plan {
    pub lift: f64,
    pub power: f64,
    pub alpha: f64,
    pub replications: Option<u32>,
    pub skills: Vec<SkillPlan>,
}

/// A unit's pair deltas, keyed by (case, model).
type Units = BTreeMap<(String, String), Vec<f64>>;

/// Work out the plans `spec` asks for, one per skill of the release.
pub fn plan(conn: &Connection, spec: &PlanSpec) -> Result<Plan> {
    if !(spec.lift > 0.0 && spec.lift <= 1.0) {
        return Err(Error::Invalid(format!(
            "--lift {} is no lift to detect; hint: a rate difference in (0, 1], e.g. --lift 0.1",
            spec.lift
        )));
    }
    let share = |x: f64| x > 0.0 && x < 1.0;
    if !share(spec.power) || !share(spec.alpha) {
        return Err(Error::Invalid(
            "--power and --alpha are shares in (0, 1); hint: --power 0.8 --alpha 0.05 are the defaults".into(),
        ));
    }
    let resolved = crate::report::scope::resolve(
        conn,
        spec.release.as_deref(),
        None,
        spec.skill.as_deref(),
        spec.split.as_deref(),
    )?;
    let (release, params) = (resolved.release, resolved.params);
    let pairs = query(conn, sql("pairs"), &params)?;
    let costs = query(conn, sql("cost"), &params)?;
    let mut by_skill: BTreeMap<String, Units> = BTreeMap::new();
    for p in pairs.records() {
        let (Some(skill), Some(case), Some(delta)) =
            (p.text("skill"), p.text("case"), p.number("delta"))
        else {
            continue;
        };
        by_skill
            .entry(skill)
            .or_default()
            .entry((case, p.text("model").unwrap_or_default()))
            .or_default()
            .push(delta);
    }
    if by_skill.is_empty() {
        return Err(Error::Invalid(format!(
            "release {release} has no eligible with/without pair{}; hint: liftdb report blocked --release {release} says why",
            spec.split.as_ref().map_or(String::new(), |s| format!(" in split {s}"))
        )));
    }
    let skills = by_skill
        .into_iter()
        .map(|(skill, units)| {
            let cost = costs
                .records()
                .find(|c| c.text("skill").as_deref() == Some(&skill))
                .and_then(|c| c.number("cost_per_pair_usd"));
            let observed = observe(&release, &skill, spec, &units, cost);
            let options = options(&observed, &units, spec);
            let sequential = sequential(&units, spec);
            SkillPlan {
                observed,
                options,
                sequential,
            }
        })
        .collect();
    Ok(Plan {
        lift: spec.lift,
        power: spec.power,
        alpha: spec.alpha,
        replications: spec.simulate,
        skills,
    })
}

/// The release's suite in rounds (round i: every unit's i-th pair), and the
/// rounds `gate --sequential --min-lift 0` takes at a lift of D
/// (`SequentialPlan`).
fn sequential(units: &Units, spec: &PlanSpec) -> SequentialPlan {
    let most = units.values().map(Vec::len).max().unwrap_or(0);
    let rounds: Vec<Vec<f64>> = (0..most)
        .map(|i| units.values().filter_map(|d| d.get(i).copied()).collect())
        .collect();
    let decided = crate::stats::sequential::rounds_to_decide(
        &rounds,
        spec.lift,
        (-1.0, 1.0),
        0.0,
        spec.alpha,
        SEQUENTIAL_DRAWS,
        SEQUENTIAL_CAP,
        units.len() as u32,
    );
    let runs_per_round = 2 * units.len() as u64;
    SequentialPlan {
        rounds: decided,
        runs: decided.map(|r| r as u64 * runs_per_round),
        runs_per_round,
    }
}

/// What the gate says when it cannot decide: the runs in all that give 80%
/// power to detect `lift` at the release's own repetitions, beside the runs
/// the release has; None when the release has no pair to learn from.
pub fn runs_to_detect(
    conn: &Connection,
    release: &str,
    skill: &str,
    split: Option<&str>,
    lift: f64,
    alpha: f64,
) -> Result<Option<String>> {
    let spec = PlanSpec {
        release: Some(release.into()),
        skill: Some(skill.into()),
        split: split.map(str::to_string),
        lift: lift.min(1.0),
        power: 0.8,
        alpha,
        simulate: None,
    };
    let plan = match plan(conn, &spec) {
        Ok(p) => p,
        Err(Error::Invalid(_)) => return Ok(None),
        Err(e) => return Err(e),
    };
    let Some(skill_plan) = plan.skills.first() else {
        return Ok(None);
    };
    let o = &skill_plan.observed;
    let own = o.repetitions.round().max(1.0) as u32;
    let Some(option) = skill_plan.options.iter().find(|x| x.repetitions == own) else {
        return Ok(None);
    };
    let has = 2 * o.pairs;
    Ok(Some(match (option.reached, option.runs as usize > has) {
        (false, _) => format!(
            "a lift of {lift} is out of reach at {own} repetitions: more than {} cases (liftdb plan --lift {lift} lists other repetitions)",
            option.cases
        ),
        (true, true) => format!(
            "about {} more runs: {} cases × {own} repetitions × {} models × 2 arms = {} runs give 80% power to detect {lift} (the release has {has} paired runs; liftdb plan --lift {lift})",
            option.runs as usize - has,
            option.cases,
            o.models,
            option.runs
        ),
        (true, false) => format!(
            "{} cases × {own} repetitions give 80% power to tell {lift} apart, and the release has them; its spread is wider than planned, so more runs narrow the interval (liftdb plan --lift {lift})",
            option.cases
        ),
    }))
}

fn sql(name: &str) -> &'static str {
    crate::sqlfiles::named(PLAN_QUERIES, name)
}

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// The variance components of a skill's units (module doc).
fn observe(
    release: &str,
    skill: &str,
    spec: &PlanSpec,
    units: &Units,
    cost: Option<f64>,
) -> Observed {
    let means: Vec<f64> = units.values().map(|d| mean(d)).collect();
    let n = means.len();
    let lift = mean(&means);
    let (mut within_ss, mut within_df) = (0.0, 0usize);
    for d in units.values() {
        let m = mean(d);
        within_ss += d.iter().map(|x| (x - m).powi(2)).sum::<f64>();
        within_df += d.len() - 1;
    }
    let within_var = (within_df > 0).then(|| within_ss / within_df as f64);
    let means_var = if n > 1 {
        means.iter().map(|x| (x - lift).powi(2)).sum::<f64>() / (n - 1) as f64
    } else {
        0.0
    };
    // A unit mean of m pairs carries σ²/m of within-unit spread.
    let inverse_m = mean(
        &units
            .values()
            .map(|d| 1.0 / d.len() as f64)
            .collect::<Vec<_>>(),
    );
    let between_var = (means_var - within_var.unwrap_or(0.0) * inverse_m).max(0.0);
    let cases: std::collections::BTreeSet<&String> = units.keys().map(|(c, _)| c).collect();
    let pairs: usize = units.values().map(Vec::len).sum();
    Observed {
        release: release.into(),
        skill: skill.into(),
        split: spec.split.clone().unwrap_or_else(|| "all".into()),
        cases: cases.len(),
        models: n.div_ceil(cases.len().max(1)),
        units: n,
        pairs,
        repetitions: pairs as f64 / n as f64,
        lift,
        between_unit_sd: between_var.sqrt(),
        within_unit_sd: within_var.map(f64::sqrt),
        cost_per_pair_usd: cost,
    }
}

/// The analytic power of `units` units of `reps` repetitions (module doc).
pub fn power(o: &Observed, units: u32, reps: u32, lift: f64, alpha: f64) -> f64 {
    // The exact test's smallest two-sided p with n units is 2/2^n.
    if units < 2 || 2.0 / 2f64.powi(units.min(60) as i32) > alpha {
        return 0.0;
    }
    // Past 14 units the test is sampled and decided on its p's upper bound
    // (docs/metrics.md §M6): in effect at a lower level.
    let alpha = crate::stats::interval::decision_level(units as usize, alpha);
    if alpha <= 0.0 {
        return 0.0;
    }
    let var = o.between_unit_sd.powi(2) + o.within_unit_sd.unwrap_or(0.0).powi(2) / reps as f64;
    if var <= 0.0 {
        return 1.0;
    }
    let se = (var / units as f64).sqrt();
    let Ok(t) = StudentsT::new(0.0, 1.0, (units - 1) as f64) else {
        return 0.0;
    };
    // The t statistic shifted by the standardized lift: the noncentral t's
    // usual approximation, closer than the normal's at few units.
    let critical = t.inverse_cdf(1.0 - alpha / 2.0);
    t.cdf(lift / se - critical) + t.cdf(-lift / se - critical)
}

/// For each number of repetitions, the fewest cases reaching the power wanted.
fn options(o: &Observed, units: &Units, spec: &PlanSpec) -> Vec<PlanOption> {
    let mut reps: Vec<u32> = REPETITIONS.to_vec();
    reps.push(o.repetitions.round().max(1.0) as u32);
    reps.sort_unstable();
    reps.dedup();
    let models = o.models.max(1) as u32;
    reps.into_iter()
        .map(|r| {
            let reach = |k: u32| power(o, k * models, r, spec.lift, spec.alpha) >= spec.power;
            // Power grows with k, except where the test turns sampled (past
            // EXACT_MAX_N units) and is decided at a lower level: the few k
            // of an exact test are tried one by one, then past them the least
            // k is found by doubling, then halving.
            let exact = (EXACT_MAX_N as u32 / models).min(MAX_CASES);
            let k = match (1..=exact).find(|&k| reach(k)) {
                Some(k) => k,
                None => {
                    let mut high = exact + 1;
                    while high < MAX_CASES && !reach(high) {
                        high = (high * 2).min(MAX_CASES);
                    }
                    let mut low = (high / 2).max(exact);
                    while low + 1 < high {
                        let mid = (low + high) / 2;
                        if reach(mid) {
                            high = mid;
                        } else {
                            low = mid;
                        }
                    }
                    high
                }
            };
            let n = k * models;
            PlanOption {
                repetitions: r,
                cases: k,
                units: n,
                runs: 2 * n as u64 * r as u64,
                power: power(o, n, r, spec.lift, spec.alpha),
                simulated_power: spec.simulate.map(|b| simulate(o, units, k, r, spec, b)),
                cost_usd: o.cost_per_pair_usd.map(|c| c * n as f64 * r as f64),
                reached: reach(k),
            }
        })
        .collect()
}

/// The share of `replications` resampled suites of `cases` cases and `reps`
/// repetitions whose sign-flip p is at most α at lift `spec.lift` (module
/// doc). A unit's observed mean carries its pairs' noise on top of its true
/// lift, so it is drawn shrunk towards the lift by τ²/(τ² + σ²/m) — the
/// spread of the drawn units' lifts is then τ, not more — and a pair's
/// deviation from its unit's mean is widened by √(m/(m−1)), the spread a
/// draw from m values loses. Seeded: the same store gives the same share.
pub fn simulate(
    o: &Observed,
    units: &Units,
    cases: u32,
    reps: u32,
    spec: &PlanSpec,
    replications: u32,
) -> f64 {
    let tau2 = o.between_unit_sd.powi(2);
    let sigma2 = o.within_unit_sd.unwrap_or(0.0).powi(2);
    let shift = spec.lift - o.lift;
    // Per observed case, its units as (drawn lift, pair deviations).
    let mut by_case: BTreeMap<&str, Vec<(f64, Vec<f64>)>> = BTreeMap::new();
    for ((case, _), d) in units {
        let m = d.len() as f64;
        let unit_mean = mean(d);
        let noise = sigma2 / m;
        let shrink = if tau2 + noise > 0.0 {
            (tau2 / (tau2 + noise)).sqrt()
        } else {
            1.0
        };
        let widen = if d.len() > 1 {
            (m / (m - 1.0)).sqrt()
        } else {
            0.0
        };
        let lift = o.lift + shrink * (unit_mean - o.lift) + shift;
        let deviations = d.iter().map(|x| (x - unit_mean) * widen).collect();
        by_case.entry(case).or_default().push((lift, deviations));
    }
    let observed: Vec<&Vec<(f64, Vec<f64>)>> = by_case.values().collect();
    let mut rng = PyRandom::new(cases.wrapping_mul(31).wrapping_add(reps));
    let mut pick = |len: usize| ((rng.random() * len as f64) as usize).min(len - 1);
    let mut detected = 0;
    for _ in 0..replications {
        let mut deltas = Vec::with_capacity(cases as usize * o.models);
        for _ in 0..cases {
            for (lift, deviations) in observed[pick(observed.len())] {
                let noise: f64 = (0..reps).map(|_| deviations[pick(deviations.len())]).sum();
                deltas.push(lift + noise / reps as f64);
            }
        }
        // Detected as the gate decides (docs/metrics.md §M6): on p, or on a
        // sampled test's upper bound.
        if sign_flip::decision_p(&deltas).is_some_and(|p| p <= spec.alpha) {
            detected += 1;
        }
    }
    detected as f64 / replications as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A release of one model whose units' lifts spread by 0.6 (no
    /// within-unit spread): the figures only set the power curve.
    fn observed() -> Observed {
        Observed {
            release: "r".into(),
            skill: "s".into(),
            split: "all".into(),
            cases: 10,
            models: 1,
            units: 10,
            pairs: 10,
            repetitions: 1.0,
            lift: 0.5,
            between_unit_sd: 0.6,
            within_unit_sd: None,
            cost_per_pair_usd: None,
        }
    }

    /// Power drops where the test turns sampled (past 14 units it is decided
    /// on p's upper bound): a plan is the least number of cases reaching the
    /// power, which may lie before that drop, as a search over every count
    /// finds it.
    #[test]
    fn a_plan_is_the_least_cases_reaching_the_power_across_the_exact_to_sampled_drop() {
        let o = observed();
        for (lift, alpha) in [(0.5, 0.05), (0.6, 0.02), (0.45, 0.05), (0.3, 0.1)] {
            let spec = PlanSpec {
                release: None,
                skill: None,
                split: None,
                lift,
                power: 0.8,
                alpha,
                simulate: None,
            };
            let least = (1..=MAX_CASES).find(|&k| power(&o, k, 1, lift, alpha) >= 0.8);
            let plan = options(&o, &Units::new(), &spec);
            let one = plan.iter().find(|p| p.repetitions == 1).unwrap();
            assert_eq!(Some(one.cases), least, "lift {lift} α {alpha}");
        }
        // The case the drop hides: reached at 14 units, not at 15.
        let spec_alpha = 0.05;
        let at = |k| power(&o, k, 1, 0.5, spec_alpha);
        assert!(at(14) >= 0.8 && at(15) < 0.8, "{} {}", at(14), at(15));
    }
}
