//! The closing refill of a batch: the stored aggregates (derived.rs) and
//! statistics of the releases it touched, recomputed once its rows are
//! committed. Inside the batch's transaction its uncommitted rows weighed
//! on DuckDB's memory: at a million runs the refill fit only on one
//! thread. Committed, its heaviest steps fit on two (BENCHMARKS.md).
//!
//! All or nothing as users see it: the batch's transaction records which
//! releases wait for their refill (`liftdb_settings.refill_pending`), each
//! step commits on its own, and the record goes only when every step is
//! done. A store is opened by liftdb, for reading or writing, only after
//! a refill left waiting (the ingest was killed, or the refill failed) is
//! finished: no report reads aggregates that lack part of a batch.

use duckdb::{Connection, OptionalExt};

use super::budget::{return_freed_memory, MemoryBudget};
use super::derived::{Scope, DERIVED};
use crate::ingest::timings::Timings;
use crate::{Error, Result};

const PENDING: &str = "refill_pending";

/// The releases whose stored aggregates wait for a refill.
#[derive(Debug, PartialEq)]
pub enum Waiting {
    Nothing,
    Releases(Vec<String>),
    /// The record cannot be read (edited by hand): refill every release.
    Every,
}

/// What the store says waits.
pub fn waiting(conn: &Connection) -> Result<Waiting> {
    let value: Option<String> = conn
        .query_row(
            "SELECT value FROM liftdb_settings WHERE key = ?",
            [PENDING],
            |r| r.get(0),
        )
        .optional()?;
    Ok(match value {
        None => Waiting::Nothing,
        Some(v) => serde_json::from_str(&v).map_or(Waiting::Every, Waiting::Releases),
    })
}

/// In the batch's transaction: `releases` wait for their refill, besides
/// whatever already waited.
pub fn mark_waiting(tx: &Connection, releases: &[String]) -> Result<()> {
    let labels: Option<Vec<String>> = match waiting(tx)? {
        Waiting::Nothing => Some(releases.to_vec()),
        Waiting::Releases(mut before) => {
            before.extend_from_slice(releases);
            before.sort();
            before.dedup();
            Some(before)
        }
        Waiting::Every => None,
    };
    let value = match labels {
        Some(labels) => serde_json::to_string(&labels)
            .map_err(|e| Error::Invalid(format!("recording the releases to refill: {e}")))?,
        None => "every release".into(),
    };
    tx.execute(
        "INSERT OR REPLACE INTO liftdb_settings VALUES (?, ?)",
        [PENDING, value.as_str()],
    )?;
    Ok(())
}

/// Nothing waits any more (in the transaction that refilled everything).
pub fn clear(conn: &Connection) -> Result<()> {
    conn.execute("DELETE FROM liftdb_settings WHERE key = ?", [PENDING])?;
    Ok(())
}

/// Refill what waits, if anything, under the default budget (as the
/// refill after a views change): when a store is opened.
pub fn finish_waiting(conn: &Connection) -> Result<bool> {
    let labels = match waiting(conn)? {
        Waiting::Nothing => return Ok(false),
        Waiting::Releases(labels) => Some(labels),
        Waiting::Every => None,
    };
    let scope = labels.as_deref().map_or(Scope::Every, Scope::Releases);
    let mut clock = Timings::from_env();
    super::budget::under_default_refill(conn, || steps(conn, scope, true, &mut clock))?;
    Ok(true)
}

/// Refill `scope` after a batch committed, under the batch's budget (none:
/// DuckDB's own limits and threads), then record that nothing waits.
pub fn run(
    conn: &Connection,
    scope: Scope,
    budget: Option<&mut MemoryBudget>,
    clock: &mut Timings,
) -> Result<()> {
    match budget {
        Some(budget) if budget.refill_share().is_some() => {
            budget.refill(conn, || steps(conn, scope, true, clock))
        }
        _ => steps(conn, scope, false, clock),
    }
}

