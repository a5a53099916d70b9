//! The closing refill of a batch: the stored aggregates (aggregates/mod.rs) and
//! statistics of the releases it touched, recomputed once its rows are
//! committed, a step at a time, each step in a transaction of its own: a
//! step that runs out of memory is tried again with less (`tries`) without
//! undoing the batch or the steps before it (BENCHMARKS.md, twenty-first
//! session).
//!
//! All or nothing as users see it: the batch's transaction records which
//! releases wait for their refill (`refill_mark`), each step commits on its
//! own, and the marks are recorded done only with the last step. A store is opened by liftdb, for reading or writing, only after
//! a refill left waiting (the ingest was killed, or the refill failed) is
//! finished: no report reads aggregates that lack part of a batch.

use std::collections::BTreeMap;

use duckdb::Connection;

use super::{Derived, Scope, DERIVED};
use crate::store::budget::{return_freed_memory, MemoryBudget};
use crate::sys::timings::Timings;
use crate::{Error, Result};

/// The releases whose stored aggregates wait for a refill.
#[derive(Debug, PartialEq)]
pub enum Waiting {
    Nothing,
    Releases(Vec<String>),
    /// The views were re-created: every release.
    Every,
}

/// What waits, with the marks that asked for it: a refill records as done
/// exactly the marks it read before it began, so a batch committed while it
/// ran still waits for its own.
#[derive(Debug)]
pub struct Marks {
    pub waiting: Waiting,
    marks: Vec<(Option<String>, i64)>,
}

/// What the store says waits.
pub fn waiting(conn: &Connection) -> Result<Waiting> {
    Ok(marks(conn)?.waiting)
}

/// What waits, and the marks behind it.
pub fn marks(conn: &Connection) -> Result<Marks> {
    let mut stmt = conn.prepare("SELECT release_label, mark_id FROM refill_waiting")?;
    let marks = stmt
        .query_map([], |r| {
            Ok((r.get::<_, Option<String>>(0)?, r.get::<_, i64>(1)?))
        })?
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let waiting = match marks.iter().any(|(label, _)| label.is_none()) {
        true => Waiting::Every,
        false => {
            let mut labels: Vec<String> = marks.iter().filter_map(|(l, _)| l.clone()).collect();
            labels.sort();
            labels.dedup();
            match labels.is_empty() {
                true => Waiting::Nothing,
                false => Waiting::Releases(labels),
            }
        }
    };
    Ok(Marks { waiting, marks })
}

/// In the batch's transaction: `releases` wait for their refill, asked for
/// by mark `mark_id` (the batch). Appended: writers at once never rewrite
/// one another's marks.
pub fn mark_waiting(tx: &Connection, releases: &[String], mark_id: i64) -> Result<()> {
    let mut stmt =
        tx.prepare("INSERT INTO refill_mark VALUES (?, ?, 'waiting', now()::TIMESTAMP)")?;
    for label in releases {
        stmt.execute(duckdb::params![label, mark_id])?;
    }
    Ok(())
}

/// In the caller's transaction: every release waits for its refill (the
/// views were re-created, their tables empty).
pub fn mark_every_waiting(tx: &Connection) -> Result<()> {
    tx.execute(
        "INSERT INTO refill_mark VALUES (NULL, ?, 'waiting', now()::TIMESTAMP)",
        [crate::store::ids::new_id()],
    )?;
    Ok(())
}

/// The marks read before a refill began are done (in the transaction of
/// its last step).
fn mark_done(conn: &Connection, marks: &Marks) -> Result<()> {
    let mut stmt =
        conn.prepare("INSERT INTO refill_mark VALUES (?, ?, 'done', now()::TIMESTAMP)")?;
    for (label, mark_id) in &marks.marks {
        stmt.execute(duckdb::params![label, mark_id])?;
    }
    Ok(())
}

