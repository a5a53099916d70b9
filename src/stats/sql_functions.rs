//! The statistics as DuckDB scalar functions, registered on every liftdb
//! connection (REPL, `liftdb sql`, reports):
//!   sign_flip_p(DOUBLE[])        -> DOUBLE  unrounded two-sided p (exact n <= 14, else sampled)
//!   sign_flip(DOUBLE[])          -> STRUCT(method, n, observed_mean_delta, p_value, significant_at_0_05,
//!                                          p_upper, significant)
//!     (significant: liftdb's rule, p_upper <= 0.05; significant_at_0_05:
//!     skill-eval-harness 0.6.0's flag, p <= 0.05; docs/metrics.md §M6)
//!   sign_flip_interval(DOUBLE[]) -> STRUCT(method, lower, upper, bounded)
//! A stock DuckDB client does not have them; it reads the `lift_stats` table.

use std::error::Error;
use std::sync::Arc;

use duckdb::arrow::array::{
    Array, ArrayRef, AsArray, BooleanBuilder, Float64Builder, Int64Builder, RecordBatch,
    StringBuilder, StructArray,
};
use duckdb::arrow::datatypes::{DataType, Field, Fields, Float64Type};
use duckdb::vscalar::{ArrowFunctionSignature, VArrowScalar};
use duckdb::Connection;

use super::{interval, sign_flip};

fn list_of_doubles() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Float64, true)))
}

/// Each input row's list, NULL elements dropped; None for a NULL list.
fn rows_of(input: &RecordBatch) -> Vec<Option<Vec<f64>>> {
    let list = input.column(0).as_list::<i32>();
    (0..list.len())
        .map(|i| {
            (!list.is_null(i)).then(|| {
                let values = list.value(i);
                values
                    .as_primitive::<Float64Type>()
                    .iter()
                    .flatten()
                    .collect()
            })
        })
        .collect()
}

pub struct SignFlipP;

impl VArrowScalar for SignFlipP {
    type State = ();

    fn invoke(_: &(), input: RecordBatch) -> Result<ArrayRef, Box<dyn Error>> {
        let mut out = Float64Builder::new();
        for row in rows_of(&input) {
            out.append_option(row.and_then(|d| sign_flip::p_value(&d)).map(|(p, _)| p));
        }
        Ok(Arc::new(out.finish()))
    }

    fn signatures() -> Vec<ArrowFunctionSignature> {
        vec![ArrowFunctionSignature::exact(
            vec![list_of_doubles()],
            DataType::Float64,
        )]
    }
}

fn sign_flip_fields() -> Fields {
    Fields::from(vec![
        Field::new("method", DataType::Utf8, true),
        Field::new("n", DataType::Int64, true),
        Field::new("observed_mean_delta", DataType::Float64, true),
        Field::new("p_value", DataType::Float64, true),
        Field::new("significant_at_0_05", DataType::Boolean, true),
        Field::new("p_upper", DataType::Float64, true),
        Field::new("significant", DataType::Boolean, true),
    ])
}

pub struct SignFlipStruct;

impl VArrowScalar for SignFlipStruct {
    type State = ();

    fn invoke(_: &(), input: RecordBatch) -> Result<ArrayRef, Box<dyn Error>> {
        let (mut method, mut n, mut mean, mut p, mut sig) = (
            StringBuilder::new(),
            Int64Builder::new(),
            Float64Builder::new(),
            Float64Builder::new(),
            BooleanBuilder::new(),
        );
        let (mut upper, mut decided) = (Float64Builder::new(), BooleanBuilder::new());
        for row in rows_of(&input) {
            let s = row.map(|d| sign_flip::sign_flip(&d));
            method.append_option(s.as_ref().map(|s| s.method));
            n.append_option(s.as_ref().map(|s| s.n as i64));
            mean.append_option(s.as_ref().and_then(|s| s.observed_mean_delta));
            p.append_option(s.as_ref().and_then(|s| s.p_value));
            sig.append_option(s.as_ref().map(|s| s.significant_at_0_05));
            upper.append_option(s.as_ref().and_then(|s| s.p_upper));
            decided.append_option(s.as_ref().and_then(|s| s.significant));
        }
        let columns: Vec<ArrayRef> = vec![
            Arc::new(method.finish()),
            Arc::new(n.finish()),
            Arc::new(mean.finish()),
            Arc::new(p.finish()),
            Arc::new(sig.finish()),
            Arc::new(upper.finish()),
            Arc::new(decided.finish()),
        ];
        Ok(Arc::new(StructArray::try_new(
            sign_flip_fields(),
            columns,
            None,
        )?))
    }

    fn signatures() -> Vec<ArrowFunctionSignature> {
        vec![ArrowFunctionSignature::exact(
            vec![list_of_doubles()],
            DataType::Struct(sign_flip_fields()),
        )]
    }
}

fn interval_fields() -> Fields {
    Fields::from(vec![
        Field::new("method", DataType::Utf8, true),
        Field::new("lower", DataType::Float64, true),
        Field::new("upper", DataType::Float64, true),
        Field::new("bounded", DataType::Boolean, true),
    ])
}

pub struct SignFlipInterval;

impl VArrowScalar for SignFlipInterval {
    type State = ();

    fn invoke(_: &(), input: RecordBatch) -> Result<ArrayRef, Box<dyn Error>> {
        let (mut method, mut lower, mut upper, mut bounded) = (
            StringBuilder::new(),
            Float64Builder::new(),
            Float64Builder::new(),
            BooleanBuilder::new(),
        );
        for row in rows_of(&input) {
            let iv = row.map(|d| interval::interval(&d));
            method.append_option(iv.as_ref().map(|i| i.method));
            lower.append_option(iv.as_ref().and_then(|i| i.lower));
            upper.append_option(iv.as_ref().and_then(|i| i.upper));
            bounded.append_option(iv.as_ref().map(|i| i.bounded));
        }
        let columns: Vec<ArrayRef> = vec![
            Arc::new(method.finish()),
            Arc::new(lower.finish()),
            Arc::new(upper.finish()),
            Arc::new(bounded.finish()),
        ];
        Ok(Arc::new(StructArray::try_new(
            interval_fields(),
            columns,
            None,
        )?))
    }

    fn signatures() -> Vec<ArrowFunctionSignature> {
        vec![ArrowFunctionSignature::exact(
            vec![list_of_doubles()],
            DataType::Struct(interval_fields()),
        )]
    }
}

pub fn register(conn: &Connection) -> duckdb::Result<()> {
    conn.register_scalar_function::<SignFlipP>("sign_flip_p")?;
    conn.register_scalar_function::<SignFlipStruct>("sign_flip")?;
    conn.register_scalar_function::<SignFlipInterval>("sign_flip_interval")?;
    Ok(())
}
