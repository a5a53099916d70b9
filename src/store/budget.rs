//! `--memory-mb`: one budget for the whole process, shared between liftdb's
//! own state (the plan's file lists, the chunks being parsed) and DuckDB's
//! buffers (the open batch, which spills to disk past its limit).
//!
//! DuckDB starts with half. The plan's lists grow with the tree, so after
//! each chunk is written
//! DuckDB's share is set to what liftdb is not holding, measured: the
//! process's resident memory less DuckDB's own. Early in a large parse
//! DuckDB gets less; as the chunks are freed it gets up to half again.

use std::sync::OnceLock;

use duckdb::{Config, Connection};

use crate::{Error, Result};

pub struct MemoryBudget {
    /// DuckDB's limits before the budget, set back when it is done.
    initial: Limits,
    total_mib: Option<u64>,
    /// DuckDB's limit as last set (MiB).
    duckdb_mib: u64,
}

/// The default budget (`--memory-mb`): what every command is held to.
pub const DEFAULT_MEMORY_MB: u64 = 1024;

/// This process's budget (MiB; None: DuckDB's own limit), set once by the
/// command line before any store is opened.
static PROCESS_BUDGET: OnceLock<Option<u64>> = OnceLock::new();

/// Set by the command line (`--memory-mb`, 0: none) before any store is
/// opened: every open, its refill, an ingest, `check`, a report and the
/// shell are held to it.
pub fn hold_process_to(total_mib: Option<u64>) {
    let _ = PROCESS_BUDGET.set(total_mib);
}

/// The process's budget: what `hold_process_to` set, else the default.
pub fn process_budget() -> Option<u64> {
    *PROCESS_BUDGET.get_or_init(|| Some(DEFAULT_MEMORY_MB))
}

/// DuckDB's limit (MiB) for a store opened under the process's budget: the
/// refill's share, which a refill on open, a report or a query may use
/// whole (past it DuckDB spills to its temporary directory). None: DuckDB's own.
pub fn duckdb_limit_on_open() -> Option<u64> {
    process_budget().map(refill_share_of)
}

/// The command that finishes a refill that failed with `e`: when it ran out
/// of memory, the same under twice the budget (any command that opens the
/// store refills what waits; `check` does nothing else first).
pub fn refill_remedy(e: &Error, on_lake: bool) -> String {
    let command = match on_lake {
        true => "lake refresh",
        false => "check",
    };
    match (e, process_budget()) {
        (Error::RefillOutOfMemory { .. }, Some(_)) => format!("{} refills them", larger_budget(command)),
        _ => format!(
            "the next liftdb command to open the store refills them (`liftdb {command}` does it now)"
        ),
    }
}

/// What gives DuckDB more memory, for any command that ran out of it.
pub fn larger_budget_hint() -> String {
    match process_budget() {
        Some(mb) => format!(
            "the same command under twice the budget, `liftdb --memory-mb {} …` (LIFTDB_MEMORY_MB sets it for every command; DuckDB gets five eighths of it)",
            mb * 2
        ),
        None => "DuckDB had its own limit (--memory-mb 0): a machine with more memory".to_string(),
    }
}

/// `liftdb COMMAND` under twice this process's budget, as a phrase.
pub fn larger_budget(command: &str) -> String {
    match process_budget() {
        Some(mb) => format!(
            "`liftdb --memory-mb {} {command}` with twice the budget (LIFTDB_MEMORY_MB sets it for every command)",
            mb * 2
        ),
        None => format!("`liftdb {command}` on a machine with more memory"),
    }
}

/// `config` holding DuckDB to the process's budget, spilling into `spill`
/// (a file store's default, `<store>.tmp` beside it, when None).
pub fn engine_config(config: Config, spill: Option<&std::path::Path>) -> Result<Config> {
    let mut config = config;
    if let Some(mib) = duckdb_limit_on_open() {
        config = config.with("memory_limit", format!("{mib}MiB"))?;
    }
    if let Some(dir) = spill {
        config = config.with("temp_directory", dir.display().to_string())?;
    }
    Ok(config)
}

