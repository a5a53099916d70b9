//! One skill-eval-harness run directory -> run, measurements, activation,
//! trace events and raw trace lines (docs/harnesses.md §C.3-C.5).

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::metrics_doc::{self, MetricsDoc, ReadDoc};
use super::{events, layout, telemetry, trigger_trace, SOURCE_FORMAT};
use crate::grade;
use crate::ingest::kernel::expectations::{
    grading_from_expectations, is_expectations_grading, RUN_FOLDER_GRADING,
};
use crate::ingest::kernel::{run_key, ManifestCase, RunContext, RunFiles, RunIdentity, RunOutcome};
use crate::json::{parse_lenient, truthy};
use crate::model::records::{key, AssertionRec, ErrorKind, GradingRec, Records, RunRec};
use crate::model::run_files::{first_metadata_file, read_output};

/// Synthetic bodies runners write on failure (docs/harnesses.md §C.4).
const FAILURE_MARKERS: &[&str] = &[
    "[CODEX FAILURE",
    "[CLAUDE FAILURE",
    "[JETTY FAILURE",
    "[VIBE FAILURE",
    "[TIMEOUT",
    "[GEMINI FAILURE",
];

/// Where run metrics are merged from, in order (later wins; C.3 `read_metrics_base`).
const METRICS_MERGE_ORDER: &[&str] = &[
    "metadata.json",
    "timing.json",
    "outputs/metrics.json",
    "metrics.json",
];

