//! Derived tables: views stored as rows, refilled at the end of every batch
//! inside its transaction, so reports read a few stored aggregates instead of
//! recomputing every run and pair of the store (at a million runs a report
//! over the live views took seconds). Each table is created beside its view
//! (`CREATE TABLE t AS SELECT * FROM v LIMIT 0` in the view's .sql file), so
//! its columns follow the view's definition; the views stay live for ad-hoc
//! SQL and `liftdb check` verifies each table holds its view's rows.

use duckdb::Connection;

use crate::Result;

/// (table, the view it stores), in refill order: a later view reads an
/// earlier table (lift reads lift_unit_rows).
pub const DERIVED: &[(&str, &str)] = &[
    ("lift_unit_rows", "lift_units"),
    ("lift_rows", "lift"),
    ("case_flag_rows", "case_flags"),
];

/// Refill every derived table from its view, in the caller's transaction.
pub fn refresh(conn: &Connection) -> Result<()> {
    for (table, view) in DERIVED {
        conn.execute_batch(&format!(
            "DELETE FROM {table}; INSERT INTO {table} BY NAME SELECT * FROM {view};"
        ))?;
    }
    Ok(())
}

/// Give each derived table's columns its view's comments (an analyst reading
/// the table sees what each column means).
pub fn copy_comments(conn: &Connection) -> Result<()> {
    for (table, view) in DERIVED {
        let mut stmt = conn.prepare(
            "SELECT column_name, comment FROM duckdb_columns()
             WHERE table_name = ? AND schema_name = 'main' AND comment IS NOT NULL",
        )?;
        let comments = stmt
            .query_map([view], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })?
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let sql: String = comments
            .iter()
            .map(|(column, comment)| {
                format!(
                    "COMMENT ON COLUMN {table}.\"{}\" IS '{}';\n",
                    column.replace('"', "\"\""),
                    comment.replace('\'', "''")
                )
            })
            .collect();
        conn.execute_batch(&sql)?;
    }
    Ok(())
}
