//! The seed "Agent Skills Evaluations" harness (docs/harnesses.md §A):
//! `<run-id>/<skill>/iteration-<i>/eval-<id>/{case.json, <mode>/{grading.json,
//! output.txt, response.json, timing.json}}` and `<run-id>/<skill>/benchmark.json`.
//! A mode run passes iff every required check passed (its rate is that outcome);
//! the tool records no model, so model stays NULL.

use std::path::Path;

use serde_json::Value;

use crate::ingest::kernel::format::SEED_HANDBOOK;
use crate::ingest::kernel::{
    case_pk, name_of, peer, run_key, suite_id, RunFiles, RunIdentity, RunOutcome,
};
use crate::json::{as_f64, json_text, parse_lenient, Get};
use crate::model::records::{
    key, ActivationRec, AssertionRec, CaseRec, ErrorKind, GradingRec, MeasurementRec, RateBasis,
    Records, RunRec, SuiteRec, TraceEventRec,
};

/// `iteration-<n>` -> n
fn iteration_of(name: &str) -> Option<i64> {
    name.strip_prefix("iteration-")?.parse().ok()
}

/// A mode directory of this layout: `…/iteration-<i>/eval-<id>/<mode>` holding
/// grading.json with `checks`, or response.json beside an eval's case.json.
pub fn is_run_dir(dir: &Path, files: &RunFiles) -> bool {
    let in_layout = dir
        .parent()
        .and_then(Path::parent)
        .and_then(name_of)
        .is_some_and(|n| iteration_of(&n).is_some());
    let checks = files
        .get("grading.json")
        .and_then(|b| parse_lenient(b).ok())
        .is_some_and(|g| g.get("checks").is_some_and(Value::is_array));
    checks || (in_layout && files.contains_key("response.json"))
}

/// Where a mode directory sits: (run id, skill, iteration, eval dir).
struct Place {
    run_id: Option<String>,
    skill: String,
    iteration: i64,
    eval_dir: String,
}

fn place(dir: &Path) -> Result<Place, String> {
    let eval = dir.parent().ok_or("no eval directory")?;
    let iteration = eval.parent().ok_or("no iteration directory")?;
    let skill = iteration.parent().ok_or("no skill directory")?;
    let iteration_n = name_of(iteration)
        .and_then(|n| iteration_of(&n))
        .ok_or("expected <run-id>/<skill>/iteration-<i>/eval-<id>/<mode>")?;
    Ok(Place {
        run_id: skill.parent().and_then(name_of),
        skill: name_of(skill).ok_or("no skill directory")?,
        iteration: iteration_n,
        eval_dir: name_of(eval).unwrap_or_default(),
    })
}

/// Case ids are the integer `id` of case.json (declared as `../case.json`),
/// else the eval-<id> suffix.
fn case_id_for(files: &RunFiles, eval_name: &str) -> String {
    files
        .get("../case.json")
        .and_then(|b| parse_lenient(b).ok())
        .and_then(|c| match c.get("id") {
            Some(Value::Number(n)) => Some(n.to_string()),
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        })
        .unwrap_or_else(|| eval_name.trim_start_matches("eval-").to_string())
}

