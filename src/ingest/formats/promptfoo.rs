//! promptfoo results (docs/harnesses.md §E, `promptfoo eval -o results.json`,
//! results version 3), including Agent Skill Evals rows (docs/harnesses.md §B) whose
//! metadata carries skill-loading evidence. One result row is one run; the
//! arm is the provider label; a run's rate is promptfoo's own `success`.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::ingest::kernel::format::{PROMPTFOO, SKILL_EVALS};
use crate::ingest::kernel::unit::DeclaredReader;
use crate::ingest::kernel::{case_pk, peer, run_key, suite_id, RunIdentity};
use crate::json::{as_f64, json_text, parse_lenient, Get};
use crate::model::records::ErrorKind;
use crate::model::records::{
    key, ActivationRec, AssertionRec, CaseRec, EpochSeconds, GradingRec, MeasurementRec, RateBasis,
    Records, RunRec, SuiteRec, TraceEventRec, TriggerObsRec,
};

pub fn looks_like_results(doc: &Value) -> bool {
    doc.get("evalId").is_some()
        && doc
            .get("results")
            .and_then(|r| r.get("results"))
            .is_some_and(Value::is_array)
}

/// A results.jsonl line: a result row with provider, testIdx and a grading.
pub fn looks_like_row(row: &Value) -> bool {
    row.get("testIdx").is_some() && row.get("provider").is_some() && row.get("promptIdx").is_some()
}

/// promptfoo writes .jsonl/.csv siblings of results.json; the JSON wins.
pub fn has_json_sibling(path: &Path) -> bool {
    let Some(dir) = path.parent() else {
        return false;
    };
    std::fs::read_dir(dir)
        .map(|entries| {
            entries.filter_map(Result::ok).any(|e| {
                let p = e.path();
                p.extension().is_some_and(|x| x == "json")
                    && std::fs::read(&p)
                        .ok()
                        .and_then(|b| parse_lenient(&b).ok())
                        .is_some_and(|d| looks_like_results(&d))
            })
        })
        .unwrap_or(false)
}

fn meta<'a>(row: &'a Value, key: &str) -> Option<&'a Value> {
    row.get("metadata")
        .and_then(|m| m.get(key))
        .or_else(|| {
            row.get("response")
                .and_then(|r| r.get("metadata"))
                .and_then(|m| m.get(key))
        })
        .or_else(|| {
            row.get("testCase")
                .and_then(|t| t.get("metadata"))
                .and_then(|m| m.get(key))
        })
}

fn skill_of(row: &Value, config: Option<&Value>) -> String {
    row.get("testCase")
        .and_then(|t| t.get("metadata"))
        .and_then(|m| m.get("agentSkillEvals"))
        .and_then(|a| a.str_at("skill"))
        .or_else(|| meta(row, "skill").and_then(Value::as_str))
        .or_else(|| meta(row, "suite").and_then(Value::as_str))
        .or_else(|| row.get("vars").and_then(|v| v.str_at("skillPath")))
        .or_else(|| config.and_then(|c| c.str_at("description")))
        .unwrap_or("(unknown skill)")
        .to_string()
}

fn case_of(row: &Value) -> String {
    row.get("testCase")
        .and_then(|t| t.str_at("description"))
        .or_else(|| row.str_at("description"))
        .map(str::to_string)
        .unwrap_or_else(|| {
            let vars = row.get("vars").map(|v| v.to_string()).unwrap_or_default();
            format!("vars:{}", &key(&[Some(&vars)])[..12])
        })
}

/// The model a row's response names.
fn model_of(row: &Value) -> Option<String> {
    meta(row, "model")
        .and_then(Value::as_str)
        .or_else(|| meta(row, "runtime").and_then(|r| r.str_at("model")))
        .map(str::to_string)
}

fn arm_of(row: &Value) -> String {
    let p = row.get("provider");
    p.and_then(|p| p.str_at("label"))
        .or_else(|| p.and_then(|p| p.str_at("id")))
        .or_else(|| p.and_then(Value::as_str))
        .unwrap_or("(provider)")
        .to_string()
}

fn is_skill_evals_row(row: &Value) -> bool {
    meta(row, "evidencePath").is_some()
        || meta(row, "preconditionsPassed").is_some()
        || row
            .get("testCase")
            .and_then(|t| t.get("assert"))
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|x| x.str_at("metric") == Some("skill.test")))
}

