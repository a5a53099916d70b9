//! The paired sign-flip test of skill-eval-harness 0.6.0 (docs/metrics.md §M6):
//! exact enumeration for n <= 14, else 4096 sign patterns drawn from
//! Python's `random.Random(0)` in input order, p = (hits + 1) / 4097.
//! liftdb's significance is decided on `p_upper` (the p itself for an exact
//! test, its Monte-Carlo upper bound for a sampled one); `significant_at_0_05`
//! is 0.6.0's own flag, p <= 0.05, kept for parity with its report.

use super::interval::{p_upper, ALPHA};
use super::rounding::py_round;
use super::sign_table::SignTable;

pub const EXACT_MAX_N: usize = 14;
pub use super::sign_table::SAMPLES;
/// Slack of the test's comparisons (the harness's 1e-12).
pub const EPS: f64 = 1e-12;

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SignFlip {
    pub method: &'static str,
    pub n: usize,
    /// Rounded to 6 decimals, as the tool prints it.
    pub observed_mean_delta: Option<f64>,
    /// Rounded to 6 decimals, as the tool prints it.
    pub p_value: Option<f64>,
    /// skill-eval-harness 0.6.0's flag, unrounded p <= 0.05: the tool's
    /// report, not liftdb's verdict (that is `significant`).
    pub significant_at_0_05: bool,
    /// Unrounded p, and the number of patterns at least as extreme.
    pub p_exact: Option<f64>,
    pub hits: usize,
    pub patterns: usize,
    /// The p liftdb decides on, unrounded: the exact p, or for a sampled
    /// test the upper bound of its estimate from its hits
    /// (`interval::p_upper`); None when untested (no deltas).
    pub p_upper: Option<f64>,
    /// liftdb's significance: p_upper <= 0.05; None when untested.
    pub significant: Option<bool>,
}

fn mean(d: &[f64]) -> f64 {
    d.iter().sum::<f64>() / d.len() as f64
}

/// Count patterns whose |mean| reaches the observed |mean| (less 1e-12).
fn count_hits(d: &[f64], threshold: f64) -> (usize, usize, &'static str) {
    let n = d.len();
    if n <= EXACT_MAX_N {
        let patterns = 1usize << n;
        let hits = (0..patterns)
            .filter(|mask| {
                let total: f64 = d
                    .iter()
                    .enumerate()
                    .map(|(i, v)| if mask >> i & 1 == 1 { -v } else { *v })
                    .sum();
                total.abs() / n as f64 >= threshold
            })
            .count();
        (hits, patterns, "sign-flip-exact")
    } else {
        let hits = SignTable::for_len(n).hits(d, threshold);
        (hits, SAMPLES, "sign-flip-sampled")
    }
}

/// The test on non-empty deltas that are not all zero: (p, hits, patterns, method).
fn test_moved(d: &[f64]) -> (f64, usize, usize, &'static str) {
    let threshold = mean(d).abs() - EPS;
    let (hits, patterns, method) = count_hits(d, threshold);
    let p = if method == "sign-flip-exact" {
        hits as f64 / patterns as f64
    } else {
        // The sampled estimate counts the observed pattern itself.
        (hits + 1) as f64 / (patterns + 1) as f64
    };
    (p, hits, patterns, method)
}

fn method_for(n: usize) -> &'static str {
    if n <= EXACT_MAX_N {
        "sign-flip-exact"
    } else {
        "sign-flip-sampled"
    }
}

/// The p the test decides on (`SignFlip::p_upper`), unrounded: exact p, or
/// a sampled test's upper bound; None for no deltas.
pub fn decision_p(d: &[f64]) -> Option<f64> {
    sign_flip(d).p_upper
}

/// The p a test with this p, hits and method decides on.
fn decided_on(p: f64, hits: usize, method: &str) -> f64 {
    match method {
        "sign-flip-sampled" => p_upper(hits),
        _ => p,
    }
}

/// Unrounded two-sided p and method, None for no deltas.
pub fn p_value(d: &[f64]) -> Option<(f64, &'static str)> {
    if d.is_empty() {
        return None;
    }
    if d.iter().all(|v| v.abs() < EPS) {
        return Some((1.0, method_for(d.len())));
    }
    let (p, _, _, method) = test_moved(d);
    Some((p, method))
}

