//! Anthropic skill-creator (docs/harnesses.md §D): per-run `grading.json`
//! (expectations + summary), `timing.json`, `outputs/metrics.json` under
//! `<skill>-workspace/iteration-<N>/eval-<id>/<config>/[run-<n>/]`, and the
//! aggregated `benchmark.json` (runs[], run_summary). The grader is an LLM: a
//! run's rate is its `summary.pass_rate`. skill-eval-harness writes the same
//! grading.json into its own run directories (`grade --write-grading-files`).

use std::path::Path;

use serde_json::Value;

use crate::ingest::kernel::expectations::{grading_from_expectations, is_expectations_grading};
use crate::ingest::kernel::format::SKILL_CREATOR;
use crate::ingest::kernel::{
    name_of, parse_run_segment, peer, report_experiment, run_key, suite_id, RunContext, RunFiles,
    RunIdentity, RunOutcome,
};
use crate::json::{as_f64, parse_lenient, Get};
use crate::model::records::{
    key, EpochSeconds, ErrorKind, MeasurementRec, Records, RunRec, SuiteRec, DEFINED_WITH_RUN,
};
use crate::model::run_files::read_output;

/// A config directory (or its run-N) with no skill-eval-harness
/// metadata.json, holding an expectations grading.json, or sitting in the
/// workspace layout `iteration-<N>/eval-<id>[-<name>]/<config>/run-<k>`
/// (a run the grader has not reached yet has no grading.json: it is an
/// ungraded skill-creator run, not a stray run of another format).
pub fn is_run_dir(dir: &Path, files: &RunFiles) -> bool {
    if files.contains_key("metadata.json") {
        return false;
    }
    let graded = files
        .get("grading.json")
        .and_then(|b| parse_lenient(b).ok())
        .is_some_and(|g| is_expectations_grading(&g));
    graded || iteration_dir_of(dir).is_some()
}

/// `iteration-<N>` with a non-negative integer N.
fn iteration_number(name: &str) -> Option<u64> {
    name.strip_prefix("iteration-")?.parse().ok()
}

/// The iteration folder above `<eval>/<config>/run-<k>`, when the path has
/// the workspace layout.
fn iteration_dir_of(run_dir: &Path) -> Option<&Path> {
    let leaf = name_of(run_dir)?;
    parse_run_segment(&leaf)?;
    let eval = run_dir.parent()?.parent()?;
    name_of(eval)?.strip_prefix("eval-")?;
    let iteration = eval.parent()?;
    iteration_number(&name_of(iteration)?).map(|_| iteration)
}

/// The release a run folder at `run_dir` is written under: its
/// `iteration-N` when it sits in a skill-creator workspace and no
/// `--release` named one, else the batch's (`release_of`).
/// The iteration is found as `parse_run` finds it: above the eval folder
/// above the config folder (the run folder, or the one above `run-<n>`).
pub fn folder_release(run_dir: &Path, batch: &str, explicit: bool) -> String {
    let leaf = name_of(run_dir).unwrap_or_default();
    let config_dir = match parse_run_segment(&leaf) {
        Some(_) => run_dir.parent().unwrap_or(run_dir),
        None => run_dir,
    };
    let iteration = config_dir.parent().and_then(Path::parent);
    release_of(iteration, batch, explicit)
}

/// skill-creator's `iteration-N` folders are successive releases of the
/// skill (docs/harnesses.md §D): what lies under one belongs to release
/// `iteration-N`, unless --release named the release of the whole call.
pub fn release_of(iteration_dir: Option<&Path>, batch: &str, explicit: bool) -> String {
    match iteration_dir.and_then(name_of) {
        Some(name) if !explicit && iteration_number(&name).is_some() => name,
        _ => batch.to_string(),
    }
}

