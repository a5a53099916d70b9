//! A report as a reader sees it, one path for `liftdb report`, the shell's
//! `.report` and `liftdb demo`: on a terminal the lift headline first, one
//! block per release, skill, experiment … where they vary (each under a
//! heading naming it), the report's compact columns, and one footer saying
//! what was left out; `--all-columns` every column, record by record when
//! they cannot fit side by side. Elsewhere (a file, a pipe, CSV, JSON) the
//! rows whole, as the query gives them.

use std::io::Write;

use duckdb::arrow::array::Array;

use crate::output::{self, Format, RenderOptions, ResultSet};
use crate::Result;

use super::{find, run_via, Filters, Report};

/// How a report is shown.
#[derive(Debug, Clone)]
pub struct Presentation {
    pub format: Format,
    /// Width, rows and cells a table is fitted to (width 0: not fitted).
    pub render: RenderOptions,
    /// Every column, not the report's compact set.
    pub all_columns: bool,
}

impl Presentation {
    /// Whether this is a table for a reader (fitted to a width), not rows
    /// for a program or a file.
    pub fn for_reading(&self) -> bool {
        matches!(self.format, Format::Table | Format::Box) && self.render.fit.max_width > 0
    }
}

/// One of the presenter's own questions: `sql/present/NAME.sql`.
pub(super) fn present_sql(name: &str) -> &'static str {
    crate::sqlfiles::named(crate::sqlfiles::PRESENT_QUERIES, name)
}

/// A report's result and the sentences that come before its table.
pub struct Shown {
    pub headline: Vec<String>,
    pub rows: ResultSet,
    /// Filters naming a column of the compact set (`--case X`): that column
    /// holds X on every row, so a terminal names it once above the table.
    pub pinned: Vec<(String, String)>,
}

