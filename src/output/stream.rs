//! The formats written row by row (CSV, TSV, JSON Lines, JSON): a result
//! goes out a record batch at a time, as DuckDB gives it, so a large
//! report never holds its rows. The materialized renderers use the same
//! writer, so both give the same bytes.

use std::io::Write;
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};
use std::thread::JoinHandle;

use duckdb::arrow::datatypes::{DataType, SchemaRef};
use duckdb::arrow::record_batch::RecordBatch;

use super::cells::{trim_fraction, ColumnText};
use super::{cell_json, Format};

/// Rows written as they come: `begin` writes what precedes them, `rows`
/// each batch, `end` what follows them. Batches are made text on a thread
/// of their own while DuckDB makes the next one (on one thread the two
/// take turns), and written here in the order they came.
pub struct RowStream<W: Write> {
    format: Format,
    out: W,
    rows: usize,
    /// To the text thread; None once the rows are all sent.
    batches: Option<SyncSender<RecordBatch>>,
    texts: Receiver<String>,
    texter: Option<JoinHandle<()>>,
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
    pub fn begin(format: Format, schema: SchemaRef, mut out: W) -> std::io::Result<Option<Self>> {
        if !streams(format) {
            return Ok(None);
        }
        let mut texter = Texter {
            format,
            schema,
            rows: 0,
        };
        if let Some(sep) = texter.separator() {
            let header: Vec<_> = texter
                .schema
                .fields()
                .iter()
                .map(|f| delimited_field(f.name(), sep))
                .collect();
            writeln!(out, "{}", header.join(&sep.to_string()))?;
        }
        if format == Format::Json {
            write!(out, "[")?;
        }
        // Two batches queued at most: the rows are never held.
        let (batches, queued) = sync_channel::<RecordBatch>(2);
        let (done, texts) = channel();
        let texter = std::thread::spawn(move || {
            for batch in queued {
                if done.send(texter.text(&batch)).is_err() {
                    return;
                }
            }
        });
        Ok(Some(RowStream {
            format,
            out,
            rows: 0,
            batches: Some(batches),
            texts,
            texter: Some(texter),
        }))
    }

    pub fn rows(&mut self, batch: &RecordBatch) -> std::io::Result<()> {
        let sent = self.batches.as_ref().map(|b| b.send(batch.clone()));
        if !matches!(sent, Some(Ok(()))) {
            return Err(self.texter_stopped());
        }
        self.rows += batch.num_rows();
        // Whatever is made text by now goes out (a few batches at most).
        while let Ok(text) = self.texts.try_recv() {
            self.out.write_all(text.as_bytes())?;
        }
        Ok(())
    }

    /// What follows the rows; the number of rows written.
    pub fn end(mut self) -> std::io::Result<usize> {
        self.batches = None;
        while let Ok(text) = self.texts.recv() {
            self.out.write_all(text.as_bytes())?;
        }
        if self.texter.take().is_some_and(|t| t.join().is_err()) {
            return Err(self.texter_stopped());
        }
        if self.format == Format::Json {
            match self.rows {
                0 => writeln!(self.out, "]")?,
                _ => writeln!(self.out, "\n]")?,
            }
        }
        Ok(self.rows)
    }

    fn texter_stopped(&mut self) -> std::io::Error {
        let why = match self.texter.take().map(JoinHandle::join) {
            Some(Err(panic)) => panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default(),
            _ => String::new(),
        };
        std::io::Error::other(format!(
            "the thread writing the rows as text stopped: {why}"
        ))
    }
}

/// Makes batches text, in order (it counts the rows for a JSON array's commas).
struct Texter {
    format: Format,
    schema: SchemaRef,
    rows: usize,
}

impl Texter {
    fn separator(&self) -> Option<char> {
        match self.format {
            Format::Csv => Some(','),
            Format::Tsv => Some('\t'),
            _ => None,
        }
    }

    fn text(&mut self, batch: &RecordBatch) -> String {
        let mut text = String::new();
        match self.separator() {
            Some(sep) => delimited_rows(batch, sep, &mut text),
            None => {
                for i in 0..batch.num_rows() {
                    self.json_row(batch, i, &mut text);
                    self.rows += 1;
                }
            }
        }
        text
    }

    /// One object; in a JSON array, as serde_json's pretty printer indents
    /// an array's elements (two spaces, each element on lines of its own).
    fn json_row(&self, batch: &RecordBatch, i: usize, out: &mut String) {
        let mut object = serde_json::Map::new();
        for (field, column) in self.schema.fields().iter().zip(batch.columns()) {
            object.insert(field.name().clone(), cell_json(column, i));
        }
        let object = serde_json::Value::Object(object);
        if self.format == Format::Jsonl {
            out.push_str(&object.to_string());
            out.push('\n');
            return;
        }
        let pretty = serde_json::to_string_pretty(&object).unwrap_or_default();
        out.push_str(if self.rows == 0 { "\n" } else { ",\n" });
        for (n, line) in pretty.lines().enumerate() {
            if n > 0 {
                out.push('\n');
            }
            out.push_str("  ");
            out.push_str(line);
        }
    }
}

