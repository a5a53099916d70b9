//! liftdb's own grader for skill-eval-harness runs: from a manifest case and
//! a run directory, the assertion rows `skill-benchmark benchmark` 0.6.0
//! writes (name, type, passed, score, severity, oracle, evidence, skipped),
//! so the views compute the same rates as the harness without its report.
//! Where liftdb cannot be sure of the harness's verdict (a regex whose
//! engines disagree on the text, a type it does not grade) the row says so
//! instead of guessing (`Row::unavailable`).

pub mod assertion;
pub mod casefold;
pub mod judge;
pub mod process;
pub mod pyregex;
pub mod pyvalue;
pub mod script;
pub mod similarity;
pub mod structured;
pub mod tables;
pub mod text;
pub mod verdict;

use std::path::Path;

use serde_json::Value;

use crate::model::run_files::RunFiles;
use crate::model::run_files::{first_metadata_file, OUTPUT_ALIASES};
use assertion::{evaluate, Evidence};
use pyvalue::{py_eq, str_of, truthy};

/// The grader's version: part of every grading's key, so a new grader regrades.
pub const GRADER_VERSION: &str = "liftdb-grade-1 (skill-benchmark 0.6.0, Python 3.11)";

/// The harness flags that change verdicts.
#[derive(Debug, Clone, Default)]
pub struct GradeOptions {
    /// `--allow-scripts`: run `script` assertions.
    pub allow_scripts: bool,
    /// `--strict`: soft assertions count as gates.
    pub strict: bool,
}

/// One assertion row of a graded run.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub name: Option<String>,
    pub kind: Option<String>,
    pub passed: bool,
    /// None only for a judge verdict that carries no score.
    pub score: Option<f64>,
    pub severity: &'static str,
    pub oracle: String,
    /// None only for a judge verdict whose evidence is null.
    pub evidence: Option<String>,
    pub skipped: bool,
    pub skip_reason: Option<String>,
    pub turn: Option<i64>,
    /// The judge task a merged judge verdict answers.
    pub judge_task_id: Option<String>,
    /// Why liftdb gives no verdict for this row (the run's rates then are unknown).
    pub unavailable: Option<String>,
    /// A script assertion failed because scripts were not allowed (the
    /// harness's verdict without --allow-scripts).
    pub scripts_not_allowed: bool,
    /// An embedding similarity failed unrun (the harness's verdict without
    /// --embed-cmd; liftdb never calls one, so a report made with it wins).
    pub embedding_not_run: bool,
}

/// A graded run: its rows in the harness's order, and what the harness
/// reports about the run itself.
#[derive(Debug, Clone, Default)]
pub struct GradedRun {
    pub rows: Vec<Row>,
    /// Judge assertions with no stored verdict: no row, as in the harness.
    pub deferred_judge_tasks: i64,
    pub missing_output: bool,
    pub execution_valid: bool,
}

const QUALITATIVE: &[&str] = &["judge", "rubric", "factuality"];
/// The assertion row's channel, as liftdb's views count them.
pub fn channel_of(kind: Option<&str>) -> &'static str {
    match kind {
        Some(k) if QUALITATIVE.contains(&k) => "qualitative",
        Some(k) if process::PROCESS.contains(&k) => "process",
        Some(k) if process::EFFICIENCY.contains(&k) => "efficiency",
        _ => "objective",
    }
}

/// `assertion_severity`: explicit, else the boolean shorthands or `atLeast`,
/// else soft for judges and similarity, gate for the rest.
fn severity(a: &Value, strict: bool) -> &'static str {
    let explicit = a.get("severity").and_then(Value::as_str);
    let kind = a.get("type").and_then(Value::as_str);
    let s = match explicit {
        Some("critical") => "critical",
        Some("gate") => "gate",
        Some("soft") => "soft",
        _ if a.get("critical") == Some(&Value::Bool(true)) => "critical",
        _ if a.get("gate") == Some(&Value::Bool(true)) => "gate",
        _ if a.get("soft") == Some(&Value::Bool(true)) || a.get("atLeast").is_some() => "soft",
        _ if kind.is_some_and(|k| QUALITATIVE.contains(&k) || k == "similarity") => "soft",
        _ => "gate",
    };
    if strict && s == "soft" {
        "gate"
    } else {
        s
    }
}

