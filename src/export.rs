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

/// What an export wrote.
#[derive(Debug, Clone)]
pub struct Exported {
    pub rows: u64,
    /// Set when the name given was both a report and a view or table: which
    /// was taken, and how to get the other.
    pub note: Option<String>,
}

/// The query behind `what`: a canned report (its `$name` filters left as
/// parameters), a view/table name, or SQL; with a note when the name is
/// both a report and a view or table.
fn source_query(
    conn: &Connection,
    what: &str,
    filters: &Filters,
) -> Result<(String, Option<String>)> {
    let trimmed = what.trim().trim_end_matches(';');
    let is_relation = |name: &str| -> Result<bool> {
        Ok(conn.query_row(
            "SELECT count(*) > 0 FROM (SELECT table_name AS n FROM duckdb_tables() UNION ALL SELECT view_name FROM duckdb_views()) WHERE n = ?",
            [name],
            |r| r.get(0),
        )?)
    };
    if let Ok(rep) = report::find(trimmed) {
        // The rows `liftdb report` prints: the included reports' too.
        let note = is_relation(trimmed)?.then(|| {
            format!(
                "'{trimmed}' is both a report and a view: exported the report (`liftdb report {trimmed}`'s rows); the view's: liftdb export \"SELECT * FROM {trimmed}\" --out FILE"
            )
        });
        return Ok((report::statement(conn, &rep, filters)?, note));
    }
    if let Some(name) = filters.keys().next() {
        return Err(Error::Invalid(format!(
            "--{name} filters canned reports only; for '{trimmed}' write the WHERE clause in a SELECT"
        )));
    }
    if is_relation(trimmed)? {
        Ok((format!("SELECT * FROM {}", quote_ident(trimmed)), None))
    } else {
        Ok((trimmed.to_string(), None))
    }
}

/// `query` with its exact decimals (money) as DOUBLE for a text format:
/// DuckDB writes a DECIMAL with every digit of its scale (0.002067000000),
/// a DOUBLE with its significant ones (0.002067), which a DECIMAL of up to
/// 15 significant digits converts to exactly. Parquet keeps the DECIMAL.
fn money_as_written(conn: &Connection, query: &str, filters: &Filters) -> Result<String> {
    use duckdb::arrow::datatypes::DataType;
    let probe = format!("SELECT * FROM ({query}) LIMIT 0");
    let mut stmt = conn.prepare(&probe)?;
    let values = report::bound_values(&stmt, filters)?;
    let schema = stmt.query_arrow(params_from_iter(values))?.get_schema();
    let casts: Vec<String> = schema
        .fields()
        .iter()
        .filter(|f| matches!(f.data_type(), DataType::Decimal128(_, s) | DataType::Decimal256(_, s) if *s > 0))
        .map(|f| format!("CAST({0} AS DOUBLE) AS {0}", quote_ident(f.name())))
        .collect();
    Ok(match casts.is_empty() {
        true => query.to_string(),
        false => format!("SELECT * REPLACE ({}) FROM ({query})", casts.join(", ")),
    })
}

/// Write `what` to `out`, a report's filters bound as parameters (NULL when
/// absent, never spliced into the SQL); returns the number of rows written.
pub fn export(conn: &Connection, what: &str, out: &Path, filters: &Filters) -> Result<Exported> {
    let format = copy_format(out)?;
    let (query, note) = source_query(conn, what, filters)?;
    let query = match format.contains("parquet") {
        true => query,
        false => money_as_written(conn, &query, filters)?,
    };
    let sql = format!(
        "COPY ({query}) TO {} {format}",
        quote_literal(&out.display().to_string())
    );
    let mut stmt = conn.prepare(&sql)?;
    let values = report::bound_values(&stmt, filters)?;
    let rows = stmt.execute(params_from_iter(values))?;
    Ok(Exported {
        rows: rows as u64,
        note,
    })
}
