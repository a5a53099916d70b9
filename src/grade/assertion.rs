//! One assertion against one run's text and files, as skill-benchmark
//! 0.6.0's `assertion_result` decides it: `passed`, `score`, `evidence`, or
//! a verdict liftdb cannot give exactly (`Verdict::unavailable`).

use std::path::Path;

use serde_json::Value;

use super::process;
use super::pyregex::{self, PatternError, Search};
use super::pyvalue::{list_repr, py_eq, py_g, repr, str_of, str_repr, truthy};
use super::script;
use super::similarity::ratio;
use super::structured;
use super::text::{decode, py_collapse_whitespace, py_lower, py_strip};
use super::verdict::Verdict;
use super::GradeOptions;

/// What an assertion reads besides the answer text.
pub struct Evidence<'a> {
    /// The run directory (assertion paths are relative to it).
    pub run_dir: &'a Path,
    /// The manifest's directory (references and script working directory).
    pub manifest_dir: &'a Path,
    pub options: &'a GradeOptions,
    /// Where process assertions read events and metrics: the run directory,
    /// or the turn's (None when that turn has no directory).
    pub unit_base: Option<&'a Path>,
    /// The unit's events and metrics, read by its first process assertion.
    pub trace: &'a process::TraceCell,
}

/// `values` as the harness iterates them: a list's items, a string's
/// characters, a dict's keys, each through `str()`; a number crashes the
/// harness (None here).
fn values_of(a: &Value) -> Option<Vec<String>> {
    let v = a.get("values").or_else(|| a.get("value"));
    match v {
        None => Some(Vec::new()),
        Some(Value::Array(items)) => Some(items.iter().map(str_of).collect()),
        Some(Value::String(s)) => Some(s.chars().map(String::from).collect()),
        Some(Value::Object(o)) => Some(o.keys().cloned().collect()),
        Some(Value::Null) | Some(Value::Bool(_)) | Some(Value::Number(_)) => None,
    }
}

pub fn evaluate(a: &Value, text: &str, ev: &Evidence) -> Verdict {
    let kind = a.get("type").and_then(Value::as_str).unwrap_or_default();
    let ci = a.get("ci").is_none() || truthy(a.get("ci"));
    let norm = |s: &str| if ci { py_lower(s) } else { s.to_string() };
    let hay = || norm(text);
    let verdict = match kind {
        "contains" => {
            let value = a.get("value").map(str_of).unwrap_or_default();
            let passed = hay().contains(&norm(&value));
            let evidence = if passed { "contains" } else { "missing" };
            Verdict::binary(passed, format!("{evidence} {}", str_repr(&value)))
        }
        "contains_any" | "contains_all" | "excludes_any" => {
            let Some(values) = values_of(a) else {
                return Verdict::unavailable(
                    "'values' is a number: skill-benchmark stops with a TypeError".into(),
                );
            };
            let hay = hay();
            let hit = values.iter().find(|v| hay.contains(&norm(v)));
            match kind {
                "contains_any" => match hit {
                    Some(h) => Verdict::binary(true, format!("matched {}", str_repr(h))),
                    None => Verdict::binary(false, format!("none matched: {}", list_repr(&values))),
                },
                "excludes_any" => match hit {
                    None => Verdict::binary(true, "none present".into()),
                    Some(h) => Verdict::binary(false, format!("found banned {}", str_repr(h))),
                },
                _ => {
                    let missing: Vec<String> = values
                        .iter()
                        .filter(|v| !hay.contains(&norm(v)))
                        .cloned()
                        .collect();
                    match missing.is_empty() {
                        true => Verdict::binary(true, "all present".into()),
                        false => {
                            Verdict::binary(false, format!("missing: {}", list_repr(&missing)))
                        }
                    }
                }
            }
        }
        "regex" | "not_regex" => regex_verdict(a, kind, text, ci),
        "file_exists" => {
            let rel = a
                .get("path")
                .or_else(|| a.get("value"))
                .map(str_of)
                .unwrap_or_default();
            let passed = ev.run_dir.join(&rel).exists();
            match passed {
                true => Verdict::binary(true, format!("exists: {rel}")),
                false => Verdict::binary(false, format!("missing file: {rel}")),
            }
        }
        "json_field_equals" => json_field_equals(a, ev),
        "golden_output" => golden_output(a, text, ev),
        "similarity" => similarity(a, text, ci, ev),
        "structured_output" => structured_output(a, text, ev),
        "script" => {
            if !ev.options.allow_scripts {
                Verdict::binary(false, "script assertion skipped; rerun grade/benchmark with --allow-scripts to execute repo-owned oracle commands".into())
            } else {
                match script::run(a, ev.run_dir, ev.manifest_dir) {
                    Ok(outcome) => Verdict::scored(outcome.passed, outcome.score, outcome.evidence),
                    Err(reason) => Verdict::unavailable(reason),
                }
            }
        }
        k if process::PROCESS.contains(&k) || process::EFFICIENCY.contains(&k) => {
            process::evaluate(a, k, ev.unit_base, ev.trace)
        }
        other => Verdict::unavailable(format!("assertion type '{other}' is not graded by liftdb")),
    };
    at_least(a, verdict)
}