fn oracle(a: &Value) -> String {
    match a.get("oracle").and_then(Value::as_str) {
        Some(t @ ("strong" | "demo" | "live")) => t.to_string(),
        _ => match a.get("type").and_then(Value::as_str) {
            Some(k) if QUALITATIVE.contains(&k) => "live".into(),
            Some("script") => "demo".into(),
            _ => "strong".into(),
        },
    }
}

/// `assertion_label`: name, else description, else type, else "assertion".
fn label(a: &Value) -> String {
    row_name(a).unwrap_or_else(|| "assertion".into())
}

/// The row name the harness writes: name or description or type (raw).
fn row_name(a: &Value) -> Option<String> {
    ["name", "description", "type"]
        .iter()
        .filter_map(|k| a.get(*k))
        .find(|v| truthy(Some(v)))
        .map(str_of)
}

fn applies_to(a: &Value, variant: &str) -> bool {
    let only = a.get("variants").or_else(|| a.get("only_variants"));
    if let Some(Value::Array(list)) = only {
        if !list.iter().any(|v| v.as_str() == Some(variant)) {
            return false;
        }
    }
    if let Some(Value::Array(list)) = a.get("except_variants") {
        if list.iter().any(|v| v.as_str() == Some(variant)) {
            return false;
        }
    }
    true
}

fn depends_on(a: &Value) -> Vec<String> {
    match a.get("depends_on") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => items.iter().map(str_of).collect(),
        Some(other) => vec![str_of(other)],
    }
}

/// `read_output_base` over a unit's files below `prefix` ("" or "turn-N/").
fn output_text(files: &RunFiles, prefix: &str) -> Option<String> {
    for name in OUTPUT_ALIASES {
        if let Some(bytes) = files.get(&format!("{prefix}{name}")) {
            return Some(text::decode(bytes));
        }
    }
    const EXTS: &[&str] = &[
        "md", "txt", "json", "jsonl", "html", "css", "js", "ts", "py", "vue", "yml", "yaml",
    ];
    let outputs = format!("{prefix}outputs/");
    let mut found: Vec<(&String, &Vec<u8>)> = files
        .iter()
        .filter(|(k, _)| k.starts_with(&outputs))
        .filter(|(k, _)| {
            Path::new(k.as_str())
                .extension()
                .is_some_and(|e| EXTS.contains(&e.to_string_lossy().to_lowercase().as_str()))
        })
        .collect();
    if found.is_empty() {
        return None;
    }
    // PurePath order: component by component, not the whole string.
    found.sort_by(|(a, _), (b, _)| a.split('/').cmp(b.split('/')));
    let chunks: Vec<String> = found
        .iter()
        .take(100)
        .map(|(k, v)| format!("\n--- {} ---\n{}", &k[prefix.len()..], text::decode(v)))
        .collect();
    Some(text::py_strip(&chunks.join("\n")).to_string())
}

/// `read_metadata_base`: the first existing metadata file, as Python reads
/// it; of it grading reads only what `execution_valid` asks (no key of
/// metadata that is missing, not JSON, or not an object).
fn grading_metadata(files: &RunFiles) -> RunStatus {
    first_metadata_file(files)
        .and_then(|name| files.get(name))
        .and_then(|bytes| std::str::from_utf8(bytes).ok())
        .filter(|t| !t.starts_with('\u{feff}'))
        .and_then(|t| run_status(t.as_bytes()).ok())
        .unwrap_or_default()
}

/// The keys of a run's metadata that say whether it ran to the end. The
/// rest (kilobytes of telemetry a run) is skipped, not built into a tree:
/// grading's own parses (this and events.json) were a third of the parse
/// threads' JSON work at 100,000 runs.
#[derive(Debug, Default, PartialEq)]
struct RunStatus {
    returncode: Option<Value>,
    timed_out: Option<Value>,
    timeout: Option<Value>,
}

