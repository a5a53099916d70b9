//! `benchmark.json` / `grade --out` reports (docs/harnesses.md §C.7/C.8): each
//! results[] row is the harness's grading of one run. Its assertion rows
//! become `assertion_result` (the views recompute every rate from them); its
//! own per-run rates are kept as peer_* columns; every other block goes to
//! `peer_metric`. The run itself, as the row carries it, is defined where the
//! store holds none of its identity (`reported`).

use serde_json::Value;

use crate::grade::channel_of;
use crate::ingest::kernel::{case_pk, peer, run_key, suite_id, RunIdentity};
use crate::json::{json_text, Get};
use crate::model::records::{
    key, AssertionRec, CaseRec, EpochSeconds, ErrorKind, GradingRec, Records,
};

/// A benchmark or grade report: skill-named, with results rows that have run bases.
pub fn looks_like_report(doc: &Value) -> bool {
    doc.str_at("skill_name").is_some()
        && doc
            .get("results")
            .and_then(Value::as_array)
            .is_some_and(|r| {
                r.iter()
                    .all(|row| row.get("run_base").is_some() || row.get("case_id").is_some())
            })
        && (doc.get("paired_summary").is_some()
            || doc.get("judge_task_count").is_some()
            || doc.get("population").is_some())
}

/// Case definitions carried on the rows, for cases no manifest defines.
fn case_from_row(row: &Value, release: &str, skill: &str, case_id: &str) -> CaseRec {
    let s = |k: &str| row.str_at(k).map(str::to_string);
    CaseRec {
        case_pk: case_pk(release, skill, case_id),
        suite_id: suite_id(release, skill),
        release_label: release.to_string(),
        skill_name: skill.to_string(),
        case_id: case_id.to_string(),
        split: s("split"),
        kind: s("kind"),
        population: Some("answer".into()),
        eval_intent: s("eval_intent"),
        domain: s("domain"),
        difficulty: s("difficulty"),
        trigger_type: s("trigger_type"),
        success_goals: json_text(row.get("success_goals")),
        ..Default::default()
    }
}

/// The runs-root name in a row's run_base: the path segment before the case directory.
fn runs_root_of(run_base: &str, case_id: &str) -> Option<String> {
    let segments: Vec<&str> = run_base
        .split(['/', '\\'])
        .filter(|s| !s.is_empty())
        .collect();
    let at = segments.iter().rposition(|s| *s == case_id)?;
    at.checked_sub(1).map(|i| segments[i].to_string())
}

/// One results[] row at a time: its grading and assertion rows, with the
/// checks (ids, types, one row per run) every row gets. Used on a parsed
/// report and on one streamed row by row.
pub struct RowReader<'a> {
    path: &'a str,
    release: &'a str,
    skill: &'a str,
    generated_at: Option<f64>,
    graded: std::collections::HashSet<String>,
    /// Case definitions from the rows, first row of each case.
    pub row_cases: Vec<CaseRec>,
}

impl<'a> RowReader<'a> {
    pub fn new(path: &'a str, release: &'a str, skill: &'a str, generated_at: Option<f64>) -> Self {
        RowReader {
            path,
            release,
            skill,
            generated_at,
            graded: std::collections::HashSet::new(),
            row_cases: Vec::new(),
        }
    }

