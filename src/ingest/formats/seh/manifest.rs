//! The suite manifest `evals/shared-benchmark.json` (docs/harnesses.md §C.1): the
//! skill, its arms, and each case's split, kind and assertions.

use std::borrow::Cow;

use serde_json::Value;

use super::SOURCE_FORMAT;
use crate::ingest::kernel::{case_pk, suite_id};
use crate::json::{json_text, Get};
use crate::model::records::{CaseRec, ErrorKind, Records, SuiteRec};

/// A manifest is an object with a skill name and a list of cases.
pub fn looks_like_manifest(doc: &Value) -> bool {
    // The handbook's benchmark.json also has skill_name + cases[]; it has a protocol_version.
    doc.str_at("skill_name").is_some()
        && doc.get("cases").is_some_and(Value::is_array)
        && doc.get("protocol_version").is_none()
        && doc.get("pass_rate_lift").is_none()
}

/// Case ids are strings in C; other formats may use integers.
pub fn case_id_of(case: &Value) -> Option<String> {
    match case.get("id")? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn polarity(id: &str, kind: Option<&str>) -> Option<String> {
    match kind {
        Some("negative") => return Some("negative".into()),
        Some("adversarial") => return Some("adversarial".into()),
        _ => {}
    }
    if id.starts_with("neg-") || id.starts_with("trig-neg-") {
        Some("negative".into())
    } else if id.starts_with("pos-") || id.starts_with("trig-pos-") {
        Some("positive".into())
    } else {
        None
    }
}

/// docs/metrics.md §M4: reference_score clamped to [0,1], else (graded - 1)/4 clamped.
fn reference_floor(case: &Value) -> Option<f64> {
    case.f64_at("reference_score")
        .or_else(|| {
            case.f64_at("reference_graded_score")
                .map(|g| (g - 1.0) / 4.0)
        })
        .map(|f| f.clamp(0.0, 1.0))
}

fn str_field(v: &Value, k: &str) -> Option<String> {
    v.str_at(k).map(str::to_string)
}

pub fn parse(doc: &Value, path: &str, sha256: &str, release: &str, records: &mut Records) {
    let Some(skill) = doc.str_at("skill_name") else {
        return;
    };
    let sid = suite_id(release, skill);
    let harness = doc.get("harness");
    records.suites.push(SuiteRec {
        suite_id: sid.clone(),
        release_label: release.to_string(),
        skill_name: skill.to_string(),
        source_format: SOURCE_FORMAT.into(),
        harness_name: harness.and_then(|h| str_field(h, "name")),
        harness_version: harness.and_then(|h| match h.get("version") {
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        }),
        manifest_path: Some(path.to_string()),
        manifest_sha256: Some(sha256.to_string()),
        skill_tree_hash: None,
        variants: json_text(doc.get("variants"))
            .or_else(|| Some(r#"["with_skill","without_skill"]"#.to_string())),
        // Full ablation definitions: ids give arm order, expected_regressions feed M8.
        ablations: json_text(doc.get("ablations")).or_else(|| Some("[]".to_string())),
    });
    let cases = materialize_dataset_cases(doc, path, records);
    let mut seen = std::collections::HashSet::new();
    for (i, case) in cases.iter().enumerate() {
        let Some(case_id) = case_id_of(case) else {
            records.error(path, ErrorKind::MissingId, format!("cases[{i}] has no id"));
            continue;
        };
        if !seen.insert(case_id.clone()) {
            records.error(
                path,
                ErrorKind::DuplicateCaseId,
                format!("cases[{i}]: duplicate case id '{case_id}' (kept the first)"),
            );
            continue;
        }
        let kind = case.str_at("kind");
        records.cases.push(CaseRec {
            case_pk: case_pk(release, skill, &case_id),
            suite_id: sid.clone(),
            release_label: release.to_string(),
            skill_name: skill.to_string(),
            split: str_field(case, "split"),
            kind: kind.map(str::to_string),
            population: Some(
                if kind == Some("trigger") {
                    "trigger"
                } else {
                    "answer"
                }
                .into(),
            ),
            polarity: polarity(&case_id, kind),
            eval_intent: Some(
                case.str_at("eval_intent")
                    .unwrap_or("capability")
                    .to_string(),
            ),
            domain: str_field(case, "domain"),
            difficulty: str_field(case, "difficulty"),
            trigger_type: str_field(case, "trigger_type"),
            prompt: str_field(case, "prompt"),
            expected_behavior: json_text(case.get("expected_behavior")),
            success_goals: json_text(case.get("success_goals")),
            tags: json_text(case.get("tags")),
            assertions: json_text(case.get("assertions")),
            reference_floor: reference_floor(case),
            raw: Some(case.to_string()),
            source_path: Some(path.to_string()),
            case_id,
        });
    }
}

/// `materialize_dataset_cases`: a case with `template: <dataset>` becomes one
/// case per dataset row, id `<id>-<row id or 1-based index>`, every `{key}`
/// in its strings replaced by the row's cells (plain replace, in row order).
/// A template naming no usable dataset is an error for that case alone (the
/// harness stops there). A case with no template is the document's own (a
/// copy of every case would be as large as the parsed manifest again).
fn materialize_dataset_cases<'d>(
    doc: &'d Value,
    path: &str,
    records: &mut Records,
) -> Vec<Cow<'d, Value>> {
    use crate::grade::pyvalue::str_of;
    let cases = doc
        .get("cases")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let datasets = doc.get("datasets").and_then(Value::as_object);
    let mut out = Vec::with_capacity(cases.len());
    for case in cases {
        let Some(template) = case
            .get("template")
            .filter(|t| crate::json::truthy(Some(t)))
        else {
            out.push(Cow::Borrowed(case));
            continue;
        };
        let dataset_id = str_of(template);
        let rows = datasets
            .and_then(|d| d.get(&dataset_id))
            .and_then(Value::as_array)
            .filter(|rows| !rows.is_empty() && rows.iter().all(Value::is_object));
        let Some(rows) = rows else {
            let id = case.get("id").map(str_of).unwrap_or_default();
            records.error(
                path,
                ErrorKind::WrongShape,
                format!("case '{id}': template references unknown or empty dataset '{dataset_id}', or a row that is not an object (skill-benchmark stops here)"),
            );
            continue;
        };
        for (i, row) in rows.iter().enumerate() {
            let row = row.as_object().expect("rows are objects");
            let Value::Object(fields) = case else {
                continue;
            };
            let mut materialized: serde_json::Map<String, Value> = fields
                .iter()
                .filter(|(k, _)| *k != "template")
                .map(|(k, v)| (k.clone(), apply_dataset_row(v, row)))
                .collect();
            let row_id = row
                .get("id")
                .map(str_of)
                .unwrap_or_else(|| (i + 1).to_string());
            let case_id = case.get("id").map(str_of).unwrap_or_else(|| "None".into());
            materialized.insert("id".into(), Value::String(format!("{case_id}-{row_id}")));
            materialized.insert("dataset".into(), Value::String(dataset_id.clone()));
            out.push(Cow::Owned(Value::Object(materialized)));
        }
    }
    out
}

/// `apply_dataset_row`: `{key}` -> `str(cell)` in every string, recursively.
fn apply_dataset_row(value: &Value, row: &serde_json::Map<String, Value>) -> Value {
    use crate::grade::pyvalue::str_of;
    match value {
        Value::String(s) => {
            let mut out = s.clone();
            for (key, cell) in row {
                out = out.replace(&format!("{{{key}}}"), &str_of(cell));
            }
            Value::String(out)
        }
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| apply_dataset_row(v, row)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), apply_dataset_row(v, row)))
                .collect(),
        ),
        other => other.clone(),
    }
}