impl crate::json::fields::Fields for RunStatus {
    const KEYS: &'static [&'static str] = &["returncode", "timed_out", "timeout"];

    fn read<'de, A: serde::de::MapAccess<'de>>(
        &mut self,
        key: &'static str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        let slot = match key {
            "returncode" => &mut self.returncode,
            "timed_out" => &mut self.timed_out,
            _ => &mut self.timeout,
        };
        *slot = Some(map.next_value()?);
        Ok(())
    }
}

/// A run's status from a metadata document's text; any other document
/// holds none of it.
fn run_status(bytes: &[u8]) -> Result<RunStatus, String> {
    crate::json::parse_lenient_as::<crate::json::fields::ObjectOf<RunStatus>>(bytes)
        .map(|o| o.0.unwrap_or_default())
}

/// The five runner failure markers of 0.6.0 (`RUNNER_FAILURE_MARKERS`).
const FAILURE_MARKERS: &[&str] = &[
    "[CODEX FAILURE",
    "[JETTY FAILURE",
    "[CLAUDE FAILURE",
    "[VIBE FAILURE",
    "[TIMEOUT",
];

/// `ablation_model.execution_valid`.
fn execution_valid(meta: &RunStatus, text: Option<&str>) -> bool {
    let rc_ok = match &meta.returncode {
        None | Some(Value::Null) => true,
        Some(v) => py_eq(v, &Value::from(0)),
    };
    let timed_out = truthy(meta.timed_out.as_ref()) || truthy(meta.timeout.as_ref());
    let body = text::py_lstrip(text.unwrap_or_default());
    rc_ok && !timed_out && !FAILURE_MARKERS.iter().any(|m| body.starts_with(m))
}

/// Where a run's judge verdicts are looked up: the stored judge results by
/// task id, and the parts of this run's task ids.
pub struct JudgeLookup<'a> {
    pub results: &'a std::collections::HashMap<String, Value>,
    pub case_id: &'a str,
    /// Only on model-fanned runs (a model directory in the layout).
    pub model: Option<&'a str>,
    pub run: i64,
}

