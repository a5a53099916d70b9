//! Stage 3, resolve: one definition per case and suite (a manifest beats
//! another tool file, which beats a definition carried on report rows, and
//! none replaces one the store keeps from a file not being replaced); the
//! case → skill map and the declared arms the run directories need; a given
//! directory in which nothing was recognised becomes an error.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use super::loose_files::LooseFiles;
use super::plan::Plan;
use crate::batch::state::StoredState;
use crate::grade::GradeOptions;
use crate::ingest::kernel::trigger_query::TriggerQuery;
use crate::ingest::kernel::{GradingContext, ManifestCase};
use crate::ingest::loose::LooseKind;
use crate::model::errors::{ErrorKind, IngestErrorRec};
use crate::model::records::{CaseRec, Records, SuiteRec};
use crate::store::writer::SourceFileRec;

/// Who defined a case or suite, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Definer {
    /// The skill-eval-harness manifest: the cases as the team wrote them.
    Manifest,
    /// Another tool's own definition file (case.json, a benchmark's suite).
    ToolFile,
    /// Definitions carried on the rows of a report, for cases nothing else defines.
    ReportRow,
}

pub(super) struct Resolved {
    /// The loose files' rows, with the chosen case and suite definitions
    /// (taken by the write stage).
    pub(super) records: Records,
    /// Runs among them (the loose files' own runs: a report's rows).
    pub(super) loose_runs: usize,
    pub(super) source_files: Vec<SourceFileRec>,
    /// Loose files whose old rows this batch replaces.
    pub(super) replaced_units: Vec<String>,
    /// case id -> skill, for attributing run directories.
    pub(super) known_cases: HashMap<String, String>,
    pub(super) declared_arms: HashSet<String>,
    /// The manifest cases run directories are graded against.
    pub(super) grading: GradingContext,
    pub(super) skipped_files: Vec<String>,
    /// Every error so far, in the order the user should read them.
    pub(super) errors: Vec<IngestErrorRec>,
    /// Large reports whose rows the write stage appends, streamed.
    pub(super) streamed_reports: Vec<crate::ingest::formats::seh::benchmark_stream::StreamedReport>,
    /// The runs each report defines, one report's apart from another's:
    /// the write stage stages them a report at a time, so a run two
    /// reports define is the first one's, with only its rows.
    pub(super) reported: Vec<Records>,
}

