//! Interval by inverting the sign-flip test and the noise check
//! (docs/metrics.md §M7, skill-eval-harness main `effect_estimates`).

use super::rounding::py_round;
use super::sign_flip::{decision_p, EPS, EXACT_MAX_N, SAMPLES};
use super::sign_table::SignTable;

pub const ALPHA: f64 = 0.05;
const BISECTION_STEPS: usize = 60;

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Interval {
    pub method: &'static str,
    pub confidence: f64,
    pub n: usize,
    pub lower: Option<f64>,
    pub upper: Option<f64>,
    pub bounded: bool,
    pub reason: Option<&'static str>,
}

/// p used for inversion: the p the test decides on (`sign_flip::decision_p`:
/// exact p, or for sampled tests `p_upper`), so the interval and the
/// significance never disagree.
fn p_for_inversion(d: &[f64]) -> f64 {
    decision_p(d).unwrap_or(1.0)
}

/// The test on `d - δ` for many δ. Exact tests (n <= 14) enumerate as
/// usual; sampled ones reuse each pattern's signed sums `a` and sign count
/// `b`, so a pattern's total is `a - δ·b` in O(1) instead of a pass over d.
/// (The hit threshold keeps the 1e-12 slack of the test, far above the
/// rounding difference between the two ways of summing.)
struct Shifted<'a> {
    d: &'a [f64],
    sums: Option<(Vec<f64>, Vec<f64>)>,
}

impl<'a> Shifted<'a> {
    fn new(d: &'a [f64]) -> Self {
        let sums = (d.len() > EXACT_MAX_N).then(|| SignTable::for_len(d.len()).signed_sums(d));
        Shifted { d, sums }
    }

    fn accepted(&self, delta: f64) -> bool {
        let shifted: Vec<f64> = self.d.iter().map(|v| v - delta).collect();
        let Some((a, b)) = &self.sums else {
            return p_for_inversion(&shifted) > ALPHA;
        };
        if shifted.iter().all(|v| v.abs() < EPS) {
            return true; // p = 1
        }
        let n = shifted.len() as f64;
        let threshold = (shifted.iter().sum::<f64>() / n).abs() - EPS;
        let hits = a
            .iter()
            .zip(b)
            .filter(|(a, b)| (*a - delta * *b).abs() / n >= threshold)
            .count();
        p_upper(hits) > ALPHA
    }
}

/// The p a sampled test decides on (skill-eval-harness main's rule, liftdb's
/// significance everywhere, docs/metrics.md §M6): the upper confidence bound
/// (99.9%) of the Monte-Carlo estimate from its `hits` of the 4096 drawn
/// patterns, min(1, hits/4096 + sqrt(ln(1/0.001) / (2·4096))). The one
/// function the test (`SignFlip::p_upper`) and the interval's inversion use.
pub(crate) fn p_upper(hits: usize) -> f64 {
    (hits as f64 / SAMPLES as f64 + sampling_allowance()).min(1.0)
}

/// What `p_upper` adds to a sampled test's share of hits:
/// sqrt(ln(1/0.001) / (2·4096)) = 0.0290.
fn sampling_allowance() -> f64 {
    ((1.0f64 / 0.001).ln() / (2.0 * SAMPLES as f64)).sqrt()
}

/// The level a test of `n` units is in effect decided at (docs/metrics.md
/// §M13): α for an exact test; for a sampled one (n > 14) α less the
/// sampling allowance, as p_upper <= α asks its share of hits, an estimate
/// of its p, to be at most that; 0 when nothing is left (α below 0.029).
pub fn decision_level(n: usize, alpha: f64) -> f64 {
    match n > EXACT_MAX_N {
        true => (alpha - sampling_allowance()).max(0.0),
        false => alpha,
    }
}

