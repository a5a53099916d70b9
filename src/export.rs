//! Exports through DuckDB's COPY: a view, table, canned report or SELECT to
//! CSV, Parquet or JSON, the format taken from the file extension.

use std::path::Path;

use duckdb::{params_from_iter, Connection};

use crate::report::{self, Filters};
use crate::{Error, Result};

fn copy_format(path: &Path) -> Result<&'static str> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "csv" => Ok("(FORMAT csv, HEADER true)"),
        "tsv" => Ok("(FORMAT csv, HEADER true, DELIMITER '\t')"),
        "parquet" => Ok("(FORMAT parquet)"),
        "json" => Ok("(FORMAT json, ARRAY true)"),
        "jsonl" | "ndjson" => Ok("(FORMAT json)"),
        other => Err(Error::Invalid(format!(
            "cannot export to '.{other}': use .csv, .tsv, .parquet, .json or .jsonl"
        ))),
    }
}

fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

fn quote_literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// The query behind `what`: a canned report (its `$name` filters left as
/// parameters), a view/table name, or SQL.
fn source_query(conn: &Connection, what: &str, filters: &Filters) -> Result<String> {
    let trimmed = what.trim().trim_end_matches(';');
    if let Ok(rep) = report::find(trimmed) {
        // The rows `liftdb report` prints: the included reports' too.
        return report::statement(conn, &rep, filters);
    }
    if let Some(name) = filters.keys().next() {
        return Err(Error::Invalid(format!(
            "--{name} filters canned reports only; for '{trimmed}' write the WHERE clause in a SELECT"
        )));
    }
    let is_relation: bool = conn.query_row(
        "SELECT count(*) > 0 FROM (SELECT table_name AS n FROM duckdb_tables() UNION ALL SELECT view_name FROM duckdb_views()) WHERE n = ?",
        [trimmed],
        |r| r.get(0),
    )?;
    if is_relation {
        Ok(format!("SELECT * FROM {}", quote_ident(trimmed)))
    } else {
        Ok(trimmed.to_string())
    }
}

/// Write `what` to `out`, a report's filters bound as parameters (NULL when
/// absent, never spliced into the SQL); returns the number of rows written.
pub fn export(conn: &Connection, what: &str, out: &Path, filters: &Filters) -> Result<u64> {
    let format = copy_format(out)?;
    let query = source_query(conn, what, filters)?;
    let sql = format!(
        "COPY ({query}) TO {} {format}",
        quote_literal(&out.display().to_string())
    );
    let mut stmt = conn.prepare(&sql)?;
    let values = report::bound_values(&stmt, filters)?;
    let rows = stmt.execute(params_from_iter(values))?;
    Ok(rows as u64)
}