/// Run `report` through `query` (a connection's or the shell's) and, when
/// it is read on a terminal, the sentences that head it: `lift` starts
/// with the lift-headline report's sentence per skill and release.
pub fn run_shown(
    report: &Report,
    filters: &Filters,
    how: &Presentation,
    mut query: impl FnMut(&str, &Filters) -> Result<ResultSet>,
) -> Result<Shown> {
    let rows = run_via(report, filters, &mut query)?;
    let mut headline = Vec::new();
    if report.name == "lift" && how.for_reading() {
        let sentences = find("lift-headline")?;
        let taken: Filters = filters
            .iter()
            .filter(|(k, _)| sentences.params.contains(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let rs = run_via(&sentences, &taken, &mut query)?;
        // Then the runs that did not count, and what measures nothing, beside
        // the sentence they would mislead.
        let not_counted = query(present_sql("not_counted"), &taken)?;
        let suspect = query(present_sql("suspect"), &taken)?;
        for batch in rs
            .batches
            .iter()
            .chain(&not_counted.batches)
            .chain(&suspect.batches)
        {
            headline.extend(
                (0..batch.num_rows()).filter_map(|i| output::cell_text(batch.column(0), i)),
            );
        }
    }
    let pinned = filters
        .iter()
        .filter(|(k, _)| report.compact.contains(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok(Shown {
        headline,
        rows,
        pinned,
    })
}

impl Shown {
    /// Write the result as `how` says; `report` names its compact columns
    /// and identity.
    pub fn write(
        &self,
        report: &Report,
        how: &Presentation,
        out: &mut dyn Write,
    ) -> std::io::Result<()> {
        let rs = &self.rows;
        if !how.for_reading() {
            return output::render_with(rs, how.format, &how.render, out);
        }
        for sentence in &self.headline {
            let lines = output::wrap(sentence, how.render.fit.max_width, 2);
            for (i, line) in lines.iter().enumerate() {
                writeln!(out, "{}{line}", if i == 0 { "" } else { "  " })?;
            }
        }
        if !self.headline.is_empty() {
            writeln!(out)?;
        }
        if let Some(at) = prose_column(report, rs, how.all_columns) {
            return write_sentences(rs, at, how, out);
        }
        let all = rs.schema.fields().len();
        if how.all_columns || report.compact.is_empty() {
            return write_every_column(rs, how, out);
        }
        if !self.pinned.is_empty() {
            let named: Vec<String> = self
                .pinned
                .iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect();
            writeln!(out, "{}", named.join(" · "))?;
        }
        let compact: Vec<String> = report
            .compact
            .iter()
            .filter(|c| !self.pinned.iter().any(|(k, _)| k == *c))
            .filter(|c| rs.schema.index_of(c).is_ok())
            .filter(|c| !report.compact_if_any.contains(c) || has_value(rs, c))
            .cloned()
            .collect();
        let note =
            |shown: usize| format!("{shown} of {all} columns: --all-columns shows every one");
        let keys = report.varying_identity(rs);
        let blocks = match keys.is_empty() {
            true => Vec::new(),
            false => rs.split_by(&keys),
        };
        // No blocks, or one row each (a block per row says nothing a column
        // would not): one table, the varying identity as its first columns.
        if blocks.iter().all(|(_, block)| block.row_count() == 1) {
            let columns: Vec<String> = keys.iter().chain(&compact).cloned().collect();
            let shown = project(&explain_nulls(report, rs)?, &columns)?;
            let note = note(columns.len());
            return output::render_noted(&shown, how.format, &how.render, Some(&note), out);
        }
        let last = blocks.len() - 1;
        for (n, (values, block)) in blocks.into_iter().enumerate() {
            let heading: Vec<String> = keys
                .iter()
                .zip(&values)
                .filter(|(_, v)| *v != "-")
                .map(|(k, v)| format!("{k} {v}"))
                .collect();
            if n > 0 {
                writeln!(out)?;
            }
            writeln!(out, "{}", heading.join(" · "))?;
            let shown = project(&explain_nulls(report, &block)?, &compact)?;
            // The note once, under the last block.
            let note = (n == last).then(|| note(compact.len()));
            match block.row_count() {
                // One row reads as a record, not a one-row table.
                1 => write_record(&shown, how, note.as_deref(), out)?,
                _ => output::render_noted(&shown, how.format, &how.render, note.as_deref(), out)?,
            }
        }
        Ok(())
    }
}

/// `rs` with each NULL of a column `-- why-null:` explains printed as
/// "NULL (reason)" from the row's reason column: the compact set leaves
/// the reason column out, so the cell says it. A column keeps its place
/// and its alignment; a NULL with no reason stays NULL.
fn explain_nulls(report: &Report, rs: &ResultSet) -> std::io::Result<ResultSet> {
    let mut explained = Vec::new();
    for (column, reason) in &report.why_null {
        let (Ok(at), Ok(why)) = (rs.schema.index_of(column), rs.schema.index_of(reason)) else {
            continue;
        };
        if rs.batches.iter().any(|b| b.column(at).null_count() > 0) {
            explained.push((at, why));
        }
    }
    if explained.is_empty() {
        return Ok(rs.clone());
    }
    rs.with_text_columns(&explained, |cell, reason| match (cell, reason) {
        (Some(text), _) => Some(text),
        (None, Some(reason)) => Some(format!("NULL ({reason})")),
        (None, None) => None,
    })
    .map_err(std::io::Error::other)
}

/// Whether some row of `rs` has a value in `column`.
fn has_value(rs: &ResultSet, column: &str) -> bool {
    rs.schema.index_of(column).is_ok_and(|at| {
        rs.batches
            .iter()
            .any(|b| b.column(at).null_count() < b.num_rows())
    })
}

/// The column read as prose, sentences: the result's one column of text,
/// or (unless every column is asked for) a compact set that is one column
/// of text (lift-headline: its sentence, the numbers it decided on beside
/// it for pipes and --all-columns).
fn prose_column(report: &Report, rs: &ResultSet, all_columns: bool) -> Option<usize> {
    use duckdb::arrow::datatypes::DataType;
    let text = |at: usize| {
        matches!(
            rs.schema.field(at).data_type(),
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
        )
    };
    match report.compact.as_slice() {
        [] => (rs.schema.fields().len() == 1 && text(0)).then_some(0),
        [only] if !all_columns => rs.schema.index_of(only).ok().filter(|at| text(*at)),
        _ => None,
    }
}

/// Each row's text in column `at` as a paragraph wrapped to the width, never cut.
fn write_sentences(
    rs: &ResultSet,
    at: usize,
    how: &Presentation,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    for row in rs.text_rows() {
        let text = row.into_iter().nth(at).flatten().unwrap_or_default();
        for (i, line) in output::wrap(&text, how.render.fit.max_width, 2)
            .iter()
            .enumerate()
        {
            writeln!(out, "{}{line}", if i == 0 { "" } else { "  " })?;
        }
    }
    Ok(())
}

/// One row as `column = value` lines, cells whole, and the note.
fn write_record(
    rs: &ResultSet,
    how: &Presentation,
    note: Option<&str>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let whole = RenderOptions {
        null_value: how.render.null_value.clone(),
        fit: output::Fit::NONE,
    };
    output::render_with(rs, Format::Line, &whole, out)?;
    match note {
        Some(note) => writeln!(out, "(1 row; {note})"),
        None => writeln!(out, "(1 row)"),
    }
}

/// Every column: a table when they fit side by side, else each row as a
/// record of `column = value` lines (nothing elided or cut).
fn write_every_column(
    rs: &ResultSet,
    how: &Presentation,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    if output::table_fits(rs, &how.render) {
        return output::render_with(rs, how.format, &how.render, out);
    }
    // Cells whole; as many records as a table would show rows.
    let max_rows = how.render.fit.max_rows;
    let records = RenderOptions {
        null_value: how.render.null_value.clone(),
        fit: output::Fit {
            max_rows,
            ..output::Fit::NONE
        },
    };
    output::render_with(rs, Format::Line, &records, out)?;
    let rows = rs.row_count();
    let shown = match max_rows {
        0 => rows,
        m => rows.min(m),
    };
    let count = match (rows, shown == rows) {
        (1, _) => "1 row".to_string(),
        (n, true) => format!("{n} rows"),
        (n, false) => format!("{n} rows, the first {shown} shown"),
    };
    writeln!(
        out,
        "\n({count}, each as a record: {} columns do not fit {} side by side)",
        rs.schema.fields().len(),
        how.render.fit.max_width
    )
}

fn project(rs: &ResultSet, columns: &[String]) -> std::io::Result<ResultSet> {
    rs.project(columns).map_err(std::io::Error::other)
}