pub fn parse_run(dir: &Path, files: &RunFiles, release: &str, shard: Option<&str>) -> RunOutcome {
    let mut records = Records::default();
    let dir_text = dir.display().to_string();
    let place = match place(dir) {
        Ok(p) => p,
        Err(e) => {
            records.error(&dir_text, ErrorKind::NotARunLayout, e);
            return RunOutcome::Rejected(records);
        }
    };
    let arm = name_of(dir).unwrap_or_default();
    let case_id = case_id_for(files, &place.eval_dir);
    let run_id = run_key(&RunIdentity {
        release,
        shard,
        native_batch: place.run_id.as_deref(),
        skill: &place.skill,
        case_id: &case_id,
        model: None,
        arm: &arm,
        repetition: place.iteration,
    });
    let path_of = |rel: &str| dir.join(rel).display().to_string();
    let mut doc = |name: &str| -> Option<Value> {
        let bytes = files.get(name)?;
        match parse_lenient(bytes) {
            Ok(v) => Some(v),
            Err(e) => {
                records.error(
                    &path_of(name),
                    ErrorKind::InvalidJson,
                    format!("invalid JSON: {e}"),
                );
                None
            }
        }
    };
    let grading = doc("grading.json");
    let response = doc("response.json");
    let timing = doc("timing.json");

    let output = files
        .get("output.txt")
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .or_else(|| {
            response
                .as_ref()
                .and_then(|r| r.str_at("output"))
                .map(str::to_string)
        });
    records.runs.push(RunRec {
        run_id: run_id.clone(),
        release_label: release.into(),
        native_batch: place.run_id.clone(),
        source_format: SEED_HANDBOOK.into(),
        skill_name: place.skill.clone(),
        case_id: case_id.clone(),
        arm: arm.clone(),
        repetition: place.iteration,
        repetition_source: "iteration".into(),
        population: Some("answer".into()),
        run_dir: dir_text.clone(),
        output_file: files
            .contains_key("output.txt")
            .then(|| path_of("output.txt")),
        output_present: output.is_some(),
        output_text: output,
        // An adapter failure aborts the harness before any record is written.
        execution_valid: grading.is_some(),
        unscorable_reason: grading.is_none().then(|| "missing_grading".to_string()),
        raw_metadata: response.as_ref().map(|r| {
            let mut r = r.clone();
            if let Some(o) = r.as_object_mut() {
                o.remove("output");
            }
            r.to_string()
        }),
        ..Default::default()
    });

    if let Some(g) = &grading {
        let grading_id = key(&[
            Some("grading"),
            Some(&run_id),
            Some(&path_of("grading.json")),
        ]);
        records.gradings.push(GradingRec {
            grading_id: grading_id.clone(),
            run_id: run_id.clone(),
            report_path: path_of("grading.json"),
            rate_basis: RateBasis::RunOutcome,
            peer_pass: g.bool_at("passed"),
            ..Default::default()
        });
        let checks = g
            .get("checks")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for (i, c) in checks.iter().enumerate() {
            let required = c.bool_at("required").unwrap_or(true);
            records.assertions.push(AssertionRec {
                grading_id: grading_id.clone(),
                run_id: run_id.clone(),
                seq: i as i64 + 1,
                name: c
                    .str_at("identifier")
                    .or(c.str_at("id"))
                    .map(str::to_string),
                r#type: c
                    .str_at("check_type")
                    .or(c.str_at("type"))
                    .map(str::to_string),
                channel: "check".into(),
                severity: Some(if required { "required" } else { "optional" }.into()),
                passed: c.bool_at("passed"),
                score: c.bool_at("passed").map(|p| f64::from(u8::from(p))),
                evidence: c.str_at("message").map(str::to_string),
                availability: "complete".into(),
                ..Default::default()
            });
        }
    }

    let usage = response
        .as_ref()
        .and_then(|r| r.get("usage"))
        .or_else(|| timing.as_ref().and_then(|t| t.get("usage")))
        .cloned();
    let input = usage.as_ref().and_then(|u| u.f64_at("input_tokens"));
    let output_tokens = usage.as_ref().and_then(|u| u.f64_at("output_tokens"));
    // The Anthropic usage block names them cache_read_input_tokens; kept when reported.
    let cache_read = usage.as_ref().and_then(|u| {
        u.f64_at("cache_read_input_tokens")
            .or_else(|| u.f64_at("cache_read_tokens"))
    });
    if cache_read.is_some() {
        records.measurements.push(MeasurementRec::reported(
            &run_id,
            "cache_read_tokens",
            cache_read,
            "provider_reported",
        ));
    }
    records.measurements.extend([
        MeasurementRec::reported(&run_id, "input_tokens", input, "provider_reported"),
        MeasurementRec::reported(&run_id, "output_tokens", output_tokens, "provider_reported"),
        MeasurementRec::reported(
            &run_id,
            "total_tokens",
            usage
                .as_ref()
                .and_then(|u| u.f64_at("total_tokens"))
                .or(input.zip(output_tokens).map(|(a, b)| a + b)),
            "provider_reported",
        ),
        MeasurementRec::reported(
            &run_id,
            "cost",
            usage
                .as_ref()
                .and_then(|u| u.get("cost_usd"))
                .and_then(as_f64),
            "provider_reported",
        ),
        MeasurementRec::reported(
            &run_id,
            "elapsed_ms",
            timing
                .as_ref()
                .and_then(|t| t.f64_at("duration_seconds"))
                .map(|s| s * 1000.0),
            "process_measured",
        ),
    ]);

    // Activation is observable only when the adapter reports events.
    let events = response
        .as_ref()
        .and_then(|r| r.get("events"))
        .and_then(Value::as_array);
    if let Some(events) = events {
        for (i, e) in events.iter().enumerate() {
            let raw = e.str_at("type").unwrap_or("event");
            records.trace_events.push(TraceEventRec {
                run_id: run_id.clone(),
                seq: i as i64 + 1,
                event_type: if raw == "skill_loaded" {
                    "skill_load"
                } else {
                    "event"
                }
                .into(),
                status: Some("completed".into()),
                state_source: Some("adapter_events".into()),
                name: e.str_at("name").map(str::to_string),
                source: Some("adapter".into()),
                raw_ref: Some(e.to_string()),
                ..Default::default()
            });
        }
    }
    records.activations.push(ActivationRec {
        run_id: run_id.clone(),
        skill_name: Some(place.skill.clone()),
        loaded: events.map(|ev| {
            ev.iter().any(|e| {
                e.str_at("type") == Some("skill_loaded")
                    && e.str_at("name") == Some(place.skill.as_str())
            })
        }),
        evidence: None,
        source: "adapter_events".into(),
    });
    RunOutcome::Answer { run_id, records }
}

