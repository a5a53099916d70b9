//! The expectations-shaped `grading.json` (expectations + summary) that
//! skill-creator's grader writes, and that skill-eval-harness writes into its
//! own run directories with `grade --write-grading-files`: one grading and
//! one assertion row per expectation; the run's rate is `summary.pass_rate`.

use serde_json::Value;

use crate::json::Get;
use crate::model::records::{key, AssertionRec, GradingRec, RateBasis, Records};

pub fn is_expectations_grading(doc: &Value) -> bool {
    doc.get("expectations").is_some_and(Value::is_array)
}

/// A grading.json with expectations -> one grading and its assertion rows.
pub fn grading_from_expectations(run_id: &str, path: &str, doc: &Value, records: &mut Records) {
    let grading_id = key(&[Some("grading"), Some(run_id), Some(path)]);
    let summary = doc.get("summary");
    records.gradings.push(GradingRec {
        grading_id: grading_id.clone(),
        run_id: run_id.to_string(),
        report_path: path.to_string(),
        rate_basis: RateBasis::Summary,
        peer_pass: summary
            .and_then(|s| s.i64_at("failed"))
            .map(|failed| failed == 0),
        peer_pass_rate: summary.and_then(|s| s.f64_at("pass_rate")),
        ..Default::default()
    });
    let expectations = doc
        .get("expectations")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (i, e) in expectations.iter().enumerate() {
        records.assertions.push(AssertionRec {
            grading_id: grading_id.clone(),
            run_id: run_id.to_string(),
            seq: i as i64 + 1,
            name: e.str_at("text").map(str::to_string),
            channel: "expectation".into(),
            severity: None,
            passed: e.bool_at("passed"),
            score: e.bool_at("passed").map(|p| f64::from(u8::from(p))),
            evidence: e.str_at("evidence").map(str::to_string),
            availability: if e.get("passed").is_some() {
                "complete"
            } else {
                "unavailable"
            }
            .into(),
            ..Default::default()
        });
    }
}