pub(super) fn resolve(
    plan: &Plan,
    loose: LooseFiles,
    known: &StoredState,
    options: GradeOptions,
) -> Resolved {
    let mut records = Records::default();
    let mut source_files = Vec::new();
    let mut replaced_units = Vec::new();
    let mut known_cases = known.case_skills.clone();
    let mut declared_arms = HashSet::new();
    // Loose files re-parsed now give up what the store holds from them.
    let replaced_paths: HashSet<String> = loose.parsed.iter().map(|p| p.path.clone()).collect();
    let mut grading = GradingContext {
        options,
        ..Default::default()
    };
    // The variants manifests request: this batch's, then the stored ones not replaced.
    let batch_variants = loose
        .parsed
        .iter()
        .filter(|p| p.parse.kind == LooseKind::Manifest)
        .flat_map(|p| p.parse.records.suites.iter().flat_map(declared_variants));
    let stored_variants = known
        .manifest_variants
        .iter()
        .filter(|(_, path)| !replaced_paths.contains(path))
        .flat_map(|(json, _)| serde_json::from_str::<Vec<String>>(json).unwrap_or_default());
    for v in batch_variants.chain(stored_variants) {
        if !grading.variants.contains(&v) {
            grading.variants.push(v);
        }
    }
    // Stored manifests first; a manifest parsed in this batch replaces them.
    for (case_id, raw, path) in &known.manifest_cases {
        if !replaced_paths.contains(path) {
            add_manifest_case(&mut grading, case_id, raw, path);
        }
    }
    // Judge verdicts, for judge assertions: this batch's files, then the
    // stored ones not being replaced.
    let parsed_judges = loose.parsed.iter().flat_map(|p| {
        p.parse
            .records
            .judge_verdicts
            .iter()
            .map(|j| (j.judge_task_id.clone(), j.raw.clone()))
    });
    let stored_judges = known
        .judge_rows
        .iter()
        .filter(|(_, _, path)| !replaced_paths.contains(path))
        .map(|(task, raw, _)| (task.clone(), Some(raw.clone())));
    let judge_rows: Vec<(String, serde_json::Value)> = parsed_judges
        .chain(stored_judges)
        .filter_map(|(task, raw)| Some((task, serde_json::from_str(raw.as_deref()?).ok()?)))
        .collect();
    grading.add_judge_results(judge_rows);
    let mut cases: Vec<(Definer, CaseRec)> = Vec::new();
    let mut suites: Vec<(Definer, SuiteRec)> = Vec::new();
    let mut streamed_reports = Vec::new();
    let mut reported = Vec::new();
    for parsed in loose.parsed {
        let mut p = parsed.parse;
        streamed_reports.extend(p.streamed.take());
        let definer = match p.kind {
            LooseKind::Manifest => {
                declared_arms.extend(p.records.suites.iter().flat_map(declared_variants));
                for c in &p.records.cases {
                    if let Some(raw) = &c.raw {
                        add_manifest_case(&mut grading, &c.case_id, raw, &parsed.path);
                    }
                }
                Definer::Manifest
            }
            _ => Definer::ToolFile,
        };
        let own = p.records.cases.drain(..).map(|c| (definer, c));
        let on_rows = p.row_cases.drain(..).map(|c| (Definer::ReportRow, c));
        for (d, mut c) in own.chain(on_rows) {
            c.source_path = Some(parsed.path.clone());
            cases.push((d, c));
        }
        suites.extend(p.records.suites.drain(..).map(|s| (definer, s)));
        suites.extend(p.row_suite.take().map(|s| (Definer::ReportRow, s)));
        for (case, skill) in p.case_skills {
            known_cases.entry(case).or_insert(skill);
        }
        source_files.extend(parsed.files);
        replaced_units.push(parsed.path);
        reported.push(p.records.take_reported());
        records.append(p.records);
    }
    // Files being replaced give up their definitions; every other stored one stands.
    let mut taken: HashSet<String> = known
        .definition_sources
        .iter()
        .filter(|(_, source)| !replaced_paths.contains(*source))
        .map(|(k, _)| k.clone())
        .collect();
    cases.sort_by_key(|(d, _)| *d);
    for (definer, c) in cases {
        match definer {
            Definer::Manifest => {
                known_cases.insert(c.case_id.clone(), c.skill_name.clone());
            }
            _ => {
                known_cases
                    .entry(c.case_id.clone())
                    .or_insert_with(|| c.skill_name.clone());
            }
        }
        if taken.insert(c.case_pk.clone()) {
            records.cases.push(c);
        }
    }
    suites.sort_by_key(|(d, _)| *d);
    for (_, s) in suites {
        if taken.insert(s.suite_id.clone()) {
            records.suites.push(s);
        }
    }

    let mut skipped_files = plan.skipped_files.clone();
    skipped_files.extend(loose.skipped);
    let mut errors = plan.errors.clone();
    errors.extend(loose.errors);
    let nothing_found = nothing_found(plan, &skipped_files, &errors);
    errors.extend(nothing_found);
    Resolved {
        streamed_reports,
        reported,
        loose_runs: records.runs.len(),
        records,
        source_files,
        replaced_units,
        known_cases,
        declared_arms,
        grading,
        skipped_files,
        errors,
    }
}

/// A manifest case for the grader; a trigger case is not graded but names
/// what the trigger runners asked.
fn add_manifest_case(grading: &mut GradingContext, case_id: &str, raw: &str, manifest: &str) {
    let Ok(case) = serde_json::from_str::<serde_json::Value>(raw) else {
        return;
    };
    if case.get("kind").and_then(|k| k.as_str()) == Some("trigger") {
        let query = TriggerQuery::from_case(case_id, &case);
        match grading
            .trigger_queries
            .iter_mut()
            .find(|q| q.case_id == case_id)
        {
            Some(known) => *known = query,
            None => grading.trigger_queries.push(query),
        }
        return;
    }
    let manifest_dir = Path::new(manifest)
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    grading
        .cases
        .insert(case_id.to_string(), ManifestCase::new(&case, manifest_dir));
}

/// The arms a manifest's suite declares.
fn declared_variants(suite: &SuiteRec) -> Vec<String> {
    suite
        .variants
        .as_deref()
        .and_then(|v| serde_json::from_str::<Vec<String>>(v).ok())
        .unwrap_or_default()
}

/// A directory given in which nothing was recognised is an error, not a silent skip.
fn nothing_found(
    plan: &Plan,
    skipped: &[String],
    errors: &[IngestErrorRec],
) -> Vec<IngestErrorRec> {
    let skipped: HashSet<&str> = skipped.iter().map(String::as_str).collect();
    plan.dir_roots
        .iter()
        .filter(|root| {
            let recognized = plan.roots_with_runs.contains(*root)
                || plan.loose_unit_paths.iter().any(|u| {
                    u.starts_with(root) && !skipped.contains(u.display().to_string().as_str())
                });
            let reported = errors.iter().any(|e| Path::new(&e.path).starts_with(root));
            !recognized && !reported
        })
        .map(|root| {
            IngestErrorRec::new(
                root.display().to_string(),
                ErrorKind::NothingFound,
                "nothing liftdb reads was found here (expected run directories, a manifest, or harness reports: skill-eval-harness, the handbook harness, skill-creator, promptfoo)",
            )
        })
        .collect()
}
