//! The ingest of one call, in five stages with typed hand-offs:
//! plan (discover, change check, missing units, release) → parse the loose
//! files (manifests and reports) → resolve (one definition per case and
//! suite, by priority; nothing-recognised errors) → write (one transaction:
//! loose rows, then run directories parsed and appended chunk by chunk) →
//! the summary, assembled from what each stage returned.

mod counts;
mod loose_files;
mod not_counted;
mod options;
mod plan;
mod progress;
mod release;
mod report_runs;
mod resolve;
mod runs;
mod seh;
pub(crate) mod state;
mod summary;
mod suspect;
mod units;

use std::path::PathBuf;

use crate::ingest::formats;
use crate::sqlfiles::batch_sql;
use crate::store::budget::MemoryBudget;
use crate::store::writer::{self, BatchInfo, BatchWriter};
use crate::store::{lake, Store};
use crate::sys::timings::Timings;
use crate::Result;

pub use counts::{GradingCounts, LayoutCounts};
pub use not_counted::NotCounted;
pub use options::IngestOptions;
pub use release::DEFAULT_RELEASE;
pub use report_runs::ReportWithoutRuns;
pub use summary::{ErrorLine, IngestSummary};
pub use suspect::Suspect;

/// Ingest `paths` in one batch. A failure of the store itself (a full disk,
/// a damaged file) rolls the batch back and says so, with what to do. On a
/// lake, a batch whose commit meets another writer's is rolled back and
/// tried again whole, from the plan on (the store it reads has changed).
pub fn ingest(store: &mut Store, paths: &[PathBuf], opts: &IngestOptions) -> Result<IngestSummary> {
    let path = store.path().to_path_buf();
    let mut tries = 0;
    let mut batch_bytes = None;
    let mut stored_meanwhile = std::collections::BTreeSet::new();
    let mut retried_on = Vec::new();
    let ingested = lake::retrying(|| {
        tries += 1;
        if tries > 1 && opts.progress {
            eprintln!(
                "liftdb: the batch met another writer's commit to the lake ({}); trying it again",
                retried_on.last().map_or("", String::as_str)
            );
        }
        batch_bytes = None;
        let tried = ingest_batch(store, paths, opts, &mut batch_bytes);
        match &tried {
            Err(crate::Error::StoredMeanwhile { batches }) => {
                stored_meanwhile.extend(batches.iter().copied());
            }
            Err(e) if e.is_transaction_conflict() => {
                // Whole, on one line: DuckLake's first line is only "Failed to
                // commit"; the table and the other writer's change follow.
                let said = e.to_string();
                retried_on.push(said.split_whitespace().collect::<Vec<_>>().join(" "));
            }
            _ => {}
        }
        tried
    });
    match ingested {
        Ok(summary) => Ok(IngestSummary {
            tries,
            retried_on,
            stored_meanwhile_by: stored_meanwhile.into_iter().collect(),
            ..summary
        }),
        Err(crate::Error::Db(db)) => {
            Err(crate::store::classify_db_error(&path, db).with_batch_bytes(batch_bytes))
        }
        Err(other) => Err(other.with_batch_bytes(batch_bytes)),
    }
}

/// The owners whose stored files the change check needs: those under the
/// paths given, canonical as owners are stored. None (every owner) when a
/// path cannot be made canonical: the plan then says what is wrong with it.
fn owner_scope(paths: &[PathBuf]) -> Option<Vec<String>> {
    paths
        .iter()
        .map(|p| {
            std::fs::canonicalize(p)
                .ok()
                .map(|c| c.display().to_string())
        })
        .collect()
}

/// `batch_bytes`: set once planned, to size a full disk's advice.
fn ingest_batch(
    store: &mut Store,
    paths: &[PathBuf],
    opts: &IngestOptions,
    batch_bytes: &mut Option<u64>,
) -> Result<IngestSummary> {
    let mut clock = Timings::from_env();
    let planned = plan_batch(store, paths, opts, &mut clock, batch_bytes)?;
    if let Some(summary) = nothing_to_write(store, &planned, opts, &mut clock)? {
        return Ok(summary);
    }
    write_batch(store, planned, opts, &mut clock)
}

/// What the plan decided, read at one snapshot: the units to write, what
/// the store holds of them, and the loose files resolved.
struct Planned {
    plan: plan::Plan,
    resolved: resolve::Resolved,
    known: state::StoredState,
    budget: MemoryBudget,
    /// The batches committed when the plan read the store (the commit
    /// guard meets those committed later).
    planned_after: Vec<i64>,
    /// The releases holding the run directories read unchanged, besides
    /// the batch's own.
    stored_in: std::collections::BTreeSet<String>,
    /// A new label over runs already stored: nothing is written.
    relabel_only: bool,
    /// Taken from the plan: each chunk's units are freed once written.
    changed_runs: Vec<units::ChangedRun>,
    units_changed: usize,
}