/// Repetition per row: the provider's repeatIndex when it reported one, else
/// the rank of testIdx among identical tests (promptfoo's --repeat copies).
fn repetitions(rows: &[Value]) -> Vec<(i64, &'static str)> {
    let mut groups: HashMap<String, Vec<(i64, usize)>> = HashMap::new();
    for (i, row) in rows.iter().enumerate() {
        let test = row.get("testCase").cloned().unwrap_or(Value::Null);
        let group = format!(
            "{}|{}|{}|{}",
            arm_of(row),
            row.i64_at("promptIdx").unwrap_or(0),
            case_of(row),
            key(&[
                Some(&test.get("vars").map(|v| v.to_string()).unwrap_or_default()),
                Some(
                    &test
                        .get("assert")
                        .map(|v| v.to_string())
                        .unwrap_or_default()
                )
            ])
        );
        groups
            .entry(group)
            .or_default()
            .push((row.i64_at("testIdx").unwrap_or(i as i64), i));
    }
    let mut out = vec![(1, "testIdx_rank"); rows.len()];
    for members in groups.values_mut() {
        members.sort();
        for (rank, (_, i)) in members.iter().enumerate() {
            out[*i] = (rank as i64 + 1, "testIdx_rank");
        }
    }
    for (i, row) in rows.iter().enumerate() {
        if let Some(r) = meta(row, "repeatIndex").and_then(Value::as_i64) {
            out[i] = (r + 1, "repeat_index");
        }
    }
    out
}

pub struct Source<'a> {
    pub path: &'a str,
    pub sha256: &'a str,
    pub release: &'a str,
    pub eval_id: Option<&'a str>,
    /// When the eval started (`results.timestamp`): its runs' start.
    pub started_at: Option<&'a str>,
    pub config: Option<&'a Value>,
    /// Reads (and records) the evidence files rows point to.
    pub files: &'a DeclaredReader,
}