/// RFC 4180 lines (or TSV); NULL is an empty field. Each cell is written in
/// place, and quoted after the fact in the rare cell that needs it.
fn delimited_rows(batch: &RecordBatch, sep: char, lines: &mut String) {
    let columns: Vec<ColumnText> = batch.columns().iter().map(ColumnText::new).collect();
    // Exact decimals (money) as written: their significant digits, not the
    // zeros their scale pads them with (0.002067, not 0.002067000000).
    let decimal: Vec<bool> = batch
        .columns()
        .iter()
        .map(|c| matches!(c.data_type(), DataType::Decimal128(_, s) | DataType::Decimal256(_, s) if *s > 0))
        .collect();
    for i in 0..batch.num_rows() {
        for (n, column) in columns.iter().enumerate() {
            if n > 0 {
                lines.push(sep);
            }
            let start = lines.len();
            let written = column.write(i, lines);
            if written && decimal[n] {
                trim_fraction(lines, start, 1);
            }
            if written && needs_quotes(&lines[start..], sep) {
                let quoted = delimited_field(&lines[start..], sep).into_owned();
                lines.truncate(start);
                lines.push_str(&quoted);
            }
        }
        lines.push('\n');
    }
}

/// A CSV field quoted when it holds the separator, a quote or a line break.
fn delimited_field(s: &str, sep: char) -> std::borrow::Cow<'_, str> {
    if needs_quotes(s, sep) {
        format!("\"{}\"", s.replace('"', "\"\"")).into()
    } else {
        s.into()
    }
}

/// Whether a field holds the separator (ASCII here), a quote or a line break.
fn needs_quotes(s: &str, sep: char) -> bool {
    let sep = sep as u8;
    s.bytes()
        .any(|b| b == sep || b == b'"' || b == b'\n' || b == b'\r')
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use duckdb::arrow::array::{ArrayRef, BooleanArray, Float64Array, Int64Array, StringArray};
    use duckdb::arrow::datatypes::{DataType, Field, Schema};

    use super::*;

    fn batch(texts: &[Option<&str>], ints: &[Option<i64>]) -> RecordBatch {
        let n = texts.len();
        let schema = Arc::new(Schema::new(vec![
            Field::new("t", DataType::Utf8, true),
            Field::new("i", DataType::Int64, true),
            Field::new("b", DataType::Boolean, true),
            Field::new("f", DataType::Float64, true),
        ]));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from(texts.to_vec())),
            Arc::new(Int64Array::from(ints.to_vec())),
            Arc::new(BooleanArray::from(vec![Some(true); n])),
            Arc::new(Float64Array::from(vec![Some(0.5); n])),
        ];
        RecordBatch::try_new(schema, columns).unwrap()
    }

    fn written(format: Format, batches: &[RecordBatch]) -> String {
        let mut out = Vec::new();
        let mut stream = RowStream::begin(format, batches[0].schema(), &mut out)
            .unwrap()
            .unwrap();
        for b in batches {
            stream.rows(b).unwrap();
        }
        assert_eq!(stream.end().unwrap(), 3);
        String::from_utf8(out).unwrap()
    }

    fn two_batches() -> Vec<RecordBatch> {
        vec![
            batch(
                &[Some("plain"), Some("a \"quoted\", line\nbreak")],
                &[Some(-7), None],
            ),
            batch(&[None], &[Some(i64::MAX)]),
        ]
    }

    /// RFC 4180: a field holding the separator, a quote or a line break is
    /// quoted with its quotes doubled; NULL is an empty field; the batches
    /// come out in order.
    #[test]
    fn csv_quotes_only_the_fields_that_need_it() {
        assert_eq!(
            written(Format::Csv, &two_batches()),
            "t,i,b,f\nplain,-7,true,0.5\n\"a \"\"quoted\"\", line\nbreak\",,true,0.5\n,9223372036854775807,true,0.5\n"
        );
        // In TSV the comma is data.
        assert!(
            written(Format::Tsv, &two_batches()).starts_with("t\ti\tb\tf\nplain\t-7\ttrue\t0.5\n")
        );
    }

    /// A JSON array's commas run across batches: the rows are one array.
    #[test]
    fn json_rows_of_several_batches_make_one_array() {
        let text = written(Format::Json, &two_batches());
        let rows: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(rows.as_array().unwrap().len(), 3);
        assert_eq!(
            rows[2],
            serde_json::json!({"t": null, "i": i64::MAX, "b": true, "f": 0.5})
        );
        let lines = written(Format::Jsonl, &two_batches());
        assert_eq!(lines.lines().count(), 3);
        assert_eq!(
            lines.lines().next().unwrap(),
            r#"{"t":"plain","i":-7,"b":true,"f":0.5}"#
        );
    }
}
