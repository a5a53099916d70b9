//! The process and efficiency assertions (docs/grading.md §4.10,
//! `process_or_efficiency_assertion_result`): what the agent did, from the
//! run's `events.json` and merged metrics files, with the harness's exact
//! evidence strings. Where the harness would stop with an exception (an
//! unhashable event type, `int(None)`), the verdict is unavailable.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::casefold::py_casefold;
use super::pyregex::{self, PatternError, Search};
use super::pyvalue::{list_repr, py_g};
use super::pyvalue::{str_of, str_repr, truthy};
use super::text::{py_collapse_whitespace, py_lower, py_strip};
use super::verdict::Verdict;

pub const PROCESS: &[&str] = &[
    "skill_invoked",
    "command_ran",
    "command_not_ran",
    "command_order",
    "tool_call",
    "tool_count_le",
    "no_repeated_command_loop",
];
pub const EFFICIENCY: &[&str] = &["total_tokens_le", "elapsed_seconds_le", "command_count_le"];

/// A verdict or why liftdb cannot reproduce the harness here.
type Outcome = Result<(bool, String), String>;

/// A unit's events and merged metrics, read once for all its process
/// assertions (the harness rereads them per assertion; the files are the same).
pub struct Trace {
    events: Events,
    metrics: Map<String, Value>,
}

/// Where a unit's `Trace` is kept once read.
pub type TraceCell = std::cell::OnceCell<Result<Trace, String>>;

/// Grade one process or efficiency assertion against the unit directory
/// (the run directory, or a turn's; None when that turn has no directory).
pub fn evaluate(a: &Value, kind: &str, base: Option<&Path>, trace: &TraceCell) -> Verdict {
    let Some(base) = base else {
        return Verdict::binary(false, "missing run directory for trace assertion".into());
    };
    let loaded = trace.get_or_init(|| {
        Ok(Trace {
            events: read_events(base)?,
            metrics: read_metrics(base)?,
        })
    });
    let trace = match loaded {
        Ok(t) => t,
        Err(why) => return Verdict::unavailable(why.clone()),
    };
    match grade(a, kind, trace) {
        Ok((passed, evidence)) => Verdict::binary(passed, evidence),
        Err(why) => Verdict::unavailable(why),
    }
}