/// Refill what waits, if anything (a batch's refill that did not finish,
/// or every release after a views change), a step at a time under the
/// process's budget (`--memory-mb`): when a store is opened.
pub fn finish_waiting(conn: &Connection) -> Result<bool> {
    let marks = marks(conn)?;
    let scope = match &marks.waiting {
        Waiting::Nothing => return Ok(false),
        Waiting::Releases(labels) => Scope::Releases(labels),
        Waiting::Every => Scope::Every,
    };
    let scope = widest(conn, scope)?;
    let mut clock = Timings::from_env();
    crate::store::budget::under_process_budget(conn, || {
        steps(conn, scope, &marks, true, &mut clock)
    })?;
    clock.report();
    Ok(true)
}

/// What one batch touched, release by release: some of its cases (their
/// liftdb_case_key keys), or the release whole (None: its cases or suites
/// were defined anew, or more cases than `CASES_AT_MOST` changed).
#[derive(Debug, Default)]
pub struct Touched {
    pub batch_id: i64,
    pub by_release: BTreeMap<String, Option<Vec<String>>>,
}

/// Past this many cases of one release a batch refills the release whole:
/// a long list of keys costs more to match than the release's rows.
pub const CASES_AT_MOST: usize = 256;

impl Touched {
    /// The refill of `labels` narrowed to the cases this batch touched,
    /// where only this batch's marks ask for a release (a release another
    /// batch or an open left waiting is refilled whole). None when no
    /// release narrows.
    fn narrow(&self, labels: &[String], marks: &Marks) -> Option<Narrowed> {
        let mut narrowed = Narrowed {
            releases: labels.to_vec(),
            ..Default::default()
        };
        for label in labels {
            let only_ours = marks
                .marks
                .iter()
                .filter(|(l, _)| l.as_deref() == Some(label.as_str()))
                .all(|(_, id)| *id == self.batch_id);
            match self.by_release.get(label) {
                Some(Some(cases)) if only_ours => narrowed.cases.extend(cases.iter().cloned()),
                _ => narrowed.whole.push(label.clone()),
            }
        }
        (!narrowed.cases.is_empty()).then_some(narrowed)
    }
}

/// A refill narrowed to cases (Scope::Cases), owned.
#[derive(Debug, Default)]
struct Narrowed {
    releases: Vec<String>,
    whole: Vec<String>,
    cases: Vec<String>,
}

impl Narrowed {
    fn scope(&self) -> Scope<'_> {
        Scope::Cases {
            releases: &self.releases,
            whole: &self.whole,
            cases: &self.cases,
        }
    }
}

/// Refill what waits after a batch committed (its own releases, and any
/// another batch or an open left waiting), under the batch's budget (none:
/// DuckDB's own limits and threads), then record those marks done. With
/// what the batch `touched` (a file store's writer gives it; on a lake every
/// writer refills whole releases: two writers' case rows of one release are
/// not told apart by the turn a refill takes), the case-grained tables of a
/// release only this batch asks for are refilled for its cases alone.
pub fn run(
    conn: &Connection,
    budget: Option<&mut MemoryBudget>,
    touched: Option<&Touched>,
    clock: &mut Timings,
) -> Result<()> {
    let marks = marks(conn)?;
    let narrowed = match (&marks.waiting, touched) {
        (Waiting::Releases(labels), Some(touched)) => touched.narrow(labels, &marks),
        _ => None,
    };
    let scope = match (&marks.waiting, &narrowed) {
        (Waiting::Nothing, _) => return Ok(()),
        (_, Some(narrowed)) => narrowed.scope(),
        (Waiting::Releases(labels), None) => widest(conn, Scope::Releases(labels))?,
        (Waiting::Every, None) => Scope::Every,
    };
    match budget {
        Some(budget) if budget.refill_share().is_some() => {
            budget.refill(conn, || steps(conn, scope, &marks, true, clock))
        }
        _ => steps(conn, scope, &marks, false, clock),
    }
}