/// The eval id as `aggregate_benchmark.py` takes it: `eval_metadata.json`'s
/// `eval_id` (a number or a string, written as given), else the integer after
/// `eval-` in the folder name (`eval-6-run-as-non-root` is 6), else the name.
fn eval_id(metadata: Option<&Value>, eval_name: &str) -> String {
    if let Some(id) = metadata.and_then(|m| m.get("eval_id")) {
        return match id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
    }
    eval_name
        .split('-')
        .nth(1)
        .and_then(|n| n.parse::<i64>().ok())
        .map(|n| n.to_string())
        .unwrap_or_else(|| eval_name.to_string())
}

/// The eval's name as skill-creator's viewer shows it: `eval_metadata.json`'s
/// `eval_name`, else the folder's name after `eval-<id>-`
/// (`eval-6-run-as-non-root` is `run-as-non-root`); None when neither has one.
fn case_name(metadata: Option<&Value>, eval_name: &str) -> Option<String> {
    if let Some(name) = metadata
        .and_then(|m| m.str_at("eval_name"))
        .filter(|n| !n.is_empty())
    {
        return Some(name.to_string());
    }
    let rest = eval_name.strip_prefix("eval-")?;
    let (id, name) = rest.split_once('-')?;
    (!id.is_empty() && !name.is_empty()).then(|| name.to_string())
}

/// Zero-trap: the aggregator writes 0 for "not recorded" (docs/harnesses.md §D).
fn zero_is_missing(
    run_id: &str,
    metric: &str,
    value: Option<f64>,
    provenance: &str,
) -> MeasurementRec {
    MeasurementRec::reported(run_id, metric, value.filter(|v| *v > 0.0), provenance)
}

pub fn parse_run(dir: &Path, files: &RunFiles, ctx: &RunContext) -> RunOutcome {
    let mut records = Records::default();
    let dir_text = dir.display().to_string();
    let leaf = name_of(dir).unwrap_or_default();
    // eval_metadata.json sits beside the config directory (declared from above run-N).
    let (config_dir, repetition, repetition_source, metadata_key) = match parse_run_segment(&leaf) {
        Some(n) => (
            dir.parent().unwrap_or(dir),
            n,
            "run_dir",
            "../../eval_metadata.json",
        ),
        None => (dir, 1, "single", "../eval_metadata.json"),
    };
    let (Some(eval_dir), Some(arm)) = (config_dir.parent(), name_of(config_dir)) else {
        records.error(
            &dir_text,
            ErrorKind::NotARunLayout,
            "expected <workspace>/iteration-<N>/eval-<id>/<config>/[run-<n>]",
        );
        return RunOutcome::Rejected(records);
    };
    let eval_name = name_of(eval_dir).unwrap_or_default();
    let metadata = files.get(metadata_key).and_then(|b| parse_lenient(b).ok());
    let case_id = eval_id(metadata.as_ref(), &eval_name);
    let case_name = case_name(metadata.as_ref(), &eval_name);
    let iteration = eval_dir.parent();
    let native_batch = iteration.and_then(name_of);
    let release = release_of(iteration, ctx.release, ctx.release_explicit);
    let release = release.as_str();
    let skill = iteration
        .and_then(Path::parent)
        .and_then(name_of)
        .map(|w| w.trim_end_matches("-workspace").to_string())
        .unwrap_or_else(|| "(unknown skill)".into());
    let run_id = run_key(&RunIdentity {
        release,
        shard: ctx.shard,
        native_batch: native_batch.as_deref(),
        skill: &skill,
        case_id: &case_id,
        model: None,
        arm: &arm,
        repetition,
    });
    let grading = files
        .get("grading.json")
        .and_then(|b| parse_lenient(b).ok());
    let timing = match files.get("timing.json").map(|b| parse_lenient(b)) {
        Some(Ok(t)) => Some(t),
        Some(Err(e)) => {
            records.error(
                &dir.join("timing.json").display().to_string(),
                ErrorKind::InvalidJson,
                format!("invalid JSON: {e}"),
            );
            None
        }
        None => None,
    };
    let metrics = files
        .get("outputs/metrics.json")
        .and_then(|b| parse_lenient(b).ok());
    // What the executor left in outputs/ (its files, transcript, notes), as
    // the harness reads an outputs/ folder; metrics.json is read above.
    let (output_file, output_text) = read_output(files);
    records.runs.push(RunRec {
        run_id: run_id.clone(),
        release_label: release.into(),
        native_batch,
        source_format: SKILL_CREATOR.into(),
        skill_name: skill,
        case_id,
        case_name,
        started_at: EpochSeconds::from_rfc3339(
            timing.as_ref().and_then(|t| t.str_at("executor_start")),
        ),
        arm,
        repetition,
        repetition_source: repetition_source.into(),
        population: Some("answer".into()),
        run_dir: dir_text.clone(),
        output_present: output_text.is_some() || grading.is_some(),
        output_file,
        output_text,
        execution_valid: true,
        ..Default::default()
    });
    if let Some(g) = &grading {
        grading_from_expectations(
            &run_id,
            &dir.join("grading.json").display().to_string(),
            g,
            &mut records,
        );
    }
    let tokens = timing.as_ref().and_then(|t| t.f64_at("total_tokens"));
    let elapsed = timing
        .as_ref()
        .and_then(|t| {
            t.f64_at("duration_ms")
                .or_else(|| t.f64_at("total_duration_seconds").map(|s| s * 1000.0))
        })
        .or_else(|| {
            grading
                .as_ref()
                .and_then(|g| g.get("timing"))
                .and_then(|t| t.f64_at("total_duration_seconds"))
                .map(|s| s * 1000.0)
        });
    let tool_calls = metrics
        .as_ref()
        .and_then(|m| m.get("total_tool_calls"))
        .or_else(|| {
            grading
                .as_ref()
                .and_then(|g| g.get("execution_metrics"))
                .and_then(|m| m.get("total_tool_calls"))
        })
        .and_then(as_f64);
    records.measurements.extend([
        zero_is_missing(&run_id, "total_tokens", tokens, "provider_reported"),
        zero_is_missing(&run_id, "elapsed_ms", elapsed, "process_measured"),
        zero_is_missing(&run_id, "tool_calls", tool_calls, "trace_normalized"),
        zero_is_missing(&run_id, "cost", None, "provider_reported"),
    ]);
    RunOutcome::Answer { run_id, records }
}

