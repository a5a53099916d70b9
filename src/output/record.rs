//! A result's rows read as values, by column name: what a command decides on
//! (numbers as numbers, lists as lists), never the text a display made of them.

use duckdb::arrow::array::{Array, ArrayRef, AsArray, BooleanArray};
use duckdb::arrow::compute::cast;
use duckdb::arrow::datatypes::DataType;
use duckdb::arrow::record_batch::RecordBatch;

use super::ResultSet;

/// One row of a result.
pub struct Record<'a> {
    batch: &'a RecordBatch,
    row: usize,
}

impl ResultSet {
    /// Every row, in order.
    pub fn records(&self) -> impl Iterator<Item = Record<'_>> {
        self.batches
            .iter()
            .flat_map(|batch| (0..batch.num_rows()).map(move |row| Record { batch, row }))
    }
}

impl Record<'_> {
    /// The cell of column `name` as a one-row array of `to` (None: no such
    /// column, NULL, or not convertible).
    fn cell(&self, name: &str, to: &DataType) -> Option<ArrayRef> {
        let column = self.batch.column_by_name(name)?;
        let one = column.slice(self.row, 1);
        let typed = match one.data_type() == to {
            true => one,
            false => cast(&one, to).ok()?,
        };
        typed.is_valid(0).then_some(typed)
    }

    /// A number (any numeric or DECIMAL column); None when NULL.
    pub fn number(&self, name: &str) -> Option<f64> {
        let cell = self.cell(name, &DataType::Float64)?;
        Some(
            cell.as_primitive::<duckdb::arrow::datatypes::Float64Type>()
                .value(0),
        )
    }

    /// A count (any integer column); None when NULL.
    pub fn count(&self, name: &str) -> Option<i64> {
        let cell = self.cell(name, &DataType::Int64)?;
        Some(
            cell.as_primitive::<duckdb::arrow::datatypes::Int64Type>()
                .value(0),
        )
    }

    /// A text value; None when NULL.
    pub fn text(&self, name: &str) -> Option<String> {
        let cell = self.cell(name, &DataType::Utf8)?;
        Some(cell.as_string::<i32>().value(0).to_string())
    }

    /// A boolean; None when NULL.
    pub fn flag(&self, name: &str) -> Option<bool> {
        let cell = self.cell(name, &DataType::Boolean)?;
        cell.as_any()
            .downcast_ref::<BooleanArray>()
            .map(|b| b.value(0))
    }

    /// The members of a list cell as `to` (None: no such column, NULL, not
    /// a list, or not convertible).
    fn list(&self, name: &str, to: &DataType) -> Option<ArrayRef> {
        let column = self.batch.column_by_name(name)?;
        if !column.is_valid(self.row) {
            return None;
        }
        let values = match column.data_type() {
            DataType::List(_) => column.as_list::<i32>().value(self.row),
            DataType::LargeList(_) => column.as_list::<i64>().value(self.row),
            _ => return None,
        };
        cast(&values, to).ok()
    }

    /// A list of texts (a VARCHAR[] column); empty when NULL.
    pub fn texts(&self, name: &str) -> Vec<String> {
        let Some(values) = self.list(name, &DataType::Utf8) else {
            return Vec::new();
        };
        let values = values.as_string::<i32>();
        (0..values.len())
            .filter(|&i| values.is_valid(i))
            .map(|i| values.value(i).to_string())
            .collect()
    }

    /// Numbers of a list column (DOUBLE[]); NULL members left out.
    pub fn numbers(&self, name: &str) -> Vec<f64> {
        let Some(values) = self.list(name, &DataType::Float64) else {
            return Vec::new();
        };
        let values = values.as_primitive::<duckdb::arrow::datatypes::Float64Type>();
        (0..values.len())
            .filter(|&i| values.is_valid(i))
            .map(|i| values.value(i))
            .collect()
    }
}
