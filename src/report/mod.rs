//! Canned reports: `sql/reports/NAME.sql`, each a query over the views with
//! a header comment (name, description, params). Filters are bound as named
//! parameters (`$skill`), never spliced into the SQL. A report may append
//! the rows of others (`-- includes:`), each run only when its `-- when:`
//! query says it has something to show: one statement would compute every
//! part whatever the data holds.

use std::collections::BTreeMap;

mod filter_values;
pub mod html;
mod present;
pub mod run_card;
pub mod scope;

pub use present::{run_shown, Presentation, Shown};

use duckdb::arrow::datatypes::SchemaRef;
use duckdb::arrow::record_batch::RecordBatch;
use duckdb::{params_from_iter, Connection};

use crate::output::ResultSet;
use crate::sqlfiles::REPORTS;
use crate::store::budget::again_on_one_thread_if_short;
use crate::{Error, Result};

#[derive(Debug, Clone)]
pub struct Report {
    pub name: String,
    /// Former names it still answers to (`-- aliases:`).
    pub aliases: Vec<String>,
    pub description: String,
    pub params: Vec<String>,
    /// The columns a terminal shows by default (`-- compact:`; all when empty).
    pub compact: Vec<String>,
    /// Compact columns shown only where some row has a value (`name?` in
    /// `-- compact:`): a case's name, which only some harnesses give.
    pub compact_if_any: Vec<String>,
    /// Columns a terminal shows one block per value of, where they vary
    /// (`-- blocks:`), after the identity columns (release, skill …).
    pub blocks: Vec<String>,
    /// Which column says why a cell of another is NULL (`-- why-null: a, b =
    /// reason; c = other`): where the compact set shows such a NULL, the
    /// reason column is shown beside it.
    pub why_null: Vec<(String, String)>,
    /// Reports whose rows follow this one's (`-- includes:`; same columns).
    pub includes: Vec<String>,
    /// A query giving one boolean: whether the report has rows to compute
    /// (`-- when:`); when false it is not run.
    pub when: Option<&'static str>,
    /// The stored table the report lists in the order it is kept in, with
    /// no aggregate of its own (`-- lists:`): streamed, it runs on one
    /// DuckDB thread while the other core makes its text.
    pub lists: Option<&'static str>,
    pub sql: &'static str,
    /// A listing's statement without its final ORDER BY: what a DuckDB
    /// file, which returns a table's rows as it stored them, runs (a lake
    /// runs `sql` whole: `sql/present/listing_sorted.sql`).
    pub as_stored: Option<&'static str>,
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
        aliases: header_list(sql, "aliases"),
        description: header_value(sql, "description").unwrap_or("").to_string(),
        params: header_list(sql, "params"),
        compact: header_list(sql, "compact")
            .into_iter()
            .map(|c| c.trim_end_matches('?').to_string())
            .collect(),
        compact_if_any: header_list(sql, "compact")
            .into_iter()
            .filter_map(|c| c.strip_suffix('?').map(str::to_string))
            .collect(),
        blocks: header_list(sql, "blocks"),
        why_null: why_null(sql),
        includes: header_list(sql, "includes"),
        when: header_value(sql, "when"),
        lists: header_value(sql, "lists"),
        sql,
        as_stored: header_value(sql, "lists").map(|_| without_final_sort(sql)),
    }
}

