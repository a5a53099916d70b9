//! What the run stage counts and the summary reports: how layouts were
//! read and how skill-eval-harness runs were graded.

/// skill-eval-harness runs whose case and model no metadata or manifest
/// told apart, by the reading ingest chose (announced, never silent).
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct LayoutCounts {
    /// Read below the folder given as the harness reads `--runs`.
    pub from_runs_root: usize,
    /// Nothing told: read as `<case>/<variant>` (the single-model layout).
    pub guessed: usize,
}

impl LayoutCounts {
    pub(super) fn add(&mut self, other: &LayoutCounts) {
        self.from_runs_root += other.from_runs_root;
        self.guessed += other.guessed;
    }
}

/// skill-eval-harness answer runs of a batch by how liftdb could grade them.
#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct GradingCounts {
    /// Graded by liftdb from the manifest, every verdict decided.
    pub graded: usize,
    /// No manifest case to grade against (no manifest ingested for them).
    pub no_manifest: usize,
    /// Graded, with script assertions failed because --allow-scripts was not given.
    pub scripts_not_run: usize,
    /// Graded, with a verdict liftdb cannot give exactly (their rates are NULL).
    pub unavailable: usize,
    /// Graded, with judge assertions waiting for stored judge verdicts.
    pub judge_deferred: usize,
    /// Phantom runs recorded: requested variants with no directory (missing
    /// output, unscorable), as the harness counts them.
    pub phantoms: usize,
}

impl GradingCounts {
    pub(super) fn add(&mut self, other: &GradingCounts) {
        self.graded += other.graded;
        self.no_manifest += other.no_manifest;
        self.scripts_not_run += other.scripts_not_run;
        self.unavailable += other.unavailable;
        self.judge_deferred += other.judge_deferred;
        self.phantoms += other.phantoms;
    }
}
