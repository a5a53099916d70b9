//! What a caller asks of one ingest call.

use crate::ingest::formats;

#[derive(Debug, Clone, Default)]
pub struct IngestOptions {
    pub release: Option<String>,
    /// Read every file as this format instead of detecting it.
    pub format: Option<formats::Format>,
    /// Store secrets as found (explicit opt-out of redaction).
    pub no_redact: bool,
    /// Remove the rows of previously ingested units that are gone from disk.
    pub prune: bool,
    pub dry_run: bool,
    pub progress: bool,
    /// Run `script` assertions when grading (skill-benchmark's --allow-scripts).
    pub allow_scripts: bool,
    /// Soft assertions count as gates (skill-benchmark's --strict).
    pub strict: bool,
    /// Caps on one file read whole and on a `.gz` file inflated.
    pub limits: crate::json::ReadLimits,
    /// The memory the ingest aims to stay under (MiB); DuckDB gets what
    /// liftdb does not hold, up to half (budget.rs). None: DuckDB's default
    /// (80% of RAM).
    pub memory_mb: Option<u64>,
    /// Leave the stored aggregates waiting after the commit (a lake's fan-out).
    pub defer_refill: bool,
    /// Reports define the runs they list that no folder holds even beside
    /// runs read from folders (`ingest --define-reported`).
    pub define_reported: bool,
    /// `--shard NAME`: this job's part of a release split across jobs; part
    /// of each run's identity.
    pub shard: Option<String>,
    /// The machine reading the trees (`sys::host::host_name`): with a path,
    /// the place a tree is read from.
    pub host: String,
}