pub fn parse(run_dir: &Path, files: &RunFiles, ctx: &RunContext) -> RunOutcome {
    let mut records = Records::default();
    let dir_text = run_dir.display().to_string();
    let path_of = |rel: &str| run_dir.join(rel).display().to_string();

    // Read the JSON files we know; a broken one is an error row, not a lost run.
    let mut docs: HashMap<&str, MetricsDoc> = HashMap::new();
    let mut metadata_error = None;
    let (mut raw_metadata, mut environment) = (None, None);
    for (name, read) in read_documents(files) {
        match read {
            Ok(Some(read)) => {
                match name {
                    "metadata.json" => raw_metadata = read.text,
                    "environment.json" => environment = read.text,
                    _ => {}
                }
                docs.insert(name, read.doc);
            }
            Ok(None) => {
                records.error(
                    &path_of(name),
                    ErrorKind::NotAnObject,
                    "expected a JSON object",
                );
                if name == "metadata.json" {
                    metadata_error = Some("metadata.json is not a JSON object".to_string());
                }
            }
            Err(e) => {
                records.error(
                    &path_of(name),
                    ErrorKind::InvalidJson,
                    format!("invalid JSON: {e}"),
                );
                if name == "metadata.json" {
                    metadata_error = Some(format!("invalid JSON: {e}"));
                }
            }
        }
    }
    let metadata = docs.get("metadata.json");
    if let Some(meta) =
        metadata.filter(|m| m.get("population").and_then(Value::as_str) == Some("trigger"))
    {
        trigger_trace::observation(
            run_dir,
            &Value::Object(meta.fields.clone()),
            ctx.release,
            &ctx.grading.trigger_queries,
            |case| ctx.known_cases.get(case).cloned(),
            &mut records,
        );
        return RunOutcome::TriggerTrace(records);
    }
    let says = layout::MetadataSays {
        case_id: metadata
            .and_then(|m| m.get("case_id"))
            .and_then(Value::as_str),
        model: metadata
            .and_then(|m| m.get("model"))
            .and_then(Value::as_str),
    };
    let ident = match layout::resolve(run_dir, says, ctx.known_cases, ctx.declared_arms, ctx.roots)
    {
        Ok(i) => i,
        Err(reason) => {
            records.error(&dir_text, ErrorKind::NotARunLayout, reason);
            return RunOutcome::Rejected(records);
        }
    };

    // Metadata for grading is the first existing file (C.3), not the merge.
    // One that is not a JSON object is still the one read, as no keys (the
    // harness's `{}` or metadata_error dict), never the next file's keys.
    let unreadable = MetricsDoc::default();
    let grading_meta = first_metadata_file(files).map(|n| docs.get(n).unwrap_or(&unreadable));
    let (model, model_source) = match (&ident.model, grading_meta.and_then(|m| m.get("model"))) {
        (Some(m), _) => (Some(m.clone()), Some("layout")),
        (None, Some(Value::String(m))) if !m.is_empty() => (Some(m.clone()), Some("metadata")),
        _ => (None, None),
    };
    let skill_name = ctx
        .known_cases
        .get(&ident.case_id)
        .cloned()
        .unwrap_or_else(|| "(unknown skill)".to_string());
    let run_id = run_key(&RunIdentity {
        release: ctx.release,
        shard: ctx.shard,
        native_batch: ident.runs_root.as_deref(),
        skill: &skill_name,
        case_id: &ident.case_id,
        model: model.as_deref(),
        arm: &ident.arm,
        repetition: ident.repetition,
    });

    let (output_file, output_text) = read_output(files);
    let failure_marker = output_text.as_deref().and_then(|t| {
        let t = t.trim_start();
        FAILURE_MARKERS
            .iter()
            .find(|m| t.starts_with(*m))
            .map(|m| m.to_string())
    });
    let get = |k: &str| grading_meta.and_then(|m| m.get(k));
    let returncode = get("returncode").and_then(Value::as_i64);
    let timed_out = truthy(get("timed_out")) || truthy(get("timeout"));
    let provider = get("provider").and_then(Value::as_str).map(str::to_string);
    let population = get("population")
        .and_then(Value::as_str)
        .map(str::to_string);
    let graded_timed_out = grading_meta.map(|_| timed_out);
    let output_present = output_file.is_some();

    let ending = RunEnding::read(&get);
    let ending_reason = ending.invalid_reason();

    let (unscorable_reason, execution_valid) = how_it_ran(&Ran {
        metadata_error: metadata_error.is_some(),
        output_present,
        timed_out,
        returncode,
        failure_marker: failure_marker.as_deref(),
        ending_reason: ending_reason.as_deref(),
    });

    let conflicts = identity_conflicts(metadata, &ident, model.as_deref());
    let merged = merge_metrics(docs);
    records.runs.push(RunRec {
        run_id: run_id.clone(),
        release_label: ctx.release.to_string(),
        native_batch: ident.runs_root.clone(),
        source_format: SOURCE_FORMAT.into(),
        skill_name: skill_name.clone(),
        case_id: ident.case_id.clone(),
        model,
        model_source: model_source.map(str::to_string),
        arm: ident.arm.clone(),
        repetition: ident.repetition,
        repetition_source: ident.repetition_source.into(),
        layout_reading: Some(ident.reading.label().into()),
        provider,
        population,
        run_dir: dir_text.clone(),
        output_file: output_file.map(|f| path_of(&f)),
        output_present,
        output_text,
        failure_marker,
        returncode,
        timed_out: graded_timed_out,
        observation_complete: merged.get("observation_complete").and_then(Value::as_bool),
        trace_observation_complete: merged
            .get("trace_observation_complete")
            .and_then(Value::as_bool),
        execution_valid,
        unscorable_reason,
        skill_tree_hash: merged
            .get("skill_tree_hash")
            .and_then(Value::as_str)
            .map(str::to_string),
        metadata_error,
        identity_conflicts: (!conflicts.is_empty()).then(|| Value::Array(conflicts).to_string()),
        raw_metadata,
        environment,
        stop_class: ending.stop_class,
        stop_reason: ending.stop_reason,
        requested_model: ending.requested_model,
        served_model: ending.served_model,
        served_model_check: ending.served_model_check,
        effort: ending.effort,
        // Both set by the batch, which knows the files and the shard.
        content_sha256: None,
        shard: None,
        defined_by: None,
        case_name: None,
        started_at: Default::default(),
    });

    let (measurements, activation) = telemetry::extract(&run_id, &skill_name, &merged);
    records.measurements = measurements;
    records.activations.push(activation);

    if let Some(bytes) = files.get("events.json") {
        match parse_lenient(bytes).and_then(|doc| events::parse_events(&run_id, &doc)) {
            Ok(evs) => records.trace_events = evs,
            Err(e) => records.error(
                &path_of("events.json"),
                ErrorKind::InvalidJson,
                format!("invalid events: {e}"),
            ),
        }
    }
    if let Some(bytes) = files.get("trace.jsonl") {
        records.trace_lines = events::trace_lines(&run_id, bytes);
    }
    if let Some(mc) = ctx.grading.cases.get(&ident.case_id) {
        let key = ctx.grading.key(&ident.case_id);
        let judges = grade::JudgeLookup {
            results: &ctx.grading.judge_results,
            case_id: &ident.case_id,
            model: ident.model.as_deref(),
            run: ident.repetition,
        };
        native_grading(
            &run_id,
            run_dir,
            &ident.arm,
            files,
            (mc, key, judges),
            ctx,
            &mut records,
        );
    }
    // `grade --write-grading-files` leaves a skill-creator shaped grading here:
    // a lossy copy of the harness's grading (deferred judge tasks written as
    // failed, severities dropped). The run stays a seh run, and the grading is
    // marked as the run folder's so that liftdb's own grading is preferred.
    if let Some(bytes) = files.get("grading.json") {
        match parse_lenient(bytes) {
            Ok(doc) if is_expectations_grading(&doc) => {
                grading_from_expectations(&run_id, &path_of("grading.json"), &doc, &mut records);
                if let Some(grading) = records.gradings.last_mut() {
                    grading.origin = Some(RUN_FOLDER_GRADING.into());
                }
            }
            Ok(doc) if doc.get("expectations").is_some() => records.error(
                &path_of("grading.json"),
                ErrorKind::WrongShape,
                "'expectations' is not a list; the run is kept ungraded",
            ),
            Ok(_) => {}
            Err(e) => records.error(
                &path_of("grading.json"),
                ErrorKind::InvalidJson,
                format!("invalid JSON: {e}"),
            ),
        }
    }
    RunOutcome::Answer { run_id, records }
}

