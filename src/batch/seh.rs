//! The one seam where a batch does skill-eval-harness work beyond parsing
//! its files: runs graded again when their manifest case moved, phantom
//! runs for requested variants with no directory, the second pass of a
//! streamed benchmark report, and the count of how liftdb graded each
//! answer run. The generic stages call these at fixed points and know
//! nothing of the harness otherwise.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::counts::GradingCounts;
use super::plan::Plan;
use super::state::{self, StoredState};
use super::units::{ChangedRun, UnchangedRun};
use crate::ingest::discover::{self, Unit, UnitKind};
use crate::ingest::formats::seh::benchmark_stream::{self, ReportChanged, StreamedReport};
use crate::ingest::formats::SEH;
use crate::ingest::kernel::GradingContext;
use crate::model::records::Records;
use crate::store::writer::BatchWriter;
use crate::{Error, Result};

/// Run directories graded again that are listed at once to see they are
/// still there (their lists are let go before the next share).
const REGRADES_LISTED_AT_ONCE: usize = 4096;

impl From<ReportChanged> for Error {
    fn from(c: ReportChanged) -> Error {
        Error::ReportChanged {
            path: c.path,
            detail: c.detail,
        }
    }
}

/// Pass 2 of every streamed report: its rows' gradings appended a chunk at
/// a time.
pub(super) fn append_streamed_reports(
    reports: &[StreamedReport],
    batch: &mut BatchWriter,
) -> Result<()> {
    for report in reports {
        benchmark_stream::append_rows(report, &mut |rows| batch.append_owned(rows))?;
    }
    Ok(())
}

/// Unchanged run directories whose grading key moved (their manifest
/// case was edited or first ingested, the grader or a verdict flag
/// changed) are parsed again, so they are graded against the manifest
/// as it is now. Only runs of this call's release: regrading must not
/// move a run to another release.
pub(super) fn add_regrades(
    plan: &mut Plan,
    conn: &duckdb::Connection,
    grading: &GradingContext,
) -> Result<()> {
    // A case's key hashes its whole manifest entry: computed once per
    // case, not once per run (many runs share a case).
    // Each case a stored key of which is not its key now, with that key.
    let moved_cases: HashMap<String, Option<String>> =
        state::graded_case_keys(conn, &plan.release.label)?
            .into_iter()
            .filter_map(|(case_id, stored_key)| {
                let key = grading.key(&case_id);
                (key != stored_key).then_some((case_id, key))
            })
            .collect();
    if moved_cases.is_empty() {
        return Ok(());
    }
    // Compared as bytes, where a path's order parses it into
    // components at each comparison.
    let mut unchanged: Vec<&[u8]> = plan
        .unchanged_runs
        .iter()
        .map(|u| u.path.as_os_str().as_encoded_bytes())
        .collect();
    unchanged.sort_unstable();
    let mut moved: HashSet<String> = HashSet::new();
    state::each_graded_run(conn, &plan.release.label, |run_dir, case_id, stored_key| {
        let Some(key) = moved_cases.get(case_id) else {
            return;
        };
        if stored_key != key.as_deref() && unchanged.binary_search(&run_dir.as_bytes()).is_ok() {
            moved.insert(run_dir.to_string());
        }
    })?;
    drop(unchanged);
    let (regrade, mut keep): (Vec<UnchangedRun>, Vec<UnchangedRun>) =
        std::mem::take(&mut plan.unchanged_runs)
            .into_iter()
            .partition(|run| moved.contains(&run.path.display().to_string()));
    // Listed again as the walk found them, a share at a time (all of
    // them when a manifest's every case moved); one gone since, or no
    // longer a run directory, is left as stored.
    for share in regrade.chunks(REGRADES_LISTED_AT_ONCE) {
        let paths: Vec<Arc<Path>> = share.iter().map(|run| run.path.clone()).collect();
        let listed = discover::run_dirs_again(&paths, &plan.dir_roots);
        for (run, unit) in share.iter().zip(listed) {
            if unit.files.is_empty() {
                keep.push(run.clone());
                continue;
            }
            plan.counts.unchanged -= 1;
            plan.counts.files_unchanged -= run.files;
            plan.counts.regraded += 1;
            // Listed and read (and hashed) when its chunk is parsed,
            // like a new directory.
            plan.runs.push(ChangedRun::from(unit));
        }
    }
    plan.unchanged_runs = keep;
    Ok(())
}