fn grade(a: &Value, kind: &str, trace: &Trace) -> Outcome {
    let (events, metrics) = (&trace.events, &trace.metrics);
    let ci = a.get("ci").is_none_or(|v| truthy(Some(v)));
    if let Some(signal) = required_signal(kind) {
        if let Some(missing) = unavailable_measurement(metrics, signal) {
            return Ok((false, missing));
        }
    }
    match kind {
        "skill_invoked" => skill_invoked(a, events, metrics),
        "total_tokens_le" => {
            let Some(value) = metric_number(metrics, &["total_tokens"]) else {
                return Ok((false, "missing total_tokens evidence".into()));
            };
            at_most(a, "total_tokens", value)
        }
        "elapsed_seconds_le" => {
            let seconds =
                metric_number(metrics, &["elapsed_seconds", "duration_seconds"]).or_else(|| {
                    metric_number(metrics, &["elapsed_ms", "duration_ms"]).map(|ms| ms / 1000.0)
                });
            let Some(value) = seconds else {
                return Ok((false, "missing elapsed time evidence".into()));
            };
            at_most(a, "elapsed_seconds", value)
        }
        "command_count_le" => {
            let counted = match events {
                Events::List(list) => Some(command_events(list).len() as f64),
                _ => None,
            };
            let Some(value) = metric_number(metrics, &["commands", "command_count"]).or(counted)
            else {
                return Ok((false, "missing command count evidence".into()));
            };
            at_most(a, "command_count", value)
        }
        _ => {
            let list = match events {
                Events::List(list) => list,
                Events::Missing(why) => return Ok((false, why.clone())),
                Events::Invalid => return Err(INVALID_EVENTS.into()),
            };
            let commands: Vec<String> = command_events(list)
                .iter()
                .map(|e| command_text(e))
                .collect();
            match kind {
                "tool_call" => tool_call(a, list, ci),
                "command_ran" | "command_not_ran" => {
                    let pattern = str_of(
                        a.get("pattern")
                            .or(a.get("value"))
                            .unwrap_or(&Value::String(String::new())),
                    );
                    let mut hit = None;
                    for cmd in &commands {
                        if regex_hit(&pattern, cmd, ci)? {
                            hit = Some(cmd);
                            break;
                        }
                    }
                    Ok(match (kind, hit) {
                        ("command_ran", Some(h)) => {
                            (true, format!("matched command {}", str_repr(h)))
                        }
                        ("command_ran", None) => (false, format!("no command matched /{pattern}/")),
                        (_, None) => (true, "no banned command matched".into()),
                        (_, Some(h)) => (false, format!("banned command matched {}", str_repr(h))),
                    })
                }
                "command_order" => {
                    let patterns = iterate_as_strings(a.get("patterns"), "patterns")?;
                    match in_order(&patterns, &commands, ci)? {
                        Ok(matched) => Ok((true, format!("matched order: {}", list_repr(&matched)))),
                        Err((pattern, cursor, matched)) => Ok((
                            false,
                            format!(
                                "missing ordered command /{pattern}/ after index {cursor}; matched={}",
                                list_repr(&matched)
                            ),
                        )),
                    }
                }
                "tool_count_le" => {
                    let max = py_int(a.get("max"), 0)?;
                    let tool = a.get("tool").filter(|t| truthy(Some(t)));
                    let count = match tool {
                        Some(t) => {
                            let folded = py_casefold(&str_of(t));
                            list.iter()
                                .filter(|e| {
                                    name_folded(e) == folded
                                        || (folded == "bash" && type_is(e, "command"))
                                })
                                .count()
                        }
                        None => {
                            let mut n = 0;
                            for e in list {
                                if type_in(e, &["tool_call", "command"])? {
                                    n += 1;
                                }
                            }
                            n
                        }
                    };
                    let tool_text = tool.map(str_of).unwrap_or_else(|| "<any>".into());
                    Ok((
                        count as i128 <= max,
                        format!("tool_count={count}; max={max}; tool={tool_text}"),
                    ))
                }
                "no_repeated_command_loop" => {
                    let max = py_int(a.get("max_repeats").or(a.get("max")), 1)?;
                    // `metric or computed`: a metric of 0 falls through to the computation.
                    let observed = match metric_number(metrics, &["repeated_command_max"]) {
                        Some(m) if m != 0.0 => py_int_of_float(m)?,
                        _ => repeated_command_max(&commands) as i128,
                    };
                    Ok((
                        observed <= max,
                        format!("repeated_command_max={observed}; max={max}"),
                    ))
                }
                other => Ok((
                    false,
                    format!("unsupported trace assertion {}", str_repr(other)),
                )),
            }
        }
    }
}

/// An efficiency bound: `value <= float(max)` with the harness's evidence.
fn at_most(a: &Value, what: &str, value: f64) -> Outcome {
    let max = py_float(a.get("max").or(a.get("value")), 0.0)?;
    Ok((
        value <= max,
        format!("{what}={}; max={}", py_g(value), py_g(max)),
    ))
}

const INVALID_EVENTS: &str = "events.json is not JSON Python reads: the harness's evidence quotes Python's JSON error, which liftdb does not reproduce";

/// The telemetry-v3 signal each type needs.
fn required_signal(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "skill_invoked" => "skill_invoked",
        "command_ran" | "command_not_ran" | "command_order" | "command_count_le" => "commands",
        "tool_call" | "tool_count_le" => "tool_calls",
        "no_repeated_command_loop" => "repeated_command_max",
        "total_tokens_le" => "total_tokens",
        "elapsed_seconds_le" => "elapsed_ms",
        _ => return None,
    })
}

