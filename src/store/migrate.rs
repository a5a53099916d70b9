//! Numbered migrations from `sql/migrations`, each applied in its own
//! transaction and recorded with its checksum in `schema_migrations`.

use std::path::Path;

use duckdb::{params, Connection};

use crate::sqlfiles::MIGRATIONS;
use crate::{Error, Result, VERSION};

const LEDGER_DDL: &str = "CREATE TABLE IF NOT EXISTS schema_migrations (
    version        BIGINT PRIMARY KEY,
    name           VARCHAR NOT NULL,
    checksum       VARCHAR NOT NULL,
    applied_at     TIMESTAMP NOT NULL,
    liftdb_version VARCHAR NOT NULL
)";

#[derive(Debug, Clone)]
pub struct AppliedMigration {
    pub version: i64,
    pub name: String,
    pub checksum: String,
    pub applied_at: String,
    pub liftdb_version: String,
}

pub fn checksum(sql: &str) -> String {
    crate::sys::hash::sha256_hex(sql.as_bytes())
}

/// Whether the store has a migrations ledger. Asked of its NOT NULL
/// constraints (both ledgers' columns have them), not of duckdb_tables():
/// that computes every table's size, which on a lake is a query of the
/// catalog per table, and every open asks this.
pub(crate) fn has_ledger(conn: &Connection) -> Result<bool> {
    let n: i64 = conn.query_row(
        "SELECT count(*) FROM duckdb_constraints() WHERE table_name = 'schema_migrations' AND constraint_type = 'NOT NULL'
           AND database_name = current_database() AND schema_name = 'main'",
        [],
        |r| r.get(0),
    )?;
    Ok(n > 0)
}

