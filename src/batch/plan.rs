//! Stage 1, plan: find the units under the given paths, decide which
//! changed (size+mtime first, then sha256), find the units that vanished
//! from disk, and choose the batch's release.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use super::options::IngestOptions;
use super::progress::progress_bar;
use super::units::{ChangedRun, ReadUnit, UnchangedRun};
use crate::batch::release;
use crate::batch::state::{self, file_key, sha_bytes, FilesPrint, OwnerFiles, StoredState};
use crate::ingest::discover::{self, FileInfo, Unit, UnitKind};
use crate::ingest::formats::promptfoo;
use crate::ingest::formats::seh::benchmark_stream::stream_from_bytes;
use crate::json;
use crate::model::errors::{ErrorKind, IngestErrorRec};
use crate::store::writer::BatchInfo;
use crate::sys::timings::Timings;
use crate::Result;

pub(crate) struct Release {
    pub(crate) label: String,
    /// How it was chosen: --release, previous ingest, graded runs, skill_tree_hash, generated_at, default.
    pub(crate) source: &'static str,
}

impl Release {
    /// Named by the user (--release): it then holds every run of the call,
    /// skill-creator iterations included.
    pub(crate) fn explicit(&self) -> bool {
        self.source == "--release"
    }
}

/// What a unit the batch replaces is: its rows of which release go
/// depends on it (`StoredState::replaced`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Doomed {
    /// A manifest or report parsed again.
    Loose,
    /// A run folder found changed.
    RunDir,
    /// A stored phantom run whose variant now has a folder or is no longer requested.
    Phantom,
    /// A unit gone from disk (`--prune`).
    Missing,
}

/// Counts of the change check, for the summary.
#[derive(Default)]
pub(crate) struct UnitCounts {
    pub(crate) files_seen: usize,
    pub(crate) files_unchanged: usize,
    pub(crate) added: usize,
    pub(crate) replaced: usize,
    pub(crate) unchanged: usize,
    /// Unchanged run directories graded again (their grading key moved).
    pub(crate) regraded: usize,
    /// Phantom runs added: requested variants with no directory.
    pub(crate) phantoms: usize,
}

/// What the later stages work from.
pub(crate) struct Plan {
    pub(crate) paths: Vec<String>,
    /// The directories given, canonicalized.
    pub(crate) dir_roots: Vec<PathBuf>,
    /// Files given by name (an unrecognised one is an error, not a skip).
    pub(crate) explicit_files: HashSet<PathBuf>,
    /// Every loose file found, changed or not.
    pub(crate) loose_unit_paths: Vec<Arc<Path>>,
    /// The directories given in which a run directory was found.
    pub(crate) roots_with_runs: HashSet<PathBuf>,
    /// Changed manifests and reports (with the bytes the change check read).
    pub(crate) loose: Vec<ReadUnit>,
    /// Changed run directories: their files are listed and read when their
    /// chunk is parsed, so a path is all each holds here.
    pub(crate) runs: Vec<ChangedRun>,
    /// Run directories unchanged on disk (they may still need grading again).
    pub(crate) unchanged_runs: Vec<UnchangedRun>,
    /// Of them, those stored for another release than the one `--release`
    /// names: written as this release's too, unless nothing else of it is
    /// (the relabel case, batch/mod.rs).
    pub(crate) unchanged_elsewhere: Vec<ChangedRun>,
    /// Stored phantom runs whose variant now has a directory or is no longer requested.
    pub(crate) stale_phantoms: Vec<String>,
    pub(crate) release: Release,
    pub(crate) counts: UnitCounts,
    /// Previously ingested units under the given paths that are gone from disk.
    pub(crate) units_missing: Vec<String>,
    /// Unchanged files whose mtime moved: path, mtime, sha256.
    pub(crate) touched: Vec<(String, i64, String)>,
    /// Files neither in a run directory nor JSON (READMEs, HTML views, ...).
    pub(crate) skipped_files: Vec<String>,
    pub(crate) errors: Vec<IngestErrorRec>,
    pub(crate) limits: json::ReadLimits,
}

impl Plan {
    /// Bytes on disk of the changed units' files: what this batch writes
    /// rows from (the store grows by less than this).
    pub(crate) fn changed_bytes(&self) -> u64 {
        let loose = self.loose.iter().flat_map(|read| &read.unit.files);
        loose.map(|f| f.size).sum::<u64>() + self.runs.iter().map(ChangedRun::bytes).sum::<u64>()
    }
}

