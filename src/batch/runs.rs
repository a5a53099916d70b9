//! Stage 4, the run directories: read, parse on all cores and append, chunk
//! by chunk, so memory stays bounded by the chunk, not the tree. While the
//! writer appends chunk k, chunk k+1 is parsed on another thread.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rayon::prelude::*;

use super::batch_sql;
use super::counts::{GradingCounts, LayoutCounts};
use super::options::IngestOptions;
use super::plan::Plan;
use super::progress::progress_bar;
use super::units::ChangedRun;
use crate::ingest::discover::{self, Unit, UnitKind};
use crate::ingest::formats;
use crate::ingest::kernel::{RunContext, RunOutcome};
use crate::json;
use crate::model::errors::{ErrorKind, IngestErrorRec};
use crate::model::run_files::{self, RunFiles};
use crate::store::writer::{self, BatchWriter, SourceFileRec, TableRows};
use crate::sys::timings::Timings;
use crate::Result;
use duckdb::Connection;

use crate::batch::state::{file_key, file_print};

/// Run directories parsed per chunk: enough to keep both cores busy, small
/// enough that the two chunks in flight (one parsed while the other is
/// appended) stay small beside a memory budget; larger chunks were no faster.
const RUN_CHUNK: usize = 512;

/// Chunks between two collections of the reading threads' freed memory
/// (8,192 runs: a few seconds of a large ingest).
const GIVE_BACK_EVERY: usize = 16;

/// What the run directories gave.
#[derive(Default)]
pub(super) struct RunDirs {
    pub(super) runs_written: u64,
    pub(super) files_parsed: usize,
    pub(super) trigger_trace_dirs: usize,
    pub(super) errors: Vec<IngestErrorRec>,
    pub(super) grading: GradingCounts,
    /// Every release the written runs carry (skill-creator iterations are
    /// releases of their own).
    pub(super) releases: std::collections::BTreeSet<String>,
    pub(super) layout: LayoutCounts,
    /// Runs whose identity and content the store already held, read from
    /// another place (a retried job, another runner): not stored again.
    pub(super) already_stored: u64,
    /// The batches that stored them.
    pub(super) already_stored_by: std::collections::BTreeSet<i64>,
    /// Runs whose identity the release holds from another tree with other
    /// content: the batch is refused (`--shard`, `--release`).
    pub(super) held_elsewhere: Vec<HeldElsewhere>,
    /// Runs a report had defined, replaced by their folders.
    pub(super) reported_replaced: u64,
}

/// A run whose identity another tree's run holds, with other content.
pub(super) struct HeldElsewhere {
    pub(super) dir: String,
    pub(super) release: String,
    pub(super) other: String,
}

/// One run directory after the parallel phase: what it gave and its rows
/// (its unit is the one at the same place in the chunk).
struct ParsedRun {
    shas: HashMap<String, String>,
    read_errors: Vec<IngestErrorRec>,
    outcome: Parsed,
    rows: TableRows,
}

/// A run directory's outcome once its records are rows: what the writer's
/// side still needs of them, taken before they were given up.
enum Parsed {
    Answer(AnswerFacts),
    /// A trigger-run trace folder: its observation is in the rows.
    TriggerTrace(Vec<IngestErrorRec>),
    Rejected(Vec<IngestErrorRec>),
}

struct AnswerFacts {
    run_id: String,
    /// The digest of its files (`content_digest`).
    content: String,
    errors: Vec<IngestErrorRec>,
    /// The release of each run row, in order (one for a run directory).
    releases: Vec<String>,
    /// The source format of its first run (skill-eval-harness without one).
    unit_format: String,
    layout: LayoutCounts,
    grading: GradingCounts,
}

impl Parsed {
    fn error_count(&self) -> usize {
        match self {
            Parsed::Answer(facts) => facts.errors.len(),
            Parsed::Rejected(errors) => errors.len(),
            Parsed::TriggerTrace(errors) => errors.len(),
        }
    }
}

