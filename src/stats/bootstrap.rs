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

/// A row's clusters in case order, each as (sum of its unit deltas, units).
pub type Clusters = Vec<(f64, usize)>;

/// The clusters of units with `deltas` and cases `cases` (`cases[i]` is the
/// case of unit `i`: a name, or anything ordered as the names are). None
/// with fewer than two cases (nothing varies).
pub fn clusters<K: Ord>(deltas: &[f64], cases: &[K]) -> Option<Clusters> {
    let mut by_case: BTreeMap<&K, (f64, usize)> = BTreeMap::new();
    for (d, c) in deltas.iter().zip(cases) {
        let entry = by_case.entry(c).or_insert((0.0, 0));
        entry.0 += d;
        entry.1 += 1;
    }
    (by_case.len() >= 2 && deltas.len() == cases.len()).then(|| by_case.into_values().collect())
}

/// The 2.5% and 97.5% percentiles (linear interpolation, numpy's default)
/// of the mean unit delta over `REPLICATES` case resamples.
pub fn case_bootstrap<K: Ord>(deltas: &[f64], cases: &[K]) -> Option<(f64, f64)> {
    clusters(deltas, cases).map(|c| intervals_alike(&[&c])[0])
}

/// The intervals of rows with the same number of clusters. Which clusters
/// a resample draws depends on that number and `SEED` alone, so each draw
/// is made once and added to every row's sum (each sum in the same order
/// as a row on its own: the same interval, bit for bit). Drawing is the
/// bootstrap's cost, and a large release's rows have many cases.
pub fn intervals_alike(rows: &[&Clusters]) -> Vec<(f64, f64)> {
    let Some(k) = rows.first().map(|c| c.len()) else {
        return Vec::new();
    };
    assert!(
        rows.iter().all(|c| c.len() == k),
        "rows of one draw have k clusters each"
    );
    let mut rng = PyRandom::new(SEED);
    let mut means = vec![Vec::with_capacity(REPLICATES); rows.len()];
    let mut sums = vec![(0.0, 0usize); rows.len()];
    for _ in 0..REPLICATES {
        sums.fill((0.0, 0));
        for _ in 0..k {
            let drawn = (rng.random() * k as f64) as usize;
            for (sum, row) in sums.iter_mut().zip(rows) {
                sum.0 += row[drawn].0;
                sum.1 += row[drawn].1;
            }
        }
        for (m, (sum, units)) in means.iter_mut().zip(&sums) {
            m.push(sum / *units as f64);
        }
    }
    means
        .into_iter()
        .map(|mut m| {
            m.sort_by(f64::total_cmp);
            (percentile(&m, 0.025), percentile(&m, 0.975))
        })
        .collect()
}

/// The interval of each row (None without two clusters), rows of equal
/// size drawn together: on `threads` threads, each of a size's rows split
/// among them.
pub fn intervals(rows: &[Option<Clusters>], threads: usize) -> Vec<Option<(f64, f64)>> {
    use rayon::prelude::*;
    let mut alike: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (at, row) in rows.iter().enumerate() {
        if let Some(c) = row {
            alike.entry(c.len()).or_default().push(at);
        }
    }
    let work: Vec<&[usize]> = alike
        .values()
        .flat_map(|at| at.chunks(at.len().div_ceil(threads.max(1))))
        .collect();
    let done: Vec<(usize, (f64, f64))> = work
        .into_par_iter()
        .flat_map_iter(|at| {
            let chunk: Vec<&Clusters> = at.iter().filter_map(|&i| rows[i].as_ref()).collect();
            at.iter().copied().zip(intervals_alike(&chunk))
        })
        .collect();
    let mut out = vec![None; rows.len()];
    for (i, iv) in done {
        out[i] = Some(iv);
    }
    out
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

    /// Rows drawn together get the intervals each gets alone, bit for bit.
    #[test]
    fn rows_drawn_together_match_rows_alone() {
        let cases: Vec<u32> = (0..40).map(|i| i % 9).collect();
        let rows: Vec<Vec<f64>> = (0..5)
            .map(|r| {
                (0..40)
                    .map(|i| ((i * 7 + r * 3) % 11) as f64 / 10.0 - 0.4)
                    .collect()
            })
            .collect();
        let alone: Vec<_> = rows.iter().map(|d| case_bootstrap(d, &cases)).collect();
        let mut grouped: Vec<Option<Clusters>> = rows.iter().map(|d| clusters(d, &cases)).collect();
        // Rows of another size and a row without two cases in between.
        grouped.insert(2, clusters(&[0.5, -0.5, 1.0], &[1, 2, 3]));
        grouped.insert(4, clusters(&[0.5], &[1]));
        let together = intervals(&grouped, 2);
        assert_eq!(together[2], case_bootstrap(&[0.5, -0.5, 1.0], &[1, 2, 3]));
        assert_eq!(together[4], None);
        let rest: Vec<_> = together
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != 2 && *i != 4)
            .map(|(_, iv)| *iv)
            .collect();
        assert!(alone.iter().all(Option::is_some));
        assert_eq!(rest, alone);
    }

    #[test]
    fn percentiles_interpolate_like_numpy() {
        // numpy.percentile([1, 2, 3, 4], [2.5, 97.5]) = [1.075, 3.925]
        let v = [1.0, 2.0, 3.0, 4.0];
        assert!((percentile(&v, 0.025) - 1.075).abs() < 1e-12);
        assert!((percentile(&v, 0.975) - 3.925).abs() < 1e-12);
    }
}
