//! The suite manifest `evals/shared-benchmark.json` (docs/harnesses.md §C.1): the
//! skill, its arms, and each case's split, kind and assertions.

use serde_json::Value;

use super::SOURCE_FORMAT;
use crate::ingest::json::{json_text, Get};
use crate::ingest::kernel::{case_pk, suite_id};
use crate::ingest::records::{CaseRec, ErrorKind, Records, SuiteRec};

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
    let cases = doc
        .get("cases")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
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
