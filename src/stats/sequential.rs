//! An anytime-valid test of a mean lift against a threshold: the betting
//! test of Waudby-Smith & Ramdas, "Estimating means of bounded random
//! variables by betting" (JRSS-B 86(1), 2024), with their predictable
//! plug-in bets, made a round at a time (docs/metrics.md §M14 derives it).
//!
//! Observations come in rounds (a round: every unit of the suite run once);
//! each x lies in [low, high], scaled to z in [0, 1] and the threshold to θ.
//! Betting that the mean exceeds θ, wealth grows as
//! K⁺ = Π (1 + λ_r (z − θ)) over every observation, the bet λ_r ≥ 0 fixed
//! for a round from the observations before it. Within a round the units'
//! own means μ_k may differ; by the AM–GM inequality
//! Π_k (1 + λ(μ_k − θ)) ≤ (1 + λ(μ̄ − θ))^K ≤ 1 whenever their average μ̄ is
//! at most θ, so at round ends K⁺ is a nonnegative supermartingale and, by
//! Ville's inequality, reaches 1/α with chance at most α *ever*: however
//! often it is looked at. The mirror bet K⁻ tests "the mean is below θ".

use serde::Serialize;

/// The largest share of the wealth bet (the paper's c): bets stay below
/// c/θ (c/(1−θ) for the mirror), so wealth never reaches 0.
const MAX_SHARE: f64 = 0.5;

/// What rounds of observations say about their mean against a threshold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sequential {
    /// Rounds seen.
    pub rounds: usize,
    /// Observations seen (over every round).
    pub observations: usize,
    /// Their plain mean (None before the first).
    pub mean: Option<f64>,
    /// The highest wealth, at a round's end, of the bet that the mean
    /// exceeds the threshold.
    pub wealth_above: f64,
    /// The highest wealth of the bet that the mean is below it.
    pub wealth_below: f64,
    /// The wealth either bet must reach to decide: 1/α.
    pub target: f64,
    /// The mean shown above the threshold (wealth_above reached 1/α).
    pub above: bool,
    /// The mean shown below the threshold.
    pub below: bool,
}

/// The bets' running estimates (the paper's μ̂ and σ̂², each started from a
/// prior observation of 1/2 and variance 1/4).
struct Estimates {
    t: f64,
    sum: f64,
    squares: f64,
}

impl Estimates {
    fn new() -> Self {
        Estimates {
            t: 0.0,
            sum: 0.5,
            squares: 0.25,
        }
    }

    fn mean(&self) -> f64 {
        self.sum / (self.t + 1.0)
    }

    /// The predictable plug-in bet for the next observation (before it is
    /// seen): √(2 log(1/α) / (σ̂² · t · log(1+t))), t counted from 1.
    fn bet(&self, alpha: f64) -> f64 {
        let t = self.t + 1.0;
        let variance = self.squares / (self.t + 1.0);
        (2.0 * (1.0 / alpha).ln() / (variance * t * (1.0 + t).ln())).sqrt()
    }

    fn add(&mut self, z: f64) {
        let before = self.mean();
        self.squares += (z - before) * (z - before);
        self.sum += z;
        self.t += 1.0;
    }
}

/// The two bets, made a round at a time.
pub struct Bettor {
    low: f64,
    span: f64,
    theta: f64,
    alpha: f64,
    above: f64,
    below: f64,
    sum: f64,
    result: Sequential,
    estimates: Estimates,
}

impl Bettor {
    /// Bets on observations in [low, high] against `threshold` at level `alpha`.
    pub fn new(low: f64, high: f64, threshold: f64, alpha: f64) -> Bettor {
        Bettor {
            low,
            span: high - low,
            theta: ((threshold - low) / (high - low)).clamp(0.0, 1.0),
            alpha,
            above: 1.0,
            below: 1.0,
            sum: 0.0,
            result: Sequential {
                rounds: 0,
                observations: 0,
                mean: None,
                wealth_above: 1.0,
                wealth_below: 1.0,
                target: 1.0 / alpha,
                above: false,
                below: false,
            },
            estimates: Estimates::new(),
        }
    }