/// Plan the batch: discover, check what changed, parse and resolve the
/// loose files, find regrades and phantoms. On a lake every transaction
/// costs catalog round trips (its snapshot, each table's statistics): the
/// plan's reads share one, at one snapshot, ended before anything is
/// written (rolled back if it fails).
fn plan_batch(
    store: &mut Store,
    paths: &[PathBuf],
    opts: &IngestOptions,
    clock: &mut Timings,
    batch_bytes: &mut Option<u64>,
) -> Result<Planned> {
    let planning = match lake::on_lake(&store.conn)? {
        true => Some(store.conn.unchecked_transaction()?),
        false => None,
    };
    // Read first: a batch another job commits from here on is met at the commit.
    let planned_after = lake::committed_batches(&store.conn)?;
    let mut budget = MemoryBudget::start(&store.conn, opts.memory_mb)?;
    let files = state::FileScope {
        release: opts.release.as_deref(),
        shard: opts.shard.as_deref(),
    };
    let known = state::StoredState::load(
        &store.conn,
        owner_scope(paths).as_deref(),
        &opts.host,
        &files,
        &budget,
    )?;
    clock.mark("load state");

    let mut plan = plan::plan(paths, &known, &store.conn, opts, clock)?;
    *batch_bytes = Some(plan.changed_bytes());
    let loose = loose_files::parse(&mut plan, opts.format);
    clock.mark("loose files");
    let grade_options = crate::grade::GradeOptions {
        allow_scripts: opts.allow_scripts,
        strict: opts.strict,
    };
    let resolved = resolve::resolve(&plan, loose, &known, grade_options);
    clock.mark("resolve");
    budget.lean(&store.conn, || {
        seh::add_regrades(&mut plan, &store.conn, &resolved.grading)
    })?;
    clock.mark("regrades");
    seh::add_phantoms(&mut plan, &known, &resolved.grading);
    clock.mark("phantoms");
    // The releases holding the run directories read unchanged, besides the
    // batch's own: a new label over stored runs (below).
    let stored_in: std::collections::BTreeSet<String> = plan
        .unchanged_runs
        .iter()
        .filter_map(|u| known.owners.release(&u.path.display().to_string()))
        .filter(|r| *r != plan.release.label)
        .map(str::to_string)
        .collect();
    // Unchanged run directories have served (release, regrades, phantoms):
    // their paths are not held through the write.
    plan.unchanged_runs = Vec::new();
    // A new label (--release, a release the store does not hold) over runs
    // already stored, with at most their manifest changed: recorded, the
    // label would be a copy of another release — and "the latest". Nothing
    // is written; the summary names where the runs are and `release rename`.
    let relabel_only = plan.release.explicit()
        && !known.release_named_exists
        && plan.runs.is_empty()
        && !stored_in.is_empty()
        && resolved.source_files.iter().all(|f| f.kind == "manifest");
    // Taken from the plan: each chunk's units are freed once written.
    let mut changed_runs = std::mem::take(&mut plan.runs);
    // Otherwise every folder given is of the release named, those stored
    // unchanged for another release too (each keeps its own copy).
    let elsewhere = std::mem::take(&mut plan.unchanged_elsewhere);
    if !relabel_only && !elsewhere.is_empty() {
        plan.counts.unchanged -= elsewhere.len();
        plan.counts.added += elsewhere.len();
        changed_runs.extend(elsewhere);
        changed_runs.sort_by(|a, b| a.path().cmp(b.path()));
    }
    let units_changed = plan
        .doomed_units(&changed_runs, &resolved.replaced_units, opts.prune)
        .count();
    if let Some(reads) = planning {
        reads.commit()?;
    }
    Ok(Planned {
        plan,
        resolved,
        known,
        budget,
        planned_after,
        stored_in,
        relabel_only,
        changed_runs,
        units_changed,
    })
}

/// A batch with nothing to write ends here: a new label over stored runs
/// (the summary names where they are), or no changed unit (only moved
/// mtimes are refreshed). None: there is a batch to write.
fn nothing_to_write(
    store: &Store,
    planned: &Planned,
    opts: &IngestOptions,
    clock: &mut Timings,
) -> Result<Option<IngestSummary>> {
    let Planned { plan, resolved, .. } = planned;
    let writes_nothing = resolved.errors.is_empty() && !opts.dry_run;
    if planned.relabel_only && writes_nothing {
        writer::touch(&store.conn, &plan.touched)?;
        clock.report();
        let mut summary = summary::assemble(plan, resolved, 0, None, opts);
        summary.runs_stored_in = planned.stored_in.iter().cloned().collect();
        return Ok(Some(summary));
    }
    if planned.units_changed == 0 && writes_nothing {
        writer::touch(&store.conn, &plan.touched)?;
        clock.report();
        return Ok(Some(summary::assemble(plan, resolved, 0, None, opts)));
    }
    Ok(None)
}

