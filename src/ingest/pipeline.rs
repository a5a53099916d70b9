//! The ingest of one call: discover units under the given paths, skip the
//! unchanged ones, parse the rest in parallel with the format adapters, and
//! write them as one batch (one transaction).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;

use super::discover::{self, Unit, UnitKind};
use super::formats::seh::run_dir::{RunContext, RunFiles, RunOutcome};
use super::formats::{self, seh};
use super::loose::{self, LooseKind};
use super::records::{CaseRec, IngestErrorRec, Records, SuiteRec};
use super::timings::Timings;
use super::{json, release, state};
use crate::store::writer::{self, BatchInfo, SourceFileRow, TableRows};
use crate::store::Store;
use crate::Result;

pub use super::release::DEFAULT_RELEASE;

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
}

#[derive(Debug, Default, Clone, serde::Serialize)]
pub struct IngestSummary {
    pub batch_id: Option<i64>,
    pub release: String,
    /// How the release label was chosen: --release, previous ingest, skill_tree_hash, generated_at, default.
    pub release_source: String,
    pub files_seen: usize,
    pub files_changed: usize,
    pub files_unchanged: usize,
    pub units_changed: usize,
    /// Run directories and report files seen for the first time.
    pub units_added: usize,
    /// Previously ingested ones whose files changed (their rows were replaced).
    pub units_replaced: usize,
    pub units_unchanged: usize,
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
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct ErrorLine {
    pub path: String,
    pub stage: String,
    pub reason: String,
    /// What to do about it, when there is more to say than the reason.
    pub hint: Option<&'static str>,
}

impl From<&IngestErrorRec> for ErrorLine {
    fn from(e: &IngestErrorRec) -> Self {
        ErrorLine {
            path: e.path.clone(),
            stage: e.stage.clone(),
            reason: e.reason.clone(),
            hint: super::hints::hint(&e.stage, &e.reason),
        }
    }
}

/// The outcome of change detection for one unit.
struct ChangeCheck {
    unit: Unit,
    /// Present when the unit changed: its files, read and hashed.
    changed: Option<ReadUnit>,
    /// Unchanged files whose mtime moved.
    touched: Vec<(String, i64)>,
}

/// A unit whose files were read because they may have changed.
pub(crate) struct ReadUnit {
    pub(super) unit: Unit,
    pub(super) contents: Vec<(discover::FileInfo, Vec<u8>, String)>,
    /// Files of the unit that could not be read, with the reason.
    pub(super) unreadable: Vec<(discover::FileInfo, String)>,
}

fn progress_bar(enabled: bool, len: usize, message: &'static str) -> ProgressBar {
    // Units are run directories or report files: the rate shown is runs (and files) per second.
    if !enabled {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{msg:>8} [{bar:30}] {pos}/{len} {per_sec} eta {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar.set_message(message);
    bar
}

pub fn ingest(store: &mut Store, paths: &[PathBuf], opts: &IngestOptions) -> Result<IngestSummary> {
    let mut clock = Timings::from_env();
    let found = discover::discover(paths);
    clock.mark("discover");
    let explicit_files: HashSet<PathBuf> = paths
        .iter()
        .filter(|p| p.is_file())
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    let known = state::StoredState::load(&store.conn)?;
    clock.mark("load state");

    let unit_paths: Vec<PathBuf> = found.units.iter().map(|u| u.path.clone()).collect();
    let mut summary = IngestSummary {
        dry_run: opts.dry_run,
        files_seen: found.units.iter().map(|u| u.files.len()).sum(),
        ..Default::default()
    };
    let mut records = Records::default();
    records.errors.extend(found.errors.iter().cloned());
    for path in &found.ignored {
        // A promptfoo CSV alone cannot be read faithfully: say so instead of skipping it.
        if formats::promptfoo::is_results_csv(path) && !formats::promptfoo::has_json_sibling(path) {
            records.error(
                &path.display().to_string(),
                "detect",
                "promptfoo CSV export has no per-assertion results or token usage; re-export with -o results.json (or .jsonl) and ingest that",
            );
        } else {
            summary.skipped_files.push(path.display().to_string());
        }
    }

    // 1. Change detection: unchanged size+mtime skips without reading;
    //    otherwise read and hash, and skip if the content is the same.
    let mut touched = Vec::new();
    let bar = progress_bar(opts.progress, found.units.len(), "reading");
    let reads: Vec<ChangeCheck> = found
        .units
        .into_par_iter()
        .map(|unit| {
            let result = read_if_changed(unit, &known);
            bar.inc(1);
            result
        })
        .collect();
    bar.finish_and_clear();
    clock.mark("change check");
    let mut changed: Vec<ReadUnit> = Vec::new();
    for check in reads {
        match check.changed {
            Some(r) => {
                let owner = r.unit.path.display().to_string();
                if known.files_by_owner.contains_key(&owner) {
                    summary.units_replaced += 1;
                } else {
                    summary.units_added += 1;
                }
                changed.push(r);
            }
            None => {
                summary.units_unchanged += 1;
                summary.files_unchanged += check.unit.files.len();
            }
        }
        touched.extend(check.touched);
    }
    // Units ingested before from under these paths that are no longer on disk.
    let seen: HashSet<String> = unit_paths.iter().map(|p| p.display().to_string()).collect();
    summary.units_missing = known
        .files_by_owner
        .keys()
        .filter(|owner| !seen.contains(*owner))
        .filter(|owner| {
            found
                .dir_roots
                .iter()
                .any(|r| Path::new(owner).starts_with(r))
        })
        .filter(|owner| !Path::new(owner).exists())
        .cloned()
        .collect();
    summary.units_missing.sort();
    for read in changed
        .iter()
        .filter(|r| r.unit.kind == UnitKind::LooseFile)
    {
        // A file that could not be read stays out of its unit, with an error row
        // (run directories are read again, and reported, when parsed).
        for (info, reason) in &read.unreadable {
            records.errors.push(IngestErrorRec {
                path: info.path.display().to_string(),
                stage: "read".into(),
                reason: format!("cannot read: {reason}"),
            });
        }
    }

    let (release, release_source) = match &opts.release {
        Some(r) => (r.clone(), "--release"),
        None => release::derive(&changed, &known),
    };
    summary.release = release.clone();
    summary.release_source = release_source.to_string();

    // 2. Loose files: manifests and reports, parsed first because they name
    //    the skill of each case and the case ids the layout needs.
    let (loose_units, run_units): (Vec<ReadUnit>, Vec<ReadUnit>) = changed
        .into_iter()
        .partition(|r| r.unit.kind == UnitKind::LooseFile);
    let mut source_files = Vec::new();
    let mut replaced_units = Vec::new();
    let mut known_cases = known.case_skills.clone();
    let mut declared_arms: HashSet<String> = HashSet::new();
    // Definitions by priority: 0 manifest, 1 other tool files, 2 report rows.
    let mut candidate_cases: Vec<(u8, CaseRec)> = Vec::new();
    let mut candidate_suites: Vec<(u8, SuiteRec)> = Vec::new();
    for read in &loose_units {
        // An unreadable file has its error row already.
        let Some((info, bytes, sha)) = read.contents.first() else {
            continue;
        };
        let path = info.path.display().to_string();
        let mut parsed = loose::parse(&path, bytes, sha, &release, opts.format);
        if let LooseKind::Unrecognized(reason) = &parsed.kind {
            if explicit_files.contains(&info.path) {
                records.error(&path, "detect", reason.clone());
            } else {
                summary.skipped_files.push(path.clone());
            }
            continue;
        }
        let priority = u8::from(!matches!(parsed.kind, LooseKind::Manifest));
        if matches!(parsed.kind, LooseKind::Manifest) {
            for s in &parsed.records.suites {
                if let Some(list) = s
                    .variants
                    .as_deref()
                    .and_then(|v| serde_json::from_str::<Vec<String>>(v).ok())
                {
                    declared_arms.extend(list);
                }
            }
        }
        for mut c in parsed.records.cases.drain(..) {
            c.source_path = Some(path.clone());
            candidate_cases.push((priority, c));
        }
        for mut c in parsed.row_cases.drain(..) {
            c.source_path = Some(path.clone());
            candidate_cases.push((2, c));
        }
        candidate_suites.extend(parsed.records.suites.drain(..).map(|s| (priority, s)));
        candidate_suites.extend(parsed.row_suite.take().map(|s| (2, s)));
        for (case, skill) in &parsed.case_skills {
            known_cases
                .entry(case.clone())
                .or_insert_with(|| skill.clone());
        }
        source_files.push(SourceFileRow {
            path: path.clone(),
            sha256: sha.clone(),
            size_bytes: info.size as i64,
            mtime_ns: info.mtime_ns,
            kind: parsed.kind.label().to_string(),
            source_format: parsed.source_format.into(),
            owner_key: path.clone(),
        });
        replaced_units.push(path);
        records.append(parsed.records);
    }
    // One definition per case and suite: manifests first, then other files,
    // never one the store keeps from a file that is not being replaced.
    let replaced: HashSet<&str> = replaced_units.iter().map(String::as_str).collect();
    let mut taken: HashSet<String> = known
        .definition_sources
        .iter()
        .filter(|(_, source)| !replaced.contains(source.as_str()))
        .map(|(k, _)| k.clone())
        .collect();
    candidate_cases.sort_by_key(|(p, _)| *p);
    for (priority, c) in candidate_cases {
        if priority == 0 {
            known_cases.insert(c.case_id.clone(), c.skill_name.clone());
        } else {
            known_cases
                .entry(c.case_id.clone())
                .or_insert_with(|| c.skill_name.clone());
        }
        if taken.insert(c.case_pk.clone()) {
            records.cases.push(c);
        }
    }
    candidate_suites.sort_by_key(|(p, _)| *p);
    for (_, s) in candidate_suites {
        if taken.insert(s.suite_id.clone()) {
            records.suites.push(s);
        }
    }

    // A directory in which nothing was recognized is an error, not a silent skip.
    let skipped: HashSet<&str> = summary.skipped_files.iter().map(String::as_str).collect();
    for root in &found.dir_roots {
        let recognized = unit_paths
            .iter()
            .any(|u| u.starts_with(root) && !skipped.contains(u.display().to_string().as_str()));
        let already_reported = records
            .errors
            .iter()
            .any(|e| Path::new(&e.path).starts_with(root));
        if !recognized && !already_reported {
            records.error(
                &root.display().to_string(),
                "detect",
                "nothing liftdb reads was found here (expected run directories, a manifest, or harness reports: skill-eval-harness, the handbook harness, skill-creator, promptfoo)",
            );
        }
    }

    // Every changed unit is replaced whole (a run directory that is now
    // rejected loses its stale rows too); vanished ones only with --prune.
    let mut doomed = replaced_units;
    doomed.extend(run_units.iter().map(|r| r.unit.path.display().to_string()));
    if opts.prune && !summary.units_missing.is_empty() {
        doomed.extend(summary.units_missing.iter().cloned());
        summary.pruned = true;
    }
    summary.units_changed = doomed.len();
    if doomed.is_empty() && records.errors.is_empty() && !opts.dry_run {
        // Nothing new: no batch is recorded; only moved mtimes are refreshed.
        writer::touch(&store.conn, &touched)?;
        clock.mark("nothing new");
        clock.report();
        return Ok(summary);
    }
    let mut errors = std::mem::take(&mut records.errors);
    let batch_info = BatchInfo {
        release_label: &release,
        release_source,
        paths_json: serde_json::to_string(
            &paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>(),
        )
        .unwrap_or_else(|_| "[]".into()),
        files_seen: summary.files_seen as i64,
        files_changed: 0,
        files_unchanged: summary.files_unchanged as i64,
    };
    clock.mark("loose files");
    let mut batch = if opts.dry_run {
        None
    } else {
        Some(writer::BatchWriter::begin(
            &store.conn,
            &batch_info,
            &doomed,
            !opts.no_redact,
        )?)
    };
    let mut files_parsed = source_files.len();
    if let Some(b) = batch.as_mut() {
        b.append(&records)?;
        b.append_source_files(&source_files)?;
    }
    summary.runs_written = records.runs.len() as u64;
    clock.mark("begin + append loose");
    drop(records);
    drop(source_files);

    // 3. Run directories in chunks: read, parse in parallel, append, drop,
    //    so memory stays bounded by the chunk, not the tree.
    let ctx = RunContext {
        release: &release,
        forced: opts.format,
        known_cases: &known_cases,
        declared_arms: &declared_arms,
    };
    let bar = progress_bar(opts.progress, run_units.len(), "parsing");
    let errors_so_far = std::sync::atomic::AtomicUsize::new(errors.len());
    let batch_id = batch.as_ref().map_or(0, |b| b.batch_id());
    let redact = !opts.no_redact;
    // Parse one chunk on all cores, each run's rows built (and redacted) there too.
    let parse_chunk = chunk_parser(|chunk| {
        chunk
            .par_iter()
            .map(|read| {
                let (files, shas, read_errors) = load_run_files(read);
                let mut outcome = formats::parse_run_dir(&read.unit.path, &files, &ctx);
                let (new_errors, rows) = match &mut outcome {
                    RunOutcome::Answer { records, .. } => (
                        records.errors.len(),
                        writer::table_rows(records, batch_id, redact),
                    ),
                    RunOutcome::Rejected(records) => (records.errors.len(), Vec::new()),
                    RunOutcome::TriggerTrace => (0, Vec::new()),
                };
                if new_errors > 0 {
                    let total = errors_so_far
                        .fetch_add(new_errors, std::sync::atomic::Ordering::Relaxed)
                        + new_errors;
                    bar.set_message(format!("parsing ({total} errors)"));
                }
                bar.inc(1);
                ParsedRun {
                    read,
                    shas,
                    read_errors,
                    outcome,
                    rows,
                }
            })
            .collect()
    });
    let mut run_owner: HashMap<String, String> = HashMap::new();
    // While the writer appends chunk k, the next chunk is parsed on another thread.
    std::thread::scope(|scope| -> Result<()> {
        let mut chunks = run_units.chunks(RUN_CHUNK);
        let mut pending = chunks.next().map(|c| scope.spawn(move || parse_chunk(c)));
        while let Some(handle) = pending.take() {
            let outcomes = handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            pending = chunks.next().map(|c| scope.spawn(move || parse_chunk(c)));
            clock.mark("parse run dirs (not overlapped)");
            let mut chunk_rows: TableRows = Vec::new();
            let mut chunk_files = Vec::new();
            for parsed in outcomes {
                let ParsedRun {
                    read,
                    shas,
                    read_errors,
                    outcome,
                    rows,
                } = parsed;
                errors.extend(read_errors);
                let dir = read.unit.path.display().to_string();
                let (run_id, mut r) = match outcome {
                    RunOutcome::TriggerTrace => {
                        summary.trigger_trace_dirs += 1;
                        continue;
                    }
                    RunOutcome::Rejected(r) => {
                        errors.extend(r.errors);
                        continue;
                    }
                    RunOutcome::Answer { run_id, records } => (run_id, records),
                };
                errors.append(&mut r.errors);
                let clash = run_owner
                    .get(&run_id)
                    .cloned()
                    .or_else(|| known.run_dirs.get(&run_id).filter(|d| **d != dir).cloned());
                if let Some(other) = clash {
                    errors.push(IngestErrorRec {
                        path: dir.clone(),
                        stage: "identity".into(),
                        reason: format!(
                            "same run identity as {other} in release '{release}'; ingest the other tree with a different --release"
                        ),
                    });
                    continue;
                }
                run_owner.insert(run_id, dir.clone());
                let unit_format = r
                    .runs
                    .first()
                    .map(|run| run.source_format.clone())
                    .unwrap_or_else(|| seh::SOURCE_FORMAT.into());
                summary.runs_written += r.runs.len() as u64;
                merge_rows(&mut chunk_rows, rows);
                for (info, _, _) in &read.contents {
                    let rel = info
                        .path
                        .strip_prefix(&read.unit.path)
                        .map(|p| p.to_string_lossy().replace('\\', "/"))
                        .unwrap_or_default();
                    let Some(sha) = shas.get(&rel) else { continue };
                    chunk_files.push(SourceFileRow {
                        path: info.path.display().to_string(),
                        sha256: sha.clone(),
                        size_bytes: info.size as i64,
                        mtime_ns: info.mtime_ns,
                        kind: file_kind(&info.path),
                        source_format: unit_format.clone(),
                        owner_key: dir.clone(),
                    });
                }
            }
            files_parsed += chunk_files.len();
            if let Some(b) = batch.as_mut() {
                b.append_prepared(chunk_rows)?;
                b.append_source_files(&chunk_files)?;
            }
            clock.mark("append run dirs");
        }
        Ok(())
    })?;
    bar.finish_and_clear();

    summary.files_changed = files_parsed;
    summary.errors = errors.iter().map(ErrorLine::from).collect();
    let Some(b) = batch else {
        return Ok(summary);
    };
    let batch_info = BatchInfo {
        files_changed: files_parsed as i64,
        ..batch_info
    };
    let counts = b.finish(&batch_info, &errors, &touched, &mut clock)?;
    clock.report();
    summary.batch_id = Some(counts.batch_id);
    summary.runs_written = counts.runs_written;
    summary.rows_written = counts.rows_written;
    Ok(summary)
}

/// One run directory after the parallel phase: its outcome and its rows.
struct ParsedRun<'a> {
    read: &'a ReadUnit,
    shas: HashMap<String, String>,
    read_errors: Vec<IngestErrorRec>,
    outcome: RunOutcome,
    rows: TableRows,
}

/// Ties the parsed runs' lifetime to the chunk's (closures cannot name it).
fn chunk_parser<F>(f: F) -> F
where
    F: Fn(&[ReadUnit]) -> Vec<ParsedRun<'_>> + Sync,
{
    f
}

/// Add one run's rows to the chunk's, table by table.
fn merge_rows(into: &mut TableRows, rows: TableRows) {
    if into.is_empty() {
        *into = rows;
        return;
    }
    for ((_, all), (_, mut more)) in into.iter_mut().zip(rows) {
        all.append(&mut more);
    }
}

/// Run directories parsed per chunk: enough to keep both cores busy, small
/// enough that a chunk's files and rows stay a few hundred megabytes at most.
const RUN_CHUNK: usize = 2048;

/// The files of a changed run directory, read for parsing (the change check
/// keeps no bytes), keyed by path relative to the directory, with the
/// sha256 of each file as read; files that cannot be read become error rows.
fn load_run_files(read: &ReadUnit) -> (RunFiles, HashMap<String, String>, Vec<IngestErrorRec>) {
    let mut files = RunFiles::new();
    let mut shas = HashMap::new();
    let mut errors = Vec::new();
    for (info, _, _) in &read.contents {
        let Ok(rel) = info.path.strip_prefix(&read.unit.path) else {
            continue;
        };
        let rel = rel.to_string_lossy().replace('\\', "/");
        match json::read_hashed(&info.path) {
            Ok((bytes, sha)) => {
                files.insert(rel.clone(), bytes);
                shas.insert(rel, sha);
            }
            Err(e) => errors.push(IngestErrorRec {
                path: info.path.display().to_string(),
                stage: "read".into(),
                reason: format!("cannot read: {e}"),
            }),
        }
    }
    (files, shas, errors)
}

fn file_kind(path: &std::path::Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    match name.as_str() {
        "metadata.json" => "metadata",
        "metrics.json" => "metrics",
        "events.json" => "events",
        "trace.jsonl" => "trace",
        "environment.json" => "environment",
        "timing.json" => "timing",
        "grading.json" => "grading",
        n if n.starts_with("output") || n.starts_with("response") || n.starts_with("final") => {
            "output"
        }
        _ => "artifact",
    }
    .to_string()
}

/// Decide whether a unit changed; read its files when it may have.
fn read_if_changed(unit: Unit, known: &state::StoredState) -> ChangeCheck {
    let owner = unit.path.display().to_string();
    let same_set = known.files_by_owner.get(&owner).is_some_and(|paths| {
        paths.len() == unit.files.len()
            && unit
                .files
                .iter()
                .all(|f| paths.contains(&f.path.display().to_string()))
    });
    let stat_same = same_set
        && unit.files.iter().all(|f| {
            known
                .files
                .get(&f.path.display().to_string())
                .is_some_and(|k| k.size == f.size as i64 && k.mtime_ns == f.mtime_ns)
        });
    if stat_same {
        return ChangeCheck {
            unit,
            changed: None,
            touched: Vec::new(),
        };
    }
    if unit.kind == UnitKind::RunDir && !known.files_by_owner.contains_key(&owner) {
        // A run directory never seen before has nothing to compare against:
        // it is read (and hashed) once, when its chunk is parsed.
        let contents = unit
            .files
            .iter()
            .map(|f| (f.clone(), Vec::new(), String::new()))
            .collect();
        let read = ReadUnit {
            unit: unit.clone(),
            contents,
            unreadable: Vec::new(),
        };
        return ChangeCheck {
            unit,
            changed: Some(read),
            touched: Vec::new(),
        };
    }
    let mut contents = Vec::with_capacity(unit.files.len());
    let mut unreadable = Vec::new();
    for f in &unit.files {
        match json::read_hashed(&f.path) {
            Ok((bytes, sha)) => contents.push((f.clone(), bytes, sha)),
            Err(e) => unreadable.push((f.clone(), e.to_string())),
        }
    }
    let content_same = unreadable.is_empty()
        && same_set
        && contents.iter().all(|(f, _, sha)| {
            known
                .files
                .get(&f.path.display().to_string())
                .is_some_and(|k| &k.sha256 == sha)
        });
    if content_same {
        let touched = contents
            .iter()
            .map(|(f, _, _)| (f.path.display().to_string(), f.mtime_ns))
            .collect();
        return ChangeCheck {
            unit,
            changed: None,
            touched,
        };
    }
    if unit.kind == UnitKind::RunDir {
        // Run directories are read again chunk by chunk when parsed; holding
        // every changed run's bytes here would make memory grow with the tree.
        for (_, bytes, _) in &mut contents {
            *bytes = Vec::new();
        }
    }
    let read = ReadUnit {
        unit: unit.clone(),
        contents,
        unreadable,
    };
    ChangeCheck {
        unit,
        changed: Some(read),
        touched: Vec::new(),
    }
}
