//! Rendering query results: table (comfy-table), CSV, JSON, JSON Lines and
//! Markdown, from the Arrow batches DuckDB returns.

mod cells;
mod fit;
mod record;
mod stream;

use std::io::Write;

use comfy_table::{presets, CellAlignment, ContentArrangement, Table};
use duckdb::arrow::datatypes::{DataType, SchemaRef};
use duckdb::arrow::record_batch::RecordBatch;

pub use cells::{cell_json, cell_text};
pub use fit::{cut, wrap, Fit};
pub use record::Record;
pub use stream::{streams, RowStream};

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

/// Display settings the REPL can change (`.nullvalue`, `.maxrows`,
/// `.maxwidth`).
#[derive(Debug, Clone)]
pub struct RenderOptions {
    /// How NULL is shown in text formats (JSON always uses null).
    pub null_value: String,
    /// Table and box output fitted to a width, rows and cell width
    /// (`max_rows` also stops line and markdown output).
    pub fit: Fit,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            null_value: "NULL".into(),
            fit: Fit::NONE,
        }
    }
}

impl RenderOptions {
    /// Fitted to a terminal: its width, 40 rows (first and last 20), no
    /// cell cut unless the table would not fit (then the widest first).
    pub fn for_terminal(width: usize) -> Self {
        RenderOptions {
            null_value: "NULL".into(),
            fit: Fit {
                max_width: width,
                max_rows: 40,
                max_cell: 0,
            },
        }
    }
}

/// The width of the terminal on stdout; None when stdout is no terminal.
pub fn terminal_width() -> Option<usize> {
    use std::io::IsTerminal;
    let stdout = std::io::stdout();
    if !stdout.is_terminal() {
        return None;
    }
    match rustix::termios::tcgetwinsize(&stdout) {
        Ok(size) if size.ws_col > 0 => Some(size.ws_col as usize),
        _ => std::env::var("COLUMNS").ok()?.parse().ok(),
    }
}

/// A fully materialized result.
#[derive(Clone)]
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

    /// Only the columns named, in that order (names not in the result are
    /// left out).
    pub fn project(
        &self,
        names: &[String],
    ) -> std::result::Result<ResultSet, duckdb::arrow::error::ArrowError> {
        let indices: Vec<usize> = names
            .iter()
            .filter_map(|n| self.schema.index_of(n).ok())
            .collect();
        let schema = std::sync::Arc::new(self.schema.project(&indices)?);
        let batches = self
            .batches
            .iter()
            .map(|b| b.project(&indices))
            .collect::<std::result::Result<_, _>>()?;
        Ok(ResultSet { schema, batches })
    }

    /// The rows grouped by their values of `columns`, the groups in the
    /// order their first rows come and each group's rows in row order (a
    /// NULL as "-"): rows of one group never come in two pieces.
    pub fn split_by(&self, columns: &[String]) -> Vec<(Vec<String>, ResultSet)> {
        let at: Vec<usize> = columns
            .iter()
            .filter_map(|c| self.schema.index_of(c).ok())
            .collect();
        let key = |b: &RecordBatch, i: usize| -> Vec<String> {
            at.iter()
                .map(|&c| cell_text(b.column(c), i).unwrap_or_else(|| "-".into()))
                .collect()
        };
        let mut groups: Vec<(Vec<String>, ResultSet)> = Vec::new();
        let mut index: std::collections::HashMap<Vec<String>, usize> = Default::default();
        for batch in &self.batches {
            let mut start = 0;
            while start < batch.num_rows() {
                let k = key(batch, start);
                let mut end = start + 1;
                while end < batch.num_rows() && key(batch, end) == k {
                    end += 1;
                }
                let slice = batch.slice(start, end - start);
                match index.get(&k) {
                    Some(&g) => groups[g].1.batches.push(slice),
                    None => {
                        index.insert(k.clone(), groups.len());
                        groups.push((
                            k,
                            ResultSet {
                                schema: self.schema.clone(),
                                batches: vec![slice],
                            },
                        ));
                    }
                }
                start = end;
            }
        }
        groups
    }

    /// The columns at `columns[i].0` as text: each cell's display text (None
    /// for NULL) and the text of the same row's cell at `columns[i].1` given
    /// to `text`, which says what the cell reads. A numeric column keeps its
    /// right alignment (`RIGHT_ALIGNED`).
    pub fn with_text_columns(
        &self,
        columns: &[(usize, usize)],
        text: impl Fn(Option<String>, Option<String>) -> Option<String>,
    ) -> std::result::Result<ResultSet, duckdb::arrow::error::ArrowError> {
        use duckdb::arrow::array::{ArrayRef, StringArray};
        use duckdb::arrow::datatypes::{Field, Schema};
        let fields: Vec<Field> = self
            .schema
            .fields()
            .iter()
            .enumerate()
            .map(|(i, f)| match columns.iter().any(|(at, _)| *at == i) {
                false => f.as_ref().clone(),
                true => {
                    let mut metadata = f.metadata().clone();
                    if aligns_right(f) {
                        metadata.insert(RIGHT_ALIGNED.into(), "true".into());
                    }
                    Field::new(f.name(), DataType::Utf8, true).with_metadata(metadata)
                }
            })
            .collect();
        let schema = std::sync::Arc::new(Schema::new(fields));
        let batches = self
            .batches
            .iter()
            .map(|batch| {
                let mut arrays: Vec<ArrayRef> = batch.columns().to_vec();
                for &(at, other) in columns {
                    let cells: StringArray = (0..batch.num_rows())
                        .map(|i| {
                            text(
                                display_text(batch.column(at), i),
                                cell_text(batch.column(other), i),
                            )
                        })
                        .collect();
                    arrays[at] = std::sync::Arc::new(cells);
                }
                RecordBatch::try_new(schema.clone(), arrays)
            })
            .collect::<std::result::Result<_, _>>()?;
        Ok(ResultSet { schema, batches })
    }

    /// Every row as its cells' display text (None for NULL), in order.
    pub fn text_rows(&self) -> Vec<Vec<Option<String>>> {
        self.rows()
            .map(|(batch, i)| batch.columns().iter().map(|c| cell_text(c, i)).collect())
            .collect()
    }

    /// Every row as its cells' display text by column name.
    pub fn text_records(&self) -> Vec<std::collections::BTreeMap<String, Option<String>>> {
        let names = self.column_names();
        self.text_rows()
            .into_iter()
            .map(|row| names.iter().cloned().zip(row).collect())
            .collect()
    }

    pub fn column_names(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }
}