/// Write the batch in one transaction: the replaced units deleted, the
/// loose files' rows, the run directories parsed and appended chunk by
/// chunk, then the batch closed and committed (its refill after); the
/// summary from what each stage returned.
fn write_batch(
    store: &mut Store,
    planned: Planned,
    opts: &IngestOptions,
    clock: &mut Timings,
) -> Result<IngestSummary> {
    let Planned {
        plan,
        mut resolved,
        known,
        budget,
        planned_after,
        changed_runs,
        units_changed,
        ..
    } = planned;
    // Every changed unit is replaced whole: named as the batch begins, a
    // path at a time, never as a list of them.
    let doomed = || plan.doomed_units(&changed_runs, &resolved.replaced_units, opts.prune);
    let batch_info = BatchInfo {
        refill: !opts.defer_refill,
        define_reported: opts.define_reported,
        host: &opts.host,
        shard: opts.shard.as_deref(),
        planned_after: &planned_after,
        ..plan.batch_info()
    };
    let mut batch = match opts.dry_run {
        true => None,
        // Only units the store holds have rows to delete: a batch of new
        // runs (a CI job's) deletes nothing.
        false => Some(BatchWriter::begin(
            &store.conn,
            &batch_info,
            doomed().filter_map(|(kind, path)| {
                known.replaced(kind, path, &plan.release, opts.shard.as_deref())
            }),
            !opts.no_redact,
        )?),
    };
    if let Some(b) = batch.as_mut() {
        b.hold_to(budget);
        // The plan and the manifests' grading context are held by now:
        // DuckDB gets what they leave it.
        b.rebalance_memory()?;
        // Moved into rows and freed once appended: the manifests' cases are
        // held through the run directories' parse otherwise.
        b.append_owned(std::mem::take(&mut resolved.records))?;
        for reported in std::mem::take(&mut resolved.reported) {
            b.stage_reported(reported)?;
        }
        b.append_source_files(&resolved.source_files)?;
        seh::append_streamed_reports(&resolved.streamed_reports, b)?;
    }
    clock.mark("begin + append loose");

    let ctx = formats::RunContext {
        release: &plan.release.label,
        release_explicit: plan.release.explicit(),
        shard: opts.shard.as_deref(),
        roots: &plan.dir_roots,
        forced: opts.format,
        known_cases: &resolved.known_cases,
        declared_arms: &resolved.declared_arms,
        grading: &resolved.grading,
    };
    let run_dirs = runs::parse_and_append(
        &plan,
        changed_runs,
        &ctx,
        &store.conn,
        batch.as_mut(),
        opts,
        clock,
    )?;

    if let Some(first) = run_dirs.held_elsewhere.first() {
        // Never silently replaced: the batch is refused whole (its
        // transaction rolls back as `batch` is dropped).
        return Err(crate::Error::IdentityHeld {
            release: first.release.clone(),
            count: run_dirs.held_elsewhere.len(),
            dir: first.dir.clone(),
            other: first.other.clone(),
        });
    }
    let mut summary = summary::assemble(&plan, &resolved, units_changed, Some(&run_dirs), opts);
    let files_changed = resolved.source_files.len() + run_dirs.files_parsed;
    // Only a batch that stored report files can hold a report without its runs.
    let stored_reports = !resolved.source_files.is_empty();
    let mut errors = resolved.errors;
    errors.extend(run_dirs.errors);
    // Every run is graded: the manifests' cases are freed before the
    // batch's closing refill, which needs the memory.
    drop((resolved.grading, resolved.streamed_reports));
    let written = match batch {
        Some(b) => {
            let info = batch_info.with_files_changed(files_changed);
            let counts = b.finish(&info, &errors, &plan.touched, clock)?;
            // The batch must be in the file named, not in a stand-in.
            if let Some(file) = store.location.file() {
                crate::store::check_persists(&store.conn, file)?;
            }
            Some(counts)
        }
        None => None,
    };
    clock.report();
    summary.errors = errors.iter().map(ErrorLine::from).collect();
    if let Some(counts) = written {
        if stored_reports {
            summary.reports_without_runs =
                report_runs::reports_without_runs(&store.conn, counts.batch_id)?;
        }
        let mut releases = summary.other_releases.clone();
        releases.push(summary.release.clone());
        summary.suspect_measurements =
            suspect::suspect_measurements(&store.conn, &releases, counts.batch_id)?;
        summary.not_counted = not_counted::not_counted(&store.conn, &releases)?;
        summary.batch_id = Some(counts.batch_id);
        summary.runs_written = counts.runs_written;
        summary.runs_reported = counts.runs_reported;
        summary.runs_reported_not_in_tree = counts.runs_reported_not_in_tree;
        summary.reported_replaced += counts.reported_replaced;
        summary.release_recorded = !counts.release_dropped;
        summary.rows_written = counts.rows_written;
    }
    Ok(summary)
}
