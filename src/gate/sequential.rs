//! The gate's sequential checks (`--sequential`): each decided by the
//! anytime-valid betting test (`stats::sequential`) on rounds dealt by
//! `rounds`, so that the chance of ever deciding wrongly stays at most α
//! however often the gate is run (docs/metrics.md §M14).
//!
//! - min-lift: the suite's mean lift shown above D at α (shown below it at
//!   α: failed).
//! - non-inferiority and no-significant-regression compare with a baseline
//!   that is itself a sample: α is split between an anytime-valid bound on
//!   the baseline's mean (α/2) and this release's test (α/2) against a
//!   threshold moved by that bound. Wrong only if the baseline's bound or
//!   this release's test is, each at most α/2.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::rounds::{self, Declared, Pair, Place, Rounds, Unit};
use crate::output::ResultSet;
use crate::stats::sequential::{self, Sequential};

/// A lift observation lies in [−1, 1].
pub const LIFT: (f64, f64) = (-1.0, 1.0);
/// Draws behind "rounds to a decision"; the most rounds looked at, fewer
/// for a large suite so the draws bet on at most `SIMULATED` observations.
const REPLICATIONS: usize = 200;
const ROUNDS_CAP: usize = 2000;
const SIMULATED: usize = 4_000_000;

/// What a sequential check saw and decided, as the gate reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SequentialCheck {
    #[serde(flatten)]
    pub test: Sequential,
    /// The thresholds this release's mean is shown above to pass and below
    /// to fail (one threshold, D, for min-lift; for a comparison each moved
    /// by the baseline's bound on its side).
    pub pass_above: f64,
    pub fail_below: f64,
    /// The level each side is decided at.
    pub level: f64,
    /// Anytime-valid bounds of what the check measures (the lift, or the
    /// change from the baseline), each one-sided at the check's α.
    pub lower: Option<f64>,
    pub upper: Option<f64>,
    /// Units of the suite, and the baseline's complete rounds (comparisons).
    pub units: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline_rounds: Option<usize>,
    /// Eligible pairs stored beyond the last complete round.
    pub waiting_pairs: usize,
    /// Units the next round waits for.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lacking: Vec<String>,
    /// The skill's runs in the release stored again after they were first
    /// stored, and stored then deleted: either refuses the check.
    pub replaced: i64,
    pub deleted: i64,
    /// Cases first stored after a complete round without them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub joined_late: Vec<String>,
}

/// A skill's runs in the release that changed after they were stored.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Changed {
    pub replaced: i64,
    pub deleted: i64,
    /// Their cases, comma-separated.
    pub cases: String,
}

/// Each skill's pairs, declared cases and changed runs, read from
/// `round_pairs`, `suite_cases` and `changed_runs`.
#[derive(Debug, Default, Clone)]
pub struct Suites {
    pub pairs: BTreeMap<String, Vec<Pair>>,
    pub declared: BTreeMap<String, Vec<Declared>>,
    pub changed: BTreeMap<String, Changed>,
}

impl Suites {
    pub fn read(
        pairs: &ResultSet,
        declared: Option<&ResultSet>,
        changed: Option<&ResultSet>,
    ) -> Suites {
        let mut suites = Suites::default();
        for p in pairs.records() {
            let (Some(skill), Some(case), Some(stored), Some(repetition)) = (
                p.text("skill"),
                p.text("case"),
                p.count("first_stored"),
                p.count("repetition"),
            ) else {
                continue;
            };
            suites.pairs.entry(skill).or_default().push(Pair {
                unit: Unit {
                    experiment: p.text("experiment"),
                    case,
                    model: p.text("model"),
                },
                place: Place {
                    first_stored: stored,
                    shard: p.text("shard"),
                    repetition,
                },
                x: p.number("delta"),
            });
        }
        for d in declared.iter().flat_map(|d| d.records()) {
            if let (Some(skill), Some(case)) = (d.text("skill"), d.text("case")) {
                let at = d.count("declared_at").unwrap_or(i64::MAX);
                suites
                    .declared
                    .entry(skill)
                    .or_default()
                    .push(Declared { case, at });
            }
        }
        for c in changed.iter().flat_map(|c| c.records()) {
            if let Some(skill) = c.text("skill") {
                suites.changed.insert(
                    skill,
                    Changed {
                        replaced: c.count("replaced").unwrap_or(0),
                        deleted: c.count("deleted").unwrap_or(0),
                        cases: c.text("cases").unwrap_or_default(),
                    },
                );
            }
        }
        suites
    }

    pub fn of(&self, skill: &str) -> (&[Pair], &[Declared]) {
        (
            self.pairs.get(skill).map(Vec::as_slice).unwrap_or_default(),
            self.declared
                .get(skill)
                .map(Vec::as_slice)
                .unwrap_or_default(),
        )
    }
}

/// A sequential check's decision: above (pass), below (fail), neither.
pub struct Decided {
    pub check: SequentialCheck,
    pub rounds: Rounds,
}