/// A cell as a reader is shown it (tables, records, Markdown): an exact
/// DECIMAL without the zeros its scale pads it with, down to cents
/// (`0.002067000000` reads `0.002067`, `1.500000` reads `1.50`); the value
/// is unchanged. CSV and JSON keep the store's text.
fn display_text(array: &duckdb::arrow::array::ArrayRef, row: usize) -> Option<String> {
    let text = cell_text(array, row)?;
    match array.data_type() {
        DataType::Decimal128(_, scale) | DataType::Decimal256(_, scale) if *scale > 2 => {
            Some(trim_decimal(text))
        }
        _ => Some(text),
    }
}

/// Trailing zeros of a decimal's fraction dropped, two places kept.
fn trim_decimal(mut text: String) -> String {
    cells::trim_fraction(&mut text, 0, 2);
    text
}

fn is_numeric(t: &DataType) -> bool {
    t.is_numeric() || matches!(t, DataType::Decimal128(_, _) | DataType::Decimal256(_, _))
}

/// Field metadata marking a column of numbers shown as text (a NULL that
/// says why): drawn right-aligned as the numbers are.
pub const RIGHT_ALIGNED: &str = "liftdb.right_aligned";

fn aligns_right(field: &duckdb::arrow::datatypes::Field) -> bool {
    is_numeric(field.data_type()) || field.metadata().contains_key(RIGHT_ALIGNED)
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
    render_noted(rs, format, opts, None, out)
}

/// As `render_with`, a table's footer also saying `note` (what else the
/// reader should know of the rows shown: one footer says it all).
pub fn render_noted(
    rs: &ResultSet,
    format: Format,
    opts: &RenderOptions,
    note: Option<&str>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    match format {
        Format::Table => render_table(rs, presets::UTF8_FULL_CONDENSED, opts, note, out),
        Format::Box => render_table(rs, presets::UTF8_FULL, opts, note, out),
        Format::Csv | Format::Tsv | Format::Json | Format::Jsonl => {
            render_streamed(rs, format, out)
        }
        Format::Markdown => render_markdown(rs, opts, out),
        Format::Line => render_line(rs, opts, out),
    }
}

fn shown(rs: &ResultSet, opts: &RenderOptions) -> usize {
    let n = rs.row_count();
    if opts.fit.max_rows == 0 {
        n
    } else {
        n.min(opts.fit.max_rows)
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
            let v = display_text(col, i).unwrap_or_else(|| opts.null_value.clone());
            writeln!(out, "{name:>width$} = {v}")?;
        }
    }
    Ok(())
}

/// Whether `rs` drawn as a table fits `opts.fit`'s width with every column.
pub fn table_fits(rs: &ResultSet, opts: &RenderOptions) -> bool {
    let (_, cells, widths) = grid(rs, opts);
    let fitted = fit::fit(&widths, cells.len(), opts.fit);
    fitted.columns.iter().all(Option::is_some)
}

/// The headers and cells as drawn (cut to `max_cell`), and each column's width.
type Grid = (Vec<String>, Vec<Vec<String>>, Vec<usize>);