pub(crate) fn plan(
    paths: &[PathBuf],
    known: &StoredState,
    conn: &duckdb::Connection,
    opts: &IngestOptions,
    clock: &mut Timings,
) -> Result<Plan> {
    // Files named on the command line, canonicalized once.
    let explicit_files: HashSet<PathBuf> = paths
        .iter()
        .filter(|p| p.is_file())
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    let checker = Checker {
        known,
        conn,
        opts,
        held: HeldBytes::default(),
        bar: progress_bar(opts.progress, 0, "reading"),
    };
    // Each slice of the walk is checked as it is found: an unchanged run
    // directory's file list is let go at once, so what the walk holds is a
    // slice's, not the tree's.
    let mut found = Found::default();
    let roots = discover::discover_in_slices::<crate::Error>(paths, &mut |slice| {
        clock.mark("discover");
        found.take(slice, &checker)?;
        clock.mark("change check");
        Ok(())
    })?;
    checker.bar.finish_and_clear();
    let Found {
        mut loose,
        mut loose_unit_paths,
        mut runs,
        mut unchanged_runs,
        touched,
        counts,
        mut ignored,
        mut walk_errors,
        owners_found,
        unchanged_elsewhere,
    } = found;
    // In the order one walk of the whole tree gives: loose files and what
    // the walk met by root, then path; run directories by path.
    loose.sort_by(|a, b| (a.0, &a.1.unit.path).cmp(&(b.0, &b.1.unit.path)));
    loose_unit_paths.sort();
    ignored.sort();
    runs.sort_by(|a, b| a.path().cmp(b.path()));
    unchanged_runs.sort_by(|a, b| a.path.cmp(&b.path));
    walk_errors.sort_by(|a, b| (a.0, Path::new(&a.1.path)).cmp(&(b.0, Path::new(&b.1.path))));
    let mut errors = roots.errors;
    errors.extend(walk_errors.into_iter().map(|(_, e)| e));
    let loose: Vec<ReadUnit> = loose.into_iter().map(|(_, read)| read).collect();
    let loose_unit_paths: Vec<Arc<Path>> = loose_unit_paths.into_iter().map(|(_, p)| p).collect();

    let mut skipped_files = Vec::new();
    for (_, path) in &ignored {
        // A promptfoo CSV alone cannot be read faithfully: say so instead of skipping it.
        if promptfoo::is_results_csv(path) && !promptfoo::has_json_sibling(path) {
            errors.push(IngestErrorRec::new(
                path.display().to_string(),
                ErrorKind::CsvOnly,
                "promptfoo CSV export has no per-assertion results or token usage; re-export with -o results.json (or .jsonl) and ingest that",
            ));
        } else if std::fs::canonicalize(path).is_ok_and(|p| explicit_files.contains(&p)) {
            // Given by name: an answer is owed, not a skip counted in a note.
            errors.push(IngestErrorRec::new(
                path.display().to_string(),
                ErrorKind::Unrecognized,
                crate::ingest::loose::UNRECOGNIZED,
            ));
        } else {
            skipped_files.push(path.display().to_string());
        }
    }
    let run_paths = || {
        runs.iter()
            .map(|u| &**u.path())
            .chain(unchanged_runs.iter().map(|u| &*u.path))
    };
    let roots_with_runs: HashSet<PathBuf> = roots
        .dir_roots
        .iter()
        .filter(|root| run_paths().any(|p| p.starts_with(root)))
        .cloned()
        .collect();
    let mut units_missing = match owners_found == known.owners.len() {
        // A re-ingest finds every stored owner: none is missing.
        true => Vec::new(),
        false => {
            let found_paths = loose_unit_paths.iter().map(|p| &**p).chain(run_paths());
            missing_units(found_paths, &roots.dir_roots, conn)?
        }
    };
    // Only those this batch would replace: a folder re-used for another
    // release keeps that release's runs, gone from disk or not.
    units_missing.retain(|m| known.owners.replaced_by_batch(m));
    // The file lists were made on the reading threads: they take back
    // what this one freed only when asked.
    crate::sys::memory::give_back_now();
    let release = match &opts.release {
        Some(label) => Release {
            label: label.clone(),
            source: "--release",
        },
        None => {
            let given = release::Given {
                loose: &loose,
                runs: &runs,
                unchanged_runs: &unchanged_runs,
                roots: &roots.dir_roots,
            };
            let (label, source) = release::derive(&given, known, conn);
            Release { label, source }
        }
    };
    // Changed run folders: a replacement of this release's stored run, or
    // a new one (another release's folder at the same path is not replaced).
    let mut counts = counts;
    for run in &runs {
        let doomed = known.replaced(
            Doomed::RunDir,
            run.path().display().to_string(),
            &release,
            opts.shard.as_deref(),
        );
        match doomed {
            Some(_) => counts.replaced += 1,
            None => counts.added += 1,
        }
    }
    // Unchanged folders of another release: stored as this one's too when
    // --release names it (a folder on disk belongs to the release it is
    // ingested as); the relabel case decides first (batch/mod.rs).
    let unchanged_elsewhere = match release.explicit() {
        true => unchanged_elsewhere
            .into_iter()
            .filter(|(stored, _)| stored.as_deref() != Some(release.label.as_str()))
            .map(|(_, run)| run)
            .collect(),
        false => Vec::new(),
    };
    // A loose file that could not be read stays out, with an error row (run
    // directories are read again, and reported, when parsed).
    for read in &loose {
        for (info, reason) in &read.unreadable {
            errors.push(IngestErrorRec::unreadable(
                info.path().display().to_string(),
                reason,
            ));
        }
    }
    Ok(Plan {
        paths: paths.iter().map(|p| p.display().to_string()).collect(),
        explicit_files,
        dir_roots: roots.dir_roots,
        loose_unit_paths,
        roots_with_runs,
        loose,
        runs,
        unchanged_runs,
        unchanged_elsewhere,
        stale_phantoms: Vec::new(),
        release,
        counts,
        units_missing,
        touched,
        skipped_files,
        errors,
        limits: opts.limits,
    })
}