/// min-lift D: the suite's rounds tested against D at α.
pub fn min_lift(pairs: &[Pair], declared: &[Declared], min: f64, alpha: f64) -> Decided {
    let rounds = rounds::deal(pairs, declared);
    let test = sequential::test(&rounds.complete, LIFT.0, LIFT.1, min, alpha);
    let (lower, upper) = sequential::bounds(&rounds.complete, LIFT.0, LIFT.1, alpha);
    let (lower, upper) = decided_bounds(&test, lower, upper, min, min);
    decided(rounds, test, (min, min), alpha, (lower, upper), None)
}

/// A check's decision on its rounds: its test, the thresholds it passes
/// above and fails below, its level and bounds (the changed-run counts are
/// the caller's to set).
fn decided(
    rounds: Rounds,
    test: Sequential,
    (pass_above, fail_below): (f64, f64),
    level: f64,
    (lower, upper): (Option<f64>, Option<f64>),
    baseline_rounds: Option<usize>,
) -> Decided {
    Decided {
        check: SequentialCheck {
            test,
            pass_above,
            fail_below,
            level,
            lower,
            upper,
            units: rounds.units,
            baseline_rounds,
            waiting_pairs: rounds.waiting_pairs,
            lacking: rounds.lacking.clone(),
            replaced: 0,
            deleted: 0,
            joined_late: rounds.joined_late.clone(),
        },
        rounds,
    }
}

/// The change of this release's mean from the baseline's, over the
/// (case, model) units both hold: shown above `threshold` (pass) or below
/// it (fail), each side at `alpha`, α/2 spent on the baseline's bound and
/// α/2 on this release's test.
pub fn change(
    pairs: &[Pair],
    declared: &[Declared],
    baseline: &[Pair],
    threshold: f64,
    alpha: f64,
) -> Decided {
    let key = |u: &Unit| (u.case.clone(), u.model.clone());
    let theirs: BTreeSet<_> = baseline.iter().map(|p| key(&p.unit)).collect();
    let ours: BTreeSet<_> = pairs.iter().map(|p| key(&p.unit)).collect();
    let matched: Vec<Pair> = pairs
        .iter()
        .filter(|p| theirs.contains(&key(&p.unit)))
        .cloned()
        .collect();
    let before: Vec<Pair> = baseline
        .iter()
        .filter(|p| ours.contains(&key(&p.unit)))
        .cloned()
        .collect();
    // A case the baseline ran and this release declares but has not run yet
    // is part of the comparison: rounds wait for it.
    let baseline_cases: BTreeSet<&str> = baseline.iter().map(|p| p.unit.case.as_str()).collect();
    let declared: Vec<Declared> = declared
        .iter()
        .filter(|d| baseline_cases.contains(d.case.as_str()))
        .cloned()
        .collect();
    let rounds = rounds::deal(&matched, &declared);
    let base = rounds::deal(&before, &[]);
    let half = alpha / 2.0;
    let (b_lower, b_upper) = sequential::bounds(&base.complete, LIFT.0, LIFT.1, half);
    let (b_lower, b_upper) = (b_lower.unwrap_or(LIFT.0), b_upper.unwrap_or(LIFT.1));
    // Shown above: this release's mean above the baseline's upper bound
    // moved by the threshold; shown below: under its lower bound so moved.
    let pass_at = b_upper + threshold;
    let fail_at = b_lower + threshold;
    let above = sequential::test(&rounds.complete, LIFT.0, LIFT.1, pass_at, half);
    let below = sequential::test(&rounds.complete, LIFT.0, LIFT.1, fail_at, half);
    let (n_lower, n_upper) = sequential::bounds(&rounds.complete, LIFT.0, LIFT.1, half);
    let base_mean = mean(&base.complete);
    let test = Sequential {
        mean: above.mean.zip(base_mean).map(|(n, b)| n - b),
        wealth_below: below.wealth_below,
        below: below.below,
        ..above
    };
    let (lower, upper) = decided_bounds(
        &test,
        Some(n_lower.unwrap_or(LIFT.0) - b_upper),
        Some(n_upper.unwrap_or(LIFT.1) - b_lower),
        threshold,
        threshold,
    );
    decided(
        rounds,
        test,
        (pass_at, fail_at),
        alpha,
        (lower, upper),
        Some(base.complete.len()),
    )
}

/// The bounds as decided: a side that rejected its threshold bounds the
/// mean at least there (bisection stops a hair short of the exact edge).
fn decided_bounds(
    test: &Sequential,
    lower: Option<f64>,
    upper: Option<f64>,
    above: f64,
    below: f64,
) -> (Option<f64>, Option<f64>) {
    (
        match test.above {
            true => Some(lower.map_or(above, |l| l.max(above))),
            false => lower,
        },
        match test.below {
            true => Some(upper.map_or(below, |u| u.min(below))),
            false => upper,
        },
    )
}

