//! Python's `random.Random(seed)` stream (MT19937 seeded by `init_by_array`),
//! so sampled sign-flip p-values equal skill-eval-harness's to the digit.

const N: usize = 624;
const M: usize = 397;

pub struct PyRandom {
    mt: [u32; N],
    index: usize,
}

impl PyRandom {
    /// `random.Random(seed)` for a non-negative integer seed below 2^32.
    pub fn new(seed: u32) -> Self {
        let mut r = PyRandom {
            mt: [0; N],
            index: N,
        };
        r.init_by_array(&[seed]);
        r
    }

    fn init_genrand(&mut self, s: u32) {
        self.mt[0] = s;
        for i in 1..N {
            let prev = self.mt[i - 1];
            self.mt[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
        self.index = N;
    }

    fn init_by_array(&mut self, key: &[u32]) {
        self.init_genrand(19_650_218);
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let prev = self.mt[i - 1];
            self.mt[i] = (self.mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                self.mt[0] = self.mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = self.mt[i - 1];
            self.mt[i] = (self.mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_566_083_941))
                .wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                self.mt[0] = self.mt[N - 1];
                i = 1;
            }
        }
        self.mt[0] = 0x8000_0000;
    }

    /// The next 624 words (the reference twist, its wrap-around split out so
    /// the loops index without a modulo: the bootstrap draws millions).
    fn generate(&mut self) {
        const UPPER: u32 = 0x8000_0000;
        const LOWER: u32 = 0x7fff_ffff;
        const MATRIX_A: u32 = 0x9908_b0df;
        let twist = |this: u32, next: u32, far: u32| {
            let y = (this & UPPER) | (next & LOWER);
            far ^ (y >> 1) ^ (MATRIX_A & (y & 1).wrapping_neg())
        };
        let mt = &mut self.mt;
        for k in 0..N - M {
            mt[k] = twist(mt[k], mt[k + 1], mt[k + M]);
        }
        for k in N - M..N - 1 {
            mt[k] = twist(mt[k], mt[k + 1], mt[k + M - N]);
        }
        mt[N - 1] = twist(mt[N - 1], mt[0], mt[M - 1]);
        self.index = 0;
    }

    pub fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.generate();
        }
        let mut y = self.mt[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `random.random() < 0.5`, with the words it draws: the float is
    /// (a·2^26 + b) / 2^53 with a = first word >> 5 and b < 2^26, under one
    /// half exactly when a < 2^26, when the first word's top bit is clear.
    /// The second word is drawn and not tempered (the sign table draws
    /// hundreds of millions).
    pub fn coin(&mut self) -> bool {
        let first = self.next_u32();
        if self.index >= N {
            self.generate();
        }
        self.index += 1;
        first < 0x8000_0000
    }

    /// `random.random()`: 53 bits from two draws.
    pub fn random(&mut self) -> f64 {
        let a = (self.next_u32() >> 5) as f64;
        let b = (self.next_u32() >> 6) as f64;
        (a * 67_108_864.0 + b) * (1.0 / 9_007_199_254_740_992.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_python_random_0() {
        // python3 -c "import random; r = random.Random(0); print([r.random() for _ in range(3)])"
        let mut r = PyRandom::new(0);
        assert_eq!(r.random(), 0.8444218515250481);
        assert_eq!(r.random(), 0.7579544029403025);
        assert_eq!(r.random(), 0.420571580830845);
    }

    #[test]
    fn matches_python_after_a_full_state_regeneration() {
        // python3 -c "import random; r = random.Random(0); [r.random() for _ in range(999)]; print(r.random())"
        let mut r = PyRandom::new(0);
        for _ in 0..999 {
            r.random();
        }
        assert_eq!(r.random(), PYTHON_1000TH);
    }

    const PYTHON_1000TH: f64 = 0.4804125346981437;

    /// A coin is `random() < 0.5` and draws what it draws, across the
    /// regenerations of the state.
    #[test]
    fn a_coin_is_random_under_one_half() {
        let (mut by_coin, mut by_float) = (PyRandom::new(0), PyRandom::new(0));
        for _ in 0..5000 {
            assert_eq!(by_coin.coin(), by_float.random() < 0.5);
        }
        assert_eq!(by_coin.next_u32(), by_float.next_u32());
    }
}