/// A variant the manifests request with no directory, under a case or
/// model folder of a manifest case this call reads, is a phantom run:
/// the harness grades it as run 1 with no output (docs/grading.md §2.1).
/// Stored phantoms there whose variant now has a directory, or is no
/// longer requested, are replaced; stored ones still missing stay.
pub(super) fn add_phantoms(plan: &mut Plan, known: &StoredState, grading: &GradingContext) {
    let paths = plan
        .runs
        .iter()
        .map(|run| &**run.path())
        .chain(plan.unchanged_runs.iter().map(|u| &*u.path));
    // A variant's runs come one after another and share their root:
    // worked out once for them.
    let mut last_variant: Option<&Path> = None;
    // The variant directories holding runs: known to be there without a
    // stat per root.
    let mut with_runs: HashSet<&Path> = HashSet::new();
    let roots: BTreeSet<PathBuf> = paths
        .filter(|p| {
            let variant = variant_dir(p);
            let new = last_variant != Some(variant);
            last_variant = Some(variant);
            new && with_runs.insert(variant)
        })
        .filter_map(|p| variant_root(p, grading))
        .collect();
    let mut phantoms = Vec::new();
    for root in &roots {
        for variant in &grading.variants {
            let path = root.join(variant);
            let key = path.display().to_string();
            let exists = with_runs.contains(path.as_path()) || path.exists();
            match (exists, known.phantoms.contains(&key)) {
                (true, true) => plan.stale_phantoms.push(key),
                (false, false) => phantoms.push(Unit {
                    kind: UnitKind::Phantom,
                    path: Arc::from(path),
                    files: Vec::new(),
                }),
                _ => {}
            }
        }
    }
    plan.counts.phantoms += phantoms.len();
    plan.runs
        .extend(phantoms.into_iter().map(ChangedRun::Listed));
    let unrequested = known.phantoms.iter().filter(|p| {
        let p = Path::new(p);
        p.parent().is_some_and(|root| roots.contains(root))
            && p.file_name()
                .is_none_or(|v| !grading.variants.iter().any(|r| v == r.as_str()))
    });
    plan.stale_phantoms.extend(unrequested.cloned());
}

/// A run directory's variant: the folder above a `run-N` directory, else
/// the directory itself.
fn variant_dir(run_dir: &Path) -> &Path {
    let is_run_n = run_dir
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("run-"));
    match (is_run_n, run_dir.parent()) {
        (true, Some(parent)) => parent,
        _ => run_dir,
    }
}

/// The folder a run directory's variant sits in — the case folder, or a
/// model folder inside it — when it belongs to a manifest case.
fn variant_root(run_dir: &Path, grading: &GradingContext) -> Option<PathBuf> {
    let root = variant_dir(run_dir).parent()?;
    let is_case = |p: Option<&Path>| {
        p.and_then(Path::file_name)
            .is_some_and(|n| grading.cases.contains_key(n.to_string_lossy().as_ref()))
    };
    (is_case(Some(root)) || is_case(root.parent())).then(|| root.to_path_buf())
}

/// How liftdb graded one skill-eval-harness answer run (other formats carry their own grades).
pub(super) fn count_grading(r: &Records, counts: &mut GradingCounts) {
    let is_seh_answer = r.runs.first().is_some_and(|run| {
        run.source_format == SEH && run.population.as_deref() != Some("trigger")
    });
    if !is_seh_answer {
        return;
    }
    if r.runs
        .first()
        .is_some_and(|run| run.repetition_source == "phantom")
    {
        counts.phantoms += 1;
        return;
    }
    let Some(g) = r
        .gradings
        .iter()
        .find(|g| g.origin.as_deref() == Some("liftdb"))
    else {
        counts.no_manifest += 1;
        return;
    };
    let has = |availability: &str| {
        r.assertions
            .iter()
            .any(|a| a.grading_id == g.grading_id && a.availability == availability)
    };
    if has("unavailable") {
        counts.unavailable += 1;
    } else if has("scripts_not_allowed") {
        counts.scripts_not_run += 1;
    } else {
        counts.graded += 1;
    }
    if g.deferred_judge_tasks.is_some_and(|n| n > 0) {
        counts.judge_deferred += 1;
    }
}
