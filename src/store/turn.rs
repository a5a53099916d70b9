//! The writers' turn on a lake whose catalog is in PostgreSQL: one advisory
//! lock, held by a transaction of its own, taken to create or migrate the
//! lake and to commit a batch. A writer waits for it a bounded time (the
//! process's `--wait`, a default a CI job can live with otherwise), saying
//! every few seconds who holds it; past the wait it gives up with the
//! holder's name and nothing written. The holder names itself: liftdb sets
//! the session's `application_name` to its command, batch, host and pid
//! while it holds the turn, which is what a waiting writer reads.
//! (sql/lake/writers_turn_holder.sql says how it reads it.)

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use duckdb::Connection;

use super::literal::quoted;
use crate::{Error, Result};

/// The advisory lock's key: liftdb's own number ("liftdb" in ASCII), one
/// lock per database, so per lake (sql/lake/writers_turn_holder.sql reads
/// it as PostgreSQL splits it).
pub const WRITERS_LOCK: i64 = 0x6c69_6674_6462;

/// How long a writer waits for the turn when nothing says otherwise: a CI
/// job's commit holds it for seconds, so a fleet's queue clears well within;
/// a holder stalled longer is named and the job ends, rather than spending
/// the runner's whole timeout in silence.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(600);

/// How often a waiting writer says who holds the turn.
const SAY_EVERY: Duration = Duration::from_secs(5);

/// This process's part in the turn: what it is doing (the command) and how
/// long it waits.
struct Policy {
    command: String,
    wait: Duration,
}

static POLICY: OnceLock<Policy> = OnceLock::new();

/// Set once by the command line, before any store is opened: the command a
/// holder is named by, and how long to wait for the turn (None: `DEFAULT_WAIT`).
pub fn take_turns_as(command: &str, wait: Option<Duration>) {
    let _ = POLICY.set(Policy {
        command: command.to_string(),
        wait: wait.unwrap_or(DEFAULT_WAIT),
    });
}

fn policy() -> &'static Policy {
    POLICY.get_or_init(|| Policy {
        command: "liftdb".into(),
        wait: DEFAULT_WAIT,
    })
}

/// The session's name while it holds the turn. PostgreSQL keeps 63 bytes:
/// the host, longest, comes last.
fn application_name(batch: Option<i64>) -> String {
    let batch = batch.map(|id| format!(" batch {id}")).unwrap_or_default();
    format!(
        "liftdb {} pid {}{batch} on {}",
        policy().command,
        std::process::id(),
        crate::sys::host::host_name()
    )
}

/// The writers' turn, held until dropped (its transaction then ends, and
/// PostgreSQL releases the lock with it).
pub struct WriterLock {
    holder: Connection,
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        let _ = self.holder.execute_batch("ROLLBACK;");
    }
}

/// Take the turn through the PostgreSQL database attached on `conn` as
/// `catalog` (for `batch`, when committing one), waiting at most the
/// process's wait. `lake`: how messages name the lake.
pub fn take(
    conn: &Connection,
    catalog: &str,
    lake: &str,
    batch: Option<i64>,
) -> Result<WriterLock> {
    let holder = conn.try_clone()?;
    holder.execute_batch("BEGIN TRANSACTION;")?;
    // One statement both names the session (for this transaction only) and
    // tries the lock: a waiting writer reads the name of the one that got it.
    let try_turn = format!(
        "SELECT * FROM postgres_query('{catalog}', {})",
        quoted(&format!(
            "SELECT set_config('application_name', {}, true), pg_try_advisory_xact_lock({WRITERS_LOCK})::text",
            quoted(&application_name(batch))
        ))
    );
    let wait = policy().wait;
    let started = Instant::now();
    let mut next_word = started + SAY_EVERY.min(wait);
    let mut pause = Duration::from_millis(50);
    loop {
        let got: String = holder.query_row(&try_turn, [], |r| r.get(1))?;
        if got == "true" {
            return Ok(WriterLock { holder });
        }
        let waited = started.elapsed();
        if waited >= wait {
            return Err(Error::WritersTurnTimeout {
                lake: lake.to_string(),
                waited_s: waited.as_secs(),
                holder: holder_named(conn, catalog),
            });
        }
        if Instant::now() >= next_word {
            eprintln!(
                "liftdb: waiting for the writers' turn on lake {lake} ({} s of {} s, --wait): held by {}",
                waited.as_secs(),
                wait.as_secs(),
                holder_named(conn, catalog)
            );
            next_word += SAY_EVERY;
        }
        std::thread::sleep(pause.min(wait.saturating_sub(waited)));
        pause = (pause * 2).min(Duration::from_millis(500));
    }
}

/// Who holds the turn, in a phrase (sql/lake/writers_turn_holder.sql),
/// asked outside any transaction so PostgreSQL's activity view is current.
fn holder_named(conn: &Connection, catalog: &str) -> String {
    let sql = crate::sqlfiles::named(crate::sqlfiles::LAKE_QUERIES, "writers_turn_holder");
    let asked = conn.query_row(
        &format!("SELECT * FROM postgres_query('{catalog}', {})", quoted(sql)),
        [],
        |r| {
            Ok((
                r.get::<_, Option<String>>(0)?,
                r.get::<_, Option<String>>(1)?,
                r.get::<_, Option<String>>(2)?,
                r.get::<_, Option<String>>(3)?,
                r.get::<_, Option<String>>(4)?,
                r.get::<_, Option<String>>(5)?,
            ))
        },
    );
    match asked {
        Ok((name, client, pid, state, held, idle)) => {
            let client = client
                .filter(|c| !c.is_empty())
                .map(|c| format!(" from {c}"))
                .unwrap_or_else(|| " (local socket)".into());
            let held = held
                .map(|s| format!(", holding it for {s} s"))
                .unwrap_or_default();
            let state = match state.as_deref() {
                Some("idle in transaction") => format!(
                    ", idle in its transaction for {} s (stalled?)",
                    idle.unwrap_or_default()
                ),
                Some(s) if !s.is_empty() => format!(", {s}"),
                _ => String::new(),
            };
            format!(
                "'{}'{client}, PostgreSQL pid {}{held}{state}",
                name.unwrap_or_default(),
                pid.unwrap_or_default()
            )
        }
        Err(duckdb::Error::QueryReturnedNoRows) => {
            "no session now (it was just released)".to_string()
        }
        Err(e) => format!(
            "a session liftdb could not name ({})",
            crate::error::duckdb_text(&e)
        ),
    }
}