/// A listing report's statement up to its final ORDER BY, which it must end
/// with (the report files are part of the binary: a file without one is a
/// defect of this build).
fn without_final_sort(sql: &'static str) -> &'static str {
    match sql.rfind("\nORDER BY ") {
        Some(at) => &sql[..at],
        None => panic!("a `-- lists:` report ends with the ORDER BY its table is kept in: {sql}"),
    }
}

/// `-- why-null: a, b = reason; c = other` as (column, reason column) pairs.
fn why_null(sql: &str) -> Vec<(String, String)> {
    let Some(header) = header_value(sql, "why-null") else {
        return Vec::new();
    };
    header
        .split(';')
        .filter_map(|part| part.split_once('='))
        .flat_map(|(columns, reason)| {
            let reason = reason.trim().to_string();
            columns
                .split(',')
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(move |c| (c.to_string(), reason.clone()))
        })
        .collect()
}

pub fn all() -> Vec<Report> {
    REPORTS.iter().map(|(_, sql)| parse(sql)).collect()
}

pub fn find(name: &str) -> Result<Report> {
    all()
        .into_iter()
        .find(|r| r.name == name || r.aliases.iter().any(|a| a == name))
        .ok_or_else(|| Error::UnknownReport {
            name: name.to_string(),
            nearest: nearest_name(name),
        })
}

/// The report name a mistyped one most likely meant: the nearest by edit
/// distance, when it is near (at most a third of the name's letters away).
fn nearest_name(name: &str) -> Option<String> {
    all()
        .into_iter()
        .filter(|r| !r.name.starts_with("html/"))
        .map(|r| (strsim::damerau_levenshtein(name, &r.name), r.name))
        .filter(|(distance, _)| *distance <= name.chars().count().div_ceil(3).max(1))
        .min()
        .map(|(_, n)| n)
}

/// Filters by parameter name (skill, model, split, case, arm, release).
pub type Filters = BTreeMap<String, String>;

/// The columns that say which release, skill, experiment, split or control a
/// row belongs to: a compact view names them whenever they vary in the
/// result, so no two rows look alike.
const IDENTITY_COLUMNS: [&str; 6] = ["release", "skill", "kind", "experiment", "split", "control"];

impl Report {
    /// The identity columns whose values vary in `rs` (and that its compact
    /// set leaves out): a terminal shows one block per combination of them.
    pub fn varying_identity(&self, rs: &ResultSet) -> Vec<String> {
        let names = rs.column_names();
        let varies = |name: &str| {
            let Some(at) = names.iter().position(|n| n == name) else {
                return false;
            };
            let mut seen: Option<Option<String>> = None;
            for batch in &rs.batches {
                for i in 0..batch.num_rows() {
                    let value = crate::output::cell_text(batch.column(at), i);
                    match &seen {
                        None => seen = Some(value),
                        Some(first) if *first != value => return true,
                        Some(_) => {}
                    }
                }
            }
            false
        };
        IDENTITY_COLUMNS
            .iter()
            .copied()
            .chain(self.blocks.iter().map(String::as_str))
            .filter(|c| !self.compact.iter().any(|k| k == *c) && varies(c))
            .map(|c| c.to_string())
            .collect()
    }

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

/// Refuse a filter value the store does not hold: the check every report
/// makes, for the commands that take the same filters (gate, plan).
pub fn check_filter_values(conn: &Connection, filters: &Filters) -> Result<()> {
    filter_values::check(filters, |sql, named| query(conn, sql, named))
}

pub fn run(conn: &Connection, report: &Report, filters: &Filters) -> Result<ResultSet> {
    run_via(report, filters, |sql, named| query(conn, sql, named))
}

/// One statement of a report: the report's own or an included one's.
struct Part {
    report: String,
    sql: String,
}

/// The statements a report runs, in order: its own (only its columns when
/// its `when` finds nothing to report), then each included report's whose
/// `when` holds. `ask` runs a query with the named parameters given (a
/// `when` takes none; a filter value's check takes the value).
fn parts(
    report: &Report,
    filters: &Filters,
    mut ask: impl FnMut(&str, &Filters) -> Result<ResultSet>,
) -> Result<Vec<Part>> {
    report.check_filters(filters)?;
    filter_values::check(filters, &mut ask)?;
    let mut holds = |when: &str| ask(when, &Filters::new()).map(|rs| holds(&rs));
    let listed = match report.as_stored {
        Some(as_stored) if !holds(present::present_sql("listing_sorted"))? => as_stored,
        _ => report.sql,
    };
    let own = match report.when {
        // Nothing to report (reconcile-trend with no trend report held): the
        // statement gives its columns without running (on a large store it
        // is slow and large only to find no rows).
        Some(when) if !holds(when)? => {
            let sql = report.sql.trim_end().trim_end_matches(';');
            format!("SELECT * FROM (\n{sql}\n) LIMIT 0")
        }
        _ => listed.to_string(),
    };
    let mut parts = vec![Part {
        report: report.name.clone(),
        sql: own,
    }];
    for name in &report.includes {
        let part = find(name)?;
        if let Some(when) = part.when {
            if !holds(when)? {
                continue;
            }
        }
        // One level: an included report's own includes are not followed.
        part.check_filters(filters)?;
        parts.push(Part {
            report: name.clone(),
            sql: part.sql.to_string(),
        });
    }
    Ok(parts)
}

/// Run a report through `query` (the shell's interruptible one, or a
/// connection's): its own rows, then those of each report it includes
/// whose `when` holds (taking the same filters).
pub fn run_via(
    report: &Report,
    filters: &Filters,
    mut query: impl FnMut(&str, &Filters) -> Result<ResultSet>,
) -> Result<ResultSet> {
    let parts = parts(report, filters, &mut query)?;
    let mut result: Option<ResultSet> = None;
    for part in parts {
        let rows = query(&part.sql, filters)?;
        match result.as_mut() {
            None => result = Some(rows),
            Some(into) => append(into, rows, &report.name, &part.report)?,
        }
    }
    Ok(result.expect("a report runs its own statement"))
}

/// A report as one statement, for DuckDB's COPY: its own rows, then each
/// included report's whose `when` holds, joined by UNION ALL (which keeps the
/// parts' order when the rows' order is preserved, as COPY preserves it).
pub fn statement(conn: &Connection, report: &Report, filters: &Filters) -> Result<String> {
    let parts = parts(report, filters, |sql, named| query(conn, sql, named))?;
    Ok(parts
        .iter()
        .map(|part| format!("(\n{}\n)", part.sql.trim().trim_end_matches(';')))
        .collect::<Vec<_>>()
        .join("\nUNION ALL\n"))
}

/// What a streamed report hands on: its columns once, then its rows.
pub enum Streamed<'a> {
    Columns(&'a SchemaRef),
    Rows(&'a RecordBatch),
}

/// Run a report, handing `sink` its columns and then its rows a record
/// batch at a time, as DuckDB gives them: nothing is held. `sink`'s own
/// error (a closed pipe) ends it and is returned as it is.
pub fn stream<E: From<Error>>(
    conn: &Connection,
    report: &Report,
    filters: &Filters,
    sink: impl FnMut(Streamed) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    if report.lists.is_none() {
        return stream_parts(conn, report, filters, sink);
    }
    // A listing is a scan DuckDB hands over a chunk at a time (in a DuckDB
    // file; a lake's sorts first): on one thread it does not wait on a
    // second one, and the caller's text takes the other core.
    crate::store::budget::on_threads(conn, 1, || stream_parts(conn, report, filters, sink))
}

fn stream_parts<E: From<Error>>(
    conn: &Connection,
    report: &Report,
    filters: &Filters,
    mut sink: impl FnMut(Streamed) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    let parts = parts(report, filters, |sql, named| query(conn, sql, named))?;
    let mut columns: Option<SchemaRef> = None;
    for part in parts {
        // A part out of memory before any of its rows was handed on (a sort
        // or an aggregate gives none until it is done) is tried again on
        // one thread; after, its rows would be handed on twice.
        let handed_on = std::cell::Cell::new(false);
        let streamed = again_on_one_thread_if_short(
            conn,
            || {
                stream_part(
                    conn,
                    report,
                    &part,
                    filters,
                    &mut columns,
                    &mut sink,
                    &handed_on,
                )
            },
            |halt| matches!(halt, Halt::Store(e) if e.is_out_of_memory() && !handed_on.get()),
        );
        streamed.map_err(|halt| match halt {
            Halt::Store(e) => E::from(e),
            Halt::Sink(e) => e,
        })?;
    }
    Ok(())
}

/// Why a streamed part stopped: the store's error, or the sink's own.
enum Halt<E> {
    Store(Error),
    Sink(E),
}

impl<E> From<Error> for Halt<E> {
    fn from(e: Error) -> Self {
        Halt::Store(e)
    }
}

fn stream_part<E>(
    conn: &Connection,
    report: &Report,
    part: &Part,
    filters: &Filters,
    columns: &mut Option<SchemaRef>,
    sink: &mut impl FnMut(Streamed) -> std::result::Result<(), E>,
    handed_on: &std::cell::Cell<bool>,
) -> std::result::Result<(), Halt<E>> {
    let mut stmt = conn.prepare(&part.sql).map_err(Error::from)?;
    let values = bound_values(&stmt, filters)?;
    let schema = stmt
        .stream_arrow(params_from_iter(values))
        .map_err(Error::from)?
        .get_schema();
    // Stepped here, not through the crate's iterator, which panics on a
    // failure mid-stream (an interrupt, DuckDB out of memory): each is
    // an error the caller says.
    let batches = std::iter::from_fn(|| stmt.step().transpose())
        .map(|chunk| chunk.map(|array| duckdb::arrow::record_batch::RecordBatch::from(&array)));
    let first = match columns {
        None => {
            sink(Streamed::Columns(&schema)).map_err(Halt::Sink)?;
            columns.insert(schema)
        }
        Some(first) => {
            same_columns(first, &schema, &report.name, &part.report)?;
            first
        }
    };
    for batch in batches {
        let batch = as_columns_of(first, batch.map_err(Error::from)?, &report.name)?;
        handed_on.set(true);
        sink(Streamed::Rows(&batch)).map_err(Halt::Sink)?;
    }
    Ok(())
}

/// A `when` query's answer: its first cell, true.
fn holds(rs: &ResultSet) -> bool {
    use duckdb::arrow::array::{Array, BooleanArray};
    rs.batches
        .iter()
        .find(|b| b.num_rows() > 0)
        .and_then(|b| b.column(0).as_any().downcast_ref::<BooleanArray>().cloned())
        .is_some_and(|c| c.is_valid(0) && c.value(0))
}

/// An included report's columns must be the report's own, by name and
/// type, in order (a report file edited out of step is refused).
fn same_columns(into: &SchemaRef, part: &SchemaRef, report: &str, included: &str) -> Result<()> {
    let shape = |s: &SchemaRef| -> Vec<(String, duckdb::arrow::datatypes::DataType)> {
        s.fields()
            .iter()
            .map(|f| (f.name().clone(), f.data_type().clone()))
            .collect()
    };
    if shape(into) != shape(part) {
        return Err(Error::Invalid(format!(
            "report {report} includes {included}, whose columns are not its own; hint: give sql/reports/{included}.sql the columns of sql/reports/{report}.sql, in order and of the same types"
        )));
    }
    Ok(())
}

/// `batch` under the report's own schema (same columns, checked).
fn as_columns_of(schema: &SchemaRef, batch: RecordBatch, report: &str) -> Result<RecordBatch> {
    RecordBatch::try_new(schema.clone(), batch.columns().to_vec())
        .map_err(|e| Error::Invalid(format!("report {report}: {e}")))
}

/// The rows of an included report after the report's own.
fn append(into: &mut ResultSet, part: ResultSet, report: &str, included: &str) -> Result<()> {
    same_columns(&into.schema, &part.schema, report, included)?;
    for batch in part.batches {
        into.batches
            .push(as_columns_of(&into.schema, batch, report)?);
    }
    Ok(())
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

/// Run one statement, binding each `$name` parameter from `named` (NULL
/// when absent); out of memory on several threads, again on one.
pub fn query(conn: &Connection, sql: &str, named: &Filters) -> Result<ResultSet> {
    again_on_one_thread_if_short(
        conn,
        || query_once(conn, sql, named),
        Error::is_out_of_memory,
    )
}

fn query_once(conn: &Connection, sql: &str, named: &Filters) -> Result<ResultSet> {
    let mut stmt = conn.prepare(sql)?;
    let values = bound_values(&stmt, named)?;
    let arrow = stmt.query_arrow(params_from_iter(values))?;
    let schema = arrow.get_schema();
    let batches = arrow.collect();
    Ok(ResultSet { schema, batches })
}