/// Each derived table, then the statistics, in a transaction each; the
/// record of what waits removed last. `budgeted`: DuckDB is held to the
/// refill's share on one thread (MemoryBudget::refill), and the steps
/// marked for two threads get two.
fn steps(conn: &Connection, scope: Scope, budgeted: bool, clock: &mut Timings) -> Result<()> {
    for d in DERIVED {
        step(conn, budgeted && d.two_threads, |tx| d.refresh(tx, scope))?;
        // Each step's freed memory returned before the next one needs its own.
        return_freed_memory();
        clock.mark(d.table);
    }
    step(conn, false, |tx| {
        crate::stats::materialize::refresh(tx, scope).map(drop)
    })?;
    return_freed_memory();
    clock.mark("lift_stats");
    step(conn, false, |tx| {
        crate::stats::ablation::refresh(tx, scope)?;
        crate::stats::trend::refresh(tx, scope)?;
        clear(tx)
    })?;
    return_freed_memory();
    clock.mark("ablation + trend stats");
    Ok(())
}

/// `work` in a transaction of its own, committed. On two threads when
/// `two_threads`; if DuckDB runs out of memory there, once more on one
/// (the thread count the budget set before), rather than fail the refill.
fn step(
    conn: &Connection,
    two_threads: bool,
    work: impl Fn(&Connection) -> Result<()>,
) -> Result<()> {
    let committed = || -> Result<()> {
        let tx = conn.unchecked_transaction()?;
        work(&tx)?;
        Ok(tx.commit()?)
    };
    if !two_threads {
        return committed();
    }
    conn.execute_batch("SET threads = 2")?;
    let first = committed();
    conn.execute_batch("SET threads = 1")?;
    match first {
        Err(e) if super::open::is_out_of_memory(&e) => {
            return_freed_memory();
            committed()
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out_of_memory() -> Error {
        Error::Db(duckdb::Error::DuckDBFailure(
            duckdb::ffi::Error::new(duckdb::ffi::DuckDBError),
            Some("Out of Memory Error: failed to allocate data of size 8.0 MiB (639.9 MiB/640.0 MiB used)".into()),
        ))
    }

    /// A step marked for two threads runs on two; out of memory there, it
    /// is run again on one, its first try rolled back. Any other failure
    /// is not retried, and a step not marked stays on the budget's one.
    #[test]
    fn a_step_out_of_memory_on_two_threads_runs_again_on_one() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (threads BIGINT); SET threads = 1")
            .unwrap();
        let tries = std::cell::RefCell::new(Vec::new());
        let work = |fail: Option<fn() -> Error>| {
            let tries = &tries;
            move |tx: &Connection| -> Result<()> {
                let threads: i64 =
                    tx.query_row("SELECT current_setting('threads')", [], |r| r.get(0))?;
                tx.execute("INSERT INTO t VALUES (?)", [threads])?;
                tries.borrow_mut().push(threads);
                match (tries.borrow().len(), fail) {
                    (1, Some(error)) => Err(error()),
                    _ => Ok(()),
                }
            }
        };
        step(&conn, true, work(Some(out_of_memory))).unwrap();
        assert_eq!(*tries.borrow(), [2, 1]);
        let kept: Vec<i64> = conn
            .prepare("SELECT threads FROM t")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<duckdb::Result<_>>()
            .unwrap();
        assert_eq!(kept, [1], "the first try's row rolled back");

        tries.borrow_mut().clear();
        let refused = step(&conn, true, work(Some(|| Error::Invalid("no".into()))));
        assert!(refused.is_err());
        assert_eq!(*tries.borrow(), [2], "not retried");

        tries.borrow_mut().clear();
        step(&conn, false, work(None)).unwrap();
        assert_eq!(*tries.borrow(), [1]);
    }

    #[test]
    fn waiting_releases_are_recorded_merged_and_cleared() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE liftdb_settings (key VARCHAR PRIMARY KEY, value VARCHAR)")
            .unwrap();
        assert_eq!(waiting(&conn).unwrap(), Waiting::Nothing);
        mark_waiting(&conn, &["v2".into(), "v1".into()]).unwrap();
        mark_waiting(&conn, &["v1".into(), "v3".into()]).unwrap();
        let labels = ["v1", "v2", "v3"].map(String::from).to_vec();
        assert_eq!(waiting(&conn).unwrap(), Waiting::Releases(labels));
        conn.execute_batch("UPDATE liftdb_settings SET value = 'edited'")
            .unwrap();
        assert_eq!(waiting(&conn).unwrap(), Waiting::Every);
        mark_waiting(&conn, &["v4".into()]).unwrap();
        assert_eq!(waiting(&conn).unwrap(), Waiting::Every, "every stays every");
        clear(&conn).unwrap();
        assert_eq!(waiting(&conn).unwrap(), Waiting::Nothing);
    }
}
