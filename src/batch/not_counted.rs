//! After a batch: how many answer runs of its releases do not count in the
//! lift, and why (the not_counted_runs view), for the summary to say beside
//! its counts.

use duckdb::Connection;

use crate::Result;

/// The runs of one release and skill that do not count.
#[derive(Debug, Clone, serde::Serialize)]
pub struct NotCounted {
    pub release: String,
    pub skill: String,
    /// Answer runs of the release and skill.
    pub runs: u64,
    pub not_counted: u64,
    /// Per class (infrastructure error, cut off …), most first, as
    /// `[(class, runs)]`.
    pub by_class: Vec<(String, u64)>,
    /// The same in words: "2 infrastructure errors, 1 cut off".
    pub reasons: String,
}

pub(super) fn not_counted(conn: &Connection, releases: &[String]) -> Result<Vec<NotCounted>> {
    // The labels as a list literal (DuckDB binds no list parameter); only
    // the batch's releases are read, whatever the store holds besides.
    let scope = crate::store::aggregates::Scope::Releases(releases).argument();
    let mut stmt = conn.prepare(&format!(
        "WITH answer AS (
             SELECT release_label, skill_name, count(*) AS runs FROM run_rows_in({scope})
             WHERE population = 'answer' GROUP BY ALL
         ),
         classes AS (
             SELECT release_label, skill_name, counted_as, count(*) AS n
             FROM not_counted_runs_in({scope}) GROUP BY ALL
         )
         SELECT a.release_label, a.skill_name, a.runs::UBIGINT, sum(c.n)::UBIGINT,
                list(c.counted_as ORDER BY c.n DESC, c.counted_as),
                list(c.n::UBIGINT ORDER BY c.n DESC, c.counted_as),
                string_agg(liftdb_not_counted_phrase(c.counted_as, c.n), ', ' ORDER BY c.n DESC, c.counted_as)
         FROM answer a JOIN classes c USING (release_label, skill_name)
         GROUP BY ALL
         ORDER BY a.release_label, a.skill_name"
    ))?;
    let rows = stmt.query_map([], |r| {
        let classes: duckdb::types::Value = r.get(4)?;
        let counts: duckdb::types::Value = r.get(5)?;
        let by_class = match (classes, counts) {
            (duckdb::types::Value::List(c), duckdb::types::Value::List(n)) => c
                .into_iter()
                .zip(n)
                .filter_map(|pair| match pair {
                    (duckdb::types::Value::Text(c), duckdb::types::Value::UBigInt(n)) => {
                        Some((c, n))
                    }
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        Ok(NotCounted {
            release: r.get(0)?,
            skill: r.get(1)?,
            runs: r.get(2)?,
            not_counted: r.get(3)?,
            by_class,
            reasons: r.get(6)?,
        })
    })?;
    Ok(rows.collect::<std::result::Result<_, _>>()?)
}
