//! The sequential gate's rounds, dealt from a release's pairs so that the
//! argument of docs/metrics.md §M14 holds whatever the release pools.
//!
//! A unit is one (experiment, case, model): experiments pooled in a release
//! are units of their own, so a round holds every experiment's share of the
//! suite whatever order they were stored in. Each unit's eligible pairs are
//! taken in the order they were first stored (then shard, repetition: never
//! an outcome), and round j holds the j-th pair of *every* unit of the
//! suite. A round is bet on only when it is complete, and rounds are bet on
//! in order, stopping at the first incomplete one: a round, once complete,
//! never changes as more pairs are stored (later pairs take later places),
//! so every look sees the rounds of the looks before it, as they were.
//!
//! The suite's units are every unit with a pair in the release, eligible or
//! not, and every case its suite declares (a manifest's answer cases) with
//! no pair yet: a suite stored in shards by case has no complete round
//! until every declared case has its pair.

use std::collections::{BTreeMap, BTreeSet};

/// One (experiment, case, model) of a skill's suite.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Unit {
    pub experiment: Option<String>,
    pub case: String,
    pub model: Option<String>,
}

/// Where a pair sits in its unit: the batch that first stored it (the
/// later of its two runs' first batches, as a rank), then its shard and
/// repetition.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Place {
    pub first_stored: i64,
    pub shard: Option<String>,
    pub repetition: i64,
}

/// A case the suite declares, and when it was first declared (the rank of
/// the batch that first read a file declaring it, as `Place::first_stored`
/// ranks; `i64::MIN` when it counts from the start, `i64::MAX` when unknown).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    pub case: String,
    pub at: i64,
}

impl Declared {
    /// A case declared before anything was stored (a manifest).
    pub fn from_start(case: impl Into<String>) -> Declared {
        Declared {
            case: case.into(),
            at: i64::MIN,
        }
    }
}

/// One with/without pair of the suite.
#[derive(Debug, Clone)]
pub struct Pair {
    pub unit: Unit,
    pub place: Place,
    /// The pair's observation (its delta, or its change from a baseline);
    /// None when the pair does not count (an arm failed, a rate missing).
    pub x: Option<f64>,
}

/// A skill's (or one case's) rounds, dealt.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Rounds {
    /// The complete rounds in order, each one observation per unit (in
    /// unit order).
    pub complete: Vec<Vec<f64>>,
    /// Units of the suite.
    pub units: usize,
    /// Eligible pairs stored beyond the last complete round: they wait for
    /// the units that lack their pair of the next round.
    pub waiting_pairs: usize,
    /// Units lacking their pair of the next round (named: case, and the
    /// experiment and model where there are several).
    pub lacking: Vec<String>,
    /// Cases first stored after the suite's units stored before them had
    /// completed a round: a gate run between the two bet on part of the
    /// suite.
    pub joined_late: Vec<String>,
}

impl Rounds {
    pub fn pairs(&self) -> usize {
        self.complete.iter().map(Vec::len).sum()
    }

    /// Runs of one round: every unit in both arms.
    pub fn runs_per_round(&self) -> usize {
        2 * self.units
    }
}

/// Deal `pairs` (one suite: one skill, or one case of it) into rounds;
/// `declared` are the suite's declared cases (a case among them with no
/// pair is a unit that has none yet).
pub fn deal(pairs: &[Pair], declared: &[Declared]) -> Rounds {
    let mut by_unit: BTreeMap<&Unit, Vec<&Pair>> = BTreeMap::new();
    for p in pairs {
        by_unit.entry(&p.unit).or_default().push(p);
    }
    for list in by_unit.values_mut() {
        list.sort_by(|a, b| a.place.cmp(&b.place));
    }
    let seen: BTreeSet<&str> = by_unit.keys().map(|u| u.case.as_str()).collect();
    let undeclared: Vec<&String> = declared
        .iter()
        .map(|d| &d.case)
        .filter(|c| !seen.contains(c.as_str()))
        .collect();
    let experiments: BTreeSet<&Option<String>> = by_unit.keys().map(|u| &u.experiment).collect();
    let models: BTreeSet<&Option<String>> = by_unit.keys().map(|u| &u.model).collect();
    let name = |u: &Unit| {
        let mut s = u.case.clone();
        if experiments.len() > 1 {
            s = format!("{} {s}", u.experiment.as_deref().unwrap_or("-"));
        }
        if models.len() > 1 {
            s = format!("{s} ({})", u.model.as_deref().unwrap_or("no model"));
        }
        s
    };
    // Each unit's eligible pairs, in place order.
    let eligible: Vec<(&Unit, Vec<&Pair>)> = by_unit
        .iter()
        .map(|(u, list)| (*u, list.iter().copied().filter(|p| p.x.is_some()).collect()))
        .collect();
    let units = eligible.len() + undeclared.len();
    let complete_count = match undeclared.is_empty() {
        true => eligible.iter().map(|(_, l)| l.len()).min().unwrap_or(0),
        false => 0,
    };
    let complete: Vec<Vec<f64>> = (0..complete_count)
        .map(|j| eligible.iter().map(|(_, l)| l[j].x.unwrap()).collect())
        .collect();
    let waiting_pairs = eligible
        .iter()
        .map(|(_, l)| l.len().saturating_sub(complete_count))
        .sum();
    let mut lacking: Vec<String> = eligible
        .iter()
        .filter(|(_, l)| l.len() <= complete_count)
        .map(|(u, _)| name(u))
        .collect();
    lacking.extend(
        undeclared
            .iter()
            .map(|c| format!("{c} (declared by the suite, no pair stored)")),
    );
    Rounds {
        complete,
        units,
        waiting_pairs: if units == 0 { 0 } else { waiting_pairs },
        lacking,
        joined_late: joined_late(&by_unit, declared),
    }
}

