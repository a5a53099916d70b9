//! Canned reports: `sql/reports/NAME.sql`, each a query over the views with
//! a header comment (name, description, params). Filters are bound as named
//! parameters (`$skill`), never spliced into the SQL.

use std::collections::BTreeMap;

pub mod html;

use duckdb::{params_from_iter, Connection};

use crate::output::ResultSet;
use crate::sqlfiles::REPORTS;
use crate::{Error, Result};

#[derive(Debug, Clone)]
pub struct Report {
    pub name: String,
    pub description: String,
    pub params: Vec<String>,
    /// The columns a terminal shows by default (`-- compact:`; all when empty).
    pub compact: Vec<String>,
    pub sql: &'static str,
}

fn header_list(sql: &str, key: &str) -> Vec<String> {
    header_value(sql, key)
        .unwrap_or("")
        .split(',')
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

fn header_value<'a>(sql: &'a str, key: &str) -> Option<&'a str> {
    sql.lines()
        .take_while(|l| l.starts_with("--"))
        .find_map(|l| l.trim_start_matches('-').trim().strip_prefix(key))
        .map(|v| v.trim_start_matches(':').trim())
}

fn parse(sql: &'static str) -> Report {
    Report {
        name: header_value(sql, "name").unwrap_or("").to_string(),
        description: header_value(sql, "description").unwrap_or("").to_string(),
        params: header_list(sql, "params"),
        compact: header_list(sql, "compact"),
        sql,
    }
}

pub fn all() -> Vec<Report> {
    REPORTS.iter().map(|(_, sql)| parse(sql)).collect()
}

pub fn find(name: &str) -> Result<Report> {
    all()
        .into_iter()
        .find(|r| r.name == name)
        .ok_or_else(|| Error::UnknownReport(name.to_string()))
}

/// Filters by parameter name (skill, model, split, case, arm, release).
pub type Filters = BTreeMap<String, String>;

impl Report {
    /// Refuse a filter this report has no parameter for (it would be ignored silently).
    pub fn check_filters(&self, filters: &Filters) -> Result<()> {
        match filters.keys().find(|name| !self.params.contains(name)) {
            Some(name) => Err(Error::UnsupportedFilter {
                report: self.name.clone(),
                filter: name.clone(),
                accepted: self.params.join(", "),
            }),
            None => Ok(()),
        }
    }
}

pub fn run(conn: &Connection, report: &Report, filters: &Filters) -> Result<ResultSet> {
    report.check_filters(filters)?;
    query(conn, report.sql, filters)
}

/// The value of each `$name` parameter of a prepared statement, in order:
/// the filter of that name, or NULL when absent.
pub fn bound_values(stmt: &duckdb::Statement, named: &Filters) -> Result<Vec<Option<String>>> {
    (1..=stmt.parameter_count())
        .map(|i| {
            let name = stmt.parameter_name(i)?;
            Ok(named.get(name.trim_start_matches('$')).cloned())
        })
        .collect()
}

/// Run one statement, binding each `$name` parameter from `named` (NULL when absent).
pub fn query(conn: &Connection, sql: &str, named: &Filters) -> Result<ResultSet> {
    let mut stmt = conn.prepare(sql)?;
    let values = bound_values(&stmt, named)?;
    let arrow = stmt.query_arrow(params_from_iter(values))?;
    let schema = arrow.get_schema();
    let batches = arrow.collect();
    Ok(ResultSet { schema, batches })
}
