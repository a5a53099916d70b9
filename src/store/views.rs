//! Views are re-created on a write-open when their SQL changed (a new liftdb)
//! or the schema did (a migration ran); DuckDB binds each as it is created,
//! so a view that cannot be read fails loudly here. Otherwise the stored
//! views are current and kept.

use duckdb::Connection;

use crate::sqlfiles::VIEWS;
use crate::{Error, Result};

/// The hash of every view definition this binary ships.
fn views_sha256() -> String {
    let all: Vec<u8> = VIEWS
        .iter()
        .flat_map(|(name, sql)| [name.as_bytes(), b"\0", sql.as_bytes(), b"\0"].concat())
        .collect();
    crate::sys::hash::sha256_hex(&all)
}

fn view_count(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT count(*) FROM duckdb_views() WHERE NOT internal AND database_name = current_database() AND schema_name = 'main'",
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

/// Re-create the views unless the store already holds exactly these;
/// true when they were. The derived tables the view files re-create are
/// left empty, every release recorded as waiting for its refill, in the
/// same commit as the views' hash: the caller's open refills them a step at
/// a time (refill.rs), as after a batch, and an open that stops before the
/// refill is done leaves it waiting for the next.
///
/// Not one transaction with the refill: DuckDB 2.0 misreads a table
/// replaced and refilled in one (past a row group or so a filtered scan of
/// it found nothing: lift_rows, refilled from lift_unit_rows, came out
/// empty on a large store). Nor the refill in one second transaction: it
/// would hold every step's rows uncommitted at once, and an open stopped in
/// it would leave nothing done.
pub fn ensure_views(conn: &Connection, schema_changed: bool) -> Result<bool> {
    if !schema_changed && current(conn)? {
        return Ok(false);
    }
    let tx = conn.unchecked_transaction()?;
    recreate_views(&tx)?;
    // A store with no release yet (a new one) has nothing to refill: its
    // fourteen steps over empty tables were a fifth of a second.
    let releases: i64 = tx.query_row("SELECT count(*) FROM releases", [], |r| r.get(0))?;
    if releases > 0 {
        super::aggregates::refill::mark_every_waiting(&tx)?;
    }
    let now = format!("{}:{}", views_sha256(), view_count(&tx)?);
    tx.execute(
        "INSERT INTO setting_record VALUES ('views_sha256', ?, now()::TIMESTAMP, ?)",
        duckdb::params![now, (super::ids::random() >> 1) as i64],
    )?;
    tx.commit()?;
    Ok(true)
}

pub fn recreate_views(conn: &Connection) -> Result<()> {
    let on_lake = super::lake::on_lake(conn)?;
    for (name, sql) in VIEWS {
        let sql = match on_lake {
            true => std::borrow::Cow::Owned(super::lake::view_sql(sql)),
            false => std::borrow::Cow::Borrowed(*sql),
        };
        conn.execute_batch(&sql).map_err(|e| Error::ViewProbe {
            name: (*name).to_string(),
            detail: e.to_string(),
        })?;
    }
    // Not probed again here: DuckDB binds a view as it is created, and a
    // view a later file's replacement would break is caught by the tests
    // (every view read on a new store) and by `liftdb check`.
    super::aggregates::copy_comments(conn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::aggregates::refill::{waiting, Waiting};

    /// A views change commits the new views and their hash with every
    /// release recorded as waiting, and refills nothing itself: the open
    /// refills a step at a time, and an open stopped before that is done
    /// leaves the record for the next (which finds the views current). A
    /// store with no release has nothing to wait for.
    #[test]
    fn a_views_change_leaves_every_release_waiting_for_the_refill() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("store.duckdb");
        drop(crate::store::open_write(&db).unwrap());
        let conn = Connection::open(&db).unwrap();
        let views_changed = || {
            conn.execute_batch(
                "INSERT INTO setting_record VALUES ('views_sha256', 'another liftdb', now()::TIMESTAMP, 0)",
            )
            .unwrap();
            assert!(!current(&conn).unwrap());
        };
        views_changed();
        assert!(ensure_views(&conn, false).unwrap(), "re-created");
        assert_eq!(waiting(&conn).unwrap(), Waiting::Nothing, "no release");

        conn.execute_batch(
            "INSERT INTO release_record (release_label, recorded_at, batch_id, position, derived_from) VALUES ('v1', now()::TIMESTAMP, 1, 0, '--release')",
        )
        .unwrap();
        views_changed();
        assert_eq!(waiting(&conn).unwrap(), Waiting::Nothing);

        assert!(ensure_views(&conn, false).unwrap(), "re-created");
        assert!(current(&conn).unwrap());
        assert_eq!(waiting(&conn).unwrap(), Waiting::Every);
        assert!(!ensure_views(&conn, false).unwrap(), "current: kept");
        assert_eq!(waiting(&conn).unwrap(), Waiting::Every, "still waiting");
        drop(conn);

        let reopened = crate::store::open_write(&db).unwrap();
        assert_eq!(waiting(&reopened.conn).unwrap(), Waiting::Nothing);
    }

    /// Every view a new store holds can be read: each was bound as it was
    /// created, and no file created later (a view it reads replaced) broke it.
    #[test]
    fn every_view_of_a_new_store_reads() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::open_write(&dir.path().join("store.duckdb")).unwrap();
        let names: Vec<String> = store
            .conn
            .prepare(
                "SELECT view_name FROM duckdb_views() WHERE NOT internal AND schema_name = 'main' ORDER BY view_name",
            )
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<duckdb::Result<_>>()
            .unwrap();
        let in_files: usize = VIEWS
            .iter()
            .map(|(_, sql)| sql.matches("CREATE OR REPLACE VIEW").count())
            .sum();
        assert_eq!(names.len(), in_files, "every view the files create");
        for name in names {
            let probe = format!("SELECT * FROM \"{name}\" LIMIT 0");
            if let Err(e) = store.conn.execute_batch(&probe) {
                panic!("view {name} cannot be read: {e}");
            }
        }
    }
}