    /// Bet on a round's observations (one bet for the whole round, from
    /// what came before it), then see them.
    pub fn add_round(&mut self, round: &[f64]) -> &Sequential {
        if round.is_empty() {
            return &self.result;
        }
        let theta = self.theta;
        let bet = self.estimates.bet(self.alpha);
        // Bets stay below c/θ (c/(1−θ) for the mirror): wealth never
        // reaches 0. At θ = 0 (or 1) no observation can fall below (above)
        // it, and that side's bet may be as large as the plug-in says.
        let up = bet.min(MAX_SHARE / theta.max(f64::MIN_POSITIVE));
        let down = bet.min(MAX_SHARE / (1.0 - theta).max(f64::MIN_POSITIVE));
        for &x in round {
            let z = ((x - self.low) / self.span).clamp(0.0, 1.0);
            self.above *= 1.0 + up * (z - theta);
            self.below *= 1.0 - down * (z - theta);
            self.estimates.add(z);
            self.sum += x;
        }
        let r = &mut self.result;
        r.rounds += 1;
        r.observations += round.len();
        r.mean = Some(self.sum / r.observations as f64);
        r.wealth_above = r.wealth_above.max(self.above);
        r.wealth_below = r.wealth_below.max(self.below);
        r.above = r.wealth_above >= r.target;
        r.below = r.wealth_below >= r.target;
        &self.result
    }

    pub fn result(&self) -> &Sequential {
        &self.result
    }
}

/// The test of `rounds` (each observation in [low, high], rounds in the
/// order they were made) against `threshold` at level `alpha`, both sides.
pub fn test(rounds: &[Vec<f64>], low: f64, high: f64, threshold: f64, alpha: f64) -> Sequential {
    let mut bettor = Bettor::new(low, high, threshold, alpha);
    for round in rounds {
        bettor.add_round(round);
    }
    bettor.result().clone()
}

/// How many rounds the test takes to decide (either side) when rounds are
/// drawn, with replacement, from `sample`, every observation moved so that
/// their mean is `mean` (kept in [low, high]): the median over
/// `replications` draws seeded by `seed`. None when over half of them have
/// not decided after `cap` rounds.
#[allow(clippy::too_many_arguments)]
pub fn rounds_to_decide(
    sample: &[Vec<f64>],
    mean: f64,
    (low, high): (f64, f64),
    threshold: f64,
    alpha: f64,
    replications: usize,
    cap: usize,
    seed: u32,
) -> Option<usize> {
    let all: Vec<f64> = sample.iter().flatten().copied().collect();
    if all.is_empty() || replications == 0 {
        return None;
    }
    let shift = mean - all.iter().sum::<f64>() / all.len() as f64;
    let moved: Vec<Vec<f64>> = sample
        .iter()
        .filter(|r| !r.is_empty())
        .map(|r| r.iter().map(|x| (x + shift).clamp(low, high)).collect())
        .collect();
    let mut rng = super::mt19937::PyRandom::new(seed);
    let mut taken: Vec<usize> = (0..replications)
        .map(|_| {
            let mut bettor = Bettor::new(low, high, threshold, alpha);
            (1..=cap)
                .find(|_| {
                    let at = ((rng.random() * moved.len() as f64) as usize).min(moved.len() - 1);
                    let r = bettor.add_round(&moved[at]);
                    r.above || r.below
                })
                .unwrap_or(usize::MAX)
        })
        .collect();
    taken.sort_unstable();
    let median = taken[(replications - 1) / 2];
    (median != usize::MAX).then_some(median)
}

/// Whether rounds of these sizes could decide at all: every observation
/// `extreme` (low to show the mean below the threshold, high above)
/// reaches 1/α.
pub fn can_decide(
    sizes: &[usize],
    extreme: f64,
    (low, high): (f64, f64),
    threshold: f64,
    alpha: f64,
) -> bool {
    let rounds: Vec<Vec<f64>> = sizes.iter().map(|&n| vec![extreme; n]).collect();
    let r = test(&rounds, low, high, threshold, alpha);
    r.above || r.below
}

/// The anytime-valid bounds of the mean, each one-sided at `alpha` (the
/// level the gate decides each side at): the lower bound is the highest
/// threshold the bet above has rejected, the upper the lowest the bet below
/// has. None on a side no threshold in (low, high) was rejected on.
///
/// Each side's wealth is monotone in the threshold (every factor
/// 1 ± λ(θ)(z − θ) moves one way as θ does, the cap on λ included:
/// docs/metrics.md §M14), so the rejected thresholds of a side form an
/// interval and bisection finds its end; the bound returned is the last
/// threshold found rejected, so it errs inward by less than `TOLERANCE`.
pub fn bounds(rounds: &[Vec<f64>], low: f64, high: f64, alpha: f64) -> (Option<f64>, Option<f64>) {
    let above = |m: f64| test(rounds, low, high, m, alpha).above;
    let below = |m: f64| test(rounds, low, high, m, alpha).below;
    (edge(low, high, above), edge(high, low, below))
}

/// Bisection stops when the rejected and kept thresholds are this close.
const TOLERANCE: f64 = 1e-6;

