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
    Csv,
    Json,
    Jsonl,
    Markdown,
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
    match format {
        Format::Table => render_table(rs, out),
        Format::Csv => render_csv(rs, out),
        Format::Json => render_json(rs, out),
        Format::Jsonl => render_jsonl(rs, out),
        Format::Markdown => render_markdown(rs, out),
    }
}

fn render_table(rs: &ResultSet, out: &mut dyn Write) -> std::io::Result<()> {
    let mut table = Table::new();
    table
        .load_preset(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(rs.column_names());
    for (batch, i) in rs.rows() {
        table.add_row(
            batch
                .columns()
                .iter()
                .map(|c| cell_text(c, i).unwrap_or_else(|| "NULL".into())),
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
    writeln!(out, "({n} row{})", if n == 1 { "" } else { "s" })
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn render_csv(rs: &ResultSet, out: &mut dyn Write) -> std::io::Result<()> {
    let header: Vec<String> = rs.column_names().iter().map(|h| csv_field(h)).collect();
    writeln!(out, "{}", header.join(","))?;
    for (batch, i) in rs.rows() {
        let line: Vec<String> = batch
            .columns()
            .iter()
            .map(|c| cell_text(c, i).map(|s| csv_field(&s)).unwrap_or_default())
            .collect();
        writeln!(out, "{}", line.join(","))?;
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

fn render_markdown(rs: &ResultSet, out: &mut dyn Write) -> std::io::Result<()> {
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
    for (batch, i) in rs.rows() {
        let cells: Vec<String> = batch
            .columns()
            .iter()
            .map(|c| md_cell(&cell_text(c, i).unwrap_or_default()))
            .collect();
        writeln!(out, "| {} |", cells.join(" | "))?;
    }
    Ok(())
}