/// `scope`, or every release when it names every release the store has:
/// the same rows, from a plan that lists no release's runs (the semi-join
/// on every run id such a list makes needs far more memory than the whole
/// store's plan).
fn widest<'s>(conn: &Connection, scope: Scope<'s>) -> Result<Scope<'s>> {
    if let Scope::Every = scope {
        return Ok(scope);
    }
    let others: i64 = conn.query_row(
        &format!(
            "SELECT count(*) FROM releases WHERE NOT {}",
            scope.filter("release_label")
        ),
        [],
        |r| r.get(0),
    )?;
    Ok(if others == 0 { Scope::Every } else { scope })
}

/// What one step of the refill fills.
#[derive(Clone, Copy)]
enum Fill {
    Derived(&'static Derived),
    LiftStats,
    AblationAndTrend,
}

impl Fill {
    /// The steps in refill order: each stored view (a later one reads an
    /// earlier table), then lift_stats (it reads lift_rows), then the
    /// ablation and trend statistics.
    fn in_order() -> impl Iterator<Item = Fill> {
        DERIVED
            .iter()
            .map(Fill::Derived)
            .chain([Fill::LiftStats, Fill::AblationAndTrend])
    }

    /// Its name in the timings.
    fn name(self) -> &'static str {
        match self {
            Fill::Derived(d) => d.table,
            Fill::LiftStats => "lift_stats",
            Fill::AblationAndTrend => "ablation + trend stats",
        }
    }

    /// The tables it replaces rows of.
    fn tables(self) -> &'static [&'static str] {
        match self {
            Fill::Derived(d) => std::slice::from_ref(&d.table),
            Fill::LiftStats => &["lift_stats"],
            Fill::AblationAndTrend => &["ablation_stats", "trend_stats"],
        }
    }

    /// On a lake, in the step's transaction: when a table it fills holds
    /// none of `scope`'s rows, its delete deletes nothing and would not
    /// conflict with another writer filling the same release at once; the
    /// step takes the turn (migration 0017), so one of two such steps is
    /// tried again on the other's rows.
    fn take_turn_if_nothing_to_replace(self, tx: &Connection, scope: Scope) -> Result<()> {
        for table in self.tables() {
            let holds: bool = tx.query_row(
                &format!(
                    "SELECT EXISTS (SELECT 1 FROM {table} WHERE {})",
                    scope.filter("release_label")
                ),
                [],
                |r| r.get(0),
            )?;
            if !holds {
                tx.execute_batch("UPDATE refill_turn SET turns = turns + 1")?;
                return Ok(());
            }
        }
        Ok(())
    }

    /// Marked for two threads under a budget (the view file's `stored threads` says which).
    fn two_threads(self) -> bool {
        matches!(self, Fill::Derived(d) if d.two_threads)
    }

    /// Replace the rows of `scope`, in the caller's transaction; a
    /// case-grained table's in `parts` parts.
    fn run(self, conn: &Connection, scope: Scope, parts: u64) -> Result<()> {
        match self {
            Fill::Derived(d) => d.refresh_in_parts(conn, scope, parts),
            Fill::LiftStats => super::lift_stats::refresh(conn, scope).map(drop),
            Fill::AblationAndTrend => {
                super::ablation::refresh(conn, scope)?;
                super::trend::refresh(conn, scope).map(drop)
            }
        }
    }
}

/// Every stored aggregate and statistic of every release, refilled in the
/// caller's transaction (tests compare a batch's refill with it); nothing
/// waits afterwards.
pub fn everything(conn: &Connection) -> Result<()> {
    let marks = marks(conn)?;
    for fill in Fill::in_order() {
        fill.run(conn, Scope::Every, 1)?;
    }
    mark_done(conn, &marks)
}