/// An answer run's facts, and its records made rows (their text moved).
fn answer(
    run_id: String,
    mut records: crate::model::records::Records,
    place: &RunPlace,
    batch_id: i64,
    redact: bool,
) -> (Parsed, TableRows) {
    for run in &mut records.runs {
        run.content_sha256 = Some(place.content.clone());
        run.shard = place.shard.map(str::to_string);
    }
    let mut layout = LayoutCounts::default();
    for run in &records.runs {
        match run.layout_reading.as_deref() {
            Some("runs root") => layout.from_runs_root += 1,
            Some("guessed") => layout.guessed += 1,
            _ => {}
        }
    }
    let mut grading = GradingCounts::default();
    super::seh::count_grading(&records, &mut grading);
    let facts = AnswerFacts {
        run_id,
        content: place.content.clone(),
        errors: std::mem::take(&mut records.errors),
        releases: records
            .runs
            .iter()
            .map(|r| r.release_label.clone())
            .collect(),
        unit_format: records
            .runs
            .first()
            .map(|run| run.source_format.clone())
            .unwrap_or_else(|| formats::SEH.into()),
        layout,
        grading,
    };
    let rows = writer::into_table_rows(records, batch_id, redact);
    (Parsed::Answer(facts), rows)
}

/// The changed run directories handed out a chunk at a time, the list
/// shrinking as it goes, where an iterator over it would hold the whole
/// list to the end.
struct Chunks<T> {
    /// In reverse order, so a chunk is split off the end.
    rest: Vec<T>,
}

/// A chunk's run directories with their files, those let go after the
/// change check listed again (on the reading threads), in plan order.
fn listed(chunk: Vec<ChangedRun>, roots: &[std::path::PathBuf]) -> Vec<Unit> {
    let found: Vec<Arc<Path>> = chunk
        .iter()
        .filter(|run| matches!(run, ChangedRun::Found { .. }))
        .map(|run| run.path().clone())
        .collect();
    let mut again = discover::run_dirs_again(&found, roots).into_iter();
    chunk
        .into_iter()
        .map(|run| match run {
            ChangedRun::Listed(unit) => unit,
            ChangedRun::Found { path, .. } => again.next().unwrap_or(Unit {
                kind: UnitKind::RunDir,
                path,
                files: Vec::new(),
            }),
        })
        .collect()
}

/// Every file of `units`, where it is, with its size.
fn files_of(units: &[Unit]) -> Vec<(std::path::PathBuf, u64)> {
    let files = units.iter().flat_map(|unit| &unit.files);
    files.map(|f| (f.path(), f.size)).collect()
}

impl<T> Chunks<T> {
    fn new(mut runs: Vec<T>) -> Chunks<T> {
        runs.reverse();
        Chunks { rest: runs }
    }

    /// The next `n` directories in plan order (fewer at the end).
    fn next(&mut self, n: usize) -> Vec<T> {
        let mut chunk = self.rest.split_off(self.rest.len().saturating_sub(n));
        chunk.reverse();
        // Halving steps: the copies add up to one pass over the list.
        if self.rest.len() < self.rest.capacity() / 2 {
            self.rest.shrink_to_fit();
        }
        chunk
    }
}