/// The rows' runs; returns each row's `traceId` with its run (the
/// results file's `traces[]` name the rows so).
pub fn parse_rows(rows: &[Value], src: &Source, records: &mut Records) -> HashMap<String, String> {
    let mut traced = HashMap::new();
    let reps = repetitions(rows);
    let mut provider_models: std::collections::HashMap<String, String> = Default::default();
    for row in rows {
        if let Some(m) = model_of(row) {
            provider_models.entry(arm_of(row)).or_insert(m);
        }
    }
    let mut seen_cases = std::collections::HashSet::new();
    let mut seen_runs = std::collections::HashSet::new();
    for (i, row) in rows.iter().enumerate() {
        let skill = skill_of(row, src.config);
        let case_id = case_of(row);
        let arm = arm_of(row);
        // A row without a response (a provider error) keeps the model its
        // provider reported on its other rows.
        let (model, model_source) = match model_of(row) {
            Some(m) => (Some(m), Some("runtime")),
            None => match provider_models.get(&arm) {
                Some(m) => (Some(m.clone()), Some("provider")),
                None => (None, None),
            },
        };
        let (repetition, repetition_source) = reps[i];
        let run_id = run_key(&RunIdentity {
            release: src.release,
            shard: None,
            native_batch: src.eval_id,
            skill: &skill,
            case_id: &case_id,
            model: model.as_deref(),
            arm: &arm,
            repetition,
        });
        if !seen_runs.insert(run_id.clone()) {
            records.error(
                src.path,
                ErrorKind::DuplicateRow,
                format!("results[{i}]: a second row for {case_id} / {arm} / repetition {repetition} (kept the first)"),
            );
            continue;
        }
        if let Some(trace_id) = row.str_at("traceId") {
            traced.insert(trace_id.to_string(), run_id.clone());
        }
        let response = row.get("response");
        let failure = row.i64_at("failureReason").unwrap_or(0);
        let errored = failure == 2
            || response
                .and_then(|r| r.get("error"))
                .is_some_and(|e| !e.is_null());
        // Agent Skill Evals: a failed precondition means the agent never ran.
        let preconditions_failed =
            meta(row, "preconditionsPassed").and_then(Value::as_bool) == Some(false);
        let output = response.and_then(|r| r.get("output")).map(|o| match o {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
        let format = if is_skill_evals_row(row) {
            SKILL_EVALS
        } else {
            PROMPTFOO
        };
        records.runs.push(RunRec {
            run_id: run_id.clone(),
            release_label: src.release.into(),
            native_batch: src.eval_id.map(str::to_string),
            started_at: EpochSeconds::from_rfc3339(src.started_at),
            source_format: format.into(),
            skill_name: skill.clone(),
            case_id: case_id.clone(),
            model_source: model_source.map(str::to_string),
            model,
            arm: arm.clone(),
            repetition,
            repetition_source: repetition_source.into(),
            provider: row
                .get("provider")
                .and_then(|p| p.str_at("id"))
                .map(str::to_string),
            population: Some("answer".into()),
            run_dir: format!(
                "{}#{}",
                src.path,
                row.str_at("id")
                    .map(str::to_string)
                    .unwrap_or(i.to_string())
            ),
            output_present: output.is_some(),
            output_text: output,
            execution_valid: !errored && !preconditions_failed,
            unscorable_reason: if preconditions_failed {
                Some("preconditions_failed".to_string())
            } else {
                errored.then(|| "provider_error".to_string())
            },
            raw_metadata: json_text(row.get("metadata")),
            ..Default::default()
        });

        let grading_id = key(&[Some("grading"), Some(&run_id), Some(src.path)]);
        records.gradings.push(GradingRec {
            grading_id: grading_id.clone(),
            run_id: run_id.clone(),
            report_path: src.path.into(),
            rate_basis: RateBasis::RunOutcome,
            peer_pass: row.bool_at("success"),
            peer_pass_rate: row.f64_at("score"),
            ..Default::default()
        });
        let components = row
            .get("gradingResult")
            .and_then(|g| g.get("componentResults"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for (seq, c) in components.iter().enumerate() {
            let assertion = c.get("assertion");
            records.assertions.push(AssertionRec {
                grading_id: grading_id.clone(),
                run_id: run_id.clone(),
                seq: seq as i64 + 1,
                name: assertion
                    .and_then(|a| a.str_at("metric").or(a.str_at("type")))
                    .map(str::to_string),
                r#type: assertion.and_then(|a| a.str_at("type")).map(str::to_string),
                channel: "check".into(),
                severity: Some("gate".into()),
                passed: c.bool_at("pass"),
                score: c.f64_at("score"),
                evidence: c.str_at("reason").map(str::to_string),
                availability: "complete".into(),
                ..Default::default()
            });
        }

        let usage = response.and_then(|r| r.get("tokenUsage"));
        let tok = |k: &str| usage.and_then(|u| u.f64_at(k));
        // Zero-traps: row cost/latency default to 0 when the provider reported none.
        let cost = response
            .and_then(|r| r.get("cost"))
            .and_then(as_f64)
            .or_else(|| row.f64_at("cost").filter(|c| *c > 0.0));
        // promptfoo 0.123: `cost` is the logical cost of the answer, cached
        // or not; `incurredCost` what the run spent (0 for a cache hit),
        // present when they differ. Its prompt totals sum incurredCost, else cost.
        let incurred = row
            .get("incurredCost")
            .or(response.and_then(|r| r.get("incurredCost")))
            .and_then(as_f64)
            .or(cost);
        let latency = meta(row, "durationMs")
            .and_then(as_f64)
            .or_else(|| response.and_then(|r| r.f64_at("latencyMs")))
            .or_else(|| row.f64_at("latencyMs").filter(|l| *l > 0.0));
        records.measurements.extend([
            MeasurementRec::reported(&run_id, "input_tokens", tok("prompt"), "provider_reported"),
            MeasurementRec::reported(
                &run_id,
                "output_tokens",
                tok("completion"),
                "provider_reported",
            ),
            MeasurementRec::reported(&run_id, "total_tokens", tok("total"), "provider_reported"),
            MeasurementRec::reported(
                &run_id,
                "cache_read_tokens",
                tok("cached"),
                "provider_reported",
            ),
            MeasurementRec::reported(&run_id, "cost", cost, "provider_reported"),
            MeasurementRec::reported(&run_id, "incurred_cost", incurred, "provider_reported"),
            MeasurementRec::reported(&run_id, "elapsed_ms", latency, "provider_reported"),
        ]);
        let evidence = meta(row, "evidencePath")
            .and_then(Value::as_str)
            .and_then(|p| src.files.read(Path::new(p)))
            .and_then(|b| parse_lenient(&b).ok());
        let observed = evidence
            .as_ref()
            .and_then(|ev| skill_evals::apply_evidence(&run_id, &skill, ev, records));
        let skill_calls = response
            .and_then(|r| r.get("metadata"))
            .and_then(|m| m.get("skillCalls"))
            .and_then(Value::as_array);
        let loaded = observed
            .or_else(|| skill_calls.map(|calls| skill_called(calls, &skill)))
            .or_else(|| meta(row, "skillLoaded").and_then(Value::as_bool));
        records.activations.push(ActivationRec {
            run_id: run_id.clone(),
            skill_name: Some(skill.clone()),
            loaded,
            evidence: json_text(evidence.as_ref().and_then(|e| e.get("skillsLoaded"))),
            source: if evidence.is_some() {
                "evidence_json"
            } else {
                "adapter_events"
            }
            .into(),
        });
        if let Some(obs) = skill_evals::routing_observation(row, &run_id, src, &skill, loaded) {
            records.trigger_observations.push(obs);
        }
        let asked = SkillUseAsked {
            row,
            run_id: &run_id,
            src,
            skill: &skill,
            repetition,
            reported: skill_calls.is_some(),
        };
        records
            .trigger_observations
            .extend(components.iter().filter_map(|c| asked.observation(c)));

        if seen_cases.insert((skill.clone(), case_id.clone())) {
            let test = row.get("testCase");
            records.cases.push(CaseRec {
                case_pk: case_pk(src.release, &skill, &case_id),
                suite_id: suite_id(src.release, &skill),
                release_label: src.release.into(),
                skill_name: skill.clone(),
                case_id: case_id.clone(),
                split: test
                    .and_then(|t| t.get("metadata"))
                    .and_then(|m| m.str_at("split"))
                    .map(str::to_string),
                population: Some("answer".into()),
                prompt: row
                    .get("prompt")
                    .and_then(|p| p.str_at("raw"))
                    .map(str::to_string),
                assertions: json_text(test.and_then(|t| t.get("assert"))),
                raw: test.map(|t| t.to_string()),
                ..Default::default()
            });
        }
    }
    let skill = rows.first().map(|r| skill_of(r, src.config));
    if let Some(skill) = skill {
        records.suites.push(SuiteRec {
            suite_id: suite_id(src.release, &skill),
            release_label: src.release.into(),
            skill_name: skill,
            source_format: PROMPTFOO.into(),
            harness_name: Some("promptfoo".into()),
            harness_version: None,
            manifest_path: Some(src.path.into()),
            manifest_sha256: Some(src.sha256.into()),
            skill_tree_hash: None,
            variants: None,
            ablations: Some("[]".into()),
        });
    }
    traced
}

pub fn parse_results(
    doc: &Value,
    path: &str,
    sha256: &str,
    release: &str,
    files: &DeclaredReader,
    records: &mut Records,
) {
    let rows = doc
        .get("results")
        .and_then(|r| r.get("results"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let src = Source {
        path,
        sha256,
        release,
        eval_id: doc.str_at("evalId"),
        started_at: doc.get("results").and_then(|r| r.str_at("timestamp")),
        config: doc.get("config"),
        files,
    };
    let traced = parse_rows(&rows, &src, records);
    if let Some(traces) = doc.get("traces").and_then(Value::as_array) {
        spans_as_events(traces, &traced, records);
    }
    if let Some(suite) = records.suites.last_mut() {
        suite.harness_version = doc
            .get("metadata")
            .and_then(|m| m.str_at("promptfooVersion"))
            .map(str::to_string);
    }
    let skill = records.suites.last().map(|s| s.skill_name.clone());
    let peer_src = peer::PeerSource {
        path,
        report_kind: "promptfoo_results",
        release,
        skill_name: skill.as_deref(),
    };
    if let Some(results) = doc.get("results") {
        let mut summary = serde_json::Map::new();
        for k in ["stats", "prompts", "version", "timestamp"] {
            if let Some(v) = results.get(k) {
                summary.insert(k.to_string(), v.clone());
            }
        }
        peer::flatten(
            &Value::Object(summary),
            &peer_src,
            &[],
            &mut records.peer_metrics,
        );
    }
}

/// promptfoo's `traces[]` (written when `tracing.enabled`): each span of a
/// row's trace one trace event of its run, in start order — the target call,
/// each grader, the test case around them — with its status (OTel codes:
/// 1 ok, 2 error) and its duration in milliseconds.
fn spans_as_events(traces: &[Value], traced: &HashMap<String, String>, records: &mut Records) {
    let mut next_seq: HashMap<&str, i64> = HashMap::new();
    for event in &records.trace_events {
        let seq = next_seq.entry(event.run_id.as_str()).or_default();
        *seq = (*seq).max(event.seq);
    }
    let mut events = Vec::new();
    for trace in traces {
        let Some(run_id) = trace.str_at("traceId").and_then(|t| traced.get(t)) else {
            continue;
        };
        let mut spans: Vec<&Value> = trace
            .get("spans")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .collect();
        spans.sort_by(|a, b| {
            let start = |s: &Value| s.f64_at("startTime").unwrap_or(f64::INFINITY);
            start(a).total_cmp(&start(b))
        });
        let seq = next_seq.entry(run_id.as_str()).or_default();
        for span in spans {
            *seq += 1;
            let attr = |k: &str| span.get("attributes").and_then(|a| a.get(k));
            let start = span.f64_at("startTime");
            events.push(TraceEventRec {
                run_id: run_id.clone(),
                seq: *seq,
                event_type: attr("promptfoo.span.role")
                    .and_then(Value::as_str)
                    .unwrap_or("span")
                    .to_string(),
                status: span.i64_at("statusCode").map(|c| {
                    match c {
                        1 => "ok",
                        2 => "error",
                        _ => "unset",
                    }
                    .to_string()
                }),
                state_source: Some("promptfoo_trace".into()),
                name: span.str_at("name").map(str::to_string),
                output_summary: attr("gen_ai.evaluation.explanation")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                duration_ms: start.zip(span.f64_at("endTime")).map(|(s, e)| e - s),
                ts: start.map(|ms| format!("{ms}")),
                raw_ref: Some(
                    serde_json::json!({
                        "traceId": trace.get("traceId"),
                        "spanId": span.get("spanId"),
                        "parentSpanId": span.get("parentSpanId"),
                    })
                    .to_string(),
                ),
                source: Some("promptfoo_trace".into()),
                ..Default::default()
            });
        }
    }
    records.trace_events.extend(events);
}

/// Agent Skill Evals (docs/harnesses.md §B): the evidence.json a row points to, and
/// routing tests as trigger observations.
mod skill_evals {
    use serde_json::Value;

    use super::{case_of, Source};
    use crate::json::{json_text, Get};
    use crate::model::records::{key, Records, TraceEventRec, TriggerObsRec};

    struct Event<'a> {
        kind: &'a str,
        name: Option<String>,
        input: Option<String>,
        exit_code: Option<i64>,
        duration_ms: Option<f64>,
    }

    /// Trace events from commands, tool calls and file writes; returns whether
    /// the skill under test was observed loading (configuration-derived
    /// `native` entries are not observations).
    pub fn apply_evidence(
        run_id: &str,
        skill: &str,
        ev: &Value,
        records: &mut Records,
    ) -> Option<bool> {
        let list = |k: &str| {
            ev.get(k)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default()
        };
        let mut events: Vec<(Event, Value)> = Vec::new();
        for c in list("commands") {
            let args = c.get("args").and_then(Value::as_array).map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" ")
            });
            let e = Event {
                kind: "command",
                name: c.str_at("command").map(str::to_string),
                input: args,
                exit_code: c.i64_at("exitCode"),
                duration_ms: c.f64_at("durationMs"),
            };
            events.push((e, c));
        }
        for t in list("toolCalls") {
            let e = Event {
                kind: "tool_call",
                name: t.str_at("tool").map(str::to_string),
                input: json_text(t.get("args")),
                exit_code: None,
                duration_ms: t.f64_at("durationMs"),
            };
            events.push((e, t));
        }
        for w in list("filesWritten") {
            let e = Event {
                kind: "file_write",
                name: w.str_at("op").map(str::to_string),
                input: w.str_at("path").map(str::to_string),
                exit_code: None,
                duration_ms: None,
            };
            events.push((e, w));
        }
        for (i, (e, raw)) in events.into_iter().enumerate() {
            records.trace_events.push(TraceEventRec {
                run_id: run_id.to_string(),
                seq: i as i64 + 1,
                event_type: e.kind.into(),
                status: Some("completed".into()),
                state_source: Some("evidence_json".into()),
                name: e.name,
                input_summary: e.input,
                exit_code: e.exit_code,
                // Zero-trap: parsed agent commands carry durationMs 0 when unreported.
                duration_ms: e.duration_ms.filter(|d| *d > 0.0),
                turn: raw.i64_at("turn"),
                source: Some("evidence_json".into()),
                raw_ref: Some(raw.to_string()),
                ..Default::default()
            });
        }
        let loads = list("skillsLoaded");
        Some(
            loads.iter().any(|l| {
                l.str_at("skill") == Some(skill) && l.str_at("delivery") != Some("native")
            }),
        )
    }

    /// Routing tests (`vars.mode = routing`) with skill.loaded / skill.not_loaded expectations.
    pub fn routing_observation(
        row: &Value,
        run_id: &str,
        src: &Source,
        skill: &str,
        loaded: Option<bool>,
    ) -> Option<TriggerObsRec> {
        let vars = row.get("vars")?;
        if vars.str_at("mode") != Some("routing") {
            return None;
        }
        let expect = vars
            .get("expect")
            .map(|e| e.to_string())
            .unwrap_or_default();
        let should_trigger = if expect.contains("skill.not_loaded") {
            Some(false)
        } else if expect.contains("skill.loaded") {
            Some(true)
        } else {
            None
        };
        Some(TriggerObsRec {
            obs_id: key(&[Some("trigger"), Some(src.path), Some(run_id)]),
            source_path: src.path.to_string(),
            release_label: src.release.to_string(),
            skill_name: Some(skill.to_string()),
            agent: row
                .get("provider")
                .and_then(|p| p.str_at("label"))
                .map(str::to_string),
            query_id: Some(case_of(row)),
            query_text: vars.str_at("prompt").map(str::to_string),
            should_trigger,
            runs: 1,
            triggered_runs: loaded.map(i64::from),
            triggered: loaded,
            observation_complete: Some(loaded.is_some()),
            passed: row.bool_at("success"),
            evidence_class: Some("agent_skill_evals_routing".into()),
            experiment: src.eval_id.map(str::to_string),
            ..Default::default()
        })
    }
}

/// Whether the provider's `metadata.skillCalls` holds a call of `skill` that
/// did not fail (promptfoo's skill-used assertion drops `is_error` calls).
fn skill_called(calls: &[Value], skill: &str) -> bool {
    calls
        .iter()
        .any(|c| c.str_at("name") == Some(skill) && c.bool_at("is_error") != Some(true))
}

/// A row's `skill-used` / `not-skill-used` assertions, each a trigger
/// observation: should fire for skill-used, should not for not-skill-used;
/// fired as the assertion's verdict says (promptfoo decides it on the
/// provider's skillCalls); complete when the provider reported its calls.
struct SkillUseAsked<'a> {
    row: &'a Value,
    run_id: &'a str,
    src: &'a Source<'a>,
    skill: &'a str,
    repetition: i64,
    reported: bool,
}

impl SkillUseAsked<'_> {
    fn observation(&self, component: &Value) -> Option<TriggerObsRec> {
        let assertion = component.get("assertion")?;
        let should_trigger = match assertion.str_at("type")? {
            "skill-used" => true,
            "not-skill-used" => false,
            _ => return None,
        };
        let passed = component.bool_at("pass");
        let triggered = passed.map(|p| p == should_trigger);
        let named = assertion.str_at("value").unwrap_or(self.skill);
        let case = case_of(self.row);
        Some(TriggerObsRec {
            obs_id: key(&[
                Some("trigger"),
                Some(self.src.path),
                Some(self.run_id),
                Some(&json_text(Some(assertion)).unwrap_or_default()),
            ]),
            source_path: self.src.path.to_string(),
            release_label: self.src.release.to_string(),
            skill_name: Some(named.to_string()),
            agent: self
                .row
                .get("provider")
                .and_then(|p| p.str_at("label").or(p.str_at("id")))
                .map(str::to_string),
            model: meta(self.row, "model")
                .and_then(Value::as_str)
                .map(str::to_string),
            query_id: Some(case.clone()),
            query_text: Some(case),
            should_trigger: Some(should_trigger),
            repetition: Some(self.repetition),
            repetition_source: Some("promptfoo_row".into()),
            runs: 1,
            triggered_runs: triggered.map(i64::from),
            triggered,
            observation_complete: Some(self.reported),
            passed,
            evidence: component
                .str_at("reason")
                .map(|r| Value::from(r).to_string()),
            evidence_class: Some("promptfoo_skill_used".into()),
            experiment: self.src.eval_id.map(str::to_string),
            ..Default::default()
        })
    }
}

/// A promptfoo CSV export (`-o results.csv`): wide, one row per test with
/// every provider side by side. It carries no per-assertion components or
/// token usage, so liftdb reads the JSON/JSONL siblings instead.
pub fn is_results_csv(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "csv")
        && std::fs::read(path)
            .ok()
            .and_then(|b| {
                String::from_utf8_lossy(&b)
                    .lines()
                    .next()
                    .map(str::to_string)
            })
            .is_some_and(|header| {
                header.contains("] ") && header.contains('[') && header.contains("Status")
            })
}