pub fn applied_migrations(conn: &Connection) -> Result<Vec<AppliedMigration>> {
    if !has_ledger(conn)? {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare(
        "SELECT version, name, checksum, CAST(applied_at AS VARCHAR), liftdb_version
         FROM schema_migrations ORDER BY version",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(AppliedMigration {
            version: r.get(0)?,
            name: r.get(1)?,
            checksum: r.get(2)?,
            applied_at: r.get(3)?,
            liftdb_version: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// Highest applied migration, 0 for an empty store.
pub fn schema_version(conn: &Connection) -> Result<i64> {
    Ok(applied_migrations(conn)?
        .last()
        .map(|m| m.version)
        .unwrap_or(0))
}

/// Checksums a migration was applied with before an edit of its comments
/// alone (a citation reworded): the statements are the same, so a store
/// recorded with the former text is not a tampered one.
const REWORDED: &[(i64, &str)] = &[(
    2,
    "fd1c3e86593b7729eaedfc496e0f5b08c38af1f456fdd98e8614e39fcfe71f21",
)];

/// Refuse stores from a newer liftdb or with tampered migrations.
fn verify(applied: &[AppliedMigration], path: &Path) -> Result<()> {
    let known = MIGRATIONS.last().map(|m| m.version).unwrap_or(0);
    for a in applied {
        if a.version > known {
            return Err(Error::StoreTooNew {
                path: path.display().to_string(),
                found: a.version,
                known,
            });
        }
        if let Some(m) = MIGRATIONS.iter().find(|m| m.version == a.version) {
            let expected = checksum(m.sql);
            let reworded = REWORDED.contains(&(a.version, a.checksum.as_str()));
            if expected != a.checksum && !reworded {
                return Err(Error::ChecksumMismatch {
                    path: path.display().to_string(),
                    version: a.version,
                    name: a.name.clone(),
                    applied: a.checksum.clone(),
                    expected,
                });
            }
        }
    }
    Ok(())
}

pub fn check_readable(conn: &Connection, path: &Path) -> Result<()> {
    let applied = applied_migrations(conn)?;
    if applied.is_empty() {
        return Err(Error::Invalid(format!(
            "{} is not a liftdb store (no schema_migrations table)",
            path.display()
        )));
    }
    verify(&applied, path)
}

/// Refuse a store this binary must not write, before anything touches it.
pub fn check_writable(conn: &Connection, path: &Path) -> Result<()> {
    verify(&applied_migrations(conn)?, path)
}

/// Apply pending migrations up to `target` (tests build older stores with it).
/// Apply pending migrations up to `target`; true when any was applied.
pub fn migrate_up_to(conn: &Connection, path: &Path, target: i64) -> Result<bool> {
    conn.execute_batch(LEDGER_DDL)?;
    let applied = applied_migrations(conn)?;
    verify(&applied, path)?;
    let pending: Vec<_> = MIGRATIONS
        .iter()
        .filter(|m| m.version <= target && !applied.iter().any(|a| a.version == m.version))
        .collect();
    if pending.is_empty() {
        return Ok(false);
    }
    if let Some(current) = applied.last() {
        backup_before_migration(conn, path, current.version)?;
    }
    for m in pending {
        // Each migration is its own transaction: rolled back on drop when it fails.
        let tx = conn.unchecked_transaction()?;
        tx.execute_batch(m.sql)
            .and_then(|_| {
                tx.execute(
                    "INSERT INTO schema_migrations VALUES (?, ?, ?, now()::TIMESTAMP, ?)",
                    params![m.version, m.name, checksum(m.sql), VERSION],
                )
            })
            .and_then(|_| tx.commit())
            .map_err(|e| {
                Error::Invalid(format!(
                    "migration {:04}_{} failed and was rolled back: {e}",
                    m.version, m.name
                ))
            })?;
    }
    Ok(true)
}

/// The ledger as a lake keeps it (DuckLake refuses keys).
const LAKE_LEDGER_DDL: &str = "CREATE TABLE IF NOT EXISTS schema_migrations (
    version        BIGINT NOT NULL,
    name           VARCHAR NOT NULL,
    checksum       VARCHAR NOT NULL,
    applied_at     TIMESTAMP NOT NULL,
    liftdb_version VARCHAR NOT NULL
)";

/// Bring a lake's schema to this binary's: a new lake gets every
/// migration's resulting tables at once (`lake::schema_ddl`) and a ledger
/// saying so, in one transaction; a lake made by an older liftdb gets the
/// migrations it lacks, which are written in the dialect DuckLake accepts
/// (0015 on). True when anything was applied.
pub fn migrate_lake(conn: &Connection, lake: &str) -> Result<bool> {
    let path = Path::new(lake);
    if has_ledger(conn)? {
        let applied = applied_migrations(conn)?;
        verify(&applied, path)?;
        let pending: Vec<_> = MIGRATIONS
            .iter()
            .filter(|m| !applied.iter().any(|a| a.version == m.version))
            .collect();
        for m in &pending {
            let tx = conn.unchecked_transaction()?;
            tx.execute_batch(m.sql)?;
            record(&tx, m)?;
            tx.commit()?;
        }
        return Ok(!pending.is_empty());
    }
    let tx = conn.unchecked_transaction()?;
    tx.execute_batch(LAKE_LEDGER_DDL)?;
    tx.execute_batch(&super::lake::schema_ddl()?)?;
    for m in MIGRATIONS {
        record(&tx, m)?;
    }
    tx.commit()?;
    super::lake::configure(conn)?;
    Ok(true)
}

/// A migration recorded as applied, in the caller's transaction.
fn record(tx: &Connection, m: &crate::sqlfiles::Migration) -> Result<()> {
    tx.execute(
        "INSERT INTO schema_migrations VALUES (?, ?, ?, now()::TIMESTAMP, ?)",
        params![m.version, m.name, checksum(m.sql), VERSION],
    )?;
    Ok(())
}

/// An older store is copied aside (`NAME.duckdb.bak-vN`, N = its version)
/// before its schema changes.
fn backup_before_migration(conn: &Connection, path: &Path, current: i64) -> Result<()> {
    conn.execute_batch("CHECKPOINT")?;
    let mut name = path.as_os_str().to_os_string();
    name.push(format!(".bak-v{current}"));
    let backup = std::path::PathBuf::from(name);
    std::fs::copy(path, &backup).map_err(|error| Error::Io {
        path: backup.clone(),
        error,
    })?;
    Ok(())
}