/// A scored assertion with an explicit `atLeast` floor: the floor decides `passed`.
fn at_least(a: &Value, mut v: Verdict) -> Verdict {
    let floor = a
        .get("atLeast")
        .filter(|f| f.is_number())
        .and_then(Value::as_f64);
    if let (Some(floor), Some(real)) = (floor, v.real_score) {
        v.passed = real >= floor;
        v.evidence
            .push_str(&format!(" (score={}, atLeast={})", py_g(real), py_g(floor)));
    }
    v
}

fn regex_verdict(a: &Value, kind: &str, text: &str, ci: bool) -> Verdict {
    let pattern = a
        .get("pattern")
        .or_else(|| a.get("value"))
        .map(str_of)
        .unwrap_or_default();
    let compiled = pyregex::compile_cached(&pattern, ci);
    let compiled = match compiled.as_ref() {
        Ok(c) => c,
        Err(PatternError::Invalid(why)) => {
            return Verdict::unavailable(format!(
                "/{pattern}/ is not a valid Python pattern ({why}): skill-benchmark validate rejects the manifest"
            ))
        }
        Err(PatternError::Unsupported(why)) => {
            return Verdict::unavailable(format!("/{pattern}/ uses {why}, which liftdb does not translate exactly"))
        }
    };
    match compiled.search(text) {
        Search::Unavailable(why) => Verdict::unavailable(why),
        Search::Found(found) => match (kind, found) {
            ("regex", true) => Verdict::binary(true, format!("matched /{pattern}/")),
            ("regex", false) => Verdict::binary(false, format!("missing /{pattern}/")),
            (_, false) => Verdict::binary(true, format!("absent /{pattern}/")),
            (_, true) => Verdict::binary(false, format!("found banned /{pattern}/")),
        },
    }
}

/// Why Python's `json.loads(path.read_text())` failed: its exception text
/// when liftdb reproduces it, else why not.
enum JsonFailure {
    Exact(String),
    Inexact(String),
}

/// `json.loads` of a file as Python reads it: strict UTF-8, no BOM, NaN accepted.
fn python_json(path: &Path) -> Result<Value, JsonFailure> {
    let shown = str_repr(&path.display().to_string());
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => {
            JsonFailure::Exact(format!("[Errno 2] No such file or directory: {shown}"))
        }
        std::io::ErrorKind::IsADirectory => {
            JsonFailure::Exact(format!("[Errno 21] Is a directory: {shown}"))
        }
        _ => JsonFailure::Inexact(format!("{} cannot be read: {e}", path.display())),
    })?;
    let text = std::str::from_utf8(&bytes).map_err(|_| {
        JsonFailure::Inexact(format!(
            "{} is not UTF-8: Python's UnicodeDecodeError text is not reproduced",
            path.display()
        ))
    })?;
    if text.starts_with('\u{feff}') {
        return Err(JsonFailure::Exact(
            "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)".into(),
        ));
    }
    crate::json::parse_lenient(text.as_bytes()).map_err(|_| {
        JsonFailure::Inexact(format!(
            "{} is not valid JSON: Python's JSONDecodeError text is not reproduced",
            path.display()
        ))
    })
}

/// Python's TypeError text for `value["key"]` on a non-dict.
fn not_subscriptable(v: &Value) -> &'static str {
    match v {
        Value::Array(_) => "list indices must be integers or slices, not str",
        Value::String(_) => "string indices must be integers, not 'str'",
        Value::Number(n) if n.is_i64() || n.is_u64() => "'int' object is not subscriptable",
        Value::Number(_) => "'float' object is not subscriptable",
        Value::Bool(_) => "'bool' object is not subscriptable",
        _ => "'NoneType' object is not subscriptable",
    }
}

fn structured_output(a: &Value, text: &str, ev: &Evidence) -> Verdict {
    let Some(Value::Object(schema)) = a.get("schema") else {
        return Verdict::binary(false, "structured_output requires a schema object".into());
    };
    let instance = match a.get("path").filter(|p| truthy(Some(p))) {
        Some(rel) => {
            let base = ev.unit_base.unwrap_or(ev.run_dir);
            match python_json(&base.join(str_of(rel))) {
                Ok(v) => v,
                Err(JsonFailure::Exact(m)) => {
                    return Verdict::binary(false, format!("no parsable JSON candidate: {m}"))
                }
                Err(JsonFailure::Inexact(why)) => return Verdict::unavailable(why),
            }
        }
        None => match structured::extract_json_object(text) {
            Ok(Some(v)) => v,
            Ok(None) => {
                return Verdict::binary(
                    false,
                    "no parsable JSON candidate: no JSON object found in judge output".into(),
                )
            }
            Err(why) => return Verdict::unavailable(why),
        },
    };
    match structured::schema_errors(&instance, schema, "$") {
        Ok(errors) if errors.is_empty() => Verdict::binary(true, "schema ok".into()),
        Ok(errors) => Verdict::binary(false, errors[..errors.len().min(5)].join("; ")),
        Err(why) => Verdict::unavailable(why),
    }
}