/// What the change check of every slice found, by kind; the loose files
/// and what the walk met tagged with their root, to be put in walk order.
#[derive(Default)]
struct Found {
    /// Changed manifests and reports.
    loose: Vec<(usize, ReadUnit)>,
    /// Every loose file found, changed or not.
    loose_unit_paths: Vec<(usize, Arc<Path>)>,
    /// Changed run directories (every run at a first ingest).
    runs: Vec<ChangedRun>,
    unchanged_runs: Vec<UnchangedRun>,
    touched: Vec<(String, i64, String)>,
    counts: UnitCounts,
    ignored: Vec<(usize, PathBuf)>,
    walk_errors: Vec<(usize, IngestErrorRec)>,
    /// Units found that the store holds: all of them, when none went missing.
    owners_found: usize,
    /// Unchanged run folders whose stored files are another release's or
    /// shard's (that release with each).
    unchanged_elsewhere: Vec<(Option<Arc<str>>, ChangedRun)>,
}

/// What a slice's change check reads from.
struct Checker<'a> {
    known: &'a StoredState,
    conn: &'a duckdb::Connection,
    opts: &'a IngestOptions,
    held: HeldBytes,
    bar: indicatif::ProgressBar,
}

impl Found {
    /// Check one slice's units and keep what the later stages need of them.
    fn take(&mut self, slice: discover::Slice, checker: &Checker) -> Result<()> {
        let discover::Slice {
            root,
            found: mut discovery,
        } = slice;
        let known = checker.known;
        let loose_owners: Vec<String> = discovery
            .units
            .iter()
            .filter(|u| u.kind == UnitKind::LooseFile)
            .map(|u| u.path.display().to_string())
            .filter(|owner| known.owners.contains(owner))
            .collect();
        if !loose_owners.is_empty() {
            let loose_stored = state::owner_files(
                checker.conn,
                &loose_owners,
                &known.owners,
                checker.opts.shard.as_deref(),
            )?;
            for unit in discovery
                .units
                .iter_mut()
                .filter(|u| u.kind == UnitKind::LooseFile)
            {
                let owner = unit.path.display().to_string();
                add_declared_files(unit, loose_stored.get(owner.as_str()));
            }
        }
        self.walk_errors
            .extend(discovery.errors.into_iter().map(|e| (root, e)));
        self.ignored
            .extend(discovery.ignored.into_iter().map(|p| (root, p)));
        self.loose_unit_paths.extend(
            discovery
                .units
                .iter()
                .filter(|u| u.kind == UnitKind::LooseFile)
                .map(|u| (root, u.path.clone())),
        );
        self.counts.files_seen += discovery.units.iter().map(|u| u.files.len()).sum::<usize>();
        checker.bar.inc_length(discovery.units.len() as u64);

        for Checked { check, stored } in check_units(discovery.units, checker)? {
            self.owners_found += usize::from(stored);
            match check {
                ChangeCheck::Changed(read) => match read.unit.kind {
                    UnitKind::LooseFile => {
                        let owner = read.unit.path.to_string_lossy();
                        match known.owners.replaced_by_batch(&owner) {
                            true => self.counts.replaced += 1,
                            false => self.counts.added += 1,
                        }
                        self.loose.push((root, read));
                    }
                    // Its list let go: made again a chunk ahead of its
                    // parse; counted once the release is known (`plan`).
                    _ => self.runs.push(ChangedRun::from(read.unit)),
                },
                ChangeCheck::Unchanged {
                    unit,
                    touched: moved,
                } => {
                    self.counts.unchanged += 1;
                    self.counts.files_unchanged += unit.files.len();
                    let owner = unit.path.to_string_lossy();
                    if unit.kind == UnitKind::RunDir && known.owners.of_other_release(&owner) {
                        let release = known.owners.release(&owner).map(Arc::<str>::from);
                        self.unchanged_elsewhere
                            .push((release, ChangedRun::found(&unit)));
                    }
                    if unit.kind == UnitKind::RunDir {
                        self.unchanged_runs.push(UnchangedRun {
                            files: unit.files.len(),
                            path: unit.path,
                        });
                    }
                    self.touched.extend(moved);
                }
            }
        }
        // The slice's file lists were made on the reading threads: they
        // take back what this one freed only when asked.
        crate::sys::memory::give_back_now();
        Ok(())
    }
}

