//! Python's `round(x, n)`: correctly rounded from the exact binary value,
//! ties to even. Rust's `{:.n}` formatting rounds the same way.

pub fn py_round(x: f64, digits: usize) -> f64 {
    if !x.is_finite() {
        return x;
    }
    format!("{x:.digits$}").parse().unwrap_or(x)
}

#[cfg(test)]
mod tests {
    use super::py_round;

    #[test]
    fn ties_and_binary_representation_like_python() {
        // Values checked with CPython 3.11.
        assert_eq!(py_round(0.125, 2), 0.12);
        assert_eq!(py_round(0.375, 2), 0.38);
        assert_eq!(py_round(2.675, 2), 2.67);
        assert_eq!(py_round(2.5, 0), 2.0);
        assert_eq!(py_round(0.2724867724867724, 6), 0.272487);
        assert_eq!(py_round(-0.5, 0), -0.0);
    }
}