/// The aggregated benchmark: `metadata` + `runs[].configuration` + `run_summary`.
pub fn looks_like_benchmark(doc: &Value) -> bool {
    doc.get("run_summary").is_some()
        && doc
            .get("runs")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().all(|x| x.get("configuration").is_some()))
}

pub fn parse_benchmark(
    doc: &Value,
    path: &str,
    sha256: &str,
    release: &str,
    records: &mut Records,
) -> SuiteRec {
    let skill = doc
        .get("metadata")
        .and_then(|m| m.str_at("skill_name"))
        .unwrap_or("(unknown skill)");
    let src = peer::PeerSource {
        path,
        report_kind: "skill_creator_benchmark",
        release,
        skill_name: Some(skill),
    };
    peer::flatten(doc, &src, &[], &mut records.peer_metrics);
    SuiteRec {
        suite_id: suite_id(release, skill),
        release_label: release.into(),
        skill_name: skill.into(),
        source_format: SKILL_CREATOR.into(),
        harness_name: Some("skill-creator".into()),
        harness_version: None,
        manifest_path: Some(path.into()),
        manifest_sha256: Some(sha256.into()),
        skill_tree_hash: None,
        variants: None,
        ablations: Some("[]".into()),
    }
}

/// The runs an aggregated benchmark describes, each as its `runs[]` row
/// carries it: identity (eval id, configuration, run number, the iteration
/// folder the report sits in), its expectations graded as the grader did
/// (rate: `result.pass_rate`), tokens, time and tool calls. Defined only
/// where the store holds no run of the identity (`Records::take_reported`):
/// the grading with them, so a held run's own grading.json still counts.
pub fn define_reported(doc: &Value, path: &str, release: &str, records: &mut Records) {
    let skill = doc
        .get("metadata")
        .and_then(|m| m.str_at("skill_name"))
        .unwrap_or("(unknown skill)");
    let native_batch = Path::new(path).parent().and_then(name_of);
    let rows: &[Value] = doc
        .get("runs")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    // A run the report lists twice (an export of several models, which this
    // format cannot tell apart) is not one run: neither row defines it.
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    for row in rows {
        if let Some(id) = identity_of(row, native_batch.as_deref(), release, skill) {
            *seen.entry(id).or_default() += 1;
        }
    }
    for row in rows {
        if identity_of(row, native_batch.as_deref(), release, skill)
            .is_none_or(|id| seen.get(&id).copied().unwrap_or(0) > 1)
        {
            continue;
        }
        let (Some(case_id), Some(arm)) = (
            row.get("eval_id").map(|id| match id {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            }),
            row.str_at("configuration"),
        ) else {
            continue;
        };
        let repetition = row.i64_at("run_number").unwrap_or(1);
        let run_id = run_key(&RunIdentity {
            release,
            shard: None,
            native_batch: native_batch.as_deref(),
            skill,
            case_id: &case_id,
            model: None,
            arm,
            repetition,
        });
        let result = row.get("result");
        records.runs.push(RunRec {
            run_id: run_id.clone(),
            release_label: release.into(),
            native_batch: native_batch.clone(),
            source_format: SKILL_CREATOR.into(),
            skill_name: skill.into(),
            case_id,
            arm: arm.into(),
            repetition,
            repetition_source: "report".into(),
            population: Some("answer".into()),
            run_dir: path.into(),
            output_present: true,
            execution_valid: true,
            defined_by: Some(path.into()),
            ..Default::default()
        });
        let grading = serde_json::json!({
            "expectations": row.get("expectations").cloned().unwrap_or(Value::Array(Vec::new())),
            "summary": result.cloned().unwrap_or(Value::Null),
        });
        grading_from_expectations(&run_id, path, &grading, records);
        if let Some(g) = records.gradings.last_mut() {
            g.origin = Some(DEFINED_WITH_RUN.into());
        }
        let number = |k: &str| result.and_then(|r| r.get(k)).and_then(as_f64);
        records.measurements.extend([
            zero_is_missing(
                &run_id,
                "total_tokens",
                number("tokens"),
                "provider_reported",
            ),
            zero_is_missing(
                &run_id,
                "elapsed_ms",
                number("time_seconds").map(|s| s * 1000.0),
                "process_measured",
            ),
            zero_is_missing(
                &run_id,
                "tool_calls",
                number("tool_calls"),
                "trace_normalized",
            ),
            zero_is_missing(&run_id, "cost", None, "provider_reported"),
        ]);
    }
}

