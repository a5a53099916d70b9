//! Multiple-comparison control across the cases of one report.

/// Benjamini–Hochberg q-values, in the order of `ps`: with p sorted
/// ascending and rank i of m, `q_(i) = min over j >= i of m·p_(j)/j`, at
/// most 1. Ties get the same q whatever their order.
pub fn benjamini_hochberg(ps: &[f64]) -> Vec<f64> {
    let m = ps.len() as f64;
    let mut order: Vec<usize> = (0..ps.len()).collect();
    order.sort_by(|&a, &b| ps[a].total_cmp(&ps[b]));
    let mut q = vec![1.0; ps.len()];
    let mut running = 1.0_f64;
    for (rank, &i) in order.iter().enumerate().rev() {
        running = running.min(ps[i] * m / (rank + 1) as f64);
        q[i] = running;
    }
    q
}
