//! Views are re-created on a write-open when their SQL changed (a new liftdb)
//! or the schema did (a migration ran), then each is probed so a broken view
//! fails loudly here. Otherwise the stored views are current and kept.

use duckdb::Connection;

use crate::sqlfiles::VIEWS;
use crate::{Error, Result};

/// The hash of every view definition this binary ships.
fn views_sha256() -> String {
    let all: Vec<u8> = VIEWS
        .iter()
        .flat_map(|(name, sql)| [name.as_bytes(), b"\0", sql.as_bytes(), b"\0"].concat())
        .collect();
    crate::ingest::json::sha256_hex(&all)
}

fn view_count(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT count(*) FROM duckdb_views() WHERE NOT internal AND schema_name = 'main'",
        [],
        |r| r.get(0),
    )?)
}

/// Whether the store holds exactly this binary's views (same definitions,
/// none dropped by hand since) and the derived tables they fill.
pub fn current(conn: &Connection) -> Result<bool> {
    let wanted = format!("{}:{}", views_sha256(), view_count(conn)?);
    let stored: Option<String> = conn
        .query_row(
            "SELECT value FROM liftdb_settings WHERE key = 'views_sha256'",
            [],
            |r| r.get(0),
        )
        .ok();
    Ok(stored.as_deref() == Some(wanted.as_str()))
}

/// Re-create the views unless the store already holds exactly these.
pub fn ensure_views(conn: &Connection, schema_changed: bool) -> Result<()> {
    if !schema_changed && current(conn)? {
        return Ok(());
    }
    // Two transactions. The view files re-create the derived tables empty,
    // and DuckDB 2.0 misreads a table replaced and refilled in one
    // transaction: past a row group or so (600,000 rows here) a filtered
    // scan of it finds nothing, so lift_rows, refilled from lift_unit_rows,
    // came out empty on a million-run store. The refill therefore runs once
    // the new tables are committed; the views' hash is stored only after
    // it, so an open that stops between the two does both again.
    let tx = conn.unchecked_transaction()?;
    recreate_views(&tx)?;
    tx.commit()?;
    let tx = conn.unchecked_transaction()?;
    // The statistics tables are derived from the views: a new definition (or
    // a migration that re-created a table) refills them, every release at
    // once, under the default budget (left to DuckDB, a million-run store's
    // refill peaked at 3.7 GB). DuckDB's own limits are back afterwards.
    // Every release refilled: a batch's refill left waiting is done too.
    super::budget::under_default_refill(&tx, || super::refill::everything(&tx))?;
    let now = format!("{}:{}", views_sha256(), view_count(&tx)?);
    tx.execute(
        "INSERT OR REPLACE INTO liftdb_settings VALUES ('views_sha256', ?)",
        [now],
    )?;
    tx.commit()?;
    Ok(())
}

pub fn recreate_views(conn: &Connection) -> Result<()> {
    for (name, sql) in VIEWS {
        conn.execute_batch(sql).map_err(|e| Error::ViewProbe {
            name: (*name).to_string(),
            detail: e.to_string(),
        })?;
    }
    super::derived::copy_comments(conn)?;
    probe_views(conn)
}

pub fn probe_views(conn: &Connection) -> Result<()> {
    let mut stmt = conn.prepare(
        "SELECT view_name FROM duckdb_views() WHERE NOT internal AND schema_name = 'main' ORDER BY view_name",
    )?;
    let names: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for name in names {
        let probe = format!("SELECT * FROM \"{}\" LIMIT 0", name.replace('"', "\"\""));
        conn.execute_batch(&probe).map_err(|e| Error::ViewProbe {
            name: name.clone(),
            detail: e.to_string(),
        })?;
    }
    Ok(())
}
