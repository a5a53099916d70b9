//! Stage 5, the summary of one ingest, assembled from what the stages
//! returned (printed by the CLI, or as JSON: schemas/ingest-summary.schema.json).

use super::counts::{GradingCounts, LayoutCounts};
use super::options::IngestOptions;
use super::plan::Plan;
use super::resolve::Resolved;
use super::runs::RunDirs;
use crate::model::errors::IngestErrorRec;

#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct IngestSummary {
    pub batch_id: Option<i64>,
    pub release: String,
    /// Whether `release` is in the store's releases after this batch: a
    /// batch that stored nothing of it records no release.
    pub release_recorded: bool,
    /// How many times the batch was tried: more than 1 when its commit met
    /// another writer's on a lake and it was tried again whole.
    pub tries: u32,
    /// Why each try but the last was rolled back: the first line of the
    /// lake's conflict (the table and what the other writer did to it).
    pub retried_on: Vec<String>,
    /// How the release label was chosen: --release, previous ingest, graded runs, skill_tree_hash, generated_at, runs given with it, default.
    pub release_source: String,
    /// Releases runs of this batch went to besides `release`: skill-creator's
    /// iteration-N folders, one release each (unless --release named one).
    pub other_releases: Vec<String>,
    pub files_seen: usize,
    pub files_changed: usize,
    pub files_unchanged: usize,
    pub units_changed: usize,
    /// Run directories and report files seen for the first time and stored
    /// (not those whose runs were `already_stored`).
    pub units_added: usize,
    /// Previously ingested ones whose files changed (their rows were replaced).
    pub units_replaced: usize,
    pub units_unchanged: usize,
    /// Run directories unchanged on disk but graded again: their manifest case,
    /// the grader or --allow-scripts/--strict changed since they were graded.
    pub units_regraded: usize,
    /// Previously ingested run directories / files under the given paths that are gone from
    /// disk: kept in the store unless --prune.
    pub units_missing: Vec<String>,
    pub pruned: bool,
    pub runs_written: u64,
    pub rows_written: u64,
    pub trigger_trace_dirs: usize,
    pub skipped_files: Vec<String>,
    pub errors: Vec<ErrorLine>,
    pub dry_run: bool,
    /// How the skill-eval-harness answer runs of this batch were graded.
    pub grading: GradingCounts,
    /// How run layouts no metadata or manifest settled were read.
    pub layout: LayoutCounts,
    /// Reports of this batch whose results name runs the store does not hold.
    pub reports_without_runs: Vec<super::ReportWithoutRuns>,
    /// What of the batch's releases measures nothing (suspect_measurements).
    pub suspect_measurements: Vec<super::Suspect>,
    /// Answer runs of the batch's releases that do not count, and why.
    pub not_counted: Vec<super::NotCounted>,
    /// Runs the store already held, read from another place (another
    /// runner, another path) with the same content: not stored again.
    pub already_stored: u64,
    /// The batches that had stored them.
    pub already_stored_by: Vec<i64>,
    /// Batches another job committed with this batch's runs while it ran
    /// (the same tree ingested twice at once): this batch was tried again
    /// and found them stored.
    pub stored_meanwhile_by: Vec<i64>,
    /// A new label over runs already stored: the releases that hold the
    /// run folders given (unchanged), when the batch stored nothing else of
    /// its release and so recorded none (`release rename` relabels them).
    pub runs_stored_in: Vec<String>,
    /// Runs this batch's reports defined: their identity held by no run, a
    /// report carries them (no output, trace or files).
    pub runs_reported: u64,
    /// Runs a report had defined, replaced by their folders read now.
    pub reported_replaced: u64,
    /// Runs the reports list that no folder of their release holds, left
    /// undefined: the release holds runs read from folders, so the report
    /// is a reference (`ingest --define-reported` defines them).
    pub runs_reported_not_in_tree: u64,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct ErrorLine {
    pub path: String,
    pub stage: String,
    pub reason: String,
    /// What to do about it.
    pub hint: Option<&'static str>,
}

impl From<&IngestErrorRec> for ErrorLine {
    fn from(e: &IngestErrorRec) -> Self {
        ErrorLine {
            path: e.path.clone(),
            stage: e.kind.stage().to_string(),
            reason: e.reason.clone(),
            hint: Some(e.kind.hint()),
        }
    }
}

/// The summary before the writer's counts (`runs` is None when nothing was parsed).
pub(super) fn assemble(
    plan: &Plan,
    resolved: &Resolved,
    units_changed: usize,
    runs: Option<&RunDirs>,
    opts: &IngestOptions,
) -> IngestSummary {
    IngestSummary {
        batch_id: None,
        tries: 1,
        retried_on: Vec::new(),
        release: plan.release.label.clone(),
        release_recorded: false,
        release_source: plan.release.source.to_string(),
        other_releases: runs
            .map(|r| {
                r.releases
                    .iter()
                    .filter(|l| **l != plan.release.label)
                    .cloned()
                    .collect()
            })
            .unwrap_or_default(),
        files_seen: plan.counts.files_seen,
        files_changed: runs.map_or(0, |r| resolved.source_files.len() + r.files_parsed),
        files_unchanged: plan.counts.files_unchanged,
        units_changed,
        // A folder new to this place whose runs the store held (another
        // runner's, the same content) was not added: it is already stored.
        units_added: plan
            .counts
            .added
            .saturating_sub(runs.map_or(0, |r| r.already_stored as usize)),
        units_replaced: plan.counts.replaced,
        units_unchanged: plan.counts.unchanged,
        units_regraded: plan.counts.regraded,
        units_missing: plan.units_missing.clone(),
        pruned: opts.prune && !plan.units_missing.is_empty(),
        runs_written: runs.map_or(0, |r| resolved.loose_runs as u64 + r.runs_written),
        rows_written: 0,
        trigger_trace_dirs: runs.map_or(0, |r| r.trigger_trace_dirs),
        skipped_files: resolved.skipped_files.clone(),
        errors: Vec::new(),
        dry_run: opts.dry_run,
        grading: runs.map(|r| r.grading.clone()).unwrap_or_default(),
        layout: runs.map(|r| r.layout.clone()).unwrap_or_default(),
        reports_without_runs: Vec::new(),
        suspect_measurements: Vec::new(),
        not_counted: Vec::new(),
        already_stored: runs.map_or(0, |r| r.already_stored),
        already_stored_by: runs
            .map(|r| r.already_stored_by.iter().copied().collect())
            .unwrap_or_default(),
        stored_meanwhile_by: Vec::new(),
        runs_stored_in: Vec::new(),
        runs_reported: 0,
        reported_replaced: runs.map_or(0, |r| r.reported_replaced),
        runs_reported_not_in_tree: 0,
    }
}
