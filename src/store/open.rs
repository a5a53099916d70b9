//! Opening a store. Writers migrate and refresh views; readers check that
//! the file is a liftdb store this binary understands, and bring views that
//! another liftdb wrote up to date first when they can.

use std::path::Path;

use duckdb::{AccessMode, Config, Connection};

use super::aggregates::refill;
use super::location::{Lake, Location};
use super::{migrate, views};
use crate::{Error, Result};

/// An open store: the connection plus where it came from.
pub struct Store {
    pub conn: Connection,
    pub location: Location,
}

impl Store {
    fn file(conn: Connection, path: &Path) -> Store {
        Store {
            conn,
            location: Location::File(path.to_path_buf()),
        }
    }

    /// The file, or the lake's catalog string, as messages name it.
    pub fn path(&self) -> &Path {
        match &self.location {
            Location::File(path) => path,
            Location::Lake(lake) => Path::new(&lake.shown),
        }
    }

    /// On a lake, the snapshot this connection reads (None: a file store).
    pub fn snapshot(&self) -> Result<Option<i64>> {
        match self.location {
            Location::File(_) => Ok(None),
            Location::Lake(_) => super::lake::current_snapshot(&self.conn).map(Some),
        }
    }
}

/// Open a store for writing, wherever it is: a file (created if needed), or
/// a lake (its tables created in an empty one).
pub fn open_write_at(location: &Location) -> Result<Store> {
    match location {
        Location::File(path) => open_write(path),
        Location::Lake(lake) => open_lake(lake, None, true),
    }
}

/// `open_write_at`, waiting for another writer of a file store as
/// `open_write_waiting` does (a lake takes writers at once).
pub fn open_write_waiting_at(location: &Location, wait: std::time::Duration) -> Result<Store> {
    match location {
        Location::File(path) => open_write_waiting(path, wait),
        Location::Lake(_) => open_write_at(location),
    }
}

/// `open_read_at` for one answer read whole at one snapshot (a report): on
/// a lake the connection is left inside a transaction, begun as the open
/// read the lake's state (one transaction less of catalog round trips), so
/// every query of the answer reads the snapshot `Store::snapshot` names.
pub fn open_answer_at(location: &Location, snapshot: Option<i64>) -> Result<Store> {
    match location {
        Location::File(_) => open_read_at(location, snapshot),
        Location::Lake(lake) => {
            let conn = super::lake::engine(lake)?;
            let store = match read_as_it_is(conn, lake, snapshot, true)? {
                Ok(store) => return Ok(store),
                Err(conn) => open_lake_on(conn, lake, snapshot, false)?,
            };
            store.conn.execute_batch("BEGIN TRANSACTION;")?;
            Ok(store)
        }
    }
}

/// Open a store to read, after its upkeep (see `open_read_after_upkeep`).
/// `snapshot`: on a lake, read it as it was then (read-only).
pub fn open_read_at(location: &Location, snapshot: Option<i64>) -> Result<Store> {
    match (location, snapshot) {
        (Location::File(path), None) => open_read_after_upkeep(path),
        (Location::File(path), Some(_)) => Err(Error::Invalid(format!(
            "{} is a file store: --snapshot reads a lake as it was at one of its snapshots",
            path.display()
        ))),
        (Location::Lake(lake), snapshot) => open_lake(lake, snapshot, false),
    }
}

/// A lake attached; for writing (or when it is new, or waits for upkeep),
/// its schema and views brought to this binary's, each step tried again
/// when another writer's commit conflicts with it. Writers of a lake whose
/// catalog is in PostgreSQL take turns (an advisory lock) to create the
/// lake and to bring its schema up to date, so any number of first writers
/// meeting a new lake all land. What waits for a refill is refilled by a
/// reader whose role may write; a reader that may only read answers from
/// the last refilled snapshot and says what waits. A writer leaves it to
/// its own batch's refill, which refills whatever waits (or, deferred, to
/// `liftdb lake refresh`): the jobs of a fan-out do not each refill the
/// others' batches first.
fn open_lake(lake: &Lake, snapshot: Option<i64>, writing: bool) -> Result<Store> {
    let conn = super::lake::engine(lake)?;
    let conn = match writing {
        true => conn,
        false => match read_as_it_is(conn, lake, snapshot, false)? {
            Ok(store) => return Ok(store),
            Err(conn) => conn,
        },
    };
    open_lake_on(conn, lake, snapshot, writing)
}