pub fn interval(d: &[f64]) -> Interval {
    let n = d.len();
    let method = if n <= EXACT_MAX_N {
        "sign-flip-inversion-exact"
    } else {
        "sign-flip-inversion-sampled"
    };
    if n == 0 {
        return Interval {
            method: "unavailable",
            confidence: 1.0 - ALPHA,
            n,
            lower: None,
            upper: None,
            bounded: false,
            reason: Some("no paired cases"),
        };
    }
    let centre = d.iter().sum::<f64>() / n as f64;
    let min = d.iter().cloned().fold(f64::INFINITY, f64::min);
    let max = d.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let reach = (max - min).max(1.0);
    let (far_low, far_high) = (min - reach, max + reach);
    let test = Shifted::new(d);
    if test.accepted(far_low) || test.accepted(far_high) {
        return Interval {
            method,
            confidence: 1.0 - ALPHA,
            n,
            lower: None,
            upper: None,
            bounded: false,
            reason: Some("too few units for the test to reject any shift"),
        };
    }
    let search = |far: f64| {
        let (mut inside, mut outside) = (centre, far);
        for _ in 0..BISECTION_STEPS {
            let mid = (inside + outside) / 2.0;
            if test.accepted(mid) {
                inside = mid;
            } else {
                outside = mid;
            }
        }
        py_round(inside, 6) + 0.0 // no negative zero
    };
    Interval {
        method,
        confidence: 1.0 - ALPHA,
        n,
        lower: Some(search(far_low)),
        upper: Some(search(far_high)),
        bounded: true,
        reason: None,
    }
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct NoiseCheck {
    pub verdict: &'static str,
    pub cases: usize,
    pub cases_moved: usize,
    pub cases_needed_for_alpha: usize,
    pub smallest_achievable_p: f64,
    pub noise_floor: Option<f64>,
    pub headroom: Option<f64>,
    pub projected_cases: Option<u64>,
}

/// `cases_needed_for_alpha = ceil(log2(2 / alpha))` = 6 at alpha 0.05.
/// The smallest p a test of `n` units can decide on (§M6): 2/2^n for an
/// exact test (every sign alike), the sampling allowance for a sampled one
/// (no drawn pattern as extreme): a test whose smallest is above α can never
/// be significant at α.
pub fn smallest_decision_p(n: usize) -> f64 {
    match n {
        0 => 1.0,
        n if n > EXACT_MAX_N => sampling_allowance(),
        n => (2.0 / 2f64.powi(n as i32)).min(1.0),
    }
}

pub fn cases_needed_for_alpha(alpha: f64) -> usize {
    (2.0 / alpha).log2().ceil() as usize
}

pub fn noise_check(
    d: &[f64],
    without_rates: &[f64],
    iv: &Interval,
    min_lift: Option<f64>,
) -> NoiseCheck {
    let moved = d.iter().filter(|v| v.abs() > 1e-12).count();
    let needed = cases_needed_for_alpha(ALPHA);
    let smallest = if moved == 0 {
        1.0
    } else {
        (2.0 / 2f64.powi(moved as i32)).min(1.0)
    };
    let floor = match (iv.bounded, iv.lower, iv.upper) {
        (true, Some(l), Some(u)) => Some(py_round((u - l) / 2.0, 6)),
        _ => None,
    };
    let headroom = (!without_rates.is_empty()).then(|| {
        py_round(
            1.0 - without_rates.iter().sum::<f64>() / without_rates.len() as f64,
            6,
        )
    });
    let verdict = if d.is_empty() {
        "no-data"
    } else if moved < needed {
        "too-few-cases-moved"
    } else if floor.is_none() {
        "unbounded"
    } else if floor >= headroom {
        "noise-exceeds-headroom"
    } else if min_lift.is_some_and(|m| floor.is_some_and(|f| f >= m)) {
        "noise-exceeds-min-lift"
    } else {
        "resolvable"
    };
    let target = min_lift.or(headroom);
    let projected_cases = match (floor, target) {
        (Some(f), Some(t)) if t > 0.0 && f >= t => {
            Some((d.len() as f64 * (f / t).powi(2)).ceil() as u64)
        }
        _ => None,
    };
    NoiseCheck {
        verdict,
        cases: d.len(),
        cases_moved: moved,
        cases_needed_for_alpha: needed,
        smallest_achievable_p: smallest,
        noise_floor: floor,
        headroom,
        projected_cases,
    }
}

#[cfg(test)]
mod tests {
    use super::super::mt19937::PyRandom;

    /// The test exactly as the harness runs it: shift, then the whole test.
    fn accepted_by_full_test(d: &[f64], delta: f64) -> bool {
        let shifted: Vec<f64> = d.iter().map(|v| v - delta).collect();
        p_for_inversion(&shifted) > ALPHA
    }

    /// The signed-sum shortcut accepts exactly the shifts the full test does,
    /// on deltas shaped like real ones (rate differences) and at the
    /// bisection points both searches visit.
    #[test]
    fn shortcut_agrees_with_the_full_test() {
        let mut rng = PyRandom::new(42);
        for trial in 0..12 {
            let n = 15 + trial * 7;
            let reps = [3.0, 5.0, 6.0][trial % 3];
            let d: Vec<f64> = (0..n)
                .map(|_| ((rng.random() * 7.0).floor() - 3.0) / reps + 0.1 * (trial % 2) as f64)
                .collect();
            let fast = Shifted::new(&d);
            let centre = d.iter().sum::<f64>() / n as f64;
            for step in 0..120 {
                let delta = centre + (step as f64 - 60.0) / 40.0;
                assert_eq!(
                    fast.accepted(delta),
                    accepted_by_full_test(&d, delta),
                    "n={n} delta={delta}"
                );
            }
            let full = {
                let mut lo = (
                    centre,
                    d.iter().cloned().fold(f64::INFINITY, f64::min) - 1.0,
                );
                for _ in 0..60 {
                    let mid = (lo.0 + lo.1) / 2.0;
                    if accepted_by_full_test(&d, mid) {
                        lo.0 = mid
                    } else {
                        lo.1 = mid
                    }
                }
                py_round(lo.0, 6) + 0.0
            };
            assert_eq!(interval(&d).lower, Some(full), "n={n}");
        }
    }

    use super::*;

    #[test]
    fn five_or_fewer_units_are_unbounded() {
        let iv = interval(&[0.5, 0.4, 0.6, 0.5, 0.45]);
        assert!(!iv.bounded);
        assert_eq!((iv.lower, iv.upper), (None, None));
    }

    #[test]
    fn six_or_more_units_bound_the_mean() {
        let d = [0.5, 0.4, 0.6, 0.5, 0.45, 0.55, 0.5];
        let iv = interval(&d);
        assert!(iv.bounded);
        let mean = d.iter().sum::<f64>() / d.len() as f64;
        assert!(iv.lower.unwrap() <= mean && mean <= iv.upper.unwrap());
        assert!(iv.lower.unwrap() >= 0.4 - 1e-9 && iv.upper.unwrap() <= 0.6 + 1e-9);
    }

    #[test]
    fn noise_check_verdicts() {
        let d = [0.5; 3];
        let iv = interval(&d);
        assert_eq!(
            noise_check(&d, &[0.0; 3], &iv, None).verdict,
            "too-few-cases-moved"
        );
        assert_eq!(
            noise_check(&[], &[], &interval(&[]), None).verdict,
            "no-data"
        );
        assert_eq!(cases_needed_for_alpha(0.05), 6);
    }
}
