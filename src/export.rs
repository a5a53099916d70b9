//! Exports through DuckDB's COPY: a view, table, canned report or SELECT to
//! CSV, Parquet or JSON, the format taken from the file extension.

use std::path::Path;

use duckdb::Connection;

use crate::{report, Error, Result};

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

/// The query behind `what`: a canned report, a view/table name, or SQL.
fn source_query(conn: &Connection, what: &str) -> Result<String> {
    let trimmed = what.trim().trim_end_matches(';');
    if let Ok(rep) = report::find(trimmed) {
        // Reports take named parameters; exported unfiltered they are all NULL.
        let mut sql = rep.sql.trim().trim_end_matches(';').to_string();
        for p in &rep.params {
            sql = sql.replace(&format!("${p}"), "CAST(NULL AS VARCHAR)");
        }
        return Ok(sql);
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

/// Write `what` to `out`; returns the number of rows written.
pub fn export(conn: &Connection, what: &str, out: &Path) -> Result<u64> {
    let format = copy_format(out)?;
    let query = source_query(conn, what)?;
    let sql = format!(
        "COPY ({query}) TO {} {format}",
        quote_literal(&out.display().to_string())
    );
    let rows = conn.execute(&sql, [])?;
    Ok(rows as u64)
}