/// A v3 envelope that says the signal was not observed fails the assertion.
fn unavailable_measurement(metrics: &Map<String, Value>, signal: &str) -> Option<String> {
    let raw = metrics
        .get("telemetry")?
        .as_object()?
        .get("measurements")?
        .as_object()?
        .get(signal)?
        .as_object()?;
    if raw.get("availability").and_then(Value::as_str) == Some("available") {
        return None;
    }
    let reason = raw
        .get("reason")
        .or(raw.get("availability"))
        .map(str_of)
        .unwrap_or_else(|| "unavailable".into());
    Some(format!("missing {signal} evidence ({reason})"))
}

enum Events {
    List(Vec<Map<String, Value>>),
    /// No events: the harness's reason, quoted in evidence.
    Missing(String),
    /// Unparseable JSON: the reason would be Python's exception text.
    Invalid,
}

/// A JSON file as the harness's `read_json_dict_or_list` reads it.
enum PyJson {
    Missing,
    Invalid,
    Parsed(Value),
}

fn read_py_json(path: &Path) -> Result<PyJson, String> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(PyJson::Missing),
        Err(e) => {
            return Err(format!(
                "{} cannot be read ({e}): skill-benchmark stops",
                path.display()
            ))
        }
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Err(format!(
            "{} is not UTF-8: skill-benchmark stops with a UnicodeDecodeError",
            path.display()
        ));
    };
    if text.starts_with('\u{feff}') {
        return Ok(PyJson::Invalid);
    }
    Ok(match crate::json::parse_lenient(text.as_bytes()) {
        Ok(v) => PyJson::Parsed(v),
        Err(_) => PyJson::Invalid,
    })
}

/// `read_events_base`: a list, or `{events: [...]}`; schema 1 assumes completion.
fn read_events(base: &Path) -> Result<Events, String> {
    let data = match read_py_json(&base.join("events.json"))? {
        PyJson::Missing => return Ok(Events::Missing("missing events.json".into())),
        PyJson::Invalid => return Ok(Events::Invalid),
        PyJson::Parsed(v) => v,
    };
    if let Some(err) = data.get("_error").filter(|e| truthy(Some(e))) {
        return Ok(Events::Missing(str_of(err)));
    }
    let events = match &data {
        Value::Object(o) => o.get("events"),
        other => Some(other),
    };
    let list: Option<Vec<Map<String, Value>>> = match events {
        Some(Value::Array(items)) => items.iter().map(|e| e.as_object().cloned()).collect(),
        _ => None,
    };
    let Some(mut list) = list else {
        return Ok(Events::Missing(
            "events.json must contain an events list".into(),
        ));
    };
    if data.get("schema_version").is_some_and(is_int_one) {
        for e in &mut list {
            if e.get("status").is_none_or(Value::is_null) {
                e.insert("status".into(), Value::String("completed".into()));
            }
        }
    }
    Ok(Events::List(list))
}

/// Python `x == 1` for a JSON value (True and 1.0 are equal to 1).
fn is_int_one(v: &Value) -> bool {
    matches!(v, Value::Bool(true)) || v.as_f64() == Some(1.0)
}

/// `read_metrics_base`: the dicts of these files merged, later keys winning.
fn read_metrics(base: &Path) -> Result<Map<String, Value>, String> {
    let mut merged = Map::new();
    for rel in [
        "metadata.json",
        "timing.json",
        "outputs/metrics.json",
        "metrics.json",
    ] {
        if let PyJson::Parsed(Value::Object(doc)) = read_py_json(&base.join(rel))? {
            if !doc.get("_error").is_some_and(|e| truthy(Some(e))) {
                merged.extend(doc);
            }
        }
    }
    Ok(merged)
}