/// The run id a benchmark's `runs[]` row names.
fn identity_of(
    row: &Value,
    native_batch: Option<&str>,
    release: &str,
    skill: &str,
) -> Option<String> {
    let case_id = match row.get("eval_id")? {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    Some(run_key(&RunIdentity {
        release,
        shard: None,
        native_batch,
        skill,
        case_id: &case_id,
        model: None,
        arm: row.str_at("configuration")?,
        repetition: row.i64_at("run_number").unwrap_or(1),
    }))
}

/// Case ids a benchmark names (so run trees can be attributed to its skill).
pub fn benchmark_cases(doc: &Value) -> Vec<String> {
    doc.get("runs")
        .and_then(Value::as_array)
        .map(|runs| {
            runs.iter()
                .filter_map(|r| match r.get("eval_id") {
                    Some(Value::String(s)) => Some(s.clone()),
                    Some(Value::Number(n)) => Some(n.to_string()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `scripts/run_eval.py` output: per-query trigger rates (docs/harnesses.md §D).
pub fn looks_like_trigger_eval(doc: &Value) -> bool {
    doc.get("results")
        .and_then(Value::as_array)
        .is_some_and(|r| {
            !r.is_empty()
                && r.iter().all(|q| {
                    q.get("query").is_some()
                        && q.get("trigger_rate").is_some()
                        && q.get("runs").is_some()
                })
        })
}

/// One pre-aggregated observation per query (runs > 1): errored or timed-out
/// runs were counted by the tool as not triggered.
pub fn parse_trigger_eval(doc: &Value, path: &str, release: &str, records: &mut Records) {
    let skill = doc.str_at("skill_name").map(str::to_string);
    for (i, q) in doc
        .get("results")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let runs = q.i64_at("runs").unwrap_or(0);
        let triggers = q.i64_at("triggers");
        let index = i.to_string();
        records
            .trigger_observations
            .push(crate::model::records::TriggerObsRec {
                obs_id: key(&[Some("trigger"), Some(path), Some(&index)]),
                source_path: path.to_string(),
                release_label: release.to_string(),
                skill_name: skill.clone(),
                agent: Some("skill-creator".into()),
                query_id: Some(format!("{}", i + 1)),
                query_text: q.str_at("query").map(str::to_string),
                should_trigger: q.bool_at("should_trigger"),
                repetition_source: Some("aggregated".into()),
                runs,
                triggered_runs: triggers,
                passed: q.bool_at("pass"),
                // run_eval.py counts a query that failed or timed out as not
                // triggered: every observation it reports is complete.
                observation_complete: Some(true),
                evidence_class: Some("skill_creator_run_eval".into()),
                experiment: Some(report_experiment(path)),
                ..Default::default()
            });
    }
    let src = peer::PeerSource {
        path,
        report_kind: "skill_creator_trigger_eval",
        release,
        skill_name: skill.as_deref(),
    };
    peer::flatten(doc, &src, &["results"], &mut records.peer_metrics);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eval_id_as_aggregate_benchmark_takes_it() {
        let meta = |v: Value| serde_json::json!({ "eval_id": v });
        // eval_metadata.json's id as written, a number or a string alike.
        assert_eq!(eval_id(Some(&meta(Value::from(6))), "eval-6-x"), "6");
        assert_eq!(eval_id(Some(&meta(Value::from("6"))), "eval-6-x"), "6");
        // Without it: int(name.split("-")[1]).
        assert_eq!(eval_id(None, "eval-14-multi-stage-slim-runtime"), "14");
        assert_eq!(eval_id(None, "eval-alpha"), "eval-alpha");
    }

    #[test]
    fn a_case_is_named_by_eval_name_else_its_folder() {
        let meta = serde_json::json!({ "eval_id": 6, "eval_name": "run-as-non-root" });
        assert_eq!(
            case_name(Some(&meta), "eval-6-x").as_deref(),
            Some("run-as-non-root")
        );
        assert_eq!(
            case_name(None, "eval-14-multi-stage").as_deref(),
            Some("multi-stage")
        );
        assert_eq!(case_name(None, "eval-6"), None);
        assert_eq!(case_name(None, "eval-alpha"), None);
        assert_eq!(case_name(None, "other"), None);
    }

    #[test]
    fn an_iteration_folder_is_a_release_unless_one_is_named() {
        let run = Path::new("/w/x-workspace/iteration-3/eval-6-a/with_skill/run-2");
        let iteration = iteration_dir_of(run);
        assert_eq!(iteration, Some(Path::new("/w/x-workspace/iteration-3")));
        assert_eq!(release_of(iteration, "batch", false), "iteration-3");
        assert_eq!(release_of(iteration, "v1", true), "v1");
        // The handbook's iteration-<i>/eval-<id>/<mode> has no run-<k>: not this layout.
        assert_eq!(
            iteration_dir_of(Path::new("/o/run/skill/iteration-1/eval-3/with_skill")),
            None
        );
    }
}
