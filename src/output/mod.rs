//! Rendering query results: table (comfy-table), CSV, JSON, JSON Lines and
//! Markdown, from the Arrow batches DuckDB returns.

mod cells;

use std::io::Write;

use comfy_table::{presets, CellAlignment, ContentArrangement, Table};
use duckdb::arrow::datatypes::{DataType, SchemaRef};
use duckdb::arrow::record_batch::RecordBatch;

pub use cells::{cell_json, cell_text};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Box,
    Csv,
    Tsv,
    Json,
    Jsonl,
    Markdown,
    Line,
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        <Format as clap::ValueEnum>::from_str(s, true).map_err(|_| {
            format!("unknown mode '{s}' (table, box, csv, tsv, json, jsonl, markdown, line)")
        })
    }
}

/// Display settings the REPL can change (`.nullvalue`, `.maxrows`).
#[derive(Debug, Clone)]
pub struct RenderOptions {
    /// How NULL is shown in text formats (JSON always uses null).
    pub null_value: String,
    /// Table/box/line output stops after this many rows (0 = no limit).
    pub max_rows: usize,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            null_value: "NULL".into(),
            max_rows: 0,
        }
    }
}

/// A fully materialized result.
pub struct ResultSet {
    pub schema: SchemaRef,
    pub batches: Vec<RecordBatch>,
}

impl ResultSet {
    pub fn row_count(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }

    fn rows(&self) -> impl Iterator<Item = (&RecordBatch, usize)> {
        self.batches
            .iter()
            .flat_map(|b| (0..b.num_rows()).map(move |i| (b, i)))
    }

    pub fn column_names(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }
}

fn is_numeric(t: &DataType) -> bool {
    t.is_numeric() || matches!(t, DataType::Decimal128(_, _) | DataType::Decimal256(_, _))
}

pub fn render(rs: &ResultSet, format: Format, out: &mut dyn Write) -> std::io::Result<()> {
    render_with(rs, format, &RenderOptions::default(), out)
}

pub fn render_with(
    rs: &ResultSet,
    format: Format,
    opts: &RenderOptions,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    match format {
        Format::Table => render_table(rs, presets::UTF8_FULL_CONDENSED, opts, out),
        Format::Box => render_table(rs, presets::UTF8_FULL, opts, out),
        Format::Csv => render_delimited(rs, ',', out),
        Format::Tsv => render_delimited(rs, '\t', out),
        Format::Json => render_json(rs, out),
        Format::Jsonl => render_jsonl(rs, out),
        Format::Markdown => render_markdown(rs, opts, out),
        Format::Line => render_line(rs, opts, out),
    }
}

fn shown(rs: &ResultSet, opts: &RenderOptions) -> usize {
    let n = rs.row_count();
    if opts.max_rows == 0 {
        n
    } else {
        n.min(opts.max_rows)
    }
}

fn render_line(rs: &ResultSet, opts: &RenderOptions, out: &mut dyn Write) -> std::io::Result<()> {
    let names = rs.column_names();
    let width = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    for (n, (batch, i)) in rs.rows().take(shown(rs, opts)).enumerate() {
        if n > 0 {
            writeln!(out)?;
        }
        for (name, col) in names.iter().zip(batch.columns()) {
            let v = cell_text(col, i).unwrap_or_else(|| opts.null_value.clone());
            writeln!(out, "{name:>width$} = {v}")?;
        }
    }
    Ok(())
}

fn render_table(
    rs: &ResultSet,
    preset: &str,
    opts: &RenderOptions,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut table = Table::new();
    table
        .load_preset(preset)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(rs.column_names());
    for (batch, i) in rs.rows().take(shown(rs, opts)) {
        table.add_row(
            batch
                .columns()
                .iter()
                .map(|c| cell_text(c, i).unwrap_or_else(|| opts.null_value.clone())),
        );
    }
    for (idx, field) in rs.schema.fields().iter().enumerate() {
        if is_numeric(field.data_type()) {
            if let Some(col) = table.column_mut(idx) {
                col.set_cell_alignment(CellAlignment::Right);
            }
        }
    }
    writeln!(out, "{table}")?;
    let n = rs.row_count();
    let limited = shown(rs, opts);
    if limited < n {
        writeln!(out, "({n} rows, {limited} shown; .maxrows 0 shows all)")
    } else {
        writeln!(out, "({n} row{})", if n == 1 { "" } else { "s" })
    }
}

fn delimited_field(s: &str, sep: char) -> String {
    if s.contains([sep, '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// RFC 4180 CSV (or TSV); NULL is an empty field.
fn render_delimited(rs: &ResultSet, sep: char, out: &mut dyn Write) -> std::io::Result<()> {
    let sep_s = sep.to_string();
    let header: Vec<String> = rs
        .column_names()
        .iter()
        .map(|h| delimited_field(h, sep))
        .collect();
    writeln!(out, "{}", header.join(&sep_s))?;
    for (batch, i) in rs.rows() {
        let line: Vec<String> = batch
            .columns()
            .iter()
            .map(|c| {
                cell_text(c, i)
                    .map(|s| delimited_field(&s, sep))
                    .unwrap_or_default()
            })
            .collect();
        writeln!(out, "{}", line.join(&sep_s))?;
    }
    Ok(())
}

fn row_object(rs: &ResultSet, batch: &RecordBatch, i: usize) -> serde_json::Value {
    let mut obj = serde_json::Map::new();
    for (field, col) in rs.schema.fields().iter().zip(batch.columns()) {
        obj.insert(field.name().clone(), cell_json(col, i));
    }
    serde_json::Value::Object(obj)
}

fn render_json(rs: &ResultSet, out: &mut dyn Write) -> std::io::Result<()> {
    let rows: Vec<serde_json::Value> = rs.rows().map(|(b, i)| row_object(rs, b, i)).collect();
    serde_json::to_writer_pretty(&mut *out, &rows)?;
    writeln!(out)
}

fn render_jsonl(rs: &ResultSet, out: &mut dyn Write) -> std::io::Result<()> {
    for (b, i) in rs.rows() {
        serde_json::to_writer(&mut *out, &row_object(rs, b, i))?;
        writeln!(out)?;
    }
    Ok(())
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', "<br>")
}

fn render_markdown(
    rs: &ResultSet,
    opts: &RenderOptions,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let names = rs.column_names();
    writeln!(
        out,
        "| {} |",
        names
            .iter()
            .map(|n| md_cell(n))
            .collect::<Vec<_>>()
            .join(" | ")
    )?;
    let aligns: Vec<&str> = rs
        .schema
        .fields()
        .iter()
        .map(|f| {
            if is_numeric(f.data_type()) {
                "---:"
            } else {
                "---"
            }
        })
        .collect();
    writeln!(out, "| {} |", aligns.join(" | "))?;
    for (batch, i) in rs.rows().take(shown(rs, opts)) {
        let cells: Vec<String> = batch
            .columns()
            .iter()
            .map(|c| md_cell(&cell_text(c, i).unwrap_or_else(|| opts.null_value.clone())))
            .collect();
        writeln!(out, "| {} |", cells.join(" | "))?;
    }
    Ok(())
}
