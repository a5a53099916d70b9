//! An anytime-valid test of a bounded mean against a threshold: the betting
//! test of Waudby-Smith & Ramdas, "Estimating means of bounded random
//! variables by betting" (JRSS-B 86(1), 2024), with their predictable
//! plug-in bets (docs/metrics.md §M11 derives it).
//!
//! Each observation x_t lies in [low, high]; scaled to z_t in [0, 1] and the
//! threshold to θ. Betting that the mean exceeds θ, wealth grows as
//! K⁺_t = Π (1 + λ_i (z_i − θ)) with each bet λ_i ≥ 0 chosen from the
//! observations before it. While every observation's mean (given the past)
//! is at most θ, K⁺ is a nonnegative supermartingale, so by Ville's
//! inequality the chance that it *ever* reaches 1/α is at most α: however
//! often it is looked at. The mirror bet K⁻ tests "the mean is below θ".

use serde::Serialize;

/// The largest share of the wealth bet (the paper's c): bets stay below
/// c/θ (c/(1−θ) for the mirror), so wealth never reaches 0.
const MAX_SHARE: f64 = 0.5;

/// What a sequence of observations says about its mean against a threshold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sequential {
    /// Observations seen.
    pub n: usize,
    /// Their plain mean (None before the first).
    pub mean: Option<f64>,
    /// The highest wealth of the bet that the mean exceeds the threshold.
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

    /// The predictable plug-in bet for observation t+1 (before it is seen):
    /// √(2 log(1/α) / (σ̂² · t · log(1+t))), t counted from 1.
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

/// The two bets, made one observation at a time.
pub struct Bettor {
    low: f64,
    span: f64,
    theta: f64,
    alpha: f64,
    above: f64,
    below: f64,
    result: Sequential,
    sum: f64,
    estimates: Estimates,
}

impl Bettor {
    /// Bets on observations in [low, high] against `threshold` at level `alpha`.
    pub fn new(low: f64, high: f64, threshold: f64, alpha: f64) -> Bettor {
        let span = high - low;
        Bettor {
            low,
            span,
            theta: ((threshold - low) / span).clamp(0.0, 1.0),
            alpha,
            above: 1.0,
            below: 1.0,
            result: Sequential {
                n: 0,
                mean: None,
                wealth_above: 1.0,
                wealth_below: 1.0,
                target: 1.0 / alpha,
                above: false,
                below: false,
            },
            sum: 0.0,
            estimates: Estimates::new(),
        }
    }