/// `runs`: the plan's changed run directories, taken from it so that each
/// chunk's units (paths, file lists) are freed once it is written.
pub(super) fn parse_and_append(
    plan: &Plan,
    runs: Vec<ChangedRun>,
    ctx: &RunContext,
    conn: &Connection,
    mut batch: Option<&mut BatchWriter>,
    opts: &IngestOptions,
    clock: &mut Timings,
) -> Result<RunDirs> {
    let bar = progress_bar(opts.progress, runs.len(), "parsing");
    let errors_so_far = AtomicUsize::new(0);
    let batch_id = batch.as_ref().map_or(0, |b| b.batch_id());
    let redact = !opts.no_redact;
    // Parse one chunk on all cores, each run's rows built (and redacted) there too.
    let parse_chunk = |chunk: &[Unit]| -> Vec<ParsedRun> {
        chunk
            .par_iter()
            .map(|unit| {
                let parsed = parse_one(unit, ctx, batch_id, redact, &opts.limits);
                let new_errors = parsed.outcome.error_count();
                if new_errors > 0 {
                    let total = errors_so_far.fetch_add(new_errors, Ordering::Relaxed) + new_errors;
                    bar.set_message(format!("parsing ({total} errors)"));
                }
                bar.inc(1);
                parsed
            })
            .collect()
    };
    let mut out = RunDirs::default();
    let mut replaced: HashSet<u64> = runs
        .iter()
        .map(|run| dir_hash(&run.path().display().to_string()))
        .collect();
    replaced.extend(plan.stale_phantoms.iter().map(|p| dir_hash(p)));
    if opts.prune {
        replaced.extend(plan.units_missing.iter().map(|p| dir_hash(p)));
    }
    let mut owners = IdentityOwners {
        host: &opts.host,
        this_batch: HashMap::new(),
        in_chunk: Vec::new(),
        unnamed: Vec::new(),
        conn,
        stored: HashMap::new(),
        loaded: HashSet::new(),
        replaced,
        stored_dirs: HashMap::new(),
        named: HashSet::new(),
        reported_replaced: Vec::new(),
    };
    let roots = &plan.dir_roots[..];
    std::thread::scope(|scope| -> Result<()> {
        let mut units = Chunks::new(runs);
        let parse_chunk = &parse_chunk;
        let mut listing_ahead: Option<std::thread::ScopedJoinHandle<Vec<Unit>>> = None;
        let mut spawn_next = || {
            let chunk = match listing_ahead.take() {
                Some(handle) => handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                None => listed(units.next(RUN_CHUNK), roots),
            };
            // The chunk after it is listed again and read into the page
            // cache meanwhile, on the reading threads: its parse then waits
            // on no disk (and on the reading ahead not at all).
            let next = units.next(RUN_CHUNK);
            if !next.is_empty() {
                listing_ahead = Some(scope.spawn(move || {
                    let ahead = listed(next, roots);
                    let files = files_of(&ahead);
                    scope.spawn(move || crate::sys::readers::prefetch(&files));
                    ahead
                }));
            }
            (!chunk.is_empty()).then(|| {
                scope.spawn(move || {
                    let parsed = parse_chunk(&chunk);
                    (chunk, parsed)
                })
            })
        };
        let mut pending = spawn_next();
        let mut chunks_done = 0usize;
        while let Some(handle) = pending.take() {
            let (chunk, parsed) = handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            pending = spawn_next();
            clock.mark("parse run dirs (not overlapped)");
            let (rows, files) = collect_chunk(&chunk, parsed, ctx, &mut owners, &mut out)?;
            out.files_parsed += files.len();
            chunks_done += 1;
            if chunks_done.is_multiple_of(GIVE_BACK_EVERY) {
                // The walk's lists of the units written are freed by now;
                // the memory budget's next reading then finds them gone.
                crate::sys::memory::give_back_from_readers();
            }
            out.reported_replaced += owners.reported_replaced.len() as u64;
            let reported_replaced = std::mem::take(&mut owners.reported_replaced);
            if let Some(b) = batch.as_deref_mut() {
                b.replace_reported(reported_replaced)?;
                b.append_prepared(rows)?;
                b.append_source_files(&files)?;
                owners.written();
                b.rebalance_memory()?;
            }
            clock.mark("append run dirs");
        }
        Ok(())
    })?;
    bar.finish_and_clear();
    if let Some(b) = batch {
        out.errors.extend(owners.name_unnamed(b)?);
    }
    Ok(out)
}

/// What the batch adds to a run's row: the digest of its files and its shard.
struct RunPlace<'a> {
    content: String,
    shard: Option<&'a str>,
}