/// `case.json`: an eval case with checks.
pub fn looks_like_case(doc: &Value) -> bool {
    doc.get("checks").is_some_and(Value::is_array)
        && doc.get("id").is_some()
        && doc.get("prompt").is_some()
}

pub fn parse_case(doc: &Value, path: &Path, release: &str, records: &mut Records) {
    // …/<skill>/iteration-<i>/eval-<id>/case.json
    let skill = path
        .ancestors()
        .nth(3)
        .and_then(name_of)
        .unwrap_or_else(|| "(unknown skill)".into());
    let case_id = match doc.get("id") {
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) => s.clone(),
        _ => return,
    };
    records.cases.push(CaseRec {
        case_pk: case_pk(release, &skill, &case_id),
        suite_id: suite_id(release, &skill),
        release_label: release.into(),
        skill_name: skill,
        case_id,
        population: Some("answer".into()),
        prompt: doc.str_at("prompt").map(str::to_string),
        expected_behavior: json_text(doc.get("expected_output")),
        assertions: json_text(doc.get("checks")),
        raw: Some(doc.to_string()),
        ..Default::default()
    });
}

/// `benchmark.json` of a run id.
pub fn looks_like_benchmark(doc: &Value) -> bool {
    doc.get("protocol_version").is_some() && doc.get("pass_rate_lift").is_some()
}

pub fn parse_benchmark(
    doc: &Value,
    path: &str,
    sha256: &str,
    release: &str,
    records: &mut Records,
) -> SuiteRec {
    let skill = doc.str_at("skill_name").unwrap_or("(unknown skill)");
    let src = peer::PeerSource {
        path,
        report_kind: "handbook_benchmark",
        release,
        skill_name: Some(skill),
    };
    peer::flatten(doc, &src, &["cases"], &mut records.peer_metrics);
    SuiteRec {
        suite_id: suite_id(release, skill),
        release_label: release.into(),
        skill_name: skill.into(),
        source_format: SEED_HANDBOOK.into(),
        harness_name: Some("evals.skill_eval".into()),
        harness_version: doc.get("protocol_version").map(|v| format!("protocol-{v}")),
        manifest_path: Some(path.into()),
        manifest_sha256: Some(sha256.into()),
        skill_tree_hash: None,
        variants: Some(r#"["with_skill","without_skill"]"#.into()),
        ablations: Some("[]".into()),
    }
}