/// `open_lake` on an engine made for it, the upkeep path: the catalog
/// database attached beside the lake for the role's rights and the writers'
/// turn.
fn open_lake_on(
    conn: Connection,
    lake: &Lake,
    snapshot: Option<i64>,
    writing: bool,
) -> Result<Store> {
    let name = Path::new(&lake.shown);
    let catalog = super::lake::Catalog::attach(&conn, lake)?;
    let may_write = match &catalog {
        Some(c) => c.role_can_write()?,
        None => true,
    };
    let mut lock = None;
    if !writing {
        if let Some(c) = catalog.as_ref().filter(|_| snapshot.is_none()) {
            if !c.lake_exists()? {
                return Err(super::lake::no_lake_yet(lake));
            }
        }
    }
    if writing {
        if let Some(c) = &catalog {
            if !may_write {
                return Err(Error::LakeReadOnly {
                    lake: lake.shown.clone(),
                    role: c.role()?,
                });
            }
            if !c.lake_exists()? {
                // A new lake: its first writers take turns to create it,
                // over storage checked first (a lake is never made over a
                // bucket it cannot use).
                if let Some(path) = lake
                    .data_path
                    .as_deref()
                    .filter(|p| super::object_storage::is_remote(p))
                {
                    super::object_storage::probe(&conn, path)?;
                }
                lock = Some(c.lock_writers(None)?);
            }
        }
    }
    super::lake::attach(&conn, lake, snapshot)?;
    if snapshot.is_none() {
        let stale = !migrate::has_ledger(&conn)? || !views::current(&conn).unwrap_or(false);
        let waiting = refill::waiting(&conn).unwrap_or(refill::Waiting::Nothing);
        if (writing || stale) && may_write {
            if stale && lock.is_none() {
                lock = catalog.as_ref().map(|c| c.lock_writers(None)).transpose()?;
            }
            let migrated = super::lake::retrying(|| migrate::migrate_lake(&conn, &lake.shown))?;
            super::lake::retrying(|| views::ensure_views(&conn, migrated))?;
        }
        drop(lock.take());
        if !writing && waiting != refill::Waiting::Nothing {
            match may_write {
                true => super::lake::retrying(|| refill::finish_waiting(&conn))
                    .map_err(|e| refill_failed(name, e, true, &waiting))
                    .map(|_| ())?,
                false => return open_last_refilled(conn, lake, &waiting),
            }
        }
    }
    if let Some(at) = snapshot {
        // A snapshot taken between a batch's commit and its refill: its
        // stored aggregates lack part of the batch, which no report reads.
        if let refill::Waiting::Releases(_) | refill::Waiting::Every = refill::waiting(&conn)? {
            return Err(Error::Invalid(format!(
                "{}: at snapshot {at} the stored aggregates wait for a refill (a batch was committed, \
                 its refill not yet done), so its reports would lack part of that batch; \
                 read a snapshot a report named, or a later one (`liftdb lake snapshots`)",
                lake.shown
            )));
        }
    }
    migrate::check_readable(&conn, name)?;
    crate::stats::sql_functions::register(&conn)?;
    Ok(Store {
        conn,
        location: Location::Lake(lake.clone()),
    })
}