/// A unit's change check, and whether the store holds files of its path:
/// looked up once (each lookup hashes the unit's path).
struct Checked {
    check: ChangeCheck,
    stored: bool,
}

/// Each unit's change check, in the units' order.
fn check_units(units: Vec<Unit>, checker: &Checker) -> Result<Vec<Checked>> {
    let Checker {
        known,
        conn,
        opts,
        held,
        bar,
    } = checker;
    // A manifest ingested before, for other releases than the one
    // --release names now, defines this release's cases too: read it again
    // (its rows of the other releases stay).
    // `--define-reported` reads every report again: one ingested before
    // beside its runs defined none of them.
    let new_release = |unit: &Unit, owner: &str| {
        (opts.define_reported && unit.kind == UnitKind::LooseFile)
            || opts.release.as_deref().is_some_and(|r| {
                known
                    .manifest_releases
                    .get(owner)
                    .is_some_and(|releases| !releases.contains(r))
            })
    };
    // The quick check: a unit whose files print as the stored ones is
    // unchanged, with nothing per file held or looked up.
    let (mut checks, stored): (
        Vec<Option<std::result::Result<ChangeCheck, Unit>>>,
        Vec<bool>,
    ) = units
        .into_par_iter()
        .map(|unit| {
            let owner = unit.path.to_string_lossy();
            let print = known.owners.print(&owner);
            if new_release(&unit, &owner) || print != Some(print_of(&unit)) {
                return (Some(Err(unit)), print.is_some());
            }
            bar.inc(1);
            let unchanged = ChangeCheck::Unchanged {
                unit,
                touched: Vec::new(),
            };
            (Some(Ok(unchanged)), true)
        })
        .unzip();
    // The others checked exactly against their stored files, loaded a
    // share of owners at a time, each result put in its unit's place.
    let mut pending: Vec<usize> = (0..checks.len())
        .filter(|at| matches!(checks[*at], Some(Err(_))))
        .collect();
    while !pending.is_empty() {
        let share: Vec<(usize, Unit)> = pending
            .split_off(pending.len().saturating_sub(OWNERS_CHECKED_AT_ONCE))
            .into_iter()
            .filter_map(|at| match checks[at].take() {
                Some(Err(unit)) => Some((at, unit)),
                _ => None,
            })
            .collect();
        let owners: Vec<String> = share
            .iter()
            .filter(|(at, _)| stored[*at])
            .map(|(_, unit)| unit.path.display().to_string())
            .collect();
        let stored = state::owner_files(conn, &owners, &known.owners, opts.shard.as_deref())?;
        let done: Vec<(usize, ChangeCheck)> = share
            .into_par_iter()
            .map(|(at, unit)| {
                let owner = unit.path.display().to_string();
                let force = new_release(&unit, &owner);
                let check =
                    read_if_changed(unit, stored.get(owner.as_str()), force, &opts.limits, held);
                bar.inc(1);
                (at, check)
            })
            .collect();
        for (at, check) in done {
            checks[at] = Some(Ok(check));
        }
    }
    let checks = checks.into_iter().zip(stored);
    Ok(checks
        .filter_map(|(check, stored)| match check {
            Some(Ok(check)) => Some(Checked { check, stored }),
            _ => None,
        })
        .collect())
}

