//! The case-clustered bootstrap interval of a lift (docs/metrics.md §M3a):
//! cases are resampled with replacement, each bringing all its units (its
//! models), so the interval treats the case as the cluster the way the
//! sign-flip test's units cannot.

use std::collections::BTreeMap;

use super::mt19937::PyRandom;

/// Resamples per interval.
pub const REPLICATES: usize = 2000;
/// Python's `random.Random(20261201)`: the same interval on every run, and
/// reproducible in Python (`int(rng.random() * K)` draws a case).
pub const SEED: u32 = 20261201;

/// The 2.5% and 97.5% percentiles (linear interpolation, numpy's default)
/// of the mean unit delta over `REPLICATES` case resamples. `cases[i]` is
/// the case of unit `i` (a name, or anything ordered as the names are).
/// None with fewer than two cases (nothing varies).
pub fn case_bootstrap<K: Ord>(deltas: &[f64], cases: &[K]) -> Option<(f64, f64)> {
    // Clusters in case order, each as (sum of its unit deltas, units).
    let mut clusters: BTreeMap<&K, (f64, usize)> = BTreeMap::new();
    for (d, c) in deltas.iter().zip(cases) {
        let entry = clusters.entry(c).or_insert((0.0, 0));
        entry.0 += d;
        entry.1 += 1;
    }
    if clusters.len() < 2 || deltas.len() != cases.len() {
        return None;
    }
    let clusters: Vec<(f64, usize)> = clusters.into_values().collect();
    let k = clusters.len();
    let mut rng = PyRandom::new(SEED);
    let mut means: Vec<f64> = (0..REPLICATES)
        .map(|_| {
            let (mut sum, mut units) = (0.0, 0usize);
            for _ in 0..k {
                let (s, n) = clusters[(rng.random() * k as f64) as usize];
                sum += s;
                units += n;
            }
            sum / units as f64
        })
        .collect();
    means.sort_by(f64::total_cmp);
    Some((percentile(&means, 0.025), percentile(&means, 0.975)))
}

/// `q` quantile of sorted values, interpolating between order statistics.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_case_has_no_interval_and_equal_deltas_a_point() {
        let cases = |n: usize| (0..n).map(|i| format!("c{i}")).collect::<Vec<_>>();
        assert_eq!(case_bootstrap(&[0.5, 0.5], &["a", "a"]), None);
        assert_eq!(case_bootstrap(&[0.25; 4], &cases(4)), Some((0.25, 0.25)));
    }

    #[test]
    fn percentiles_interpolate_like_numpy() {
        // numpy.percentile([1, 2, 3, 4], [2.5, 97.5]) = [1.075, 3.925]
        let v = [1.0, 2.0, 3.0, 4.0];
        assert!((percentile(&v, 0.025) - 1.075).abs() < 1e-12);
        assert!((percentile(&v, 0.975) - 3.925).abs() < 1e-12);
    }
}