/// Where a store with no file of its own (a lake, an in-memory store)
/// spills: liftdb's cache, a folder per process (DuckDB's default would be
/// `.tmp` in the working directory, a CI checkout). DuckDB creates the
/// process's folder when it first spills and removes it at exit (its temporary
/// files are not named apart, so two processes never share one); liftdb
/// makes the folder above it.
pub fn spill_directory() -> std::path::PathBuf {
    let above = crate::sys::cache::folder("spill");
    // Not made (a read-only home): DuckDB names the folder when it must spill.
    let _ = std::fs::create_dir_all(&above);
    above.join(std::process::id().to_string())
}

/// The least DuckDB is ever held to (the floor `--memory-mb` has had since it was added).
pub const DUCKDB_FLOOR_MIB: u64 = 64;

/// Run work that reads every release at once (the refill on open,
/// `liftdb check`) under the process budget's refill share on one thread,
/// then give DuckDB back its own limits; the work's error first.
pub fn under_process_budget<T>(conn: &Connection, work: impl FnOnce() -> Result<T>) -> Result<T> {
    let mut budget = MemoryBudget::start(conn, process_budget())?;
    let done = budget.refill(conn, work);
    let reset = budget.initial.restore(conn);
    let done = done?;
    reset?;
    Ok(done)
}

/// DuckDB's limits as they were before a budget changed them. Set back by
/// value: DuckDB 1.5's `RESET memory_limit` shows the default again but
/// leaves the buffer pool held to the last limit set.
#[derive(Debug, Clone)]
pub struct Limits {
    memory: String,
    threads: i64,
}

impl Limits {
    pub fn read(conn: &Connection) -> Result<Limits> {
        Ok(conn.query_row(
            "SELECT current_setting('memory_limit'), current_setting('threads')",
            [],
            |r| {
                Ok(Limits {
                    memory: r.get(0)?,
                    threads: r.get(1)?,
                })
            },
        )?)
    }

    pub fn restore(&self, conn: &Connection) -> Result<()> {
        conn.execute_batch(&format!(
            "SET memory_limit = '{}'; SET threads = {}",
            self.memory, self.threads
        ))?;
        Ok(())
    }
}

impl MemoryBudget {
    /// Hold DuckDB to half the budget while runs are parsed (None: DuckDB's
    /// own limit, 80% of RAM, and nothing is rebalanced).
    pub fn start(conn: &Connection, total_mib: Option<u64>) -> Result<MemoryBudget> {
        let mut budget = MemoryBudget {
            initial: Limits::read(conn)?,
            total_mib,
            duckdb_mib: 0,
        };
        if let Some(total) = total_mib {
            budget.hold_duckdb_to(conn, half(total))?;
        }
        Ok(budget)
    }

    fn hold_duckdb_to(&mut self, conn: &Connection, mib: u64) -> Result<()> {
        conn.execute_batch(&format!("SET memory_limit = '{mib}MiB'"))?;
        self.duckdb_mib = mib;
        Ok(())
    }

    /// The parse is over and its chunks are freed: DuckDB back to half
    /// for the batch's closing checks (what the parse's last chunk left it
    /// is too little for them on a large batch).
    pub fn end_parse(&mut self, conn: &Connection) -> Result<()> {
        let Some(total) = self.total_mib else {
            return Ok(());
        };
        match self.duckdb_mib < half(total) {
            true => self.hold_duckdb_to(conn, half(total)),
            false => Ok(()),
        }
    }

    /// Run the refill of the stored aggregates under the refill's share, on
    /// one thread, then give DuckDB back its limit and threads whether or
    /// not the refill failed (the settings are the instance's); a failed
    /// refill's own error is the one reported. No budget: just the refill.
    pub fn refill<T>(&mut self, conn: &Connection, work: impl FnOnce() -> Result<T>) -> Result<T> {
        let Some(share) = self.refill_share() else {
            return work();
        };
        conn.execute_batch(&format!("SET threads = 1; SET memory_limit = '{share}MiB'"))?;
        let done = work();
        let restored = conn.execute_batch(&format!(
            "SET threads = {}; SET memory_limit = '{}MiB'",
            self.initial.threads, self.duckdb_mib
        ));
        let done = done?;
        restored?;
        Ok(done)
    }

