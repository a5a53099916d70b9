//! The release a decision is about, as `gate` and `plan` take it: the
//! release, skill and split filters checked as every report checks them,
//! the release named (or the latest) and its baseline (named, or the one
//! before it), from `sql/gate/releases.sql`.

use duckdb::Connection;

use super::{check_filter_values, query, Filters};
use crate::{Error, Result};

/// The release resolved, and its baseline when the store holds one.
pub struct ReleaseScope {
    pub release: String,
    pub baseline: Option<String>,
    /// The filters, the release (and baseline) resolved among them.
    pub params: Filters,
}

/// Resolve `release` (None: the latest) and `baseline` (None: the release
/// before it) with the `skill` and `split` filters; a value the store does
/// not hold is refused, naming the values there are.
pub fn resolve(
    conn: &Connection,
    release: Option<&str>,
    baseline: Option<&str>,
    skill: Option<&str>,
    split: Option<&str>,
) -> Result<ReleaseScope> {
    let mut params: Filters = [("release", release), ("skill", skill), ("split", split)]
        .into_iter()
        .filter_map(|(k, v)| Some((k.to_string(), v?.to_string())))
        .collect();
    check_filter_values(conn, &params)?;
    if let Some(b) = baseline {
        check_filter_values(conn, &Filters::from([("release".into(), b.to_string())]))?;
        params.insert("baseline".into(), b.to_string());
    }
    let sql = crate::sqlfiles::named(crate::sqlfiles::GATE_QUERIES, "releases");
    let found = query(conn, sql, &params)?;
    let found = found.records().next();
    let held = found.as_ref().and_then(|r| r.flag("release_held")) == Some(true);
    let Some(resolved) = found
        .as_ref()
        .and_then(|r| r.text("release"))
        .filter(|_| held)
    else {
        return Err(Error::NoSuchRelease {
            label: release.unwrap_or_default().to_string(),
            existing: found
                .as_ref()
                .and_then(|r| r.text("releases"))
                .unwrap_or_else(|| "none".into()),
        });
    };
    let baseline = found
        .as_ref()
        .filter(|r| r.flag("baseline_held") == Some(true))
        .and_then(|r| r.text("baseline"));
    params.insert("release".into(), resolved.clone());
    match &baseline {
        Some(b) => params.insert("baseline".into(), b.clone()),
        None => params.remove("baseline"),
    };
    Ok(ReleaseScope {
        release: resolved,
        baseline,
        params,
    })
}