/// Cases whose first pair was stored after the suite had a complete round
/// without them: after every unit stored before them had an eligible pair
/// and every case declared by then had a unit. A case declared before its
/// first pair is never late: no round is complete until it has its pair.
fn joined_late(by_unit: &BTreeMap<&Unit, Vec<&Pair>>, declared: &[Declared]) -> Vec<String> {
    let mut declared_at: BTreeMap<&str, i64> = BTreeMap::new();
    for d in declared {
        let at = declared_at.entry(d.case.as_str()).or_insert(d.at);
        *at = (*at).min(d.at);
    }
    // Per unit: when its first pair of any kind was stored, when its first
    // eligible one was (None: none yet), its case.
    let mut arrivals: Vec<(i64, Option<i64>, &str)> = by_unit
        .iter()
        .map(|(u, list)| {
            let first = list.iter().map(|p| p.place.first_stored).min();
            let counted = list
                .iter()
                .filter(|p| p.x.is_some())
                .map(|p| p.place.first_stored)
                .min();
            (first.unwrap_or(i64::MAX), counted, u.case.as_str())
        })
        .collect();
    arrivals.sort();
    // When each case first had a unit.
    let mut present_at: BTreeMap<&str, i64> = BTreeMap::new();
    for a in &arrivals {
        present_at.entry(a.2).or_insert(a.0);
    }
    let mut late = BTreeSet::new();
    // Over the units that arrived strictly before the current group: the
    // latest first eligible pair (None once one of them has none).
    let mut complete_at: Option<i64> = Some(i64::MIN);
    let mut any_before = false;
    let mut i = 0;
    while i < arrivals.len() {
        let at = arrivals[i].0;
        let group = arrivals[i..].iter().take_while(|a| a.0 == at).count();
        // Every case declared before now already had a unit.
        let declared_there = declared_at
            .iter()
            .filter(|(_, d)| **d < at)
            .all(|(c, _)| present_at.get(c).is_some_and(|t| *t < at));
        for a in &arrivals[i..i + group] {
            let awaited = declared_at.get(a.2).is_some_and(|d| *d < at);
            if any_before && !awaited && declared_there && complete_at.is_some_and(|c| c < at) {
                late.insert(a.2.to_string());
            }
        }
        for a in &arrivals[i..i + group] {
            complete_at = complete_at.zip(a.1).map(|(c, d)| c.max(d));
        }
        any_before = true;
        i += group;
    }
    late.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(experiment: &str, case: &str, stored: i64, rep: i64, x: Option<f64>) -> Pair {
        Pair {
            unit: Unit {
                experiment: Some(experiment.into()),
                case: case.into(),
                model: None,
            },
            place: Place {
                first_stored: stored,
                shard: None,
                repetition: rep,
            },
            x,
        }
    }

    /// Two experiments stored in one batch, five repetitions each: every
    /// round holds one pair of each, whatever their names' order.
    #[test]
    fn pooled_experiments_share_every_round() {
        let mut pairs = Vec::new();
        for rep in 1..=5 {
            pairs.push(pair("a", "c1", 1, rep, Some(0.2)));
            pairs.push(pair("b", "c1", 1, rep, Some(-0.2)));
        }
        let r = deal(&pairs, &[]);
        assert_eq!(r.complete, vec![vec![0.2, -0.2]; 5]);
        assert_eq!((r.units, r.waiting_pairs), (2, 0));
    }

    /// A pair that does not count leaves its unit's place to the next one;
    /// a round waits for a unit that has not its pair yet.
    #[test]
    fn a_round_is_complete_only_with_every_unit() {
        let pairs = vec![
            pair("a", "c1", 1, 1, Some(0.1)),
            pair("a", "c2", 1, 1, None),
            pair("a", "c1", 2, 2, Some(0.3)),
            pair("a", "c2", 3, 2, Some(0.5)),
            pair("a", "c1", 3, 3, Some(0.7)),
        ];
        let r = deal(&pairs, &[]);
        assert_eq!(r.complete, vec![vec![0.1, 0.5]]);
        assert_eq!(r.waiting_pairs, 2);
        assert_eq!(r.lacking, vec!["c2".to_string()]);
    }

    /// A declared case with no pair holds every round back; one stored
    /// after a complete round without it is named.
    #[test]
    fn declared_and_late_cases() {
        let pairs = vec![pair("a", "c1", 1, 1, Some(0.1))];
        let r = deal(
            &pairs,
            &[Declared::from_start("c1"), Declared::from_start("c2")],
        );
        assert!(r.complete.is_empty());
        assert_eq!(r.lacking.len(), 1);
        let pairs = vec![
            pair("a", "c1", 1, 1, Some(0.1)),
            pair("a", "c2", 2, 1, Some(0.3)),
        ];
        let r = deal(&pairs, &[]);
        assert_eq!(r.complete, vec![vec![0.1, 0.3]]);
        assert_eq!(r.joined_late, vec!["c2".to_string()]);
        // Declared from the start, c2 is awaited, not late; declared by the
        // batch that stored it, it joined late all the same.
        let r = deal(
            &pairs,
            &[Declared::from_start("c1"), Declared::from_start("c2")],
        );
        assert!(r.joined_late.is_empty(), "{r:?}");
        let by_rows = [
            Declared {
                case: "c1".into(),
                at: 1,
            },
            Declared {
                case: "c2".into(),
                at: 2,
            },
        ];
        assert_eq!(deal(&pairs, &by_rows).joined_late, vec!["c2".to_string()]);
    }
}