/// A reader's open when the lake needs no upkeep (the common case): the
/// lake attached read-only, its state read in one transaction (each
/// transaction costs catalog round trips), no catalog database attached
/// beside it. Err(conn), detached, when something waits for a refill or
/// the views are not this binary's: the upkeep path decides who does it.
/// `hold`: the transaction is left open for the caller (`open_answer_at`).
fn read_as_it_is(
    conn: Connection,
    lake: &Lake,
    snapshot: Option<i64>,
    hold: bool,
) -> Result<std::result::Result<Store, Connection>> {
    super::lake::attach_read_only(&conn, lake, snapshot)?;
    conn.execute_batch("BEGIN TRANSACTION;")?;
    let ready = match snapshot {
        // A snapshot is read as it was: the upkeep path says why one
        // taken while aggregates waited cannot be.
        Some(_) => refill::waiting(&conn)? == refill::Waiting::Nothing,
        None => {
            migrate::has_ledger(&conn)?
                && views::current(&conn).unwrap_or(false)
                && refill::waiting(&conn)? == refill::Waiting::Nothing
        }
    };
    if !ready {
        conn.execute_batch("COMMIT;")?;
        super::lake::detach(&conn)?;
        return Ok(Err(conn));
    }
    migrate::check_readable(&conn, Path::new(&lake.shown))?;
    if !hold {
        conn.execute_batch("COMMIT;")?;
    }
    crate::stats::sql_functions::register(&conn)?;
    Ok(Ok(Store {
        conn,
        location: Location::Lake(lake.clone()),
    }))
}

/// Whether `lake` exists as a liftdb lake: DuckLake's catalog and liftdb's
/// schema in it (`liftdb lake init` says whether it made one).
pub fn lake_exists(lake: &Lake) -> Result<bool> {
    let conn = super::lake::engine(lake)?;
    if let Some(catalog) = super::lake::Catalog::attach(&conn, lake)? {
        if !catalog.lake_exists()? {
            return Ok(false);
        }
    }
    super::lake::attach(&conn, lake, None)?;
    migrate::has_ledger(&conn)
}

