//! After a batch: the reports it stored whose results name runs the store
//! does not hold. A report grades runs; it defines none of its own, so such
//! a report adds nothing a view shows until its runs are ingested — in the
//! release it was given. The summary says so instead of a bare "0 runs".

use duckdb::Connection;

use crate::Result;

/// A report of the batch grading runs the store does not hold.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ReportWithoutRuns {
    pub path: String,
    /// Its results naming a run absent from the store.
    pub results: u64,
    /// Releases that hold runs, where the report's may be.
    pub releases_with_runs: Vec<String>,
}

pub(super) fn reports_without_runs(
    conn: &Connection,
    batch_id: i64,
) -> Result<Vec<ReportWithoutRuns>> {
    let mut stmt = conn.prepare(super::batch_sql("reports_without_runs"))?;
    let rows = stmt.query_map([batch_id], |r| {
        let releases: duckdb::types::Value = r.get(2)?;
        Ok(ReportWithoutRuns {
            path: r.get(0)?,
            results: r.get(1)?,
            releases_with_runs: match releases {
                duckdb::types::Value::List(items) => items
                    .into_iter()
                    .filter_map(|v| match v {
                        duckdb::types::Value::Text(t) => Some(t),
                        _ => None,
                    })
                    .collect(),
                _ => Vec::new(),
            },
        })
    })?;
    Ok(rows.collect::<std::result::Result<_, _>>()?)
}