/// Each step in a transaction of its own, the record of what waits emptied
/// in the last. `budgeted`: DuckDB is held to the refill's share on one
/// thread (MemoryBudget::refill), and the steps marked for two threads get
/// two.
fn steps(
    conn: &Connection,
    scope: Scope,
    marks: &Marks,
    budgeted: bool,
    clock: &mut Timings,
) -> Result<()> {
    let last = Fill::in_order().count() - 1;
    let lake = crate::store::lake::on_lake(conn)?;
    let parts = match budgeted {
        true => parts_for(conn, scope)?,
        false => 1,
    };
    // On a lake another writer's refill, begun after these marks were
    // written, may finish first: it covered this one, which stops. Asked
    // only when a step meets another writer's commit (a query per step
    // would slow every lake refill).
    let settled = || -> Result<bool> { Ok(lake && covered(conn, marks)?) };
    if lake {
        // Each transaction on a lake pays its catalog round trips (the
        // tables' statistics, the commit's snapshot): the whole refill is
        // tried in one first, step by step only when it runs out of memory.
        let whole = crate::store::lake::retrying_unless(settled, || {
            let tx = conn.unchecked_transaction()?;
            for fill in Fill::in_order() {
                fill.take_turn_if_nothing_to_replace(&tx, scope)?;
                fill.run(&tx, scope, parts)?;
            }
            mark_done(&tx, marks)?;
            Ok(tx.commit()?)
        });
        match whole {
            Err(e) if e.is_out_of_memory() => {
                clock.mark("out of memory in one transaction, step by step");
                return_freed_memory();
            }
            other => {
                clock.mark(match other? {
                    Some(()) => "refill (one transaction)",
                    None => "the refill done by another writer's",
                });
                return Ok(());
            }
        }
    }
    for (n, fill) in Fill::in_order().enumerate() {
        let tries = tries(budgeted && fill.two_threads(), scope, parts);
        let finished = step(conn, &tries, clock, &settled, |tx, scope, parts| {
            if lake {
                fill.take_turn_if_nothing_to_replace(tx, scope)?;
            }
            fill.run(tx, scope, parts)?;
            if n == last {
                mark_done(tx, marks)?;
            }
            Ok(())
        })
        .map_err(|e| match e.is_out_of_memory() {
            true => Error::RefillOutOfMemory {
                step: fill.name().to_string(),
                budget_mib: crate::store::budget::process_budget().filter(|_| budgeted),
                // DuckDB's first line; its advice after it (SET statements)
                // is not how liftdb is given memory.
                detail: match &e {
                    Error::Db(db) => crate::error::duckdb_text(db),
                    other => other.to_string(),
                }
                .lines()
                .next()
                .unwrap_or_default()
                .to_string(),
            },
            false => e,
        })?;
        if !finished {
            clock.mark("the rest done by another writer's refill");
            return Ok(());
        }
        // Each step's freed memory returned before the next one needs its own.
        return_freed_memory();
        clock.mark(fill.name());
    }
    Ok(())
}

/// One way to run a step: on two threads (else on the thread count set
/// before), for these releases, a case-grained table in `parts` parts.
#[derive(Debug, Clone, Copy)]
struct Try<'s> {
    two_threads: bool,
    scope: Scope<'s>,
    parts: u64,
}

/// The ways a step is tried, in order, while DuckDB runs out of memory: on
/// two threads when marked, then on one; then, when only some releases are
/// asked for, every release (never wrong, only longer; see `widest`); last,
/// in eight times the parts (a case-grained table: each part holds fewer runs).
fn tries(two_threads: bool, scope: Scope, parts: u64) -> Vec<Try> {
    let mut tries = vec![Try {
        two_threads,
        scope,
        parts,
    }];
    if two_threads {
        tries.push(Try {
            two_threads: false,
            scope,
            parts,
        });
    }
    if let Scope::Releases(_) | Scope::Cases { .. } = scope {
        tries.push(Try {
            two_threads: false,
            scope: Scope::Every,
            parts,
        });
    }
    tries.push(Try {
        two_threads: false,
        scope: Scope::Every,
        parts: parts * 8,
    });
    tries
}