impl Plan {
    /// Every changed unit is replaced whole (a run directory that is now
    /// rejected loses its stale rows too); vanished ones only with --prune.
    /// `runs`: the changed run directories, taken from the plan.
    pub(crate) fn doomed_units<'a>(
        &'a self,
        runs: &'a [ChangedRun],
        replaced_loose: &'a [String],
        prune: bool,
    ) -> impl Iterator<Item = (Doomed, String)> + 'a {
        let missing = match prune {
            true => &self.units_missing[..],
            false => &[],
        };
        let tagged =
            |kind: Doomed, paths: &'a [String]| paths.iter().map(move |p| (kind, p.clone()));
        tagged(Doomed::Loose, replaced_loose)
            .chain(
                runs.iter()
                    .map(|run| (Doomed::RunDir, run.path().display().to_string())),
            )
            .chain(tagged(Doomed::Phantom, &self.stale_phantoms))
            .chain(tagged(Doomed::Missing, missing))
    }

    pub(crate) fn batch_info(&self) -> BatchInfo<'_> {
        BatchInfo {
            release_label: &self.release.label,
            release_source: self.release.source,
            paths_json: serde_json::to_string(&self.paths).unwrap_or_else(|_| "[]".into()),
            files_seen: self.counts.files_seen as i64,
            files_changed: 0,
            files_unchanged: self.counts.files_unchanged as i64,
            refill: true,
            define_reported: false,
            host: "",
            shard: None,
            planned_after: &[],
        }
    }
}

/// A loose file's parse may read other files (promptfoo's evidence): the
/// ones it read last time join the unit, so a change to them is a change to
/// it (one that is gone now changes the file set, and so the unit).
fn add_declared_files(unit: &mut Unit, stored: Option<&OwnerFiles>) {
    let Some(stored) = stored else {
        return;
    };
    let mut declared: Vec<PathBuf> = stored
        .paths(&unit.path)
        .filter(|p| *p != *unit.path)
        .collect();
    declared.sort();
    for path in declared {
        if let Some(meta) = std::fs::metadata(&path).ok().filter(|m| m.is_file()) {
            unit.files.push(FileInfo::of(&path, &meta));
        }
    }
}

/// Units ingested before from under the given directories that are no
/// longer on disk (`found`: every unit found). Only asked of the store when
/// fewer stored owners were found than it holds under the paths given.
fn missing_units<'a>(
    found: impl Iterator<Item = &'a Path>,
    roots: &[PathBuf],
    conn: &duckdb::Connection,
) -> Result<Vec<String>> {
    let seen: HashSet<&Path> = found.collect();
    let mut missing = Vec::new();
    state::each_owner_under(conn, roots, |owner| {
        let path = Path::new(owner);
        if !seen.contains(path) && roots.iter().any(|r| path.starts_with(r)) && !path.exists() {
            missing.push(owner.to_string());
        }
    })?;
    missing.sort();
    Ok(missing)
}

/// Units whose stored files are loaded at once for the exact check.
const OWNERS_CHECKED_AT_ONCE: usize = 65_536;

/// The print of a unit's files as found, to compare with the stored one.
fn print_of(unit: &Unit) -> FilesPrint {
    let mut print = FilesPrint::default();
    let mut path = String::new();
    for file in &unit.files {
        path.clear();
        file.write_path(&mut path);
        print.add(&path, file.size as i64, file.mtime_ns);
    }
    print
}

