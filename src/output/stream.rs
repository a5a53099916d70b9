//! The formats written row by row (CSV, TSV, JSON Lines, JSON): a result
//! goes out a record batch at a time, as DuckDB gives it, so a million-row
//! report never holds its rows. The materialized renderers use the same
//! writer, so both give the same bytes.

use std::io::Write;

use duckdb::arrow::datatypes::SchemaRef;
use duckdb::arrow::record_batch::RecordBatch;

use super::cells::ColumnText;
use super::{cell_json, Format};

/// Rows written as they come: `begin` writes what precedes them, `rows`
/// each batch, `end` what follows them.
pub struct RowStream<W: Write> {
    format: Format,
    schema: SchemaRef,
    out: W,
    rows: usize,
}

/// Whether `format` is written row by row (tables and Markdown are fitted
/// to their whole content first).
pub fn streams(format: Format) -> bool {
    matches!(
        format,
        Format::Csv | Format::Tsv | Format::Json | Format::Jsonl
    )
}

impl<W: Write> RowStream<W> {
    /// None when `format` does not stream.
    pub fn begin(format: Format, schema: SchemaRef, out: W) -> std::io::Result<Option<Self>> {
        if !streams(format) {
            return Ok(None);
        }
        let mut stream = RowStream {
            format,
            schema,
            out,
            rows: 0,
        };
        if let Some(sep) = stream.separator() {
            let header: Vec<_> = stream
                .schema
                .fields()
                .iter()
                .map(|f| delimited_field(f.name(), sep))
                .collect();
            writeln!(stream.out, "{}", header.join(&sep.to_string()))?;
        }
        if format == Format::Json {
            write!(stream.out, "[")?;
        }
        Ok(Some(stream))
    }

    fn separator(&self) -> Option<char> {
        match self.format {
            Format::Csv => Some(','),
            Format::Tsv => Some('\t'),
            _ => None,
        }
    }

    pub fn rows(&mut self, batch: &RecordBatch) -> std::io::Result<()> {
        match self.separator() {
            Some(sep) => self.delimited_rows(batch, sep)?,
            None => {
                for i in 0..batch.num_rows() {
                    self.json_row(batch, i)?;
                    self.rows += 1;
                }
            }
        }
        Ok(())
    }

    /// What follows the rows; the number of rows written.
    pub fn end(mut self) -> std::io::Result<usize> {
        if self.format == Format::Json {
            match self.rows {
                0 => writeln!(self.out, "]")?,
                _ => writeln!(self.out, "\n]")?,
            }
        }
        Ok(self.rows)
    }

    /// RFC 4180 lines (or TSV); NULL is an empty field.
    fn delimited_rows(&mut self, batch: &RecordBatch, sep: char) -> std::io::Result<()> {
        let columns: Vec<ColumnText> = batch.columns().iter().map(ColumnText::new).collect();
        let (mut line, mut cell) = (String::new(), String::new());
        for i in 0..batch.num_rows() {
            line.clear();
            for (n, column) in columns.iter().enumerate() {
                if n > 0 {
                    line.push(sep);
                }
                cell.clear();
                if column.write(i, &mut cell) {
                    line.push_str(&delimited_field(&cell, sep));
                }
            }
            line.push('\n');
            self.out.write_all(line.as_bytes())?;
            self.rows += 1;
        }
        Ok(())
    }

    /// One object; in a JSON array, as serde_json's pretty printer indents
    /// an array's elements (two spaces, each element on lines of its own).
    fn json_row(&mut self, batch: &RecordBatch, i: usize) -> std::io::Result<()> {
        let mut object = serde_json::Map::new();
        for (field, column) in self.schema.fields().iter().zip(batch.columns()) {
            object.insert(field.name().clone(), cell_json(column, i));
        }
        let object = serde_json::Value::Object(object);
        if self.format == Format::Jsonl {
            serde_json::to_writer(&mut self.out, &object)?;
            return writeln!(self.out);
        }
        let pretty = serde_json::to_string_pretty(&object)?;
        let lead = if self.rows == 0 { "\n" } else { ",\n" };
        write!(self.out, "{lead}")?;
        for (n, line) in pretty.lines().enumerate() {
            if n > 0 {
                writeln!(self.out)?;
            }
            write!(self.out, "  {line}")?;
        }
        Ok(())
    }
}

/// A CSV field quoted when it holds the separator, a quote or a line break.
fn delimited_field(s: &str, sep: char) -> std::borrow::Cow<'_, str> {
    if s.contains([sep, '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\"")).into()
    } else {
        s.into()
    }
}