/// `metric_number`: the first number (a bool counts) among the keys, then in `usage`.
fn metric_number(m: &Map<String, Value>, keys: &[&str]) -> Option<f64> {
    let number = |v: Option<&Value>| match v {
        Some(Value::Bool(b)) => Some(if *b { 1.0 } else { 0.0 }),
        Some(Value::Number(n)) => n.as_f64(),
        _ => None,
    };
    keys.iter().find_map(|k| number(m.get(*k))).or_else(|| {
        let usage = m.get("usage")?.as_object()?;
        keys.iter().find_map(|k| number(usage.get(*k)))
    })
}

/// `event_is_completed`: a status string in the completed set.
fn is_completed(e: &Map<String, Value>) -> bool {
    e.get("status").and_then(Value::as_str).is_some_and(|s| {
        let s = py_casefold(py_strip(s));
        [
            "completed",
            "complete",
            "succeeded",
            "success",
            "done",
            "finished",
        ]
        .contains(&s.as_str())
    })
}

fn type_is(e: &Map<String, Value>, t: &str) -> bool {
    e.get("type").and_then(Value::as_str) == Some(t)
}

/// `e.get("type") in {...}`: a list or dict type is unhashable in Python.
fn type_in(e: &Map<String, Value>, set: &[&str]) -> Result<bool, String> {
    match e.get("type") {
        Some(Value::Array(_) | Value::Object(_)) => Err(
            "an event's type is a list or object: skill-benchmark stops with a TypeError".into(),
        ),
        Some(Value::String(s)) => Ok(set.contains(&s.as_str())),
        _ => Ok(false),
    }
}

fn command_events(events: &[Map<String, Value>]) -> Vec<&Map<String, Value>> {
    events
        .iter()
        .filter(|e| type_is(e, "command") && is_completed(e))
        .collect()
}

/// `command_text`: the string or list parts of the command fields, space-joined.
fn command_text(e: &Map<String, Value>) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut take = |v: Option<&Value>| match v {
        Some(Value::String(s)) => parts.push(s.clone()),
        Some(Value::Array(items)) => {
            parts.push(items.iter().map(str_of).collect::<Vec<_>>().join(" "))
        }
        _ => {}
    };
    for key in ["input_summary", "command", "cmd", "name"] {
        take(e.get(key));
    }
    if let Some(Value::Object(details)) = e.get("details") {
        for key in ["command", "cmd", "input", "args"] {
            take(details.get(key));
        }
    }
    let joined = parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    py_strip(&joined).to_string()
}

fn name_folded(e: &Map<String, Value>) -> String {
    py_casefold(&e.get("name").map(str_of).unwrap_or_default())
}

/// `regex_hit`: `re.search`, or a substring test when Python rejects the pattern.
fn regex_hit(pattern: &str, text: &str, ci: bool) -> Result<bool, String> {
    match pyregex::compile_cached(pattern, ci).as_ref() {
        Ok(c) => match c.search(text) {
            Search::Found(found) => Ok(found),
            Search::Unavailable(why) => Err(why),
        },
        Err(PatternError::Invalid(_)) => Ok(match ci {
            true => py_lower(text).contains(&py_lower(pattern)),
            false => text.contains(pattern),
        }),
        Err(PatternError::Unsupported(why)) => Err(format!(
            "/{pattern}/ uses {why}, which liftdb does not translate exactly"
        )),
    }
}

/// Patterns matched in order, each after the previous match:
/// Ok(matched) or Err((missing pattern, cursor, matched so far)).
type Ordered = Result<Vec<String>, (String, usize, Vec<String>)>;

fn in_order(patterns: &[String], texts: &[String], ci: bool) -> Result<Ordered, String> {
    let mut cursor = 0;
    let mut matched = Vec::new();
    for pattern in patterns {
        let mut found = None;
        for (i, t) in texts.iter().enumerate().skip(cursor) {
            if regex_hit(pattern, t, ci)? {
                found = Some(i);
                matched.push(t.clone());
                break;
            }
        }
        match found {
            Some(i) => cursor = i + 1,
            None => return Ok(Err((pattern.clone(), cursor, matched))),
        }
    }
    Ok(Ok(matched))
}

