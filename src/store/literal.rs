//! Text as a SQL string literal, for the few statements DuckDB takes no
//! parameter in (ATTACH, CREATE SECRET, LOAD, COMMENT ON, table functions).

/// `text` as a SQL string literal.
pub fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}