/// The run's JSON documents that are present, each read (metrics_doc.rs),
/// in merge order with environment.json last. They are read last to first,
/// so that a document whose telemetry a later one replaces skips its own
/// (the metadata's, replaced by metrics.json's).
fn read_documents(files: &RunFiles) -> Vec<(&'static str, Result<Option<ReadDoc>, String>)> {
    let mut later_telemetry = false;
    let mut reads: Vec<_> = METRICS_MERGE_ORDER
        .iter()
        .chain(["environment.json"].iter())
        .rev()
        .filter_map(|name| {
            let bytes = files.get(*name)?;
            let merged = *name != "environment.json";
            // The metadata and environment are stored whole, as compact text.
            let stored_whole = matches!(*name, "metadata.json" | "environment.json");
            let read = metrics_doc::read(bytes, stored_whole, merged && !later_telemetry);
            if let Ok(Some(r)) = &read {
                later_telemetry |= merged && r.doc.telemetry.is_some();
            }
            Some((*name, read))
        })
        .collect();
    reads.reverse();
    reads
}

/// The run's metrics files merged into one, later files winning
/// (`METRICS_MERGE_ORDER`); the documents are moved, not copied.
fn merge_metrics(mut docs: HashMap<&str, MetricsDoc>) -> MetricsDoc {
    MetricsDoc::merge(METRICS_MERGE_ORDER.iter().filter_map(|n| docs.remove(n)))
}

/// A requested variant with no directory, as the harness grades it: run 1,
/// no output, every assertion evaluated against "" (docs/grading.md §2.1).
pub fn parse_phantom(dir: &Path, ctx: &RunContext) -> RunOutcome {
    let mut outcome = parse(dir, &RunFiles::new(), ctx);
    if let RunOutcome::Answer { records, .. } = &mut outcome {
        for run in &mut records.runs {
            run.repetition_source = "phantom".into();
            run.unscorable_reason = Some(
                "no run directory: a requested variant the harness grades as a missing run".into(),
            );
        }
    }
    outcome
}

/// Metadata identity fields that disagree with the layout (the layout wins).
fn identity_conflicts(
    metadata: Option<&MetricsDoc>,
    ident: &layout::LayoutIdentity,
    model: Option<&str>,
) -> Vec<Value> {
    let Some(m) = metadata else { return Vec::new() };
    let mut out = Vec::new();
    let mut check = |field: &str, layout_value: Value| {
        if let Some(v) = m.get(field).filter(|v| !v.is_null()) {
            if *v != layout_value {
                out.push(
                    serde_json::json!({"field": field, "metadata": v, "layout": layout_value}),
                );
            }
        }
    };
    check("case_id", Value::from(ident.case_id.clone()));
    check("variant", Value::from(ident.arm.clone()));
    if ident.repetition_source == "run_dir" {
        check("run_number", Value::from(ident.repetition));
    }
    if let Some(model) = model {
        check("model", Value::from(model));
    }
    out
}

