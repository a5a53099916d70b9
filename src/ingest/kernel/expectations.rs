//! The expectations-shaped `grading.json` (expectations + summary) that
//! skill-creator's grader writes, and that skill-eval-harness writes into its
//! own run directories with `grade --write-grading-files`: one grading and
//! one assertion row per expectation; the run's rate is `summary.pass_rate`.
//! The Agent Skills guide names the same list `assertion_results` (each with
//! `text`, or an `id`, `passed` and `evidence`): read alike.

use serde_json::Value;

use crate::json::Get;
use crate::model::records::{key, AssertionRec, GradingRec, RateBasis, Records};

/// The names the graded list goes by, in the order they are looked for.
pub const GRADED_LISTS: [&str; 2] = ["expectations", "assertion_results"];

/// `grading.origin` of the grading.json a harness wrote into a run folder it
/// also leaves for liftdb to grade (skill-eval-harness `grade --write-grading-files`).
pub const RUN_FOLDER_GRADING: &str = "run_folder";

/// The graded list of a grading.json, whichever name it has.
fn graded_list(doc: &Value) -> Option<&Vec<Value>> {
    GRADED_LISTS
        .iter()
        .find_map(|name| doc.get(*name).and_then(Value::as_array))
}

pub fn is_expectations_grading(doc: &Value) -> bool {
    graded_list(doc).is_some()
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
    for (i, e) in graded_list(doc).into_iter().flatten().enumerate() {
        records.assertions.push(AssertionRec {
            grading_id: grading_id.clone(),
            run_id: run_id.to_string(),
            seq: i as i64 + 1,
            name: ["text", "assertion", "id"]
                .iter()
                .find_map(|k| e.str_at(k))
                .map(str::to_string),
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