/// `[str(p) for p in value]`: a list's items, a string's characters, a dict's keys.
fn iterate_as_strings(v: Option<&Value>, what: &str) -> Result<Vec<String>, String> {
    match v {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => Ok(items.iter().map(str_of).collect()),
        Some(Value::String(s)) => Ok(s.chars().map(String::from).collect()),
        Some(Value::Object(o)) => Ok(o.keys().cloned().collect()),
        Some(_) => Err(format!(
            "'{what}' is not iterable: skill-benchmark stops with a TypeError"
        )),
    }
}

/// `int(v)` with a default for an absent key; what Python cannot convert crashes it.
fn py_int(v: Option<&Value>, default: i128) -> Result<i128, String> {
    match v {
        None => Ok(default),
        Some(Value::Bool(b)) => Ok(i128::from(*b)),
        Some(Value::Number(n)) => match n.as_i64() {
            Some(i) => Ok(i128::from(i)),
            None => match n.as_u64() {
                Some(u) => Ok(i128::from(u)),
                None => py_int_of_float(n.as_f64().unwrap_or(f64::NAN)),
            },
        },
        Some(Value::String(s)) => {
            let t = py_strip(s).replace('_', "");
            t.parse::<i128>()
                .map_err(|_| format!("int({}) fails in skill-benchmark (ValueError)", str_repr(s)))
        }
        Some(other) => Err(format!(
            "int({}) fails in skill-benchmark (TypeError)",
            str_of(other)
        )),
    }
}

fn py_int_of_float(f: f64) -> Result<i128, String> {
    if f.is_finite() && f.abs() < 1e38 {
        Ok(f.trunc() as i128)
    } else {
        Err("int() of an infinite or NaN number: skill-benchmark stops".into())
    }
}

/// `float(v)` with a default for an absent key.
fn py_float(v: Option<&Value>, default: f64) -> Result<f64, String> {
    match v {
        None => Ok(default),
        Some(Value::Bool(b)) => Ok(if *b { 1.0 } else { 0.0 }),
        Some(Value::Number(n)) => n.as_f64().ok_or_else(|| "not a number".to_string()),
        Some(Value::String(s)) => py_strip(s).replace('_', "").parse::<f64>().map_err(|_| {
            format!(
                "float({}) fails in skill-benchmark (ValueError)",
                str_repr(s)
            )
        }),
        Some(other) => Err(format!(
            "float({}) fails in skill-benchmark (TypeError)",
            str_of(other)
        )),
    }
}

/// `repeated_command_max`: the longest run of equal normalised commands.
fn repeated_command_max(commands: &[String]) -> usize {
    let (mut last, mut current, mut best) = (None::<String>, 0, 0);
    for c in commands {
        let normed = py_collapse_whitespace(&py_casefold(py_strip(c)));
        if !normed.is_empty() && last.as_deref() == Some(normed.as_str()) {
            current += 1;
        } else {
            current = usize::from(!normed.is_empty());
            last = Some(normed);
        }
        best = best.max(current);
    }
    best
}