/// A reader that may not refill: the lake as it was at its last refilled
/// snapshot (its stored aggregates and its runs agree there), said with the
/// releases that wait and who brings them in.
fn open_last_refilled(conn: Connection, lake: &Lake, waiting: &refill::Waiting) -> Result<Store> {
    let at = super::lake::last_refilled_snapshot(&conn)?;
    let what = match waiting {
        refill::Waiting::Releases(labels) => format!(
            "release{} {} wait{}",
            if labels.len() == 1 { "" } else { "s" },
            labels
                .iter()
                .map(|l| format!("'{l}'"))
                .collect::<Vec<_>>()
                .join(", "),
            if labels.len() == 1 { "s" } else { "" }
        ),
        _ => "every release waits".to_string(),
    };
    let Some(at) = at else {
        return Err(Error::Invalid(format!(
            "lake {}: {what} for the refill of the aggregates reports read, and no earlier snapshot of it was refilled; a writer's `liftdb lake refresh` brings them in",
            lake.shown
        )));
    };
    eprintln!(
        "liftdb: {}: {what} for a refill (batches stored with --defer-refill, or whose refill gave up); this role may only read, so the answer is the lake as it was at snapshot {at}, its last refilled state; a writer's `liftdb lake refresh` brings them in",
        lake.shown
    );
    super::lake::detach(&conn)?;
    super::lake::attach(&conn, lake, Some(at))?;
    // For a --release naming a waiting release (sql/lake/release_waiting.sql).
    let labels = match waiting {
        refill::Waiting::Releases(labels) => format!(
            "[{}]::VARCHAR[]",
            labels
                .iter()
                .map(|l| super::literal::quoted(l))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => "NULL".into(),
    };
    conn.execute_batch(&format!(
        "SET VARIABLE liftdb_answer_snapshot = {at}; SET VARIABLE liftdb_waiting_releases = {labels};"
    ))?;
    migrate::check_readable(&conn, Path::new(&lake.shown))?;
    crate::stats::sql_functions::register(&conn)?;
    Ok(Store {
        conn,
        location: Location::Lake(lake.clone()),
    })
}

/// Open for writing, retrying while another process holds the write lock,
/// for up to `wait` (zero: fail at once).
pub fn open_write_waiting(path: &Path, wait: std::time::Duration) -> Result<Store> {
    let started = std::time::Instant::now();
    // A reader holds the store for one statement (a shell between
    // statements holds nothing): worth waiting for even with no --wait.
    let for_readers = wait.max(READER_GRACE);
    loop {
        let waited = started.elapsed();
        match open_write(path) {
            Err(Error::Locked { activity, .. })
                if waited < wait || (activity == "read" && waited < for_readers) =>
            {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            other => return other,
        }
    }
}

/// The settings a store file is opened with: one created now is written in
/// DuckDB's latest storage format, without which DuckDB 1.5 writes the
/// v0.10.2 format and silently ignores the columns' `USING COMPRESSION`.
/// Held to the process's memory budget (budget.rs).
fn new_file_config() -> Result<Config> {
    super::budget::engine_config(
        Config::default().with("storage_compatibility_version", "latest")?,
        None,
    )
}

/// How long a writer waits for readers by default.
pub const READER_GRACE: std::time::Duration = std::time::Duration::from_secs(30);

/// Open (creating if needed) for writing: migrate, then re-create and probe views.
pub fn open_write(path: &Path) -> Result<Store> {
    open_write_up_to(path, i64::MAX)
}

/// Open for writing with migrations applied only up to `version`
/// (for building stores of an older schema in tests).
#[doc(hidden)]
pub fn open_write_up_to(path: &Path, version: i64) -> Result<Store> {
    check_store_path(path)?;
    if path.exists() {
        // A store from a newer or a modified liftdb is refused before it is opened for writing.
        let config = Config::default().access_mode(AccessMode::ReadOnly)?;
        if let Ok(reader) = Connection::open_with_flags(path, config) {
            migrate::check_writable(&reader, path)?;
        }
    }
    let conn = Connection::open_with_flags(path, new_file_config()?)
        .map_err(|e| classify_open_error(path, e, true))?;
    check_persists(&conn, path).map_err(|e| in_store(path, e))?;
    let migrated = migrate::migrate_up_to(&conn, path, version).map_err(|e| in_store(path, e))?;
    if version < i64::MAX {
        return Ok(Store::file(conn, path));
    }
    let views_changed = views::ensure_views(&conn, migrated).map_err(|e| in_store(path, e))?;
    let waiting = refill::waiting(&conn)?;
    if waiting != refill::Waiting::Nothing {
        // After a views change every release waits, as expected: said only
        // when a batch's (or an upgrade's) refill was left unfinished.
        if !views_changed {
            eprintln!(
                "liftdb: {}: the stored aggregates wait for a refill (an ingest or an upgrade stopped before it was done): refilling them now",
                path.display()
            );
        }
        // A refill that fails leaves the store writable: its runs are
        // kept, what waits stays marked, and a batch's own refill tries
        // it again; a full disk or a damaged file still stops the command.
        match refill::finish_waiting(&conn).map_err(|e| refill_failed(path, e, false, &waiting)) {
            Err(e @ Error::AggregatesNotRefilled { .. }) => eprintln!("liftdb: {e}"),
            other => {
                other?;
            }
        }
    }
    crate::stats::sql_functions::register(&conn)?;
    Ok(Store::file(conn, path))
}

/// Open an existing store read-only (other readers may hold it at the same
/// time), after its upkeep: a store whose views are another liftdb's, or
/// whose stored aggregates wait for a refill, is first opened for writing
/// and brought up to date, which can take a while on a large store.
pub fn open_read_after_upkeep(path: &Path) -> Result<Store> {
    if !path.exists() {
        return Err(Error::Invalid(format!(
            "no store at {} (create one with `liftdb ingest PATH`, or pass --db / set LIFTDB_DB)",
            path.display()
        )));
    }
    check_store_path(path)?;
    let conn = connect_read(path)?;
    // A report's SQL is this binary's and may read a table that an older
    // liftdb's views never made (run_rows): such a store is brought up to
    // date once, as the next ingest would; so is a store whose last batch's
    // refill did not finish (refill.rs). If it cannot be written (a
    // read-only file, a writer holding it), it is read as it is.
    let views_current = views::current(&conn).unwrap_or(true);
    let refilled = refill::waiting(&conn).map_or(true, |w| w == refill::Waiting::Nothing);
    let conn = match views_current && refilled {
        true => conn,
        false => {
            drop(conn);
            if !views_current {
                eprintln!(
                    "liftdb: {} was written by another liftdb version: bringing its views and stored aggregates up to date (once)",
                    path.display()
                );
            }
            // A refill that fails is said by open_write itself, which goes on.
            match open_write(path) {
                Ok(_) => {}
                Err(e) => eprintln!("liftdb: left as it is ({e}); until the next ingest a report may fail, or miss the last batch"),
            }
            connect_read(path)?
        }
    };
    crate::stats::sql_functions::register(&conn)?;
    Ok(Store::file(conn, path))
}

fn connect_read(path: &Path) -> Result<Connection> {
    let config =
        super::budget::engine_config(Config::default().access_mode(AccessMode::ReadOnly)?, None)?;
    let conn = Connection::open_with_flags(path, config)
        .map_err(|e| classify_open_error(path, e, false))?;
    migrate::check_readable(&conn, path).map_err(|e| in_store(path, e))?;
    Ok(conn)
}

/// Did the statement fail because the store is open read-only? (A REPL or
/// `liftdb sql` reopens it for writing then.) Decided here, where the store
/// is opened, from the refusal DuckDB gives a read-only connection.
pub fn is_write_refusal(e: &Error) -> bool {
    matches!(e, Error::Db(db) if db.to_string().contains("read-only"))
}

/// File names DuckDB reads as data (a table), not as a database: a store
/// named so would be opened in memory, and everything written lost at exit.
const DATA_FILE_EXTENSIONS: &[&str] = &[
    "csv", "tsv", "parquet", "json", "jsonl", "ndjson", "gz", "zst", "xlsx", "arrow", "ipc",
    "feather", "avro",
];

/// Refuse a store path that would not persist, before anything is parsed.
pub fn check_store_path(path: &Path) -> Result<()> {
    let text = path.display().to_string();
    let refuse = |reason: String| {
        Err(Error::NotAStorePath {
            path: text.clone(),
            reason,
        })
    };
    if text.is_empty() || text.starts_with(':') {
        return refuse(
            "it names an in-memory database, and everything written to it is lost at exit".into(),
        );
    }
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    if DATA_FILE_EXTENSIONS.contains(&extension.as_str()) {
        return refuse(format!(
            "DuckDB reads a .{extension} file as data, not as a database, so nothing written would be kept"
        ));
    }
    if path.is_dir() {
        return refuse("it is a directory".into());
    }
    Ok(())
}

/// The connection must be the file named, not an in-memory stand-in.
pub fn check_persists(conn: &Connection, path: &Path) -> Result<()> {
    let opened: Option<String> = conn.query_row(
        "SELECT path FROM duckdb_databases() WHERE database_name = current_database()",
        [],
        |r| r.get(0),
    )?;
    let same = opened
        .as_deref()
        .map(Path::new)
        .and_then(|p| std::fs::canonicalize(p).ok())
        .zip(std::fs::canonicalize(path).ok())
        .is_some_and(|(a, b)| a == b);
    match same {
        true => Ok(()),
        false => Err(Error::NotAStorePath {
            path: path.display().to_string(),
            reason: format!(
                "DuckDB opened it as {} instead of that file",
                opened.unwrap_or_else(|| "an in-memory database".into())
            ),
        }),
    }
}

/// One error in liftdb's words for what DuckDB says when opening a file:
/// held by another process (reading or writing), not a database, damaged.
fn classify_open_error(path: &Path, e: duckdb::Error, writing: bool) -> Error {
    let msg = crate::error::duckdb_text(&e);
    let text = path.display().to_string();
    if msg.contains("Could not set lock") || msg.contains("Conflicting lock") {
        let holder = regex::Regex::new(r"PID \d+")
            .ok()
            .and_then(|re| re.find(&msg).map(|m| m.as_str().to_string()))
            .unwrap_or_else(|| "another process".to_string());
        // A writer is refused by readers too; a reader only by a writer:
        // if this process may read it now, the holder is only reading.
        let reading = writing && {
            let config = Config::default().access_mode(AccessMode::ReadOnly);
            config.is_ok_and(|c| Connection::open_with_flags(path, c).is_ok())
        };
        return match reading {
            true => Error::Locked {
                path: text,
                holder,
                activity: "read",
                hint: "writing waits 30 s for readers (a liftdb shell holds the store only while a statement runs, or until `.release` when it keeps temp objects); close that query or shell, or give ingest --wait SECONDS",
            },
            false => Error::Locked {
                path: text,
                holder,
                activity: "written",
                hint: "try again when it finishes, or give ingest --wait SECONDS",
            },
        };
    }
    if msg.contains("only read versions between")
        || msg.contains("version number") && msg.contains("storage")
    {
        return Error::NewerStorage {
            path: text,
            detail: msg,
        };
    }
    if msg.contains("not a valid DuckDB database file") {
        return Error::NotAStore {
            path: text,
            detail: msg,
        };
    }
    classify_db_error(path, e)
}

/// A refill on open that failed: the steps done are committed, so not
/// "nothing was written"; a full disk or a damaged file is still said so.
fn refill_failed(path: &Path, e: Error, on_lake: bool, waiting: &refill::Waiting) -> Error {
    let remedy = super::budget::refill_remedy(&e, on_lake);
    let detail = match in_store(path, e) {
        Error::OutOfMemory { detail, .. } => detail,
        Error::Db(db) => crate::error::duckdb_text(&db),
        e @ Error::RefillOutOfMemory { .. } => e.to_string(),
        other => return other,
    };
    Error::AggregatesNotRefilled {
        path: path.display().to_string(),
        releases: match waiting {
            refill::Waiting::Releases(labels) => labels.clone(),
            _ => Vec::new(),
        },
        detail,
        remedy,
    }
}

/// A DuckDB failure while opening the store, in liftdb's words.
fn in_store(path: &Path, e: Error) -> Error {
    match e {
        Error::Db(db) => classify_db_error(path, db),
        other => other,
    }
}

/// A failure writing or reading the store: a full disk or a damaged file
/// said so, with what to do; anything else is DuckDB's text once.
pub fn classify_db_error(path: &Path, e: duckdb::Error) -> Error {
    let msg = crate::error::duckdb_text(&e);
    if msg.contains("No space left on device") || msg.contains("Could not write file") {
        return Error::DiskFull {
            path: path.display().to_string(),
            detail: msg,
            free_bytes: free_beside(path),
            batch_bytes: None,
        };
    }
    if msg.contains("Out of Memory Error") {
        // DuckDB's list of remedies follows its first line; the hint names ours.
        let first_line = msg.lines().next().unwrap_or_default();
        return Error::OutOfMemory {
            path: path.display().to_string(),
            detail: first_line.to_string(),
        };
    }
    if msg.contains("Data Corruption") || msg.contains("checksum") && msg.contains("does not match")
    {
        return Error::Corrupt {
            path: path.display().to_string(),
            detail: msg,
        };
    }
    Error::Db(e)
}

/// Bytes an unprivileged writer may still use on the store's filesystem.
fn free_beside(path: &Path) -> Option<u64> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
    let stat = rustix::fs::statvfs(dir.unwrap_or(Path::new("."))).ok()?;
    Some(stat.f_bavail.saturating_mul(stat.f_frsize))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// DuckDB's out-of-memory failure under `--memory-mb` is told as such,
    /// with the flag that gives it more (DuckDB's own text).
    #[test]
    fn out_of_memory_names_the_budget_flag() {
        let duckdb_says = "Out of Memory Error: failed to allocate data of size 8.0 MiB (144.1 MiB/150.0 MiB used)";
        let remedies = "\n\nPossible solutions:\n* Reducing the number of threads (SET threads=X)";
        let e = duckdb::Error::DuckDBFailure(
            duckdb::ffi::Error::new(duckdb::ffi::DuckDBError),
            Some(format!("{duckdb_says}{remedies}")),
        );
        let told = classify_db_error(Path::new("/tmp/s.duckdb"), e);
        assert!(matches!(told, Error::OutOfMemory { .. }), "{told}");
        let text = told.to_string();
        assert!(
            text.contains("--memory-mb") && text.contains(duckdb_says),
            "{text}"
        );
        assert!(
            !text.contains("Possible solutions"),
            "one remedy, ours: {text}"
        );
    }
}