/// Grade one run of `case` on `variant` (`grade_case_variant`).
pub fn grade_run(
    case: &Value,
    variant: &str,
    run_dir: &Path,
    files: &RunFiles,
    manifest_dir: &Path,
    options: &GradeOptions,
    judges: &JudgeLookup,
) -> GradedRun {
    let mut text = output_text(files, "");
    // Multi-turn: each turn's assertions grade `turn-N/`; the last existing
    // turn is the answer of record when the run has no top-level output.
    let turns: Vec<&Value> = case
        .get("turns")
        .and_then(Value::as_array)
        .map(|t| t.iter().filter(|x| x.is_object()).collect())
        .unwrap_or_default();
    let mut turn_texts = Vec::new();
    for n in 1..=turns.len() {
        let t = output_text(files, &format!("turn-{n}/"));
        turn_texts.push(t);
    }
    if text.is_none() {
        text = turn_texts.iter().rev().flatten().next().cloned();
    }
    let missing_output = text.is_none();
    let meta = grading_metadata(files);
    let valid = execution_valid(&meta, text.as_deref());
    let scorable = !missing_output && valid;
    let text = text.unwrap_or_default();
    // The run's and each turn's trace (0: the run, n: turn n).
    let traces: Vec<process::TraceCell> = (0..=turns.len()).map(|_| Default::default()).collect();
    let ev = Evidence {
        run_dir,
        manifest_dir,
        options,
        unit_base: Some(run_dir),
        trace: &traces[0],
    };
    let turn_dirs: Vec<Option<std::path::PathBuf>> = (1..=turns.len())
        .map(|n| Some(run_dir.join(format!("turn-{n}"))).filter(|d| d.is_dir()))
        .collect();
    let mut out = GradedRun {
        missing_output,
        execution_valid: valid,
        ..Default::default()
    };
    let case_assertions: Vec<&Value> = case
        .get("assertions")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter(|x| x.is_object()).collect())
        .unwrap_or_default();
    let uses_depends_on = case_assertions.iter().any(|a| !depends_on(a).is_empty());
    // label -> passed, for prerequisites already resolved.
    let mut satisfied: std::collections::HashMap<String, bool> = Default::default();
    // (row index, label) of case-level rows, for the depends_on post-pass.
    let mut labelled: Vec<(usize, String)> = Vec::new();
    // Judge rows follow every objective row, as in the harness's report.
    let mut qualitative: Vec<Row> = Vec::new();
    let mut labelled_qualitative: Vec<(usize, String)> = Vec::new();
    let mut grade_one = |a: &Value, unit_text: &str, turn: Option<i64>, out: &mut GradedRun| {
        if !applies_to(a, variant) {
            return;
        }
        let kind = a.get("type").and_then(Value::as_str).map(str::to_string);
        let sev = severity(a, options.strict);
        let lbl = label(a);
        if turn.is_none() {
            let failed = depends_on(a)
                .into_iter()
                .find(|t| satisfied.get(t) == Some(&false));
            if let Some(failed) = failed {
                let is_judge = kind.as_deref().is_some_and(|k| QUALITATIVE.contains(&k));
                let row = Row {
                    name: Some(lbl.clone()),
                    kind,
                    passed: false,
                    score: Some(0.0),
                    severity: sev,
                    oracle: oracle(a),
                    evidence: Some("skipped: prerequisite not satisfied".into()),
                    skipped: true,
                    skip_reason: Some(format!("prerequisite '{failed}' not satisfied")),
                    turn: None,
                    judge_task_id: None,
                    unavailable: None,
                    scripts_not_allowed: false,
                    embedding_not_run: false,
                };
                satisfied.insert(lbl.clone(), false);
                match is_judge {
                    true => {
                        qualitative.push(row);
                        labelled_qualitative.push((qualitative.len() - 1, lbl));
                    }
                    false => {
                        out.rows.push(row);
                        labelled.push((out.rows.len() - 1, lbl));
                    }
                }
                return;
            }
        }
        if kind.as_deref().is_some_and(|k| QUALITATIVE.contains(&k)) {
            // Judge verdicts are merged from stored judge results; without
            // one the harness writes no row and defers the task. An
            // unscorable run gets neither.
            if !scorable {
                return;
            }
            let expanded = judge::expand_preset(a);
            let judged_label = match turn {
                Some(n) => format!("turn-{n}: {}", label(&expanded)),
                None => label(&expanded),
            };
            let jid = judge::task_id(
                judges.case_id,
                judges.model,
                variant,
                judges.run,
                &judged_label,
            );
            let Some(raw) = judges.results.get(&jid) else {
                out.deferred_judge_tasks += 1;
                return;
            };
            let merged = judge::validate(raw).and_then(|j| judge::merge(&expanded, &j));
            let passed = merged.as_ref().is_ok_and(|m| m.passed);
            qualitative.push(Row {
                name: Some(judged_label),
                kind: expanded.get("type").map(str_of),
                passed,
                score: merged.as_ref().ok().and_then(|m| m.score),
                severity: sev,
                oracle: oracle(a),
                evidence: merged.as_ref().ok().and_then(|m| m.evidence.clone()),
                skipped: false,
                skip_reason: None,
                turn,
                judge_task_id: Some(jid.clone()),
                unavailable: merged.err().map(|why| {
                    format!(
                        "judge verdict {jid}: {why} (skill-benchmark refuses these judge results)"
                    )
                }),
                scripts_not_allowed: false,
                embedding_not_run: false,
            });
            if turn.is_none() {
                satisfied.insert(lbl.clone(), passed);
                if uses_depends_on {
                    labelled_qualitative.push((qualitative.len() - 1, lbl));
                }
            }
            return;
        }
        let unit_ev = Evidence {
            unit_base: match turn {
                Some(n) => turn_dirs[n as usize - 1].as_deref(),
                None => Some(run_dir),
            },
            trace: &traces[turn.unwrap_or(0) as usize],
            ..ev
        };
        let verdict = evaluate(a, unit_text, &unit_ev);
        let not_run = kind.as_deref() == Some("script") && !options.allow_scripts;
        let embedding_not_run = kind.as_deref() == Some("similarity")
            && a.get("mode").and_then(Value::as_str) == Some("embedding")
            && verdict.unavailable.is_none();
        let name = match turn {
            Some(n) => Some(format!("turn-{n}: {lbl}")),
            None => row_name(a),
        };
        out.rows.push(Row {
            name,
            kind,
            passed: verdict.passed,
            score: Some(verdict.score()),
            severity: sev,
            oracle: oracle(a),
            evidence: Some(verdict.evidence),
            skipped: false,
            skip_reason: None,
            turn,
            judge_task_id: None,
            unavailable: verdict.unavailable,
            scripts_not_allowed: not_run,
            embedding_not_run,
        });
        if turn.is_none() {
            satisfied.insert(lbl.clone(), verdict.passed);
            if uses_depends_on {
                labelled.push((out.rows.len() - 1, lbl));
            }
        }
    };
    for a in &case_assertions {
        grade_one(a, &text, None, &mut out);
    }
    for (n, turn) in turns.iter().enumerate() {
        let turn_text = turn_texts[n].clone().unwrap_or_default();
        for a in turn
            .get("assertions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|x| x.is_object())
        {
            grade_one(a, &turn_text, Some(n as i64 + 1), &mut out);
        }
    }
    let offset = out.rows.len();
    out.rows.append(&mut qualitative);
    labelled.extend(
        labelled_qualitative
            .into_iter()
            .map(|(i, l)| (i + offset, l)),
    );
    if uses_depends_on {
        resolve_dependencies(&case_assertions, &labelled, &mut out.rows);
    }
    out
}

