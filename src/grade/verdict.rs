//! One assertion's verdict as the harness records it.

/// One verdict: the harness's row, or why liftdb gives none.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub passed: bool,
    /// The real score of a scored type (similarity, a script's score line).
    pub real_score: Option<f64>,
    pub evidence: String,
    /// Set when the verdict could differ from the harness's: `passed` and
    /// `score` are then not to be used.
    pub unavailable: Option<String>,
}

impl Verdict {
    pub(super) fn binary(passed: bool, evidence: String) -> Self {
        Verdict {
            passed,
            real_score: None,
            evidence,
            unavailable: None,
        }
    }

    pub(super) fn scored(passed: bool, score: Option<f64>, evidence: String) -> Self {
        Verdict {
            real_score: score,
            ..Verdict::binary(passed, evidence)
        }
    }

    pub(super) fn unavailable(reason: String) -> Self {
        Verdict {
            unavailable: Some(reason),
            ..Verdict::binary(false, String::new())
        }
    }

    /// The row's score as the harness writes it: the real one, else 1.0 / 0.0.
    pub fn score(&self) -> f64 {
        self.real_score
            .unwrap_or(if self.passed { 1.0 } else { 0.0 })
    }
}
