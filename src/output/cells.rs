//! One Arrow cell as display text or as a JSON value.

use duckdb::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Float32Array, Float64Array, Int16Array, Int32Array,
    Int64Array, Int8Array, LargeStringArray, StringArray, StringViewArray, UInt16Array,
    UInt32Array, UInt64Array, UInt8Array,
};
use duckdb::arrow::buffer::NullBuffer;
use duckdb::arrow::datatypes::{
    DataType, TimeUnit, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};
use duckdb::arrow::temporal_conversions::{
    timestamp_ms_to_datetime, timestamp_ns_to_datetime, timestamp_s_to_datetime,
    timestamp_us_to_datetime,
};
use duckdb::arrow::util::display::{ArrayFormatter, FormatOptions};
use serde_json::Value;

/// Display text of a cell; None for NULL.
pub fn cell_text(array: &ArrayRef, row: usize) -> Option<String> {
    let mut text = String::new();
    ColumnText::new(array).write(row, &mut text).then_some(text)
}

/// The display text of a column's cells, its formatter made once, not per
/// cell. Text, integers,
/// doubles and booleans, most cells of a listing, are written directly, as
/// Arrow displays them, without going through `core::fmt`.
pub struct ColumnText<'a> {
    nulls: Option<&'a NullBuffer>,
    cells: Cells<'a>,
}

