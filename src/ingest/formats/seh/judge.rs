//! Judge results (docs/harnesses.md §C.6): JSONL, a JSON array, one object, or an
//! object with results[]. Keyed by the whole judge_task_id (never split:
//! assertion labels may contain "::").

use serde_json::Value;

use crate::json::{json_text, Get};
use crate::model::records::{ErrorKind, JudgeVerdictRec, Records};

fn is_verdict(row: &Value) -> bool {
    (row.get("judge_task_id").is_some() || row.get("id").is_some())
        && (row.get("verdict_kind").is_some() || row.get("passed").is_some())
}

/// The verdict rows of a parsed document, if it is a judge results file.
pub fn verdict_rows(doc: &Value) -> Option<Vec<Value>> {
    let rows: Vec<Value> = match doc {
        Value::Array(a) => a.clone(),
        Value::Object(o) => match o.get("results").and_then(Value::as_array) {
            Some(r) => r.clone(),
            None => vec![doc.clone()],
        },
        _ => return None,
    };
    (!rows.is_empty()
        && rows.iter().all(is_verdict)
        && rows
            .iter()
            .any(|r| r.get("judge_task_id").is_some() && r.get("verdict_kind").is_some()))
    .then_some(rows)
}

pub fn parse(rows: &[Value], path: &str, records: &mut Records) {
    let mut seen = std::collections::HashSet::new();
    for row in rows {
        let Some(task_id) = row.str_at("judge_task_id").or(row.str_at("id")) else {
            continue;
        };
        if !seen.insert(task_id.to_string()) {
            // The harness treats duplicates as a hard error; keep the first, report the rest.
            records.error(
                path,
                ErrorKind::DuplicateJudgeTask,
                format!("duplicate judge_task_id '{task_id}' (kept the first)"),
            );
            continue;
        }
        let assertion_name = row
            .get("assertion")
            .and_then(|a| a.str_at("name"))
            .map(str::to_string);
        records.judge_verdicts.push(JudgeVerdictRec {
            judge_task_id: task_id.to_string(),
            source_path: path.to_string(),
            case_id: row.str_at("case_id").map(str::to_string),
            model: row.str_at("model").map(str::to_string),
            arm: row.str_at("variant").map(str::to_string),
            repetition: row.i64_at("run_number"),
            assertion_name,
            judge_model: row.str_at("judge_model").map(str::to_string),
            judge_backend: row.str_at("judge_backend").map(str::to_string),
            verdict_kind: row.str_at("verdict_kind").map(str::to_string),
            passed: row.bool_at("passed"),
            score: row.f64_at("score"),
            threshold: row.f64_at("threshold"),
            dimension_scores: json_text(row.get("dimension_scores")),
            criteria: json_text(row.get("criteria")),
            minimum_criteria: row.i64_at("minimum_criteria"),
            agreement: json_text(row.get("agreement")),
            evidence: row.str_at("evidence").map(str::to_string),
            schema_errors: json_text(row.get("schema_errors")),
            cost_usd: row.f64_at("cost_usd"),
            raw: Some(row.to_string()),
        });
    }
}
