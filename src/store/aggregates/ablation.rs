//! Ablation regression confirmation (docs/metrics.md §M8), from the
//! `ablation_evidence` view into `ablation_stats`.

use std::collections::BTreeMap;

use duckdb::{appender_params_from_iter, params, Connection};
use serde_json::{json, Map, Value};

use super::Scope;
use crate::model::records::{boolean, float, int, text, Row};
use crate::Result;

use crate::stats::sign_flip;

#[derive(Default)]
struct Regression {
    summary: Option<String>,
    invalid_skill: bool,
    measured_cases: Vec<String>,
    confirmed_cases: Vec<String>,
    coverage_gaps: i64,
    tests: Map<String, Value>,
    min_p: Option<f64>,
    significant: bool,
}

type Key = (String, String, String, i64);

/// Every ablation run names its ablation and was derived from the with_skill tree.
fn provenance_verified(
    conn: &Connection,
    release: &str,
    skill: &str,
    ablation: &str,
) -> Result<bool> {
    let ok: Option<bool> = conn.query_row(
        "WITH parents AS (
             SELECT DISTINCT skill_tree_hash FROM run
             WHERE release_label = ? AND skill_name = ? AND arm = 'with_skill' AND skill_tree_hash IS NOT NULL)
         SELECT bool_and(
                    (raw_metadata ->> '$.ablation.id') = ?
                    AND (NOT EXISTS (SELECT 1 FROM parents)
                         OR (raw_metadata ->> '$.ablation.parent_skill_hash') IN (SELECT skill_tree_hash FROM parents)))
         FROM run
         WHERE release_label = ? AND skill_name = ? AND arm = 'ablation:' || ?",
        params![release, skill, ablation, release, skill, ablation],
        |r| r.get(0),
    )?;
    Ok(ok.unwrap_or(false))
}

/// Confirm the expected regressions of the releases in `scope`, replacing
/// their stored rows (each regression belongs to one release).
pub fn refresh(conn: &Connection, scope: Scope) -> Result<u64> {
    conn.execute_batch(&format!(
        "DELETE FROM ablation_stats WHERE {}",
        scope.filter("release_label")
    ))?;
    // No suite of these releases declares an ablation: nothing to confirm,
    // and their pairs need not be read.
    let declared: i64 = conn.query_row(
        &format!(
            "SELECT count(*) FROM suite s, json_each(s.ablations) WHERE {}",
            scope.filter("s.release_label")
        ),
        [],
        |r| r.get(0),
    )?;
    if declared == 0 {
        return Ok(0);
    }
    let mut regressions: BTreeMap<Key, Regression> = BTreeMap::new();
    {
        let mut stmt = conn.prepare(&format!(
            "SELECT release_label, skill_name, ablation_id, regression_index, summary, invalid_skill,
                    case_id, model, confirmed, coverage_gap, to_json(deltas)::VARCHAR
             FROM ablation_evidence_in({})
             ORDER BY release_label, skill_name, ablation_id, regression_index, case_id, model",
            scope.argument()
        ))?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let key: Key = (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?);
            let reg = regressions.entry(key).or_default();
            reg.summary = r.get(4)?;
            reg.invalid_skill = r.get(5)?;
            let case: String = r.get(6)?;
            let model: Option<String> = r.get(7)?;
            let confirmed: bool = r.get::<_, Option<bool>>(8)?.unwrap_or(false);
            let gap: bool = r.get::<_, Option<bool>>(9)?.unwrap_or(false);
            let deltas: Vec<f64> = r
                .get::<_, Option<String>>(10)?
                .and_then(|t| serde_json::from_str::<Vec<Option<f64>>>(&t).ok())
                .map(|v| v.into_iter().flatten().collect())
                .unwrap_or_default();
            if !reg.measured_cases.contains(&case) {
                reg.measured_cases.push(case.clone());
            }
            if gap {
                reg.coverage_gaps += 1;
            }
            let test = sign_flip(&deltas);
            if confirmed {
                if !reg.confirmed_cases.contains(&case) {
                    reg.confirmed_cases.push(case.clone());
                }
                // 0.6.0's CONFIRMED_CAUSAL rule, mirrored: its own flag
                // (p <= 0.05), not liftdb's p_upper rule (docs/metrics.md §M8).
                reg.significant |= test.significant_at_0_05;
            }
            if let Some(p) = test.p_value {
                reg.min_p = Some(reg.min_p.map_or(p, |m| m.min(p)));
            }
            let label = match &model {
                Some(m) => format!("{case}@{m}"),
                None => case.clone(),
            };
            reg.tests.insert(
                label,
                json!({"method": test.method, "n": test.n, "observed_mean_delta": test.observed_mean_delta,
                       "p_value": test.p_value, "significant_at_0_05": test.significant_at_0_05}),
            );
        }
    }
    let mut appender = conn.appender("ablation_stats")?;
    let mut written = 0;
    for ((release, skill, ablation, index), reg) in &regressions {
        let verified = provenance_verified(conn, release, skill, ablation)?;
        let measured = !reg.measured_cases.is_empty();
        let evidence_class = if reg.invalid_skill || !measured {
            "indeterminate"
        } else if reg.confirmed_cases.is_empty() {
            "refuted"
        } else if verified && reg.coverage_gaps == 0 && reg.significant {
            "confirmed_causal"
        } else {
            "indeterminate"
        };
        let confirmed_flag = match evidence_class {
            "confirmed_causal" => Some(true),
            "refuted" => Some(false),
            _ => None,
        };
        let row: Row = vec![
            text(Some(release)),
            text(Some(skill)),
            text(Some(ablation)),
            int(Some(*index)),
            text(reg.summary.as_ref()),
            text(Some(if measured { "measured" } else { "unmeasured" })),
            boolean(Some(verified)),
            text(Some(json!(reg.measured_cases).to_string())),
            text(Some(json!(reg.confirmed_cases).to_string())),
            int(Some(reg.coverage_gaps)),
            float(reg.min_p),
            boolean(Some(reg.significant)),
            text(Some(evidence_class)),
            boolean(confirmed_flag),
            text(Some(Value::Object(reg.tests.clone()).to_string())),
        ];
        appender.append_row(appender_params_from_iter(row))?;
        written += 1;
    }
    appender.flush()?;
    Ok(written)
}