/// A run's content: sha256 over each of its files' key under the run folder
/// (`file_key`) and sha256, in key order. Equal digests are the same files,
/// wherever the tree sits.
fn content_digest(shas: &HashMap<String, String>) -> String {
    use sha2::{Digest, Sha256};
    let mut keys: Vec<&String> = shas.keys().collect();
    keys.sort();
    let mut hasher = Sha256::new();
    for key in keys {
        hasher.update(key.as_bytes());
        hasher.update(b"\t");
        hasher.update(shas[key].as_bytes());
        hasher.update(b"\n");
    }
    format!("{:x}", hasher.finalize())
}

/// Read one run directory's declared files and parse them with its adapter.
fn parse_one(
    unit: &Unit,
    ctx: &RunContext,
    batch_id: i64,
    redact: bool,
    limits: &json::ReadLimits,
) -> ParsedRun {
    if unit.kind == UnitKind::RunDir && unit.files.is_empty() {
        // The walk found it with a file at least: it was gone, or no longer
        // a run directory, when listed again to be read.
        return ParsedRun {
            shas: HashMap::new(),
            read_errors: Vec::new(),
            outcome: Parsed::Rejected(vec![IngestErrorRec::new(
                unit.path.display().to_string(),
                ErrorKind::Unreadable,
                "this run directory was gone, or held no run's files, when it was read after the walk found it; its rows stored before are removed: ingest again once it is back",
            )]),
            rows: Vec::new(),
        };
    }
    let (files, shas, read_errors) = load_run_files(unit, limits);
    let place = RunPlace {
        content: content_digest(&shas),
        shard: ctx.shard,
    };
    let outcome = match unit.kind {
        UnitKind::Phantom => formats::seh::run_dir::parse_phantom(&unit.path, ctx),
        _ => formats::parse_run_dir(&unit.path, &files, ctx),
    };
    let (outcome, rows) = match outcome {
        RunOutcome::Answer { run_id, records } => answer(run_id, records, &place, batch_id, redact),
        RunOutcome::TriggerTrace(mut records) => {
            let errors = std::mem::take(&mut records.errors);
            let rows = writer::into_table_rows(records, batch_id, redact);
            (Parsed::TriggerTrace(errors), rows)
        }
        RunOutcome::Rejected(records) => (Parsed::Rejected(records.errors), Vec::new()),
    };
    ParsedRun {
        shas,
        read_errors,
        outcome,
        rows,
    }
}

/// Which directory holds each run identity: two directories claiming one
/// (case, model, arm, repetition) would pair the wrong runs. Held compactly,
/// one claim a run: an identity as its 128 bits, a stored run's
/// directory as a hash; directories are read in full only for a release
/// where a claim clashes, to name them.
struct IdentityOwners<'a> {
    /// identity -> the directory that claimed it, until that directory's
    /// rows are in the batch (None then: the store names it if a clash needs
    /// it), so the paths are not held through the parse. A dry run
    /// writes nothing and keeps them all.
    this_batch: HashMap<u128, Option<Arc<Path>>>,
    /// The identities claimed since the last chunk was written.
    in_chunk: Vec<u128>,
    /// Clashes with a directory already written: named from the batch's
    /// rows once the parse is done (one query for all of them).
    unnamed: Vec<UnnamedClash>,
    conn: &'a Connection,
    /// identity -> the stored run of each release in `loaded`: an identity
    /// names its release, so only the releases this batch writes can clash,
    /// and a new release loads nothing.
    stored: HashMap<u128, StoredRun>,
    /// This machine's host name: a stored run read here from the same
    /// folder is this tree's own (replaced when changed).
    host: &'a str,
    loaded: HashSet<String>,
    /// Hashes of the run directories whose stored rows this batch replaces:
    /// their stored identities are free (a phantom gives way to the folder
    /// that appeared).
    replaced: HashSet<u64>,
    /// identity -> run_dir of the stored runs of the releases in `named`.
    stored_dirs: HashMap<u128, String>,
    named: HashSet<String>,
    /// Runs a report defined whose folders this batch claimed, since the
    /// last chunk was written: their rows go before the folders' come.
    reported_replaced: Vec<String>,
}

