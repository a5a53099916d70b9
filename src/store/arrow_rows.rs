//! Rows as one Arrow record batch, so the appender copies whole columns
//! (DuckDB casts each column to the table's type) instead of one FFI call
//! per value. Each column's builder follows the kind its table declares.

use std::sync::Arc;

use duckdb::arrow::array::{
    ArrayRef, BooleanBuilder, Float64Builder, Int64Builder, StringBuilder,
    TimestampMicrosecondBuilder, UInt64Builder,
};
use duckdb::arrow::datatypes::{DataType, Field, Schema, TimeUnit as ArrowTimeUnit};
use duckdb::arrow::record_batch::RecordBatch;
use duckdb::types::Value;

use crate::model::records::Row;
use crate::model::table::{Column, Kind};
use crate::{Error, Result};

/// A value that does not have its column's kind: the record and the table
/// disagree, which `table!` and its column test exist to prevent.
fn mismatch(column: &Column, value: &Value) -> Error {
    Error::Invalid(format!(
        "column {} ({:?}) given {value:?}",
        column.name, column.kind
    ))
}

fn column(rows: &[Row], col: usize, column: &Column) -> Result<(DataType, ArrayRef)> {
    let n = rows.len();
    let values = rows.iter().map(|row| &row[col]);
    Ok(match column.kind {
        Kind::Int => {
            let mut b = Int64Builder::with_capacity(n);
            for v in values {
                match v {
                    Value::BigInt(i) => b.append_value(*i),
                    Value::Null => b.append_null(),
                    other => return Err(mismatch(column, other)),
                }
            }
            (DataType::Int64, Arc::new(b.finish()))
        }
        Kind::UInt => {
            let mut b = UInt64Builder::with_capacity(n);
            for v in values {
                match v {
                    Value::UBigInt(i) => b.append_value(*i),
                    Value::Null => b.append_null(),
                    other => return Err(mismatch(column, other)),
                }
            }
            (DataType::UInt64, Arc::new(b.finish()))
        }
        Kind::Float => {
            let mut b = Float64Builder::with_capacity(n);
            for v in values {
                match v {
                    Value::Double(d) => b.append_value(*d),
                    Value::Null => b.append_null(),
                    other => return Err(mismatch(column, other)),
                }
            }
            (DataType::Float64, Arc::new(b.finish()))
        }
        Kind::Bool => {
            let mut b = BooleanBuilder::with_capacity(n);
            for v in values {
                match v {
                    Value::Boolean(x) => b.append_value(*x),
                    Value::Null => b.append_null(),
                    other => return Err(mismatch(column, other)),
                }
            }
            (DataType::Boolean, Arc::new(b.finish()))
        }
        Kind::Timestamp => {
            let mut b = TimestampMicrosecondBuilder::with_capacity(n);
            for v in values {
                match v {
                    Value::Timestamp(_, us) => b.append_value(*us),
                    Value::Null => b.append_null(),
                    other => return Err(mismatch(column, other)),
                }
            }
            (
                DataType::Timestamp(ArrowTimeUnit::Microsecond, None),
                Arc::new(b.finish()),
            )
        }
        Kind::Text => {
            let mut b = StringBuilder::with_capacity(n, 0);
            for v in values {
                match v {
                    Value::Text(s) => b.append_value(s),
                    Value::Null => b.append_null(),
                    other => return Err(mismatch(column, other)),
                }
            }
            (DataType::Utf8, Arc::new(b.finish()))
        }
    })
}

/// All rows of one table as one record batch, one column per declared column.
pub fn record_batch(rows: &[Row], columns: &[Column]) -> Result<RecordBatch> {
    if let Some(bad) = rows.iter().find(|r| r.len() != columns.len()) {
        return Err(Error::Invalid(format!(
            "a row of {} values for a table of {} columns",
            bad.len(),
            columns.len()
        )));
    }
    let mut fields = Vec::with_capacity(columns.len());
    let mut arrays = Vec::with_capacity(columns.len());
    for (i, c) in columns.iter().enumerate() {
        let (kind, array) = column(rows, i, c)?;
        fields.push(Field::new(c.name, kind, true));
        arrays.push(array);
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
        .map_err(|e| Error::Invalid(format!("building a record batch: {e}")))
}