fn mean(rounds: &[Vec<f64>]) -> Option<f64> {
    let n: usize = rounds.iter().map(Vec::len).sum();
    (n > 0).then(|| rounds.iter().flatten().sum::<f64>() / n as f64)
}

/// no-significant-regression's decisions: each case's, whether any case
/// could be shown worse with the rounds it has, the number of cases α is
/// divided among, and the cases that joined the suite late.
pub struct Regression {
    pub cases: Vec<(String, Decided)>,
    pub could: bool,
    pub tested: usize,
    pub joined_late: Vec<String>,
}

/// no-significant-regression: each case matched in both releases, its
/// change shown below 0 at α/K. K counts every case the comparison covers
/// from the start — matched, or declared by this release's suite and run
/// by the baseline — so that it does not grow as cases are stored (a union
/// bound across cases).
pub fn regression(
    pairs: &[Pair],
    declared: &[Declared],
    baseline: &[Pair],
    alpha: f64,
) -> Regression {
    let theirs: BTreeSet<&str> = baseline.iter().map(|p| p.unit.case.as_str()).collect();
    let ours: BTreeSet<&str> = pairs.iter().map(|p| p.unit.case.as_str()).collect();
    let matched: Vec<&str> = ours.intersection(&theirs).copied().collect();
    let covered: BTreeSet<&str> = matched
        .iter()
        .copied()
        .chain(
            declared
                .iter()
                .map(|d| d.case.as_str())
                .filter(|c| theirs.contains(c)),
        )
        .collect();
    let each = alpha / covered.len().max(1) as f64;
    let mut could = false;
    let cases = matched
        .iter()
        .map(|case| {
            let mine: Vec<Pair> = pairs
                .iter()
                .filter(|p| p.unit.case == *case)
                .cloned()
                .collect();
            let before: Vec<Pair> = baseline
                .iter()
                .filter(|p| p.unit.case == *case)
                .cloned()
                .collect();
            let d = change(&mine, &[], &before, 0.0, each);
            // Could every change at −2 be shown below the threshold the
            // decision itself uses (the baseline's lower bound)?
            let sizes: Vec<usize> = d.rounds.complete.iter().map(Vec::len).collect();
            could |= sequential::can_decide(&sizes, LIFT.0, LIFT, d.check.fail_below, each / 2.0);
            (case.to_string(), d)
        })
        .collect();
    let matched_pairs: Vec<Pair> = pairs
        .iter()
        .filter(|p| theirs.contains(p.unit.case.as_str()))
        .cloned()
        .collect();
    Regression {
        cases,
        could,
        tested: covered.len(),
        joined_late: rounds::deal(&matched_pairs, declared).joined_late,
    }
}

/// How many more rounds would decide, at the mean seen so far: None once
/// decided.
pub fn more_rounds(check: &SequentialCheck, rounds: &Rounds) -> Option<String> {
    let t = &check.test;
    if t.above || t.below || rounds.complete.is_empty() {
        return None;
    }
    let mean = mean(&rounds.complete)?;
    let threshold = if mean >= check.pass_above {
        check.pass_above
    } else if mean <= check.fail_below {
        check.fail_below
    } else {
        return Some(format!(
            "a mean of {mean:+.4} decides neither way: passing needs it shown above {:+.4}, failing below {:+.4}, a gap the baseline's bound leaves (more baseline runs narrow it)",
            check.pass_above, check.fail_below
        ));
    };
    let level = 1.0 / t.target;
    // The draws start afresh: the rounds seen count toward the cap.
    let cap = t.rounds + (SIMULATED / (REPLICATIONS * rounds.units.max(1))).clamp(20, ROUNDS_CAP);
    let total = sequential::rounds_to_decide(
        &rounds.complete,
        mean,
        LIFT,
        threshold,
        level,
        REPLICATIONS,
        cap,
        0,
    );
    let runs = rounds.runs_per_round();
    Some(match total {
        Some(total) => {
            let more = total.saturating_sub(t.rounds).max(1);
            format!(
                "about {more} more rounds (~{} runs) decide if this release's mean stays at {mean:+.4} (a round: every unit run once in both arms, {runs} runs)",
                more * runs
            )
        }
        None => format!(
            "not decided within {} more rounds in most simulated sequences if this release's mean stays at {mean:+.4}, against {threshold:+.4}",
            cap - t.rounds
        ),
    })
}

/// What the rounds leave out or changed, in words (empty when nothing).
pub fn rounds_said(c: &SequentialCheck) -> Vec<String> {
    let mut said = Vec::new();
    if c.waiting_pairs > 0 || !c.lacking.is_empty() {
        let shown: Vec<&str> = c.lacking.iter().take(5).map(String::as_str).collect();
        let more = c.lacking.len().saturating_sub(shown.len());
        said.push(format!(
            "{} eligible pairs wait for the next round, which lacks {}{}",
            c.waiting_pairs,
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more units")
            } else {
                String::new()
            }
        ));
    }
    said
}