/// The end of the thresholds `rejected` holds for, starting at `from` and
/// moving toward `to` (rejected is monotone: true up to some point, false
/// after). None when even the first step in is not rejected.
fn edge(from: f64, to: f64, rejected: impl Fn(f64) -> bool) -> Option<f64> {
    let (mut yes, mut no) = (from, to);
    if rejected(to) {
        return Some(to);
    }
    if !rejected(from + (to - from) * TOLERANCE) {
        return None;
    }
    while (no - yes).abs() > TOLERANCE {
        let mid = 0.5 * (yes + no);
        match rejected(mid) {
            true => yes = mid,
            false => no = mid,
        }
    }
    Some(yes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rounds(x: f64, n: usize, size: usize) -> Vec<Vec<f64>> {
        vec![vec![x; size]; n]
    }

    /// Observations all well above the threshold: the bet above reaches 1/α
    /// and the one below loses.
    #[test]
    fn a_clear_lift_is_shown_above_and_never_below() {
        let s = test(&rounds(0.3, 10, 10), -1.0, 1.0, -0.5, 0.05);
        assert!(s.above && !s.below, "{s:?}");
        assert!(s.wealth_below <= 1.0);
    }

    /// Nothing observed: wealth 1 on both sides, nothing decided.
    #[test]
    fn no_observation_decides_nothing() {
        let s = test(&[], -1.0, 1.0, 0.0, 0.05);
        assert_eq!((s.rounds, s.above, s.below), (0, false, false));
        assert_eq!((s.wealth_above, s.wealth_below), (1.0, 1.0));
    }

    /// Observations equal to the threshold move neither wealth (z − θ = 0).
    #[test]
    fn observations_at_the_threshold_leave_wealth_unchanged() {
        let s = test(&rounds(0.2, 30, 4), -1.0, 1.0, 0.2, 0.05);
        assert!((s.wealth_above - 1.0).abs() < 1e-12 && (s.wealth_below - 1.0).abs() < 1e-12);
    }

    /// Rounds whose units sit either side of the threshold, averaging on
    /// it: one bet a round, so the wealth above never rises (AM–GM).
    #[test]
    fn a_round_averaging_the_threshold_never_gains() {
        let s = test(&vec![vec![0.6, -0.6]; 200], -1.0, 1.0, 0.0, 0.05);
        assert!(
            s.wealth_above <= 1.0 + 1e-12 && s.wealth_below <= 1.0 + 1e-12,
            "{s:?}"
        );
    }

    /// The bounds hold the observed constant mean and tighten around it.
    #[test]
    fn bounds_hold_the_mean() {
        let x: Vec<Vec<f64>> = (0..40).map(|_| vec![0.5, 0.1, 0.5, 0.1, 0.3]).collect();
        let (lower, upper) = bounds(&x, -1.0, 1.0, 0.05);
        let (lower, upper) = (lower.unwrap(), upper.unwrap());
        assert!(lower < 0.3 && 0.3 < upper, "{lower} {upper}");
        assert!(upper - lower < 0.4, "{lower} {upper}");
    }

    /// Each side's wealth moves one way with the threshold, the bet's cap
    /// included: what bisection and a threshold read from data rely on.
    #[test]
    fn wealth_is_monotone_in_the_threshold() {
        let mut rng = crate::stats::mt19937::PyRandom::new(7);
        for _ in 0..50 {
            let rounds: Vec<Vec<f64>> = (0..1 + (rng.random() * 12.0) as usize)
                .map(|_| (0..4).map(|_| 2.0 * rng.random() - 1.0).collect())
                .collect();
            let at: Vec<Sequential> = (0..=200)
                .map(|i| test(&rounds, -1.0, 1.0, -1.0 + i as f64 / 100.0, 0.05))
                .collect();
            for w in at.windows(2) {
                assert!(
                    w[1].wealth_above <= w[0].wealth_above * (1.0 + 1e-12),
                    "{w:?}"
                );
                assert!(
                    w[1].wealth_below >= w[0].wealth_below * (1.0 - 1e-12),
                    "{w:?}"
                );
            }
        }
    }

    /// The bounds are where the decisions change: a threshold just inside
    /// the lower bound is shown exceeded, one just outside is not.
    #[test]
    fn bounds_are_where_the_tests_turn() {
        let x: Vec<Vec<f64>> = (0..30).map(|_| vec![0.5, 0.1, 0.5, 0.1, 0.3]).collect();
        let (lower, upper) = bounds(&x, -1.0, 1.0, 0.05);
        let (lower, upper) = (lower.unwrap(), upper.unwrap());
        assert!(test(&x, -1.0, 1.0, lower - 1e-5, 0.05).above);
        assert!(!test(&x, -1.0, 1.0, lower + 1e-5, 0.05).above);
        assert!(test(&x, -1.0, 1.0, upper + 1e-5, 0.05).below);
        assert!(!test(&x, -1.0, 1.0, upper - 1e-5, 0.05).below);
    }
}