    /// DuckDB's share for the refill at the end of a batch: five eighths,
    /// since the run chunks are written and freed by then: half is too
    /// little for a large release, three quarters takes the process past
    /// its budget (DuckDB holds some memory outside its limit, and the
    /// statistics' rows are liftdb's).
    pub fn refill_share(&self) -> Option<u64> {
        self.total_mib.map(refill_share_of)
    }

    /// Run a query that only reads under an eighth of the budget (DuckDB
    /// spills what does not fit), then give DuckDB back its share: the
    /// unchanged runs' gradings (a join of every run to its grading) would
    /// otherwise top a re-ingest's peak. No budget: just the work.
    pub fn lean<T>(&mut self, conn: &Connection, work: impl FnOnce() -> Result<T>) -> Result<T> {
        let Some(total) = self.total_mib else {
            return work();
        };
        let share = self.duckdb_mib;
        let lean = (total / 8).max(DUCKDB_FLOOR_MIB);
        conn.execute_batch(&format!("SET memory_limit = '{lean}MiB'"))?;
        let done = work();
        let restored = conn.execute_batch(&format!("SET memory_limit = '{share}MiB'"));
        let done = done?;
        restored?;
        self.let_go(conn)?;
        Ok(done)
    }

    /// Have DuckDB drop the blocks it caches (its limit set to the floor and
    /// back) and give back what both allocators hold freed: after the stored
    /// state's large queries much of the resident memory is such memory,
    /// held by nothing. A floor DuckDB cannot reach (its
    /// blocks in use) is no error: it keeps what it must.
    pub fn let_go(&self, conn: &Connection) -> Result<()> {
        let _ = conn.execute_batch(&format!("SET memory_limit = '{DUCKDB_FLOOR_MIB}MiB'"));
        match self.total_mib {
            Some(_) => {
                conn.execute_batch(&format!("SET memory_limit = '{}MiB'", self.duckdb_mib))?
            }
            None => self.initial.restore(conn)?,
        }
        return_freed_memory();
        Ok(())
    }

    /// After a chunk is written: give DuckDB what liftdb is not holding, less
    /// room for the next chunk in flight, between the floor and half the
    /// budget. Never below what DuckDB holds now (lowering a limit under
    /// its use fails, and a failed statement would abort the batch).
    pub fn rebalance(&mut self, conn: &Connection) -> Result<()> {
        let Some(total) = self.total_mib else {
            return Ok(());
        };
        let Some(resident) = resident_mib() else {
            return Ok(()); // not Linux: the starting half stays
        };
        let duckdb_used: i64 = conn.query_row(
            "SELECT coalesce(sum(memory_usage_bytes), 0)::BIGINT FROM duckdb_memory()",
            [],
            |r| r.get(0),
        )?;
        let duckdb_used = duckdb_used.max(0) as u64 >> 20;
        let share = duckdb_share(total, resident.saturating_sub(duckdb_used), duckdb_used);
        // A few MiB either way is not worth a statement per chunk.
        match share.abs_diff(self.duckdb_mib) >= 16 {
            true => self.hold_duckdb_to(conn, share),
            false => Ok(()),
        }
    }
}

/// DuckDB's share (MiB) of `total` when liftdb itself holds `own` and
/// DuckDB `duckdb_used`: the rest less an eighth for the next chunk in
/// flight, between the floor and half, and never under what DuckDB holds.
fn duckdb_share(total: u64, own: u64, duckdb_used: u64) -> u64 {
    let in_flight = total / 8;
    total
        .saturating_sub(own + in_flight)
        .clamp(DUCKDB_FLOOR_MIB, half(total))
        .max(duckdb_used + 16)
}