/// The outcome of change detection for one unit.
enum ChangeCheck {
    /// The unit may have changed: a loose file's files read and hashed.
    Changed(ReadUnit),
    Unchanged {
        unit: Unit,
        /// Files whose mtime moved (their content did not).
        touched: Vec<(String, i64, String)>,
    },
}

/// The loose files' bytes kept from the change check for their parse, so
/// a file is read once. Past the budget a file's bytes are dropped and its
/// parse reads it again: many reports under the caps are never all held.
#[derive(Default)]
struct HeldBytes(std::sync::atomic::AtomicU64);

impl HeldBytes {
    const BUDGET: u64 = 128 << 20;

    /// Keep `bytes` if the budget allows; else empty them.
    fn keep_or_drop(&self, bytes: &mut Vec<u8>) {
        use std::sync::atomic::Ordering;
        let len = bytes.len() as u64;
        let before = self.0.fetch_add(len, Ordering::Relaxed);
        if before + len > Self::BUDGET {
            self.0.fetch_sub(len, Ordering::Relaxed);
            *bytes = Vec::new();
        }
    }
}

/// Decide whether a unit changed; read its files when it may have.
/// `force`: read and parse the unit even when its files are unchanged.
/// `stored`: the unit's files as the store holds them (None: new).
fn read_if_changed(
    unit: Unit,
    stored: Option<&OwnerFiles>,
    force: bool,
    limits: &json::ReadLimits,
    held: &HeldBytes,
) -> ChangeCheck {
    let key = |f: &FileInfo| file_key(&unit.path, &f.path());
    let stored_file = |f: &FileInfo| stored.and_then(|s| s.get(&key(f)));
    // Each file's stored row looked up once (a key is built per lookup).
    let matched: Vec<_> = unit.files.iter().map(|f| (f, stored_file(f))).collect();
    let same_set = stored.is_some_and(|files| {
        files.len() == unit.files.len() && matched.iter().all(|(_, k)| k.is_some())
    });
    let stat_same = same_set
        && matched
            .iter()
            .all(|(f, k)| k.is_some_and(|k| k.size == f.size as i64 && k.mtime_ns == f.mtime_ns));
    if stat_same && !force {
        return ChangeCheck::Unchanged {
            unit,
            touched: Vec::new(),
        };
    }
    if unit.kind == UnitKind::RunDir && stored.is_none() {
        // A run directory never seen before has nothing to compare against:
        // it is read (and hashed) once, when its chunk is parsed.
        return ChangeCheck::Changed(ReadUnit {
            unit,
            contents: Vec::new(),
            unreadable: Vec::new(),
        });
    }
    let mut contents = Vec::with_capacity(unit.files.len());
    let mut unreadable = Vec::new();
    for f in &unit.files {
        // A large report is only hashed here; its parse streams it from disk.
        let streamed = unit.kind == UnitKind::LooseFile && f.size >= stream_from_bytes();
        let read = match streamed {
            true => json::hash_file(&f.path()).map(|sha| (Vec::new(), sha)),
            false => json::read_hashed(&f.path(), limits),
        };
        match read {
            Ok((bytes, sha)) => contents.push((f.clone(), bytes, sha)),
            Err(e) => unreadable.push((f.clone(), e)),
        }
    }
    let content_same = unreadable.is_empty()
        && same_set
        && contents
            .iter()
            .all(|(f, _, sha)| stored_file(f).is_some_and(|k| k.sha256 == sha_bytes(sha)));
    if content_same && !force {
        let touched = contents
            .iter()
            .map(|(f, _, sha)| (f.path().display().to_string(), f.mtime_ns, sha.clone()))
            .collect();
        return ChangeCheck::Unchanged { unit, touched };
    }
    if unit.kind == UnitKind::RunDir {
        // Read again, and reported, when its chunk is parsed: holding every
        // changed run's bytes here would make memory grow with the tree.
        contents.clear();
        unreadable.clear();
    }
    for (_, bytes, _) in &mut contents {
        held.keep_or_drop(bytes);
    }
    ChangeCheck::Changed(ReadUnit {
        unit,
        contents,
        unreadable,
    })
}