fn grid(rs: &ResultSet, opts: &RenderOptions) -> Grid {
    let max_cell = opts.fit.max_cell;
    let headers: Vec<String> = rs
        .column_names()
        .iter()
        .map(|h| fit::cell(h, max_cell))
        .collect();
    let cells: Vec<Vec<String>> = rs
        .rows()
        .map(|(batch, i)| {
            batch
                .columns()
                .iter()
                .map(|c| {
                    let text = display_text(c, i).unwrap_or_else(|| opts.null_value.clone());
                    fit::cell(&text, max_cell)
                })
                .collect()
        })
        .collect();
    let widths: Vec<usize> = headers
        .iter()
        .enumerate()
        .map(|(c, h)| {
            cells
                .iter()
                .map(|r| fit::width(&r[c]))
                .chain(std::iter::once(fit::width(h)))
                .max()
                .unwrap_or(0)
        })
        .collect();
    // Too wide: the longest cells are cut further before any column is elided.
    let header_widths: Vec<usize> = headers.iter().map(|h| fit::width(h)).collect();
    let caps = fit::shrink(&widths, &header_widths, opts.fit.max_width);
    if caps == widths {
        return (headers, cells, widths);
    }
    let cells = cells
        .into_iter()
        .map(|row| {
            row.into_iter()
                .zip(&caps)
                .map(|(text, &cap)| fit::cell(&text, cap))
                .collect()
        })
        .collect();
    (headers, cells, caps)
}

/// Box output fitted to `opts.fit`: middle columns and rows elided, long
/// cells cut, a footer saying what was shown (and `note`).
fn render_table(
    rs: &ResultSet,
    preset: &str,
    opts: &RenderOptions,
    note: Option<&str>,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let (headers, cells, widths) = grid(rs, opts);
    let fitted = fit::fit(&widths, cells.len(), opts.fit);
    let pick = |row: &[String]| -> Vec<String> {
        fitted
            .columns
            .iter()
            .map(|c| c.map_or_else(|| "…".to_string(), |c| row[c].clone()))
            .collect()
    };
    let mut table = Table::new();
    table
        .load_preset(preset)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(pick(&headers));
    for row in &fitted.rows {
        match row {
            Some(r) => table.add_row(pick(&cells[*r])),
            None => table.add_row(fitted.columns.iter().map(|_| "·")),
        };
    }
    let fields = rs.schema.fields();
    for (idx, col) in fitted.columns.iter().enumerate() {
        let numeric = col.is_some_and(|c| aligns_right(&fields[c]));
        if let Some(column) = table.column_mut(idx) {
            match (numeric, col) {
                (true, _) => column.set_cell_alignment(CellAlignment::Right),
                (_, None) => column.set_cell_alignment(CellAlignment::Center),
                _ => {}
            }
        }
    }
    writeln!(out, "{table}")?;
    match note {
        Some(note) => writeln!(out, "({}; {note})", fitted.footer),
        None => writeln!(out, "({})", fitted.footer),
    }
}

/// CSV, TSV, JSON and JSON Lines: written as a stream is (`stream.rs`).
fn render_streamed(rs: &ResultSet, format: Format, out: &mut dyn Write) -> std::io::Result<()> {
    if let Some(mut stream) = RowStream::begin(format, rs.schema.clone(), out)? {
        for batch in &rs.batches {
            stream.rows(batch)?;
        }
        stream.end()?;
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
        .map(|f| if aligns_right(f) { "---:" } else { "---" })
        .collect();
    writeln!(out, "| {} |", aligns.join(" | "))?;
    for (batch, i) in rs.rows().take(shown(rs, opts)) {
        let cells: Vec<String> = batch
            .columns()
            .iter()
            .map(|c| md_cell(&display_text(c, i).unwrap_or_else(|| opts.null_value.clone())))
            .collect();
        writeln!(out, "| {} |", cells.join(" | "))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{trim_decimal, ResultSet};

    #[test]
    fn rows_of_one_block_come_together_in_the_order_blocks_first_appear() {
        use duckdb::arrow::array::{ArrayRef, Int64Array, StringArray};
        use duckdb::arrow::record_batch::RecordBatch;
        use std::sync::Arc;
        let split: ArrayRef = Arc::new(StringArray::from(vec![
            "all", "tune", "all", "holdout", "tune",
        ]));
        let n: ArrayRef = Arc::new(Int64Array::from(vec![1, 2, 3, 4, 5]));
        let batch = RecordBatch::try_from_iter([("split", split), ("n", n)]).unwrap();
        let rs = ResultSet {
            schema: batch.schema(),
            batches: vec![batch],
        };
        let blocks: Vec<(String, Vec<Option<String>>)> = rs
            .split_by(&["split".to_string()])
            .into_iter()
            .map(|(k, b)| {
                (
                    k.join(","),
                    b.text_rows().into_iter().map(|r| r[1].clone()).collect(),
                )
            })
            .collect();
        let n = |v: &[&str]| v.iter().map(|s| Some(s.to_string())).collect::<Vec<_>>();
        assert_eq!(
            blocks,
            vec![
                ("all".to_string(), n(&["1", "3"])),
                ("tune".to_string(), n(&["2", "5"])),
                ("holdout".to_string(), n(&["4"])),
            ]
        );
    }

    #[test]
    fn money_reads_to_its_last_digit_and_at_least_cents() {
        assert_eq!(trim_decimal("0.002067000000".into()), "0.002067");
        assert_eq!(trim_decimal("1.500000".into()), "1.50");
        assert_eq!(trim_decimal("12.000000000000".into()), "12.00");
        assert_eq!(trim_decimal("0.000000123456".into()), "0.000000123456");
        assert_eq!(trim_decimal("-3.100".into()), "-3.10");
    }
}