enum Cells<'a> {
    Text(&'a StringArray),
    LargeText(&'a LargeStringArray),
    TextView(&'a StringViewArray),
    Int64(&'a Int64Array),
    Int32(&'a Int32Array),
    Float64(&'a Float64Array),
    Boolean(&'a BooleanArray),
    /// A TIMESTAMP WITH TIME ZONE: Arrow cannot display a named zone
    /// (DuckDB's session zone) without a zone database, so the instant is
    /// shown in UTC, as Arrow shows an offset: `2026-12-05T10:43:03.675621+00:00`.
    Instant(&'a dyn Array, TimeUnit),
    Formatted(ArrayFormatter<'a>),
    /// A column of NULLs, or one Arrow cannot display.
    Nothing,
}

impl<'a> ColumnText<'a> {
    pub fn new(array: &'a ArrayRef) -> Self {
        let options = FormatOptions::default().with_null("NULL");
        let any = array.as_any();
        let cells = match array.data_type() {
            DataType::Null => Some(Cells::Nothing),
            DataType::Utf8 => any.downcast_ref().map(Cells::Text),
            DataType::LargeUtf8 => any.downcast_ref().map(Cells::LargeText),
            DataType::Utf8View => any.downcast_ref().map(Cells::TextView),
            DataType::Int64 => any.downcast_ref().map(Cells::Int64),
            DataType::Int32 => any.downcast_ref().map(Cells::Int32),
            DataType::Float64 => any.downcast_ref().map(Cells::Float64),
            DataType::Boolean => any.downcast_ref().map(Cells::Boolean),
            DataType::Timestamp(unit, Some(_)) => Some(Cells::Instant(array.as_ref(), *unit)),
            _ => None,
        }
        .or_else(|| {
            ArrayFormatter::try_new(array.as_ref(), &options)
                .ok()
                .map(Cells::Formatted)
        })
        .unwrap_or(Cells::Nothing);
        ColumnText {
            nulls: array.nulls(),
            cells,
        }
    }

    /// The cell's text appended to `out`; false (nothing appended) for NULL.
    pub fn write(&self, row: usize, out: &mut String) -> bool {
        use std::fmt::Write;
        if self.nulls.is_some_and(|n| n.is_null(row)) {
            return false;
        }
        match &self.cells {
            Cells::Text(a) => out.push_str(a.value(row)),
            Cells::LargeText(a) => out.push_str(a.value(row)),
            Cells::TextView(a) => out.push_str(a.value(row)),
            Cells::Int64(a) => out.push_str(itoa::Buffer::new().format(a.value(row))),
            Cells::Int32(a) => out.push_str(itoa::Buffer::new().format(a.value(row))),
            Cells::Float64(a) => write_float(a.value(row), out),
            Cells::Boolean(a) => out.push_str(if a.value(row) { "true" } else { "false" }),
            Cells::Instant(a, unit) => {
                let (count, utc) = match unit {
                    TimeUnit::Second => {
                        let v = a.as_primitive::<TimestampSecondType>().value(row);
                        (v, timestamp_s_to_datetime(v))
                    }
                    TimeUnit::Millisecond => {
                        let v = a.as_primitive::<TimestampMillisecondType>().value(row);
                        (v, timestamp_ms_to_datetime(v))
                    }
                    TimeUnit::Microsecond => {
                        let v = a.as_primitive::<TimestampMicrosecondType>().value(row);
                        (v, timestamp_us_to_datetime(v))
                    }
                    TimeUnit::Nanosecond => {
                        let v = a.as_primitive::<TimestampNanosecondType>().value(row);
                        (v, timestamp_ns_to_datetime(v))
                    }
                };
                // Beyond chrono's years: the count since the epoch, never NULL.
                match utc {
                    Some(t) => write!(out, "{t:?}+00:00"),
                    None => write!(out, "{count} {unit:?}s since 1970-01-01 UTC"),
                }
                .expect("writing to a String");
            }
            Cells::Formatted(f) => {
                // A cell Arrow fails to display reads as NULL, nothing of it kept.
                let start = out.len();
                let shown = write!(out, "{}", f.value(row)).is_ok();
                if !shown {
                    out.truncate(start);
                }
                return shown;
            }
            Cells::Nothing => return false,
        }
        true
    }
}

/// The decimal written in `text` from `start` without the trailing zeros
/// of its fraction, `keep` places kept (`1.500000` → `1.5` at 1, `1.50` at 2).
pub(super) fn trim_fraction(text: &mut String, start: usize, keep: usize) {
    let Some(point) = text[start..].find('.') else {
        return;
    };
    let kept = start + point + 1 + keep;
    while text.len() > kept && text.ends_with('0') {
        text.pop();
    }
}

/// As Arrow displays a float: ryu's shortest text ("1995.0", "0.25",
/// "NaN", "inf"). A whole number, most of a listing's tokens and times, is
/// written as its integer and ".0", ryu's text for it below 1e16, in a
/// fraction of ryu's time; -0.0 keeps its sign through ryu.
fn write_float(f: f64, out: &mut String) {
    if f.fract() == 0.0 && f.abs() < 1e15 && !(f == 0.0 && f.is_sign_negative()) {
        out.push_str(itoa::Buffer::new().format(f as i64));
        out.push_str(".0");
    } else {
        out.push_str(ryu::Buffer::new().format(f));
    }
}

fn number(f: f64) -> Value {
    serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)
}

macro_rules! int_cell {
    ($array:expr, $row:expr, $ty:ty) => {
        $array
            .as_any()
            .downcast_ref::<$ty>()
            .map(|a| Value::from(a.value($row)))
    };
}

/// JSON value of a cell: numbers stay numbers, lists arrays, structs objects.
pub fn cell_json(array: &ArrayRef, row: usize) -> Value {
    if array.is_null(row) || array.data_type() == &DataType::Null {
        return Value::Null;
    }
    let converted = match array.data_type() {
        DataType::Boolean => array
            .as_any()
            .downcast_ref::<BooleanArray>()
            .map(|a| Value::Bool(a.value(row))),
        DataType::Int8 => int_cell!(array, row, Int8Array),
        DataType::Int16 => int_cell!(array, row, Int16Array),
        DataType::Int32 => int_cell!(array, row, Int32Array),
        DataType::Int64 => int_cell!(array, row, Int64Array),
        DataType::UInt8 => int_cell!(array, row, UInt8Array),
        DataType::UInt16 => int_cell!(array, row, UInt16Array),
        DataType::UInt32 => int_cell!(array, row, UInt32Array),
        DataType::UInt64 => int_cell!(array, row, UInt64Array),
        DataType::Float32 => array
            .as_any()
            .downcast_ref::<Float32Array>()
            .map(|a| number(f64::from(a.value(row)))),
        DataType::Float64 => array
            .as_any()
            .downcast_ref::<Float64Array>()
            .map(|a| number(a.value(row))),
        DataType::Decimal128(_, _) | DataType::Decimal256(_, _) => cell_text(array, row)
            .and_then(|t| serde_json::from_str::<serde_json::Number>(&t).ok())
            .map(Value::Number),
        DataType::List(_) => {
            let list = array.as_list::<i32>().value(row);
            Some(Value::Array(
                (0..list.len()).map(|i| cell_json(&list, i)).collect(),
            ))
        }
        DataType::LargeList(_) => {
            let list = array.as_list::<i64>().value(row);
            Some(Value::Array(
                (0..list.len()).map(|i| cell_json(&list, i)).collect(),
            ))
        }
        DataType::Struct(fields) => {
            let s = array.as_struct();
            Some(Value::Object(
                fields
                    .iter()
                    .zip(s.columns())
                    .map(|(f, c)| (f.name().clone(), cell_json(c, row)))
                    .collect(),
            ))
        }
        _ => None,
    };
    converted.unwrap_or_else(|| cell_text(array, row).map_or(Value::Null, Value::String))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole-number shortcut writes what ryu writes, at its edges too
    /// (ryu's own text is the expected value).
    #[test]
    fn a_float_reads_as_ryu_writes_it() {
        let values = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            1386.0,
            -4222.0,
            0.5,
            2337.25,
            1e15 - 1.0,
            1e15,
            -1e15,
            1e16,
            9007199254740993.0,
            1e300,
            f64::MIN_POSITIVE,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for f in values {
            let mut written = String::new();
            write_float(f, &mut written);
            assert_eq!(written, ryu::Buffer::new().format(f), "{f:?}");
        }
    }
}