/// Five eighths of `total`, the floor at least (`MemoryBudget::refill_share`).
fn refill_share_of(total: u64) -> u64 {
    (total / 8 * 5).max(DUCKDB_FLOOR_MIB)
}

/// Half of `total`, the floor at least: DuckDB's share at the start of a
/// batch and its most while runs are parsed.
fn half(total: u64) -> u64 {
    (total / 2).max(DUCKDB_FLOOR_MIB)
}

/// Give freed memory back to the system, DuckDB's and liftdb's own, between
/// the closing steps of a batch (the parse is over: no thread is at work).
/// DuckDB allocates through the C library's malloc, and glibc keeps what is
/// freed in its arenas: without a trim, what one step of a batch's refill
/// freed stays resident through the next ones. liftdb's (mimalloc) is taken
/// back thread by thread (`memory.rs` says why).
pub fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks glibc's own arenas; it has no
    // preconditions and is safe to call from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
    crate::sys::memory::give_back_now();
}

/// The process's resident memory (MiB), from /proc (Linux only).
fn resident_mib() -> Option<u64> {
    crate::sys::timings::rss_mib().map(|rss| rss.now)
}

/// How many threads DuckDB works a statement on, now.
pub fn threads_now(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("SELECT current_setting('threads')", [], |r| r.get(0))?)
}

/// `work`, and when it ran out of memory on more than one DuckDB thread
/// (`short` reads that off its error), `work` again on one: each thread's
/// own buffers are what a budget near DuckDB's floor cannot hold, as a
/// refill step is tried. The second try's error is the one returned. Not
/// inside a transaction the user opened: the failure aborted it, and a
/// second try would only be refused.
pub fn again_on_one_thread_if_short<T, E: From<Error>>(
    conn: &Connection,
    mut work: impl FnMut() -> std::result::Result<T, E>,
    short: impl Fn(&E) -> bool,
) -> std::result::Result<T, E> {
    match work() {
        Err(e) if short(&e) && conn.is_autocommit() && threads_now(conn)? > 1 => {
            on_threads(conn, 1, work)
        }
        done => done,
    }
}

