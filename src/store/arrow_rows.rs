//! Rows as one Arrow record batch, so the appender copies whole columns
//! (DuckDB casts each column to the table's type) instead of one FFI call per
//! value.

use std::sync::Arc;

use duckdb::arrow::array::{
    ArrayRef, BooleanBuilder, Float64Builder, Int64Builder, StringBuilder,
    TimestampMicrosecondBuilder,
};
use duckdb::arrow::datatypes::{DataType, Field, Schema, TimeUnit as ArrowTimeUnit};
use duckdb::arrow::record_batch::RecordBatch;
use duckdb::types::{TimeUnit, Value};

use crate::ingest::records::Row;
use crate::{Error, Result};

/// The Arrow type a column's values share; None when they differ (or are all
/// NULL), and the column then travels as text for DuckDB to cast.
fn shared_kind(rows: &[Row], col: usize) -> Option<DataType> {
    let mut kind: Option<DataType> = None;
    for row in rows {
        let this = match &row[col] {
            Value::Null => continue,
            Value::Text(_) => DataType::Utf8,
            Value::BigInt(_) => DataType::Int64,
            Value::Double(_) => DataType::Float64,
            Value::Boolean(_) => DataType::Boolean,
            Value::Timestamp(TimeUnit::Microsecond, _) => {
                DataType::Timestamp(ArrowTimeUnit::Microsecond, None)
            }
            _ => return None,
        };
        match &kind {
            None => kind = Some(this),
            Some(k) if *k != this => return None,
            Some(_) => {}
        }
    }
    kind
}

/// A value as text, for columns whose values differ in kind.
fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::Text(s) => Some(s.clone()),
        Value::BigInt(i) => Some(i.to_string()),
        Value::Double(d) => Some(d.to_string()),
        Value::Boolean(b) => Some(b.to_string()),
        other => Some(format!("{other:?}")),
    }
}

fn column(rows: &[Row], col: usize) -> (DataType, ArrayRef) {
    let n = rows.len();
    match shared_kind(rows, col) {
        Some(DataType::Int64) => {
            let mut b = Int64Builder::with_capacity(n);
            for row in rows {
                match row[col] {
                    Value::BigInt(i) => b.append_value(i),
                    _ => b.append_null(),
                }
            }
            (DataType::Int64, Arc::new(b.finish()))
        }
        Some(DataType::Float64) => {
            let mut b = Float64Builder::with_capacity(n);
            for row in rows {
                match row[col] {
                    Value::Double(d) => b.append_value(d),
                    _ => b.append_null(),
                }
            }
            (DataType::Float64, Arc::new(b.finish()))
        }
        Some(DataType::Boolean) => {
            let mut b = BooleanBuilder::with_capacity(n);
            for row in rows {
                match row[col] {
                    Value::Boolean(v) => b.append_value(v),
                    _ => b.append_null(),
                }
            }
            (DataType::Boolean, Arc::new(b.finish()))
        }
        Some(t @ DataType::Timestamp(..)) => {
            let mut b = TimestampMicrosecondBuilder::with_capacity(n);
            for row in rows {
                match row[col] {
                    Value::Timestamp(_, us) => b.append_value(us),
                    _ => b.append_null(),
                }
            }
            (t, Arc::new(b.finish()))
        }
        _ => {
            let mut b = StringBuilder::with_capacity(n, 0);
            for row in rows {
                match &row[col] {
                    Value::Text(s) => b.append_value(s),
                    other => b.append_option(as_text(other)),
                }
            }
            (DataType::Utf8, Arc::new(b.finish()))
        }
    }
}

/// All rows (each with `width` values) as one record batch.
pub fn record_batch(rows: &[Row], width: usize) -> Result<RecordBatch> {
    if let Some(bad) = rows.iter().find(|r| r.len() != width) {
        return Err(Error::Invalid(format!(
            "a row of {} values for a table of {width} columns",
            bad.len()
        )));
    }
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) = (0..width)
        .map(|col| {
            let (kind, array) = column(rows, col);
            (Field::new(format!("c{col}"), kind, true), array)
        })
        .unzip();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
        .map_err(|e| Error::Invalid(format!("building a record batch: {e}")))
}