/// liftdb's own grading of the run against its manifest case (skill-benchmark
/// 0.6.0's rules): one grading (origin 'liftdb', owned by the run directory,
/// so it is replaced with it) and its assertion rows in the harness's order.
fn native_grading(
    run_id: &str,
    run_dir: &Path,
    arm: &str,
    files: &RunFiles,
    (mc, grading_key, judges): (&ManifestCase, Option<String>, grade::JudgeLookup),
    ctx: &RunContext,
    records: &mut Records,
) {
    let graded = grade::grade_run(
        &mc.case(),
        arm,
        run_dir,
        files,
        &mc.manifest_dir,
        &ctx.grading.options,
        &judges,
    );
    let dir = run_dir.display().to_string();
    let grading_id = key(&[Some("grading"), Some(run_id), Some("liftdb")]);
    records.gradings.push(GradingRec {
        grading_id: grading_id.clone(),
        run_id: run_id.to_string(),
        report_path: dir,
        deferred_judge_tasks: Some(graded.deferred_judge_tasks),
        origin: Some("liftdb".into()),
        grading_key,
        ..Default::default()
    });
    for (i, row) in graded.rows.into_iter().enumerate() {
        let available = row.unavailable.is_none();
        records.assertions.push(AssertionRec {
            grading_id: grading_id.clone(),
            run_id: run_id.to_string(),
            seq: i as i64 + 1,
            channel: grade::channel_of(row.kind.as_deref()).into(),
            name: row.name,
            r#type: row.kind,
            severity: Some(row.severity.into()),
            oracle_tier: Some(row.oracle),
            passed: available.then_some(row.passed),
            score: row.score.filter(|_| available),
            skipped: row.skipped,
            skip_reason: row.skip_reason,
            turn: row.turn,
            evidence: match row.unavailable {
                Some(why) => Some(format!("unavailable: {why}")),
                None => row.evidence,
            },
            judge_task_id: row.judge_task_id,
            availability: match (available, row.scripts_not_allowed, row.embedding_not_run) {
                (false, _, _) => "unavailable",
                (true, true, _) => "scripts_not_allowed",
                (true, false, true) => "embedding_not_run",
                (true, false, false) => "complete",
            }
            .into(),
        });
    }
}

/// What decides whether a run counts.
pub(super) struct Ran<'a> {
    pub metadata_error: bool,
    pub output_present: bool,
    pub timed_out: bool,
    pub returncode: Option<i64>,
    pub failure_marker: Option<&'a str>,
    pub ending_reason: Option<&'a str>,
}

/// Why a run does not count (the harness's first reason, in its names) and
/// whether it was executed validly.
pub(super) fn how_it_ran(r: &Ran) -> (Option<String>, bool) {
    let reason = if r.metadata_error {
        Some("invalid_metadata".to_string())
    } else if !r.output_present {
        Some("missing_output".to_string())
    } else if r.timed_out {
        Some("timed_out".to_string())
    } else if let Some(code) = r.returncode.filter(|c| *c != 0) {
        Some(format!("returncode_{code}"))
    } else if let Some(m) = r.failure_marker {
        Some(format!("failure_marker:{}", m.trim_start_matches('[')))
    } else {
        r.ending_reason.map(str::to_string)
    };
    let valid = !r.metadata_error
        && r.returncode.is_none_or(|c| c == 0)
        && !r.timed_out
        && r.failure_marker.is_none()
        && r.ending_reason.is_none();
    (reason, valid)
}

/// How a run ended, as skill-eval-harness records it in metadata.json after
/// 0.6.0 (0.6.0 writes none of it, and its runs read all None).
#[derive(Debug, Default)]
pub(super) struct RunEnding {
    pub stop_class: Option<String>,
    pub stop_reason: Option<String>,
    pub requested_model: Option<String>,
    pub served_model: Option<String>,
    pub served_model_check: Option<String>,
    pub effort: Option<String>,
}

impl RunEnding {
    pub(super) fn read<'a>(get: &impl Fn(&str) -> Option<&'a Value>) -> Self {
        let text = |k: &str| get(k).and_then(Value::as_str).map(str::to_string);
        // {requested, applied_by}: the level asked for, or the backend's own.
        let effort = get("effort").and_then(|e| match e {
            Value::String(s) => Some(s.clone()),
            Value::Object(o) => o
                .get("requested")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| {
                    (o.get("applied_by").and_then(Value::as_str) == Some("backend_default"))
                        .then(|| "backend_default".to_string())
                }),
            _ => None,
        });
        RunEnding {
            stop_class: text("stop_class"),
            stop_reason: text("stop_reason"),
            requested_model: text("requested_model"),
            served_model: text("served_model"),
            served_model_check: text("served_model_check"),
            effort,
        }
    }

    /// The harness's reason the run does not count, in its names: a cut-off
    /// answer (`stopped:truncated`, `stopped:turn_limit`) or another model's
    /// (`served_model_mismatch`) measures no capability of the skill.
    pub(super) fn invalid_reason(&self) -> Option<String> {
        if let Some(class @ ("truncated" | "turn_limit")) = self.stop_class.as_deref() {
            return Some(format!("stopped:{class}"));
        }
        (self.served_model_check.as_deref() == Some("mismatch"))
            .then(|| "served_model_mismatch".to_string())
    }
}