/// A stored run as a claim compares it, held compactly.
#[derive(Clone, Copy)]
struct StoredRun {
    /// Hash of its run_dir.
    dir: u64,
    /// Read on this host (or before hosts were recorded).
    here: bool,
    /// Its content digest's first 128 bits (None: stored before digests).
    content: Option<u128>,
    batch_id: i64,
    /// A report defined it (its folder was never read): the folder replaces it.
    reported: bool,
}

/// A run identity claimed for a directory.
enum Claim {
    Granted,
    /// The store holds this run, read from another place with the same
    /// content: not stored again.
    AlreadyStored(i64),
    /// Another tree's run with other content holds it: the batch is refused.
    HeldElsewhere(HeldElsewhere),
    /// Another directory holds it: the error naming it, or None when it is
    /// named once the parse is done (`IdentityOwners::name_unnamed`).
    Refused(Option<IngestErrorRec>),
}

/// A run refused because a directory written earlier in the batch holds
/// its identity.
struct UnnamedClash {
    run_id: String,
    release: String,
    dir: String,
}

fn identity_clash(dir: String, other: &str, release: &str) -> IngestErrorRec {
    IngestErrorRec::new(
        dir,
        ErrorKind::IdentityClash,
        format!(
            "same run identity as {other} in release '{release}'; ingest the other tree with a different --release"
        ),
    )
}

/// A run id's 128 bits (ids are 32 hex digits; anything else is hashed).
fn identity_bits(run_id: &str) -> u128 {
    u128::from_str_radix(run_id, 16).unwrap_or_else(|_| {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(run_id.as_bytes());
        u128::from_be_bytes(digest[..16].try_into().expect("16 bytes"))
    })
}

fn dir_hash(dir: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    dir.hash(&mut h);
    h.finish()
}

