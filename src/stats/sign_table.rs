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
    /// Pattern after pattern, each pattern's n signs in turn, as the
    /// harness draws them. 64 patterns are drawn into rows of packed bits,
    /// then turned 64 by 64 into the table's rows (one per delta): set one
    /// bit at a time, the table was written a cache line per sign.
    fn draw(n: usize) -> SignTable {
        let mut rng = PyRandom::new(0);
        let blocks = n.div_ceil(64);
        let mut bits = vec![0u64; n * WORDS];
        let mut drawn = vec![0u64; 64 * blocks];
        for word in 0..WORDS {
            for row in drawn.chunks_exact_mut(blocks) {
                for (block, packed) in row.iter_mut().enumerate() {
                    let signs = (n - block * 64).min(64);
                    *packed = (0..signs).fold(0u64, |w, j| w | (u64::from(rng.coin()) << j));
                }
            }
            for block in 0..blocks {
                let mut square: [u64; 64] = std::array::from_fn(|bit| drawn[bit * blocks + block]);
                transpose(&mut square);
                let deltas = (n - block * 64).min(64);
                for (j, patterns) in square.iter().take(deltas).enumerate() {
                    bits[(block * 64 + j) * WORDS + word] = *patterns;
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

    /// Draw the tables for `lengths` that are not kept yet, side by side,
    /// before tests on several threads ask for them: two threads asking
    /// for one n at once both drew it. No more than the cache keeps.
    pub fn prepare(lengths: impl IntoIterator<Item = usize>) {
        use rayon::prelude::*;
        let mut wanted: Vec<usize> = lengths.into_iter().collect();
        wanted.sort_unstable();
        wanted.dedup();
        if wanted.len() <= CACHED {
            wanted.par_iter().for_each(|&n| drop(SignTable::for_len(n)));
        }
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

/// Bit c of row r to bit r of row c, for a 64 × 64 bit square: the
/// off-diagonal halves swapped, then their quarters, down to single bits.
fn transpose(m: &mut [u64; 64]) {
    let mut half = 32;
    let mut mask: u64 = 0x0000_0000_FFFF_FFFF;
    while half != 0 {
        let mut k = 0;
        while k < 64 {
            let swapped = ((m[k] >> half) ^ m[k + half]) & mask;
            m[k] ^= swapped << half;
            m[k + half] ^= swapped;
            k = (k + half + 1) & !half;
        }
        half >>= 1;
        mask ^= mask << half;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table holds each pattern's signs as `random() < 0.5` draws them,
    /// pattern after pattern, for n under, at and across 64-delta blocks.
    #[test]
    fn holds_each_pattern_drawn_in_turn() {
        for n in [1, 15, 64, 130] {
            let table = SignTable::draw(n);
            let mut rng = PyRandom::new(0);
            for pattern in 0..SAMPLES {
                for i in 0..n {
                    let held = table.bits[i * WORDS + pattern / 64] >> (pattern % 64) & 1;
                    assert_eq!(
                        held == 1,
                        rng.random() < 0.5,
                        "n {n}, pattern {pattern}, delta {i}"
                    );
                }
            }
        }
    }

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