/// Runs a part of a case-grained table's refill may hold per MiB of
/// DuckDB's share above its floor (what DuckDB holds before any part's
/// runs): the most at which run_rows' per-run folds, the largest, still do
/// not spill, at a fifth of the default budget and at the default budget
/// (BENCHMARKS.md, "What #73 measured", fifth session). Each part scans every run's rows again, so
/// fewer parts are faster until one spills.
const RUNS_PER_MIB: u64 = 400;

/// Runs a part may hold per MiB above DuckDB's floor when `liftdb check`
/// compares a case-grained view with its table: the view is worked out
/// twice and both sides held (EXCEPT ALL each way), a quarter of what a
/// refill's part holds.
const COMPARED_RUNS_PER_MIB: u64 = RUNS_PER_MIB / 4;

/// How many parts a case-grained table's refill of `scope` is split into
/// under the process's budget: one when the runs in scope fit a share.
pub fn parts_for(conn: &Connection, scope: Scope) -> Result<u64> {
    parts_holding(conn, scope, RUNS_PER_MIB)
}

/// How many parts `liftdb check` compares the case-grained views of every
/// release with their tables in.
pub fn parts_to_compare(conn: &Connection) -> Result<u64> {
    parts_holding(conn, Scope::Every, COMPARED_RUNS_PER_MIB)
}

fn parts_holding(conn: &Connection, scope: Scope, runs_per_mib: u64) -> Result<u64> {
    let Some(share) = crate::store::budget::duckdb_limit_on_open() else {
        return Ok(1);
    };
    let runs: i64 = conn.query_row(
        &format!(
            "SELECT count(*) FROM run WHERE {}",
            scope.filter("release_label")
        ),
        [],
        |r| r.get(0),
    )?;
    let above_floor = share
        .saturating_sub(crate::store::budget::DUCKDB_FLOOR_MIB)
        .max(1);
    Ok((runs.max(0) as u64)
        .div_ceil(above_floor * runs_per_mib)
        .max(1))
}

/// Whether every mark this refill read is done (by another writer's refill).
fn covered(conn: &Connection, marks: &Marks) -> Result<bool> {
    let ids: Vec<String> = marks.marks.iter().map(|(_, id)| id.to_string()).collect();
    let waiting: i64 = conn.query_row(
        &format!(
            "SELECT count(*) FROM refill_waiting WHERE mark_id IN ({})",
            ids.join(", ")
        ),
        [],
        |r| r.get(0),
    )?;
    Ok(waiting == 0)
}

