//! The sampled sign-flip test's 4096 sign patterns for n deltas, drawn once
//! from `random.Random(0)` and kept: they depend on n only, and interval
//! inversion runs the test ~120 times on shifted deltas of the same n.
//!
//! Hits are counted with all patterns summed side by side (one accumulator
//! per pattern, deltas in input order), so every pattern's total is the same
//! floating-point sum, bit for bit, as the one-pattern-at-a-time loop.

use std::sync::{Arc, Mutex};

use super::mt19937::PyRandom;

pub const SAMPLES: usize = 4096;
const WORDS: usize = SAMPLES / 64;
/// Tables kept for reuse (the lift view has a handful of distinct n).
const CACHED: usize = 16;

pub struct SignTable {
    n: usize,
    /// For delta i, WORDS words; bit b of word w: pattern w*64+b flips it.
    bits: Vec<u64>,
}

static CACHE: Mutex<Vec<Arc<SignTable>>> = Mutex::new(Vec::new());

impl SignTable {
    fn draw(n: usize) -> SignTable {
        let mut rng = PyRandom::new(0);
        let mut bits = vec![0u64; n * WORDS];
        for pattern in 0..SAMPLES {
            let (word, bit) = (pattern / 64, pattern % 64);
            for i in 0..n {
                if rng.random() < 0.5 {
                    bits[i * WORDS + word] |= 1 << bit;
                }
            }
        }
        SignTable { n, bits }
    }

    /// The table for n deltas, from the cache when one was drawn before.
    pub fn for_len(n: usize) -> Arc<SignTable> {
        if let Some(t) = CACHE
            .lock()
            .ok()
            .and_then(|c| c.iter().find(|t| t.n == n).cloned())
        {
            return t;
        }
        let table = Arc::new(SignTable::draw(n));
        if let Ok(mut cache) = CACHE.lock() {
            if cache.len() >= CACHED {
                cache.remove(0);
            }
            cache.push(table.clone());
        }
        table
    }

    /// Per pattern, the signed sum of `d` (in input order) and the sum of the
    /// signs: the pattern's sum over `d - δ` is then `a - δ·b` (see `Shifted`).
    pub fn signed_sums(&self, d: &[f64]) -> (Vec<f64>, Vec<f64>) {
        debug_assert_eq!(d.len(), self.n);
        let mut a = vec![0.0f64; SAMPLES];
        let mut b = vec![0.0f64; SAMPLES];
        for (i, v) in d.iter().enumerate() {
            let v = v.to_bits();
            let row = &self.bits[i * WORDS..(i + 1) * WORDS];
            for (w, word) in row.iter().enumerate() {
                for bit in 0..64 {
                    let flip = ((word >> bit) & 1) << 63;
                    a[w * 64 + bit] += f64::from_bits(v ^ flip);
                    b[w * 64 + bit] += f64::from_bits(1.0f64.to_bits() ^ flip);
                }
            }
        }
        (a, b)
    }

    /// Patterns whose |sum of signed deltas| / n reaches `threshold`.
    pub fn hits(&self, d: &[f64], threshold: f64) -> usize {
        let n = self.n as f64;
        let (totals, _) = self.signed_sums(d);
        totals.iter().filter(|t| t.abs() / n >= threshold).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table gives the same hits as drawing each pattern's signs in turn.
    #[test]
    fn equals_the_sequential_draw() {
        let d: Vec<f64> = (0..37)
            .map(|i| ((i * 7919) % 13) as f64 / 13.0 - 0.4)
            .collect();
        for threshold in [0.0, 0.05, 0.1, 0.2] {
            let mut rng = PyRandom::new(0);
            let mut expected = 0;
            for _ in 0..SAMPLES {
                let mut total = 0.0;
                for v in &d {
                    total += if rng.random() < 0.5 { -v } else { *v };
                }
                if total.abs() / d.len() as f64 >= threshold {
                    expected += 1;
                }
            }
            assert_eq!(SignTable::for_len(d.len()).hits(&d, threshold), expected);
        }
    }
}