pub fn sign_flip(d: &[f64]) -> SignFlip {
    let (p, hits, patterns, method, mean_delta) = if d.is_empty() {
        return SignFlip {
            method: "sign-flip",
            n: 0,
            observed_mean_delta: None,
            p_value: None,
            significant_at_0_05: false,
            p_exact: None,
            hits: 0,
            patterns: 0,
            p_upper: None,
            significant: None,
        };
    } else if d.iter().all(|v| v.abs() < EPS) {
        // p = 1 whatever the method: no pattern was drawn.
        (1.0, 0, 0, method_for(d.len()), 0.0)
    } else {
        let (p, hits, patterns, method) = test_moved(d);
        (p, hits, patterns, method, mean(d))
    };
    let p_upper = if patterns == 0 {
        p
    } else {
        decided_on(p, hits, method)
    };
    SignFlip {
        method,
        n: d.len(),
        observed_mean_delta: Some(py_round(mean_delta, 6)),
        p_value: Some(py_round(p, 6)),
        significant_at_0_05: p <= 0.05,
        p_exact: Some(p),
        hits,
        patterns,
        p_upper: Some(p_upper),
        significant: Some(p_upper <= ALPHA),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force by hand-countable cases.
    #[test]
    fn small_exact_cases() {
        // One positive delta: both patterns reach |mean| -> p = 1.
        assert_eq!(sign_flip(&[0.5]).p_value, Some(1.0));
        // Six equal positive deltas: only all-plus and all-minus reach it: 2/64.
        assert_eq!(sign_flip(&[1.0; 6]).p_value, Some(0.03125));
        assert!(sign_flip(&[1.0; 6]).significant_at_0_05);
        // Five: 2/32 = 0.0625, never significant.
        assert!(!sign_flip(&[1.0; 5]).significant_at_0_05);
        // [1, 0]: patterns (+,.),(−,.) reach 0.5 regardless of the zero: 4/4.
        assert_eq!(sign_flip(&[1.0, 0.0]).p_value, Some(1.0));
        // [1, 1, 0.5]: |sum| >= 2.5 only for +++ and ---: 2/8.
        assert_eq!(sign_flip(&[1.0, 1.0, 0.5]).p_value, Some(0.25));
    }

    #[test]
    fn symmetric_under_negation_and_order() {
        let d = [0.5, 0.25, 1.0, 0.0, 0.75, 0.5, -0.25];
        let neg: Vec<f64> = d.iter().map(|v| -v).collect();
        let mut rev = d.to_vec();
        rev.reverse();
        assert_eq!(sign_flip(&d).p_value, sign_flip(&neg).p_value);
        assert_eq!(sign_flip(&d).p_value, sign_flip(&rev).p_value);
    }

    #[test]
    fn larger_effects_give_smaller_p() {
        let weak = [0.1, -0.1, 0.2, 0.1, -0.05, 0.1, 0.0, 0.1];
        let strong = [0.5, 0.4, 0.6, 0.5, 0.45, 0.5, 0.3, 0.5];
        assert!(sign_flip(&strong).p_exact < sign_flip(&weak).p_exact);
    }

    #[test]
    fn empty_and_all_zero() {
        let empty = sign_flip(&[]);
        assert_eq!((empty.n, empty.p_value), (0, None));
        let zeros = sign_flip(&[0.0, 0.0, 0.0]);
        assert_eq!(zeros.p_value, Some(1.0));
        assert_eq!(zeros.observed_mean_delta, Some(0.0));
    }

    /// An exact test decides on its p: p_upper is p.
    #[test]
    fn an_exact_test_decides_on_its_p() {
        let s = sign_flip(&[1.0; 6]);
        assert_eq!(s.p_upper, s.p_exact);
        assert_eq!(s.significant, Some(true));
        let untested = sign_flip(&[]);
        assert_eq!((untested.p_upper, untested.significant), (None, None));
        let zeros = sign_flip(&[0.0; 20]);
        assert_eq!((zeros.p_upper, zeros.significant), (Some(1.0), Some(false)));
    }

    /// A sampled test decides on the upper bound of its estimate: with 158
    /// hits of 4096, p = 159/4097 = 0.038809 (0.6.0 calls it significant)
    /// but p_upper = 158/4096 + sqrt(ln(1000)/8192) = 0.0385742 + 0.0290385
    /// = 0.0676127 > 0.05 (numbers worked by hand from §M6's formulas).
    #[test]
    fn a_sampled_test_decides_on_its_upper_bound() {
        let p = 159.0 / 4097.0;
        assert_eq!(py_round(p, 6), 0.038809);
        let upper = decided_on(p, 158, "sign-flip-sampled");
        assert!((upper - 0.0676127).abs() < 1e-7, "{upper}");
        assert!(upper > ALPHA && p <= 0.05);
        // On deltas whose sampled test lands anywhere: p_upper follows its hits.
        let d: Vec<f64> = (0..21).map(|i| [0.5, -0.25, 0.75, 0.0][i % 4]).collect();
        let s = sign_flip(&d);
        assert_eq!(s.method, "sign-flip-sampled");
        let expected = (s.hits as f64 / 4096.0 + (1000f64.ln() / 8192.0).sqrt()).min(1.0);
        assert_eq!(s.p_upper, Some(expected));
        assert_eq!(s.significant, Some(expected <= 0.05));
        assert_eq!(decision_p(&d), s.p_upper);
    }

    #[test]
    fn sampled_path_for_more_than_14_units() {
        let d = vec![0.5; 15];
        let s = sign_flip(&d);
        assert_eq!(s.method, "sign-flip-sampled");
        // Only all-plus/all-minus reach it; none of 4096 random patterns is likely to.
        assert!(s.p_exact.unwrap() >= 1.0 / 4097.0);
    }
}

#[cfg(test)]
mod binomial_tests {
    use super::*;
    use statrs::distribution::{Binomial, Discrete};

    /// With n equal-magnitude deltas, k of them positive, the exact sign-flip
    /// p is the two-sided binomial tail P(|X - n/2| >= |k - n/2|), X ~ Bin(n, 1/2).
    #[test]
    fn equal_magnitudes_reduce_to_a_binomial_test() {
        for n in 1..=12u64 {
            let bin = Binomial::new(0.5, n).unwrap();
            for k in 0..=n {
                let d: Vec<f64> = (0..n).map(|i| if i < k { 1.0 } else { -1.0 }).collect();
                let observed = (2.0 * k as f64 - n as f64).abs();
                let expected: f64 = (0..=n)
                    .filter(|x| (2.0 * *x as f64 - n as f64).abs() >= observed)
                    .map(|x| bin.pmf(x))
                    .sum();
                let p = p_value(&d).unwrap().0;
                assert!(
                    (p - expected).abs() < 1e-12,
                    "n={n} k={k}: {p} vs {expected}"
                );
            }
        }
    }
}
