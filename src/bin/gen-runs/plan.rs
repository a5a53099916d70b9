//! What to generate: cases with their true pass probabilities per arm, and
//! one `RunSpec` per run directory, each with its own seed so runs can be
//! written in parallel and still come out the same for a given seed.

use liftdb::stats::mt19937::PyRandom;

/// Review topics; case ids cycle through them.
const TOPICS: &[&str] = &[
    "add-not-null-column",
    "index-without-concurrently",
    "enum-add-value",
    "rename-column",
    "drop-column-in-use",
    "backfill-unbatched-update",
    "foreign-key-validate",
    "change-column-type",
    "unique-constraint-online",
    "partition-detach",
];

pub struct Case {
    pub id: String,
    pub split: &'static str,
    /// Migration file the case hands the agent.
    pub file: String,
    /// Pass probability of each assertion without / with the skill.
    pub p_without: f64,
    pub p_with: f64,
    pub prompt_tokens: u64,
}

pub struct Plan {
    pub cases: Vec<Case>,
    pub models: Vec<String>,
    pub arms: Vec<String>,
    pub reps: u64,
    pub total: u64,
    pub seed: u32,
}

#[derive(Debug, Clone, Copy)]
pub struct RunSpec {
    pub case: usize,
    pub model: usize,
    pub arm: usize,
    pub rep: u64,
    pub seed: u32,
}

impl Plan {
    pub fn new(total: u64, models: Vec<String>, reps: u64, ablations: u64, seed: u32) -> Plan {
        let mut arms = vec!["with_skill".to_string(), "without_skill".to_string()];
        arms.extend((1..=ablations).map(|i| format!("ablation:variant-{i}")));
        let reps = reps.max(1);
        let per_case = (models.len().max(1) * arms.len()) as u64 * reps;
        let n_cases = total.div_ceil(per_case).max(1);
        let mut rng = PyRandom::new(seed);
        let cases = (0..n_cases)
            .map(|i| {
                let topic = TOPICS[i as usize % TOPICS.len()];
                let p_without = 0.15 + 0.7 * rng.random();
                // Most cases gain from the skill, some are flat or worse.
                let lift = -0.1 + 0.5 * rng.random();
                Case {
                    id: format!("{topic}-{i:06}"),
                    split: if i % 5 == 4 { "holdout" } else { "tune" },
                    file: format!("{:04}_{}.sql", i % 10_000, topic.replace('-', "_")),
                    p_without,
                    p_with: (p_without + lift).clamp(0.0, 1.0),
                    prompt_tokens: 700 + (rng.random() * 900.0) as u64,
                }
            })
            .collect();
        Plan {
            cases,
            models,
            arms,
            reps,
            total,
            seed,
        }
    }

    /// Every run, case-major, stopping at `total`.
    pub fn runs(&self) -> impl Iterator<Item = RunSpec> + '_ {
        let (m, a, r) = (self.models.len(), self.arms.len(), self.reps as usize);
        (0..self.cases.len() * m * a * r)
            .take(self.total as usize)
            .map(move |i| RunSpec {
                case: i / (m * a * r),
                model: i / (a * r) % m,
                arm: i / r % a,
                rep: (i % r) as u64 + 1,
                seed: self.seed.wrapping_mul(2_654_435_761).wrapping_add(i as u32),
            })
    }

    /// Pass probability of one run's assertions.
    pub fn pass_probability(&self, spec: &RunSpec) -> f64 {
        let case = &self.cases[spec.case];
        match self.arms[spec.arm].as_str() {
            "with_skill" => case.p_with,
            "without_skill" => case.p_without,
            _ => (case.p_with + case.p_without) / 2.0,
        }
    }
}