    /// Row `i`: its records, or an error row when it cannot be read.
    pub fn row(&mut self, i: usize, row: &Value, records: &mut Records) {
        let (path, release, skill, generated_at) =
            (self.path, self.release, self.skill, self.generated_at);
        let graded = &mut self.graded;
        let row_cases = &mut self.row_cases;
        let (Some(case_id), Some(arm)) = (row.str_at("case_id"), row.str_at("variant")) else {
            records.error(
                path,
                ErrorKind::MissingId,
                format!("results[{i}] lacks case_id or variant"),
            );
            return;
        };
        let wrong = [
            (
                "run_number",
                row.get("run_number").is_some_and(|v| !v.is_i64()),
            ),
            (
                "run_base",
                row.get("run_base").is_some_and(|v| !v.is_string()),
            ),
            (
                "assertions",
                row.get("assertions").is_some_and(|v| !v.is_array()),
            ),
        ];
        if let Some((field, _)) = wrong.iter().find(|(_, bad)| *bad) {
            records.error(
                path,
                ErrorKind::WrongShape,
                format!(
                    "results[{i}] ({case_id} / {arm}): '{field}' has the wrong type; row skipped"
                ),
            );
            return;
        }
        let repetition = row.i64_at("run_number").unwrap_or(1);
        let model = row.str_at("model").filter(|m| !m.is_empty());
        let native_batch = row
            .str_at("run_base")
            .and_then(|b| runs_root_of(b, case_id));
        let identity = RunIdentity {
            release,
            shard: None,
            native_batch: native_batch.as_deref(),
            skill,
            case_id,
            model,
            arm,
            repetition,
        };
        let run_id = run_key(&identity);
        let grading_id = key(&[Some("grading"), Some(&run_id), Some(path)]);
        if !graded.insert(grading_id.clone()) {
            // docs/metrics.md §M2: two rows for one arm of a pair key is a hard error in the harness.
            records.error(
                path,
                ErrorKind::DuplicateRow,
                format!("results[{i}]: a second row for {case_id} / {arm} / run {repetition} (kept the first)"),
            );
            return;
        }
        if !row_cases.iter().any(|c| c.case_id == case_id) {
            row_cases.push(case_from_row(row, release, skill, case_id));
        }
        // The run as the report carries it: defined only where the store
        // holds no run of this identity (the writer decides).
        super::reported::define(&identity, &run_id, path, row, records);
        records.gradings.push(GradingRec {
            grading_id: grading_id.clone(),
            run_id: run_id.clone(),
            report_path: path.to_string(),
            generated_at: EpochSeconds(generated_at),
            peer_missing_output: row.bool_at("missing_output"),
            peer_execution_valid: row.bool_at("execution_valid"),
            peer_objective_pass_rate: row.f64_at("objective_pass_rate"),
            peer_combined_pass_rate: row.f64_at("combined_pass_rate"),
            peer_vetoed: row.bool_at("vetoed"),
            peer_graded_score: row.f64_at("graded_score"),
            below_reference_floor: json_text(row.get("below_reference_floor")),
            deferred_judge_tasks: row.i64_at("deferred_judge_tasks"),
            ..Default::default()
        });
        let list = |k: &str| {
            row.get(k)
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice)
        };
        let (objective, qualitative) = (list("assertions"), list("qualitative_assertions"));
        let tagged = objective
            .iter()
            .map(|a| (a, false))
            .chain(qualitative.iter().map(|a| (a, true)));
        for (seq, (a, is_judge)) in tagged.enumerate() {
            let kind = a.str_at("type");
            records.assertions.push(AssertionRec {
                grading_id: grading_id.clone(),
                run_id: run_id.clone(),
                seq: seq as i64 + 1,
                name: a
                    .str_at("name")
                    .or(a.str_at("description"))
                    .or(kind)
                    .map(str::to_string),
                r#type: kind.map(str::to_string),
                channel: if is_judge {
                    "qualitative"
                } else {
                    channel_of(kind)
                }
                .into(),
                severity: Some(
                    a.str_at("severity")
                        .unwrap_or(if is_judge { "soft" } else { "gate" })
                        .to_string(),
                ),
                oracle_tier: a.str_at("oracle").map(str::to_string),
                passed: a.bool_at("passed"),
                score: a.f64_at("score"),
                skipped: a.bool_at("skipped").unwrap_or(false),
                skip_reason: a.str_at("skip_reason").map(str::to_string),
                turn: a.i64_at("turn"),
                evidence: a.get("evidence").map(|e| match e {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                }),
                judge_task_id: a.str_at("judge_task_id").map(str::to_string),
                availability: if a.get("passed").is_some_and(|p| !p.is_null()) {
                    "complete"
                } else {
                    "unavailable"
                }
                .into(),
            });
        }
    }
}

pub struct ParsedReport {
    pub records: Records,
    /// Case definitions from the rows; the caller keeps those no manifest has.
    pub row_cases: Vec<CaseRec>,
}

pub fn parse(doc: &Value, path: &str, release: &str) -> ParsedReport {
    let mut records = Records::default();
    let skill = doc.str_at("skill_name").unwrap_or("(unknown skill)");
    let mut reader = RowReader::new(path, release, skill, doc.f64_at("generated_at"));
    // Borrowed, never cloned: a 100,000-run report is gigabytes as a Value.
    let rows: &[Value] = doc
        .get("results")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    for (i, row) in rows.iter().enumerate() {
        reader.row(i, row, &mut records);
    }
    let row_cases = reader.row_cases;
    let src = peer::PeerSource {
        path,
        report_kind: "benchmark",
        release,
        skill_name: Some(skill),
    };
    peer::flatten(doc, &src, &["results"], &mut records.peer_metrics);
    ParsedReport { records, row_cases }
}
