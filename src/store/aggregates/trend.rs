//! Fill `trend_stats` from the `release_changes` view: the sign-flip test on
//! matched units' change in lift between consecutive releases (overall, per
//! model, per case), and on matched repetitions' per (case, model).

use duckdb::{appender_params_from_iter, Connection};

use super::Scope;
use crate::model::records::{boolean, float, int, text, Row};
use crate::Result;

use crate::stats::sign_flip;

/// The releases in `scope` and the ones just before and after each: a
/// release's rows change the changes on both sides of it.
fn with_neighbours(conn: &Connection, releases: &[String]) -> Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!(
        "WITH ordered AS (
             SELECT release_label,
                    lag(release_label) OVER (ORDER BY ordinal) AS previous_release,
                    lead(release_label) OVER (ORDER BY ordinal) AS next_release
             FROM releases)
         SELECT DISTINCT unnest([release_label, previous_release, next_release]) AS label
         FROM ordered WHERE {} ORDER BY label",
        Scope::Releases(releases).filter("release_label")
    ))?;
    let labels = stmt
        .query_map([], |r| r.get::<_, Option<String>>(0))?
        .filter_map(|label| label.transpose())
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok(labels)
}

/// Whether a release in `scope` follows another one in it: the changes
/// `release_changes_in` finds are between such releases only. A store's first
/// release has none, and the query would still pair every run of it before
/// finding nothing.
fn follows_another(conn: &Connection, scope: Scope) -> Result<bool> {
    let consecutive: i64 = conn.query_row(
        &format!(
            "SELECT count(*) FROM (
                 SELECT release_label, lag(release_label) OVER (ORDER BY ordinal) AS previous_release
                 FROM releases)
             WHERE previous_release IS NOT NULL AND {} AND {}",
            scope.filter("release_label"),
            scope.filter("previous_release")
        ),
        [],
        |r| r.get(0),
    )?;
    Ok(consecutive > 0)
}

/// Test the changes touching the releases in `scope` (a change between two
/// releases is stored once, keyed by both), replacing their stored rows.
pub fn refresh(conn: &Connection, scope: Scope) -> Result<u64> {
    let wider = match scope {
        Scope::Every => None,
        Scope::Releases(releases) | Scope::Cases { releases, .. } => {
            Some(with_neighbours(conn, releases)?)
        }
    };
    let scope = wider.as_deref().map_or(Scope::Every, Scope::Releases);
    conn.execute_batch(&format!(
        "DELETE FROM trend_stats WHERE {} AND {}",
        scope.filter("release_label"),
        scope.filter("previous_release")
    ))?;
    if !follows_another(conn, scope)? {
        return Ok(0);
    }
    let mut rows_out: Vec<Row> = Vec::new();
    {
        let mut stmt = conn.prepare(&format!(
            "SELECT skill_name, release_label, previous_release, scope, model,
                    to_json(unit_changes)::VARCHAR, case_id FROM release_changes_in({})",
            scope.argument()
        ))?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let changes: Vec<f64> = r
                .get::<_, Option<String>>(5)?
                .and_then(|t| serde_json::from_str::<Vec<Option<f64>>>(&t).ok())
                .map(|v| v.into_iter().flatten().collect())
                .unwrap_or_default();
            let test = sign_flip(&changes);
            rows_out.push(vec![
                text(r.get::<_, Option<String>>(0)?),
                text(r.get::<_, Option<String>>(1)?),
                text(r.get::<_, Option<String>>(2)?),
                text(r.get::<_, Option<String>>(3)?),
                text(r.get::<_, Option<String>>(4)?),
                int(Some(test.n as i64)),
                float(test.observed_mean_delta),
                text(Some(test.method)),
                float(test.p_value),
                boolean(Some(test.significant_at_0_05)),
                text(r.get::<_, Option<String>>(6)?),
                float(test.p_upper),
                boolean(test.significant),
            ]);
        }
    }
    let mut appender = conn.appender("trend_stats")?;
    let n = rows_out.len() as u64;
    for row in rows_out {
        appender.append_row(appender_params_from_iter(row))?;
    }
    appender.flush()?;
    Ok(n)
}