impl IdentityOwners<'_> {
    /// Claim `run_id` for the run directory `path`, or the clash with the
    /// directory that holds it: named now, or once the parse is done when
    /// that directory's rows are already written.
    fn claim(
        &mut self,
        run_id: &str,
        content: &str,
        release: &str,
        path: &Arc<Path>,
    ) -> Result<Claim> {
        self.load(release)?;
        let bits = identity_bits(run_id);
        let dir = path.display().to_string();
        let other = match self.this_batch.get(&bits) {
            Some(Some(first)) => Some(first.display().to_string()),
            Some(None) => {
                self.unnamed.push(UnnamedClash {
                    run_id: run_id.to_string(),
                    release: release.to_string(),
                    dir,
                });
                return Ok(Claim::Refused(None));
            }
            None => match self.stored.get(&bits).copied() {
                // A run a report defined: its folder, here at last, replaces it.
                Some(held) if held.reported => {
                    self.reported_replaced.push(run_id.to_string());
                    None
                }
                // This tree's own run, changed in place: replaced.
                Some(held) if held.here && held.dir == dir_hash(&dir) => None,
                // Its folder's rows are replaced by this batch: free.
                Some(held) if held.here && self.replaced.contains(&held.dir) => None,
                Some(held) if held.content == Some(identity_bits(content)) => {
                    return Ok(Claim::AlreadyStored(held.batch_id));
                }
                Some(_) => {
                    let mut other = self.stored_dir(bits, release)?;
                    if other == dir {
                        other = format!("{other} as another host read it");
                    }
                    return Ok(Claim::HeldElsewhere(HeldElsewhere {
                        dir,
                        release: release.to_string(),
                        other,
                    }));
                }
                None => None,
            },
        };
        match other {
            Some(other) => Ok(Claim::Refused(Some(identity_clash(dir, &other, release)))),
            None => {
                self.this_batch.insert(bits, Some(path.clone()));
                self.in_chunk.push(bits);
                Ok(Claim::Granted)
            }
        }
    }

    /// The chunk's rows are in the batch: its directories' paths are let go.
    fn written(&mut self) {
        for bits in self.in_chunk.drain(..) {
            self.this_batch.insert(bits, None);
        }
    }

    /// The clashes with directories written earlier in the batch, named
    /// from the batch's rows.
    fn name_unnamed(&mut self, batch: &mut BatchWriter) -> Result<Vec<IngestErrorRec>> {
        let unnamed = std::mem::take(&mut self.unnamed);
        let dirs = batch.run_dirs_of(unnamed.iter().map(|c| c.run_id.clone()))?;
        Ok(unnamed
            .into_iter()
            .map(|c| {
                let other = dirs
                    .get(&c.run_id)
                    .map_or("another directory", |d| d.as_str());
                identity_clash(c.dir, other, &c.release)
            })
            .collect())
    }

    /// The stored runs of `release`, read the first time it is claimed in.
    fn load(&mut self, release: &str) -> Result<()> {
        if self.loaded.insert(release.to_string()) {
            let mut stmt = self.conn.prepare(batch_sql("stored_runs_of_release"))?;
            let mut rows = stmt.query([self.host, release])?;
            while let Some(r) = rows.next()? {
                let content: Option<String> = r.get(2)?;
                self.stored.insert(
                    identity_bits(&r.get::<_, String>(0)?),
                    StoredRun {
                        dir: dir_hash(&r.get::<_, String>(1)?),
                        content: content.as_deref().map(identity_bits),
                        batch_id: r.get(3)?,
                        here: r.get::<_, Option<bool>>(4)?.unwrap_or(true),
                        reported: r.get(5)?,
                    },
                );
            }
        }
        Ok(())
    }

    /// The directory a stored run of `release` was read from, to name it.
    fn stored_dir(&mut self, bits: u128, release: &str) -> Result<String> {
        if self.named.insert(release.to_string()) {
            let dirs = &mut self.stored_dirs;
            each_stored_run(self.conn, release, |bits, dir| {
                dirs.insert(bits, dir);
            })?;
        }
        Ok(self.stored_dirs.get(&bits).cloned().unwrap_or_default())
    }
}

/// Each stored run of `release`: its identity's bits and its directory.
fn each_stored_run(
    conn: &Connection,
    release: &str,
    mut each: impl FnMut(u128, String),
) -> Result<()> {
    let mut stmt = conn.prepare(batch_sql("stored_run_dirs_of_release"))?;
    let mut rows = stmt.query([release])?;
    while let Some(r) = rows.next()? {
        each(identity_bits(&r.get::<_, String>(0)?), r.get(1)?);
    }
    Ok(())
}