/// `work` in a transaction of its own, committed, tried each way of `tries`
/// in turn while DuckDB runs out of memory (a failed try is rolled back).
/// False when a conflict found it `settled` by another writer.
fn step(
    conn: &Connection,
    tries: &[Try],
    clock: &mut Timings,
    settled: &dyn Fn() -> Result<bool>,
    work: impl Fn(&Connection, Scope, u64) -> Result<()>,
) -> Result<bool> {
    let committed = |scope, parts| -> Result<()> {
        let tx = conn.unchecked_transaction()?;
        work(&tx, scope, parts)?;
        Ok(tx.commit()?)
    };
    for (n, way) in tries.iter().enumerate() {
        // A lake's other writers may refill the same release at once: the
        // step is tried again on their commit, reading it.
        let done = crate::store::lake::retrying_unless(settled, || match way.two_threads {
            true => crate::store::budget::on_threads(conn, 2, || committed(way.scope, way.parts)),
            false => committed(way.scope, way.parts),
        });
        match done {
            Err(e) if e.is_out_of_memory() && n + 1 < tries.len() => {
                clock.mark("out of memory, tried again");
                return_freed_memory();
            }
            other => return other.map(|done| done.is_some()),
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;

    fn out_of_memory() -> Error {
        Error::Db(duckdb::Error::DuckDBFailure(
            duckdb::ffi::Error::new(duckdb::ffi::DuckDBError),
            Some("Out of Memory Error: failed to allocate data of size 8.0 MiB (639.9 MiB/640.0 MiB used)".into()),
        ))
    }

    /// A step marked for two threads runs on two; out of memory there, it
    /// runs again on one, then for every release, then in eight times the
    /// parts, each failed try rolled back. Any other failure is not tried
    /// again; a step not marked, for every release, is tried first on the
    /// thread count set before.
    #[test]
    fn a_step_out_of_memory_is_tried_on_one_thread_then_for_every_release_then_in_more_parts() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE t (threads BIGINT, every BOOLEAN, parts UBIGINT); SET threads = 1",
        )
        .unwrap();
        let seen = std::cell::RefCell::new(Vec::new());
        let work = |failures: usize, error: fn() -> Error| {
            let seen = &seen;
            move |tx: &Connection, scope: Scope, parts: u64| -> Result<()> {
                let threads: i64 =
                    tx.query_row("SELECT current_setting('threads')", [], |r| r.get(0))?;
                let every = matches!(scope, Scope::Every);
                tx.execute(
                    "INSERT INTO t VALUES (?, ?, ?)",
                    duckdb::params![threads, every, parts],
                )?;
                seen.borrow_mut().push((threads, every, parts));
                match seen.borrow().len() <= failures {
                    true => Err(error()),
                    false => Ok(()),
                }
            }
        };
        let kept = || -> Vec<(i64, bool, u64)> {
            let rows = conn
                .prepare("SELECT threads, every, parts FROM t")
                .unwrap()
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .unwrap()
                .collect::<duckdb::Result<_>>()
                .unwrap();
            conn.execute_batch("DELETE FROM t").unwrap();
            rows
        };
        let clock = &mut Timings::from_env();
        let some = ["v1".to_string()];
        let asked = Scope::Releases(&some);

        step(
            &conn,
            &tries(true, asked, 2),
            clock,
            &|| Ok(false),
            work(2, out_of_memory),
        )
        .unwrap();
        assert_eq!(*seen.borrow(), [(2, false, 2), (1, false, 2), (1, true, 2)]);
        assert_eq!(kept(), [(1, true, 2)], "the failed tries rolled back");

        seen.borrow_mut().clear();
        step(
            &conn,
            &tries(true, asked, 2),
            clock,
            &|| Ok(false),
            work(3, out_of_memory),
        )
        .unwrap();
        assert_eq!(
            seen.borrow().last(),
            Some(&(1, true, 16)),
            "eight times the parts"
        );
        assert_eq!(kept(), [(1, true, 16)]);

        seen.borrow_mut().clear();
        let failed = step(
            &conn,
            &tries(true, asked, 1),
            clock,
            &|| Ok(false),
            work(4, out_of_memory),
        );
        assert!(failed.is_err(), "out of ways");
        assert_eq!(seen.borrow().len(), 4);
        assert_eq!(kept(), []);

        seen.borrow_mut().clear();
        let refused = step(
            &conn,
            &tries(true, asked, 1),
            clock,
            &|| Ok(false),
            work(1, || Error::Invalid("no".into())),
        );
        assert!(refused.is_err());
        assert_eq!(*seen.borrow(), [(2, false, 1)], "not tried again");

        seen.borrow_mut().clear();
        step(
            &conn,
            &tries(false, Scope::Every, 1),
            clock,
            &|| Ok(false),
            work(0, out_of_memory),
        )
        .unwrap();
        assert_eq!(*seen.borrow(), [(1, true, 1)]);
        assert_eq!(
            current_threads(&conn),
            1,
            "the thread count set before, again"
        );
    }

    fn current_threads(conn: &Connection) -> i64 {
        conn.query_row("SELECT current_setting('threads')", [], |r| r.get(0))
            .unwrap()
    }

    /// A batch's refill narrows to its cases only the releases it alone
    /// asks for and touched by case; a release another mark also asks for
    /// (a refill left waiting), or one the batch touched whole, is refilled
    /// whole; with no case to refill nothing narrows.
    #[test]
    fn a_refill_narrows_to_the_cases_of_releases_only_its_batch_asks_for() {
        let labels: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let marks = Marks {
            waiting: Waiting::Releases(labels.clone()),
            marks: vec![
                (Some("a".into()), 7),
                (Some("b".into()), 7),
                (Some("b".into()), 3),
                (Some("c".into()), 7),
                (Some("d".into()), 7),
            ],
        };
        let touched = Touched {
            batch_id: 7,
            by_release: [
                ("a".to_string(), Some(vec!["a\u{1f}s\u{1f}1".to_string()])),
                ("b".to_string(), Some(vec!["b\u{1f}s\u{1f}1".to_string()])),
                ("c".to_string(), None),
            ]
            .into_iter()
            .collect(),
        };
        let narrowed = touched.narrow(&labels, &marks).expect("a narrows");
        assert_eq!(narrowed.releases, labels);
        assert_eq!(narrowed.cases, ["a\u{1f}s\u{1f}1"]);
        assert_eq!(narrowed.whole, ["b", "c", "d"]);
        let only_whole = Touched {
            batch_id: 7,
            by_release: [("c".to_string(), None)].into_iter().collect(),
        };
        assert!(only_whole.narrow(&labels, &marks).is_none());
    }

    /// A list naming every release of the store is refilled as every
    /// release; a list leaving one out stays as asked.
    #[test]
    fn a_scope_naming_every_release_is_every_release() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE releases (release_label VARCHAR); INSERT INTO releases VALUES ('v1'), ('v2')")
            .unwrap();
        let both = ["v1".to_string(), "v2".to_string()];
        assert!(matches!(
            widest(&conn, Scope::Releases(&both)).unwrap(),
            Scope::Every
        ));
        let one = ["v2".to_string()];
        assert!(
            matches!(widest(&conn, Scope::Releases(&one)).unwrap(), Scope::Releases(l) if l == one)
        );
    }

    /// Marks are appended by each batch and resolved together; a refill
    /// records done only the marks it read before it began, so one a batch
    /// adds meanwhile still waits; every release waits after a views change.
    #[test]
    fn waiting_marks_are_appended_merged_and_done_only_as_read() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE refill_mark (release_label VARCHAR, mark_id BIGINT NOT NULL,
                                       kind VARCHAR NOT NULL, marked_at TIMESTAMP NOT NULL)",
        )
        .unwrap();
        let refill_waiting = include_str!("../../../sql/views/05_bookkeeping.sql");
        let view = &refill_waiting[refill_waiting
            .find("CREATE OR REPLACE VIEW refill_waiting")
            .unwrap()..];
        conn.execute_batch(view).unwrap();
        assert_eq!(waiting(&conn).unwrap(), Waiting::Nothing);
        mark_waiting(&conn, &["v2".into(), "v1".into()], 1).unwrap();
        mark_waiting(&conn, &["v1".into(), "v3".into()], 2).unwrap();
        let labels = ["v1", "v2", "v3"].map(String::from).to_vec();
        assert_eq!(waiting(&conn).unwrap(), Waiting::Releases(labels));
        let read = marks(&conn).unwrap();
        mark_waiting(&conn, &["v4".into()], 3).unwrap();
        mark_done(&conn, &read).unwrap();
        assert_eq!(
            waiting(&conn).unwrap(),
            Waiting::Releases(vec!["v4".into()]),
            "the mark added after the refill began still waits"
        );
        mark_every_waiting(&conn).unwrap();
        assert_eq!(waiting(&conn).unwrap(), Waiting::Every);
        mark_done(&conn, &marks(&conn).unwrap()).unwrap();
        assert_eq!(waiting(&conn).unwrap(), Waiting::Nothing);
    }
}
