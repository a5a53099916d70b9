//! A filter value must name something the store holds: `--model gpt-5`
//! where the models are `gpt-5-codex` and others would otherwise print an
//! empty report and exit 0. Each filter is checked against the values of its
//! column (whole values, as the reports compare them), and a miss names the
//! values there are.

use super::{Filters, ResultSet};
use crate::error::{Error, Result};
use crate::output::cell_text;

/// The values a filter is compared with, as one column `x`: from the stored
/// runs (run_rows, what the reports read; the live view would be computed
/// whole for one column).
fn values_of(filter: &str) -> Option<&'static str> {
    Some(match filter {
        "release" => "SELECT release_label FROM releases",
        "skill" => {
            "SELECT skill_name FROM run_rows UNION ALL SELECT skill_name FROM trigger_observation"
        }
        "model" => "SELECT model FROM run_rows UNION ALL SELECT model FROM trigger_observation",
        "split" => "SELECT split FROM run_rows",
        "case" => "SELECT case_id FROM run_rows",
        "arm" => "SELECT arm FROM run_rows",
        "rep" => "SELECT repetition::VARCHAR FROM run_rows",
        // An experiment is also a report file's name or folder (reconcile):
        // not one column to check against.
        _ => return None,
    })
}

/// Refuse a filter value no row of its column holds. `ask` runs a query
/// (the caller's connection or the shell's session).
pub(super) fn check(
    filters: &Filters,
    mut ask: impl FnMut(&str, &Filters) -> Result<ResultSet>,
) -> Result<()> {
    for (filter, value) in filters {
        let Some(source) = values_of(filter) else {
            continue;
        };
        // NULL when the value is there, else the values there are.
        let sql = format!(
            "SELECT CASE WHEN coalesce(bool_or(x = $value), false) THEN NULL
                         ELSE coalesce(string_agg(DISTINCT x, ', ' ORDER BY x), '') END
             FROM ({source}) t(x) WHERE x IS NOT NULL"
        );
        let named = Filters::from([("value".to_string(), value.clone())]);
        let rs = ask(&sql, &named)?;
        let existing = rs
            .batches
            .iter()
            .find(|b| b.num_rows() > 0)
            .and_then(|b| cell_text(b.column(0), 0));
        if let Some(existing) = existing {
            return Err(Error::NoSuchFilterValue {
                filter: filter.clone(),
                value: value.clone(),
                existing: if existing.is_empty() {
                    "none".into()
                } else {
                    existing
                },
            });
        }
    }
    Ok(())
}