    /// Bet on the next observation, then see it.
    pub fn add(&mut self, x: f64) -> &Sequential {
        let theta = self.theta;
        let z = ((x - self.low) / self.span).clamp(0.0, 1.0);
        let bet = self.estimates.bet(self.alpha);
        // At θ = 0 (or 1) no observation can fall below (above) it: that
        // side's bet may take the largest share there is.
        let up = bet.min(MAX_SHARE / theta.max(f64::MIN_POSITIVE));
        let down = bet.min(MAX_SHARE / (1.0 - theta).max(f64::MIN_POSITIVE));
        self.above *= 1.0 + up * (z - theta);
        self.below *= 1.0 - down * (z - theta);
        self.estimates.add(z);
        self.sum += x;
        let r = &mut self.result;
        r.n += 1;
        r.mean = Some(self.sum / r.n as f64);
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

/// The test of `observations` (each in [low, high], in the order they were
/// made) against `threshold` at level `alpha`, both sides.
pub fn test(observations: &[f64], low: f64, high: f64, threshold: f64, alpha: f64) -> Sequential {
    let mut bettor = Bettor::new(low, high, threshold, alpha);
    for &x in observations {
        bettor.add(x);
    }
    bettor.result().clone()
}

/// How many observations the test takes to decide (either side) when they
/// are drawn, with replacement, from `sample` moved to mean `mean` (kept in
/// [low, high]): the median over `replications` draws seeded by `seed`.
/// None when over half of them have not decided after `cap`.
#[allow(clippy::too_many_arguments)]
pub fn observations_to_decide(
    sample: &[f64],
    mean: f64,
    (low, high): (f64, f64),
    threshold: f64,
    alpha: f64,
    replications: usize,
    cap: usize,
    seed: u32,
) -> Option<usize> {
    if sample.is_empty() || replications == 0 {
        return None;
    }
    let shift = mean - sample.iter().sum::<f64>() / sample.len() as f64;
    let moved: Vec<f64> = sample
        .iter()
        .map(|x| (x + shift).clamp(low, high))
        .collect();
    let mut rng = super::mt19937::PyRandom::new(seed);
    let mut taken: Vec<usize> = (0..replications)
        .map(|_| {
            let mut bettor = Bettor::new(low, high, threshold, alpha);
            (1..=cap)
                .find(|_| {
                    let x =
                        moved[((rng.random() * moved.len() as f64) as usize).min(moved.len() - 1)];
                    let r = bettor.add(x);
                    r.above || r.below
                })
                .unwrap_or(usize::MAX)
        })
        .collect();
    taken.sort_unstable();
    let median = taken[(replications - 1) / 2];
    (median != usize::MAX).then_some(median)
}

/// Whether `n` observations could decide at all: `extreme` (low to show
/// the mean below the threshold, high above) seen n times reaches 1/α.
pub fn can_decide(
    n: usize,
    extreme: f64,
    (low, high): (f64, f64),
    threshold: f64,
    alpha: f64,
) -> bool {
    let r = test(&vec![extreme; n], low, high, threshold, alpha);
    r.above || r.below
}

/// The anytime-valid (1 − α) bounds of the mean: the thresholds, on a grid
/// of `steps` over [low, high], that neither side's bet has rejected. None
/// on a side no threshold was rejected on.
pub fn bounds(
    observations: &[f64],
    low: f64,
    high: f64,
    alpha: f64,
    steps: usize,
) -> (Option<f64>, Option<f64>) {
    let at = |i: usize| low + (high - low) * i as f64 / steps as f64;
    // Each side at α/2: the two bounds together cover the mean with 1 − α.
    let lower = (0..=steps)
        .map(at)
        .take_while(|&m| test(observations, low, high, m, alpha / 2.0).above)
        .last();
    let upper = (0..=steps)
        .rev()
        .map(at)
        .take_while(|&m| test(observations, low, high, m, alpha / 2.0).below)
        .last();
    (lower, upper)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Observations all well above the threshold: the bet above reaches 1/α
    /// and the one below loses (each rise of z − θ = 0.4 multiplies wealth).
    #[test]
    fn a_clear_lift_is_shown_above_and_never_below() {
        let x = vec![0.3; 40];
        let s = test(&x, -1.0, 1.0, -0.5, 0.05);
        assert!(s.above && !s.below, "{s:?}");
        assert!(s.wealth_below <= 1.0);
    }

    /// Nothing observed: wealth 1 on both sides, nothing decided.
    #[test]
    fn no_observation_decides_nothing() {
        let s = test(&[], -1.0, 1.0, 0.0, 0.05);
        assert_eq!((s.n, s.above, s.below), (0, false, false));
        assert_eq!((s.wealth_above, s.wealth_below), (1.0, 1.0));
    }

    /// Observations equal to the threshold move neither wealth (z − θ = 0).
    #[test]
    fn observations_at_the_threshold_leave_wealth_unchanged() {
        let s = test(&[0.2; 30], -1.0, 1.0, 0.2, 0.05);
        assert!((s.wealth_above - 1.0).abs() < 1e-12 && (s.wealth_below - 1.0).abs() < 1e-12);
    }

    /// The bounds hold the observed constant mean and tighten around it.
    #[test]
    fn bounds_hold_the_mean() {
        let x: Vec<f64> = (0..200)
            .map(|i| if i % 2 == 0 { 0.5 } else { 0.1 })
            .collect();
        let (lower, upper) = bounds(&x, -1.0, 1.0, 0.05, 400);
        let (lower, upper) = (lower.unwrap(), upper.unwrap());
        assert!(lower < 0.3 && 0.3 < upper, "{lower} {upper}");
        assert!(upper - lower < 0.4, "{lower} {upper}");
    }
}