/// A parsed chunk's rows and source files, in directory order; errors,
/// trigger-trace directories and runs counted into `out`.
/// A folder's files are recorded for its run's release (a trigger trace
/// folder's: the batch's) and the batch's shard.
fn collect_chunk(
    chunk: &[Unit],
    parsed: Vec<ParsedRun>,
    ctx: &RunContext,
    owners: &mut IdentityOwners,
    out: &mut RunDirs,
) -> Result<(TableRows, Vec<SourceFileRec>)> {
    let mut rows: TableRows = Vec::new();
    let mut files = Vec::new();
    for (unit, p) in chunk.iter().zip(parsed) {
        out.errors.extend(p.read_errors);
        let dir = unit.path.display().to_string();
        let (unit_format, release) = match p.outcome {
            Parsed::TriggerTrace(errors) => {
                out.trigger_trace_dirs += 1;
                out.errors.extend(errors);
                (formats::SEH.to_string(), ctx.release.to_string())
            }
            Parsed::Rejected(errors) => {
                out.errors.extend(errors);
                continue;
            }
            Parsed::Answer(mut facts) => {
                out.errors.append(&mut facts.errors);
                let release = facts.releases.first().map(String::as_str);
                match owners.claim(
                    &facts.run_id,
                    &facts.content,
                    release.unwrap_or(""),
                    &unit.path,
                )? {
                    Claim::Granted => {}
                    Claim::Refused(clash) => {
                        out.errors.extend(clash);
                        continue;
                    }
                    Claim::AlreadyStored(batch_id) => {
                        out.already_stored += 1;
                        out.already_stored_by.insert(batch_id);
                        continue;
                    }
                    Claim::HeldElsewhere(held) => {
                        out.held_elsewhere.push(held);
                        continue;
                    }
                }
                out.runs_written += facts.releases.len() as u64;
                let release = facts
                    .releases
                    .first()
                    .cloned()
                    .unwrap_or_else(|| ctx.release.to_string());
                out.releases.extend(facts.releases);
                out.layout.add(&facts.layout);
                out.grading.add(&facts.grading);
                (facts.unit_format, release)
            }
        };
        merge_rows(&mut rows, p.rows);
        for info in &unit.files {
            let path = info.path();
            let rel = file_key(&unit.path, &path);
            let Some(sha) = p.shas.get(&rel) else {
                continue;
            };
            let name = info.name().to_string_lossy();
            let path = path.display().to_string();
            files.push(SourceFileRec {
                print: file_print(&path, info.size as i64, info.mtime_ns),
                path,
                sha256: sha.clone(),
                size_bytes: info.size as i64,
                mtime_ns: info.mtime_ns,
                kind: run_files::kind_of(&name).to_string(),
                source_format: unit_format.clone(),
                owner_key: dir.clone(),
                release_label: release.clone(),
                shard: ctx.shard.map(str::to_string),
            });
        }
    }
    Ok((rows, files))
}

/// Add one run's rows to the chunk's, table by table.
fn merge_rows(into: &mut TableRows, rows: TableRows) {
    if into.is_empty() {
        *into = rows;
        return;
    }
    for (all, mut more) in into.iter_mut().zip(rows) {
        all.rows.append(&mut more.rows);
    }
}

/// The files of a changed run directory, read for parsing (the change check
/// keeps no bytes), keyed by `file_key`, with the sha256 of each file
/// as read; files that cannot be read become error rows.
fn load_run_files(
    unit: &Unit,
    limits: &json::ReadLimits,
) -> (RunFiles, HashMap<String, String>, Vec<IngestErrorRec>) {
    let mut files = RunFiles::new();
    let mut shas = HashMap::new();
    let mut errors = Vec::new();
    for info in &unit.files {
        let path = info.path();
        let rel = file_key(&unit.path, &path);
        match json::read_hashed(&path, limits) {
            Ok((bytes, sha)) => {
                files.insert(rel.clone(), bytes);
                shas.insert(rel, sha);
            }
            Err(e) => errors.push(IngestErrorRec::unreadable(path.display().to_string(), &e)),
        }
    }
    (files, shas, errors)
}

#[cfg(test)]
mod tests {
    use super::Chunks;

    #[test]
    fn chunks_come_in_plan_order_and_the_rest_shrinks() {
        let mut chunks = Chunks::new((0..10_000).collect::<Vec<u32>>());
        let mut seen = Vec::new();
        let mut capacities = Vec::new();
        loop {
            let chunk = chunks.next(2048);
            if chunk.is_empty() {
                break;
            }
            seen.extend(chunk);
            capacities.push(chunks.rest.capacity());
        }
        assert_eq!(seen, (0..10_000).collect::<Vec<u32>>());
        // 10,000 in chunks of 2048: 7952, 5904, 3856, 1808, 0 left; the list
        // is reallocated once fewer than half its slots are used.
        assert!(capacities[0] >= 7952);
        assert!(*capacities.last().unwrap() < 2048, "{capacities:?}");
    }
}
