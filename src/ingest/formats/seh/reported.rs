//! A run as a benchmark report carries it (docs/harnesses.md §C.7): its
//! identity, whether it was answered and executed validly, and its
//! metadata (tokens, cost, time, how it ended) — but not its answer, trace
//! or files. Such a run is defined only where the store holds no run of its
//! identity (`store::writer`: staged, then kept where none is held), so a
//! team's archived reports make releases of their own; its folder, read
//! later, replaces it. Its grading is the report's own row.

use serde_json::Value;

use super::metrics_doc;
use super::run_dir::{how_it_ran, Ran, RunEnding};
use super::{telemetry, SOURCE_FORMAT};
use crate::ingest::kernel::RunIdentity;
use crate::json::{truthy, Get};
use crate::model::records::{Records, RunRec};

/// The run `row` (one results[] row of the benchmark report at `report`)
/// describes — `who`, with id `run_id` — with its measurements and skill
/// activation, into `records`.
pub fn define(who: &RunIdentity, run_id: &str, report: &str, row: &Value, records: &mut Records) {
    let metadata = row.get("metadata").filter(|m| m.is_object());
    let read = metadata.and_then(|m| {
        metrics_doc::read(m.to_string().as_bytes(), true, true)
            .ok()
            .flatten()
    });
    let doc = read.as_ref().map(|r| &r.doc);
    let get = |k: &str| doc.and_then(|d| d.get(k));
    let returncode = get("returncode").and_then(Value::as_i64);
    let timed_out = truthy(get("timed_out")) || truthy(get("timeout"));
    let ending = RunEnding::read(&get);
    let ending_reason = ending.invalid_reason();
    // The report's own word on the answer and its execution: a failure
    // marker in the answer (which the report does not carry) shows only here.
    let output_present = row.bool_at("missing_output").map(|m| !m);
    let reported_valid = row.bool_at("execution_valid");
    let (mut unscorable_reason, mut execution_valid) = how_it_ran(&Ran {
        metadata_error: false,
        output_present: output_present.unwrap_or(true),
        timed_out,
        returncode,
        failure_marker: None,
        ending_reason: ending_reason.as_deref(),
    });
    if reported_valid == Some(false) && execution_valid {
        execution_valid = false;
        unscorable_reason.get_or_insert_with(|| "failure_marker:the report says so".into());
    }
    records.runs.push(RunRec {
        run_id: run_id.to_string(),
        release_label: who.release.to_string(),
        native_batch: who.native_batch.map(str::to_string),
        source_format: SOURCE_FORMAT.into(),
        skill_name: who.skill.to_string(),
        case_id: who.case_id.to_string(),
        model: who.model.map(str::to_string),
        model_source: who.model.map(|_| "report".to_string()),
        arm: who.arm.to_string(),
        repetition: who.repetition,
        repetition_source: "report".into(),
        layout_reading: None,
        provider: get("provider").and_then(Value::as_str).map(str::to_string),
        population: get("population")
            .and_then(Value::as_str)
            .map(str::to_string),
        run_dir: row.str_at("run_base").unwrap_or(report).to_string(),
        output_file: None,
        output_present: output_present.unwrap_or(true),
        output_text: None,
        failure_marker: None,
        returncode,
        timed_out: doc.map(|_| timed_out),
        observation_complete: get("observation_complete").and_then(Value::as_bool),
        trace_observation_complete: get("trace_observation_complete").and_then(Value::as_bool),
        execution_valid,
        unscorable_reason,
        skill_tree_hash: get("skill_tree_hash")
            .and_then(Value::as_str)
            .map(str::to_string),
        metadata_error: None,
        identity_conflicts: None,
        raw_metadata: read.as_ref().and_then(|r| r.text.clone()),
        environment: None,
        stop_class: ending.stop_class,
        stop_reason: ending.stop_reason,
        requested_model: ending.requested_model,
        served_model: ending.served_model,
        served_model_check: ending.served_model_check,
        effort: ending.effort,
        content_sha256: None,
        shard: None,
        defined_by: Some(report.to_string()),
        case_name: None,
        started_at: Default::default(),
    });
    if let Some(doc) = doc {
        let (measurements, activation) = telemetry::extract(run_id, who.skill, doc);
        records.measurements.extend(measurements);
        records.activations.push(activation);
    }
}
