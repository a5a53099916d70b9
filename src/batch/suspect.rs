//! After a batch: what of its releases measures nothing (the
//! suspect_measurements view: identical answers in both arms, suites that
//! all pass or all fail, trigger evals that never triggered, reports of
//! zero runs), for the
//! summary to say beside its counts.

use duckdb::Connection;

use crate::Result;

/// One suspect measurement of a release the batch wrote.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Suspect {
    pub release: String,
    pub skill: String,
    pub kind: String,
    pub subject: String,
    pub detail: String,
}

pub(super) fn suspect_measurements(
    conn: &Connection,
    releases: &[String],
    batch_id: i64,
) -> Result<Vec<Suspect>> {
    // The labels as a list literal (DuckDB binds no list parameter); and a
    // report of the batch that stored no run, whatever release it names.
    // Two selects, not one OR: each filter reaches the view's branches, so
    // the other releases' answers are never compared.
    let mut stmt = conn.prepare(&format!(
        "SELECT release_label, skill_name, kind, subject, detail FROM suspect_measurements
         WHERE {}
         UNION
         SELECT release_label, skill_name, kind, subject, detail FROM suspect_measurements
         WHERE kind = 'zero_runs' AND subject IN (SELECT path FROM source_file WHERE batch_id = ?)
         ORDER BY release_label, skill_name, kind, subject",
        crate::store::aggregates::Scope::Releases(releases).filter("release_label")
    ))?;
    let rows = stmt.query_map([batch_id], |r| {
        Ok(Suspect {
            release: r.get(0)?,
            skill: r.get(1)?,
            kind: r.get(2)?,
            subject: r.get(3)?,
            detail: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<std::result::Result<_, _>>()?)
}