/// `work` with DuckDB on `threads` threads, the count before set back
/// whether or not it failed (the setting is the instance's); `work`'s own
/// error is the one returned.
pub fn on_threads<T, E: From<Error>>(
    conn: &Connection,
    threads: i64,
    work: impl FnOnce() -> std::result::Result<T, E>,
) -> std::result::Result<T, E> {
    let before = threads_now(conn)?;
    conn.execute_batch(&format!("SET threads = {threads}"))
        .map_err(Error::from)?;
    let done = work();
    let restored = conn
        .execute_batch(&format!("SET threads = {before}"))
        .map_err(Error::from);
    let done = done?;
    restored?;
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resident_memory_is_read_and_grows_with_what_is_held() {
        let _alone = crate::sys::memory::measuring_rss();
        let before = resident_mib().expect("VmRSS on Linux");
        // 64 MiB touched page by page: resident, not just reserved.
        let held = std::hint::black_box(vec![1u8; 64 << 20]);
        let after = resident_mib().unwrap();
        assert!(after >= before + 60, "{before} -> {after} MiB");
        drop(held);
    }

    #[test]
    fn duckdb_gets_what_liftdb_does_not_hold_within_floor_and_half() {
        // A 1 GiB budget with liftdb holding 700 MiB early in a parse:
        // 1024 - 700 - 128 in flight.
        assert_eq!(duckdb_share(1024, 700, 20), 196);
        // Most of the plan freed: half, no more (the refill has its own share).
        assert_eq!(duckdb_share(1024, 100, 300), 512);
        // liftdb alone past the budget: the floor, not nothing.
        assert_eq!(duckdb_share(1024, 1500, 10), DUCKDB_FLOOR_MIB);
        // Never under what DuckDB holds (the limit would fail to apply).
        assert_eq!(duckdb_share(1024, 800, 200), 216);
        // A budget under twice the floor.
        assert_eq!(duckdb_share(100, 10, 0), DUCKDB_FLOOR_MIB);
    }

    #[test]
    fn the_share_is_applied_to_duckdb_and_none_leaves_its_own_limit() {
        let conn = Connection::open_in_memory().unwrap();
        let limit = |conn: &Connection| -> String {
            conn.query_row("SELECT current_setting('memory_limit')", [], |r| r.get(0))
                .unwrap()
        };
        let default = limit(&conn);
        let mut none = MemoryBudget::start(&conn, None).unwrap();
        none.rebalance(&conn).unwrap();
        assert_eq!(limit(&conn), default);
        assert_eq!(none.refill_share(), None);

        // Far above what this process holds: half, as at the start.
        let mut roomy = MemoryBudget::start(&conn, Some(16 * 1024)).unwrap();
        assert_eq!(limit(&conn), "8.0 GiB");
        roomy.rebalance(&conn).unwrap();
        assert_eq!(limit(&conn), "8.0 GiB");
        assert_eq!(roomy.refill_share(), Some(10 * 1024));
        // Under what it holds: the floor.
        let held = resident_mib().unwrap();
        let mut tight = MemoryBudget::start(&conn, Some(held)).unwrap();
        tight.rebalance(&conn).unwrap();
        assert!(
            tight.duckdb_mib.abs_diff(DUCKDB_FLOOR_MIB) < 16,
            "{}",
            tight.duckdb_mib
        );
        // The parse over: half again for the batch's closing steps.
        let mut closing = MemoryBudget::start(&conn, Some(1024)).unwrap();
        closing.duckdb_mib = 100;
        conn.execute_batch("SET memory_limit = '100MiB'").unwrap();
        closing.end_parse(&conn).unwrap();
        assert_eq!(limit(&conn), "512.0 MiB");
    }

    /// A lean query runs under an eighth of the budget and DuckDB gets its
    /// share back after, also when the query failed; letting go keeps the
    /// limit; no budget leaves DuckDB's own limit throughout.
    #[test]
    fn a_lean_query_runs_under_an_eighth_and_the_share_comes_back() {
        let conn = Connection::open_in_memory().unwrap();
        let limit = |conn: &Connection| -> String {
            conn.query_row("SELECT current_setting('memory_limit')", [], |r| r.get(0))
                .unwrap()
        };
        let default = limit(&conn);
        let mut budget = MemoryBudget::start(&conn, Some(2048)).unwrap();
        let during = budget.lean(&conn, || Ok(limit(&conn))).unwrap();
        assert_eq!(
            (during.as_str(), limit(&conn).as_str()),
            ("256.0 MiB", "1.0 GiB")
        );
        let failed = budget.lean(&conn, || -> Result<()> {
            conn.execute_batch("SELECT * FROM no_such_table")?;
            Ok(())
        });
        assert!(failed.is_err());
        assert_eq!(limit(&conn), "1.0 GiB");
        budget.let_go(&conn).unwrap();
        assert_eq!(limit(&conn), "1.0 GiB");

        let other = Connection::open_in_memory().unwrap();
        let mut none = MemoryBudget::start(&other, None).unwrap();
        assert_eq!(none.lean(&other, || Ok(limit(&other))).unwrap(), default);
        none.let_go(&other).unwrap();
        // Set back by value, as DuckDB shows it: equal to its last digit.
        let (was, now) = (shown_gib(&default), shown_gib(&limit(&other)));
        assert!(
            (was - now).abs() <= 0.1 + 1e-9,
            "{default} -> {}",
            limit(&other)
        );
    }

    /// A limit as DuckDB shows it ("18.8 GiB", "256.0 MiB"), in GiB.
    fn shown_gib(shown: &str) -> f64 {
        let (n, unit) = shown.split_once(' ').unwrap();
        let n: f64 = n.parse().unwrap();
        match unit {
            "GiB" => n,
            "MiB" => n / 1024.0,
            other => panic!("{other}"),
        }
    }
}
