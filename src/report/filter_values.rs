//! A filter value must name something the store holds: `--model gpt-5`
//! where the models are `gpt-5-codex` and others would otherwise print an
//! empty report and exit 0. Each filter is checked against the values of its
//! column (whole values, as the reports compare them) by its query,
//! `sql/filters/NAME.sql`, and a miss names the values there are.

use super::{Filters, ResultSet};
use crate::error::{Error, Result};
use crate::output::cell_text;
use crate::sqlfiles::FILTER_QUERIES;

/// Refuse a filter value no row of its column holds. `ask` runs a query
/// (the caller's connection or the shell's session).
pub(super) fn check(
    filters: &Filters,
    mut ask: impl FnMut(&str, &Filters) -> Result<ResultSet>,
) -> Result<()> {
    for (filter, value) in filters {
        // An experiment is also a report file's name or folder (reconcile):
        // not one column to check against.
        let Some((_, sql)) = FILTER_QUERIES.iter().find(|(name, _)| name == filter) else {
            continue;
        };
        let named = Filters::from([("value".to_string(), value.clone())]);
        if let Some(existing) = first_cell(&ask(sql, &named)?) {
            if filter == "release" {
                // A reader answering from a lake's last refilled snapshot
                // may miss a release only because it waits for its refill.
                let waiting =
                    crate::sqlfiles::named(crate::sqlfiles::LAKE_QUERIES, "release_waiting");
                if let Some(snapshot) = first_cell(&ask(waiting, &named)?) {
                    return Err(Error::ReleaseWaiting {
                        release: value.clone(),
                        snapshot,
                    });
                }
            }
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

/// The first row's first value, as text (None: no row).
fn first_cell(rs: &ResultSet) -> Option<String> {
    rs.batches
        .iter()
        .find(|b| b.num_rows() > 0)
        .and_then(|b| cell_text(b.column(0), 0))
}
