//! Opening a store. Writers migrate and refresh views; readers only check
//! that the file is a liftdb store this binary understands.

use std::path::{Path, PathBuf};

use duckdb::{AccessMode, Config, Connection};

use super::{migrate, views};
use crate::{Error, Result};

/// An open store: the connection plus the path it came from (for messages).
pub struct Store {
    pub conn: Connection,
    pub path: PathBuf,
}

/// Open for writing, retrying while another process holds the write lock,
/// for up to `wait` (zero: fail at once).
pub fn open_write_waiting(path: &Path, wait: std::time::Duration) -> Result<Store> {
    let deadline = std::time::Instant::now() + wait;
    loop {
        match open_write(path) {
            Err(Error::Locked { .. }) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
            other => return other,
        }
    }
}

/// Open (creating if needed) for writing: migrate, then re-create and probe views.
pub fn open_write(path: &Path) -> Result<Store> {
    open_write_up_to(path, i64::MAX)
}

/// Open for writing with migrations applied only up to `version`
/// (for building stores of an older schema in tests).
#[doc(hidden)]
pub fn open_write_up_to(path: &Path, version: i64) -> Result<Store> {
    if path.exists() {
        // A store from a newer or a modified liftdb is refused before it is opened for writing.
        let config = Config::default().access_mode(AccessMode::ReadOnly)?;
        if let Ok(reader) = Connection::open_with_flags(path, config) {
            migrate::check_writable(&reader, path)?;
        }
    }
    let conn = Connection::open(path).map_err(|e| lock_or_db(path, e))?;
    let migrated = migrate::migrate_up_to(&conn, path, version)?;
    if version < i64::MAX {
        return Ok(Store {
            conn,
            path: path.to_path_buf(),
        });
    }
    views::ensure_views(&conn, migrated)?;
    crate::stats::sql_functions::register(&conn)?;
    Ok(Store {
        conn,
        path: path.to_path_buf(),
    })
}

/// Open an existing store read-only; other readers may hold it at the same time.
pub fn open_read(path: &Path) -> Result<Store> {
    if !path.exists() {
        return Err(Error::Invalid(format!(
            "no store at {} (create one with `liftdb ingest PATH`, or pass --db / set LIFTDB_DB)",
            path.display()
        )));
    }
    let config = Config::default().access_mode(AccessMode::ReadOnly)?;
    let conn = Connection::open_with_flags(path, config).map_err(|e| lock_or_db(path, e))?;
    migrate::check_readable(&conn, path)?;
    crate::stats::sql_functions::register(&conn)?;
    Ok(Store {
        conn,
        path: path.to_path_buf(),
    })
}

/// Did the statement fail because the store is open read-only? (A REPL or
/// `liftdb sql` reopens it for writing then.) Decided here, where the store
/// is opened, from the refusal DuckDB gives a read-only connection.
pub fn is_write_refusal(e: &Error) -> bool {
    matches!(e, Error::Db(db) if db.to_string().contains("read-only"))
}

/// DuckDB allows one writer process per file; say so plainly, with the PID it reports.
fn lock_or_db(path: &Path, e: duckdb::Error) -> Error {
    let msg = e.to_string();
    if msg.contains("Could not set lock") || msg.contains("Conflicting lock") {
        let holder = regex::Regex::new(r"PID \d+")
            .ok()
            .and_then(|re| re.find(&msg).map(|m| m.as_str().to_string()))
            .unwrap_or_else(|| "another process".to_string());
        Error::Locked {
            path: path.display().to_string(),
            holder,
        }
    } else {
        Error::Db(e)
    }
}