fn json_field_equals(a: &Value, ev: &Evidence) -> Verdict {
    let rel = a
        .get("path")
        .map(str_of)
        .unwrap_or_else(|| "metadata.json".into());
    let field = a.get("field").map(str_of).unwrap_or_default();
    let expected = a.get("equals").cloned().unwrap_or(Value::Null);
    let doc = match python_json(&ev.run_dir.join(&rel)) {
        Ok(doc) => doc,
        Err(JsonFailure::Exact(e)) => {
            return Verdict::binary(false, format!("json check failed: {e}"))
        }
        Err(JsonFailure::Inexact(why)) => return Verdict::unavailable(why),
    };
    let mut actual = &doc;
    for part in field.split('.') {
        match actual {
            Value::Object(map) => match map.get(part) {
                Some(v) => actual = v,
                None => {
                    return Verdict::binary(false, format!("json check failed: {}", str_repr(part)))
                }
            },
            other => {
                return Verdict::binary(
                    false,
                    format!("json check failed: {}", not_subscriptable(other)),
                )
            }
        }
    }
    Verdict::binary(
        py_eq(actual, &expected),
        format!("{field}={}", repr(actual)),
    )
}

fn golden_output(a: &Value, text: &str, ev: &Evidence) -> Verdict {
    let reference = a
        .get("reference")
        .or_else(|| a.get("value"))
        .filter(|v| truthy(Some(v)))
        .map(str_of)
        .unwrap_or_default();
    if reference.is_empty() {
        return Verdict::binary(
            false,
            "golden_output requires a `reference` file path relative to the manifest directory"
                .into(),
        );
    }
    let ref_path = ev.manifest_dir.join(&reference);
    if !ref_path.is_file() {
        return Verdict::binary(false, format!("missing reference file: {reference}"));
    }
    let (actual_text, actual_label) = match a.get("artifact").filter(|v| truthy(Some(v))) {
        Some(artifact) => {
            let rel = str_of(artifact);
            let candidate = ev.run_dir.join(&rel);
            if !candidate.is_file() {
                return Verdict::binary(false, format!("missing artifact: {rel}"));
            }
            (decode(&std::fs::read(&candidate).unwrap_or_default()), rel)
        }
        None => (text.to_string(), "output.md".to_string()),
    };
    let expected = decode(&std::fs::read(&ref_path).unwrap_or_default());
    let mode = a
        .get("normalize")
        .map(str_of)
        .unwrap_or_else(|| "exact".into());
    let normalize = |s: &str| -> Option<String> {
        match mode.as_str() {
            "exact" => Some(s.to_string()),
            "trim" => Some(py_strip(s).to_string()),
            "text" => Some(py_collapse_whitespace(s)),
            _ => None,
        }
    };
    let (Some(got), Some(want)) = (normalize(&actual_text), normalize(&expected)) else {
        return Verdict::binary(
            false,
            format!("unknown golden_output normalize mode: {}", str_repr(&mode)),
        );
    };
    match got == want {
        true => Verdict::binary(
            true,
            format!("{actual_label} matches reference {reference} (normalize={mode})"),
        ),
        // The harness appends a unified diff; the verdict does not depend on it.
        false => Verdict::binary(
            false,
            format!("differs from reference {reference} (normalize={mode})"),
        ),
    }
}

fn similarity(a: &Value, text: &str, ci: bool, ev: &Evidence) -> Verdict {
    let expected = a
        .get("expected")
        .or_else(|| a.get("value"))
        .map(str_of)
        .unwrap_or_default();
    let threshold = match a.get("threshold") {
        None => 0.8,
        Some(v) => match v.as_f64().or_else(|| str_of(v).trim().parse().ok()) {
            Some(t) => t,
            None => {
                return Verdict::unavailable(
                    "'threshold' is not a number: skill-benchmark stops".into(),
                )
            }
        },
    };
    let compare = match a.get("artifact").filter(|v| truthy(Some(v))) {
        Some(artifact) => {
            let candidate = ev.run_dir.join(str_of(artifact));
            match candidate.is_file() {
                true => decode(&std::fs::read(&candidate).unwrap_or_default()),
                false => String::new(),
            }
        }
        None => text.to_string(),
    };
    let mode = a.get("mode").map(str_of).unwrap_or_else(|| "ratio".into());
    if mode == "embedding" {
        // Without --embed-cmd the harness fails the assertion; liftdb never calls one.
        return Verdict::binary(false, "embedding similarity skipped; rerun grade/benchmark with --embed-cmd to call an external embedding command (kept out of core grading by design)".into());
    }
    let (x, y) = if ci {
        (py_lower(&compare), py_lower(&expected))
    } else {
        (compare, expected.clone())
    };
    let r = ratio(&x, &y);
    let score = crate::stats::py_round(r, 4);
    let head: String = expected.chars().take(60).collect();
    Verdict {
        passed: r >= threshold,
        real_score: Some(score),
        evidence: format!(
            "similarity={r:.4} vs threshold={} against expected[:60]={}",
            py_g(threshold),
            str_repr(&head)
        ),
        unavailable: None,
    }
}
