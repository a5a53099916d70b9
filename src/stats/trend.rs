//! Fill `trend_stats` from the `release_changes` view: the sign-flip test on
//! matched units' change in lift between consecutive releases (overall, per
//! model, per case), and on matched repetitions' per (case, model).

use duckdb::{appender_params_from_iter, Connection};

use crate::ingest::records::{boolean, float, int, text, Row};
use crate::Result;

use super::sign_flip;

pub fn refresh(conn: &Connection) -> Result<u64> {
    conn.execute_batch("DELETE FROM trend_stats")?;
    let mut rows_out: Vec<Row> = Vec::new();
    {
        let mut stmt = conn.prepare(
            "SELECT skill_name, release_label, previous_release, scope, model,
                    to_json(unit_changes)::VARCHAR, case_id FROM release_changes",
        )?;
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