fn skill_invoked(a: &Value, events: &Events, metrics: &Map<String, Value>) -> Outcome {
    let expected = a.get("expected").is_none_or(|v| truthy(Some(v)));
    let metric = metrics.get("skill_invoked").and_then(Value::as_bool);
    let mut invoked = metric.unwrap_or(false);
    let mut evidence: Vec<String> = Vec::new();
    let list = match events {
        Events::List(list) => Some(list),
        Events::Missing(_) => None,
        Events::Invalid if metric.is_some() => None,
        Events::Invalid => return Err(INVALID_EVENTS.into()),
    };
    if let Some(list) = list {
        let loads: Vec<_> = list
            .iter()
            .filter(|e| type_is(e, "skill_load") || mentions_skill_file(e))
            .collect();
        if !loads.is_empty() {
            invoked = true;
            for e in loads.iter().take(5) {
                let text = command_text(e);
                evidence.push(match text.is_empty() {
                    false => text,
                    true => e
                        .get("path")
                        .map(str_of)
                        .unwrap_or_else(|| "skill_load".into()),
                });
            }
        }
    }
    if metric.is_some() {
        match metrics.get("skill_invocation_evidence") {
            None => {}
            Some(Value::Array(items)) => evidence.extend(items.iter().take(5).map(str_of)),
            // A string slices to characters, none of which is a list: nothing added.
            Some(Value::String(_)) => {}
            Some(_) => {
                return Err("skill_invocation_evidence is not a list or string: skill-benchmark stops with a TypeError".into())
            }
        }
    }
    if list.is_none() && metric.is_none() {
        let Events::Missing(why) = events else {
            return Err(INVALID_EVENTS.into());
        };
        return Ok((false, format!("missing skill invocation evidence ({why})")));
    }
    evidence.truncate(5);
    Ok((
        invoked == expected,
        format!(
            "skill_invoked={}; expected={}; evidence={}",
            py_bool(invoked),
            py_bool(expected),
            list_repr(&evidence)
        ),
    ))
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// `event_mentions_skill_file`.
fn mentions_skill_file(e: &Map<String, Value>) -> bool {
    let hay = ["input_summary", "output_summary", "name"]
        .iter()
        .map(|k| e.get(*k).map(str_of).unwrap_or_default())
        .collect::<Vec<_>>()
        .join(" ");
    hay.contains("SKILL.md") || hay.contains("/skills/") || hay.contains("\\skills\\")
}

/// `tool_call`: completed command and tool_call events, by the one selector given.
fn tool_call(a: &Value, events: &[Map<String, Value>], ci: bool) -> Outcome {
    let mut completed = Vec::new();
    for e in events {
        if type_in(e, &["command", "tool_call"])? && is_completed(e) {
            completed.push(e);
        }
    }
    let tool = a.get("tool").filter(|t| truthy(Some(t)));
    let shown = |e: &Map<String, Value>| {
        let text = command_text(e);
        match text.is_empty() {
            false => text,
            true => e.get("name").map(str_of).unwrap_or_default(),
        }
    };
    let selected: Vec<String> = match tool {
        Some(t) => {
            let folded = py_casefold(&str_of(t));
            let shell = ["bash", "shell", "command"].contains(&folded.as_str());
            completed
                .iter()
                .filter(|e| name_folded(e) == folded || (shell && type_is(e, "command")))
                .map(|e| shown(e))
                .collect()
        }
        None => completed.iter().map(|e| shown(e)).collect(),
    };
    let call_names: Vec<String> = completed
        .iter()
        .filter(|e| truthy(e.get("name")))
        .map(|e| name_folded(e))
        .collect();

    if truthy(a.get("expected_no_call")) {
        let pattern = a.get("pattern").filter(|p| truthy(Some(p)));
        let mut offending = std::collections::BTreeSet::new();
        for n in &call_names {
            let hit = match (pattern, tool) {
                (Some(p), _) => regex_hit(&str_of(p), n, ci)?,
                (None, Some(t)) => *n == py_casefold(&str_of(t)),
                (None, None) => true,
            };
            if hit {
                offending.insert(n.clone());
            }
        }
        let offending: Vec<String> = offending.into_iter().collect();
        return Ok(match offending.is_empty() {
            true => (true, "no matching tool call (as required)".into()),
            false => (
                false,
                format!(
                    "unexpected tool call(s): {}",
                    list_repr(&offending[..offending.len().min(5)])
                ),
            ),
        });
    }
    if let Some(Value::Array(required)) = a.get("required_calls").filter(|r| truthy(Some(r))) {
        let missing: std::collections::BTreeSet<String> = required
            .iter()
            .map(str_of)
            .filter(|p| !call_names.contains(&py_casefold(p)))
            .collect();
        let missing: Vec<String> = missing.into_iter().collect();
        return Ok(match missing.is_empty() {
            true => (
                true,
                format!("all {} required tool call(s) present", required.len()),
            ),
            false => (
                false,
                format!("missing required tool call(s): {}", list_repr(&missing)),
            ),
        });
    }
    if let Some(Value::Array(call_set)) = a.get("call_set").filter(|c| truthy(Some(c))) {
        let count = |names: &mut dyn Iterator<Item = String>| {
            let mut c: BTreeMap<String, usize> = BTreeMap::new();
            for n in names {
                *c.entry(n).or_default() += 1;
            }
            c
        };
        let want = count(&mut call_set.iter().map(|p| py_casefold(&str_of(p))));
        let got = count(&mut call_names.iter().cloned());
        if want != got {
            let minus = |x: &BTreeMap<String, usize>, y: &BTreeMap<String, usize>| {
                let mut out = Vec::new();
                for (k, n) in x {
                    let extra = n.saturating_sub(*y.get(k).unwrap_or(&0));
                    out.extend(std::iter::repeat_n(k.clone(), extra));
                }
                out
            };
            let missing = minus(&want, &got);
            let unexpected = minus(&got, &want);
            return Ok((
                false,
                format!(
                    "call_set mismatch — missing={}; unexpected={}",
                    list_repr(&missing),
                    list_repr(&unexpected[..unexpected.len().min(5)])
                ),
            ));
        }
        let total: usize = got.values().sum();
        return Ok((
            true,
            format!("call_set matched exactly ({total} named call(s))"),
        ));
    }
    if let Some(Value::Array(order)) = a.get("order").filter(|o| truthy(Some(o))) {
        let patterns: Vec<String> = order.iter().map(str_of).collect();
        return Ok(match in_order(&patterns, &selected, ci)? {
            Ok(matched) => (
                true,
                format!("matched tool-call order: {}", list_repr(&matched)),
            ),
            Err((pattern, cursor, matched)) => (
                false,
                format!(
                    "missing ordered tool call /{pattern}/ after index {cursor}; matched={}",
                    list_repr(&matched)
                ),
            ),
        });
    }
    let pattern = a.get("pattern").filter(|p| truthy(Some(p)));
    let hits: Vec<&String> = match pattern {
        Some(p) => {
            let p = str_of(p);
            let mut hits = Vec::new();
            for c in &selected {
                if regex_hit(&p, c, ci)? {
                    hits.push(c);
                }
            }
            hits
        }
        None => selected.iter().collect(),
    };
    let min_count = py_int(a.get("min_count"), 1)?;
    let tool_text = tool.map(str_of).unwrap_or_else(|| "<any>".into());
    let pattern_text = pattern.map(str_of).unwrap_or_else(|| "<any>".into());
    if (hits.len() as i128) < min_count {
        return Ok((
            false,
            format!(
                "{} matching tool call(s) < min_count {min_count} (tool={tool_text}, pattern={pattern_text})",
                hits.len()
            ),
        ));
    }
    let max_count = match a.get("max_count") {
        Some(Value::Bool(b)) => Some(i128::from(*b)),
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => py_int(a.get("max_count"), 0).ok(),
        _ => None,
    };
    if let Some(max) = max_count.filter(|m| hits.len() as i128 > *m) {
        return Ok((
            false,
            format!("{} matching tool call(s) > max_count {max}", hits.len()),
        ));
    }
    let detail = hits
        .first()
        .map(|h| format!("; first={}", str_repr(h)))
        .unwrap_or_default();
    Ok((
        true,
        format!("{} matching tool call(s){detail}", hits.len()),
    ))
}