/// The post-pass fix point: a dependent whose prerequisite failed or was
/// skipped is skipped (and leaves every count).
fn resolve_dependencies(assertions: &[&Value], labelled: &[(usize, String)], rows: &mut [Row]) {
    let index_of = |lbl: &str| {
        labelled
            .iter()
            .rev()
            .find(|(_, l)| l == lbl)
            .map(|(i, _)| *i)
    };
    for _ in 0..=assertions.len() {
        let mut changed = false;
        for a in assertions {
            let targets = depends_on(a);
            let Some(i) = index_of(&label(a)) else {
                continue;
            };
            if targets.is_empty() || rows[i].skipped {
                continue;
            }
            for t in targets {
                let Some(p) = index_of(&t) else { continue };
                if rows[p].skipped || !rows[p].passed {
                    let why = if rows[p].skipped { "skipped" } else { "failed" };
                    rows[i].skipped = true;
                    rows[i].skip_reason = Some(format!("prerequisite '{t}' {why}"));
                    changed = true;
                    break;
                }
            }
        }
        if !changed {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the whole document parsed as a tree says of the three keys: the
    /// reading grading did before it skipped the rest.
    fn from_tree(text: &str) -> RunStatus {
        match crate::json::parse_lenient(text.as_bytes()) {
            Ok(Value::Object(map)) => RunStatus {
                returncode: map.get("returncode").cloned(),
                timed_out: map.get("timed_out").cloned(),
                timeout: map.get("timeout").cloned(),
            },
            _ => RunStatus::default(),
        }
    }

    #[test]
    fn the_run_status_read_alone_is_the_one_the_whole_document_gives() {
        for text in [
            r#"{"returncode": 0, "timed_out": false}"#,
            r#"{"telemetry": {"returncode": 9, "nested": [1, {"timeout": true}]}, "returncode": 2}"#,
            r#"{"returncode": 1, "returncode": 0, "timeout": "yes"}"#,
            r#"{"returncode": NaN, "tokens": Infinity, "timed_out": 1e400}"#,
            r#"{"retur\u006ecode": 3}"#,
            r#"[{"returncode": 1}]"#,
            r#""returncode""#,
            "17",
            "null",
            "{}",
        ] {
            let read = run_status(text.as_bytes()).unwrap();
            assert_eq!(read, from_tree(text), "{text}");
        }
        assert_eq!(
            from_tree(r#"{"returncode": 2}"#).returncode,
            Some(Value::from(2))
        );
        // Not JSON: neither reading has anything.
        for text in [r#"{"returncode": 1"#, "{returncode: 1}"] {
            assert!(run_status(text.as_bytes()).is_err());
            assert!(crate::json::parse_lenient(text.as_bytes()).is_err());
        }
    }
}
