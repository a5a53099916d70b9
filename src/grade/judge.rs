//! Judge, rubric and factuality assertions (docs/grading.md §4.11): never judged
//! here, but merged from stored judge verdicts exactly as skill-benchmark
//! 0.6.0 merges `--judge-results` (`validated_result_row`, then
//! `merged_qualitative_entry`). A verdict the harness would refuse (it stops
//! the whole benchmark) makes the row unavailable, with the harness's reason.

use serde_json::{Map, Value};

use super::pyvalue::{float_repr, str_of, str_repr, truthy};

/// The canned rubric `factuality` expands to (`JUDGE_PRESETS`).
const FACTUALITY_RUBRIC: [&str; 4] = [
    "Every factual claim in the candidate output is supported by the prompt, the provided input files, or common knowledge — no invented names, numbers, dates, APIs, or citations.",
    "Claims that go beyond the provided material are explicitly marked as assumptions or uncertainty, not stated as fact.",
    "Nothing in the candidate output contradicts the provided material.",
    "5 = fully grounded; 3 = minor unsupported embellishment; 1 = fabricated specifics stated as fact.",
];

/// `expand_judge_preset`: `factuality` (as a type, or `preset` on a judge or
/// rubric) gains its name, rubric and threshold where the assertion has none.
pub fn expand_preset(a: &Value) -> Value {
    let kind = a.get("type").and_then(Value::as_str);
    let preset = match kind {
        Some("judge" | "rubric") => a.get("preset"),
        _ => a.get("type"),
    };
    let name = preset
        .filter(|p| truthy(Some(p)))
        .map(str_of)
        .unwrap_or_default();
    let Value::Object(fields) = a else {
        return a.clone();
    };
    if name != "factuality" {
        return a.clone();
    }
    let mut expanded = fields.clone();
    expanded
        .entry("name")
        .or_insert_with(|| Value::String(name));
    expanded.entry("rubric").or_insert_with(|| {
        FACTUALITY_RUBRIC
            .iter()
            .map(|s| Value::String(s.to_string()))
            .collect()
    });
    expanded.entry("threshold").or_insert(Value::from(4));
    Value::Object(expanded)
}

/// `judge_task_id`: the model segment only on model-fanned runs.
pub fn task_id(case_id: &str, model: Option<&str>, variant: &str, run: i64, label: &str) -> String {
    let model = model.map(|m| format!("{m}::")).unwrap_or_default();
    format!("{case_id}::{model}{variant}::run-{run}::{label}")
}

/// A judge verdict as `judge_verdict.verdict_from_dict` types it.
enum Kind {
    Boolean {
        passed: bool,
    },
    Scored {
        score: f64,
        threshold: f64,
        passed: bool,
    },
    Dimensions {
        pairs: Vec<(String, f64)>,
        score: f64,
        threshold: f64,
        passed: bool,
    },
    Dynamic {
        criteria: Vec<(String, bool)>,
        minimum: i64,
        score: f64,
        passed: bool,
    },
    Consensus {
        passed: bool,
        score: Option<f64>,
    },
}

const SEMANTIC: [&str; 6] = [
    "passed",
    "score",
    "threshold",
    "dimension_scores",
    "criteria",
    "minimum_criteria",
];

fn allowed(kind: &str) -> &'static [&'static str] {
    match kind {
        "boolean" => &["passed"],
        "scored" => &["passed", "score", "threshold"],
        "dimensions" => &["passed", "score", "threshold", "dimension_scores"],
        "dynamic" => &["passed", "score", "criteria", "minimum_criteria"],
        _ => &["passed", "score"],
    }
}

/// `_number`: a finite int or float, not a bool.
fn number(v: Option<&Value>, label: &str) -> Result<f64, String> {
    match v {
        Some(Value::Number(n)) => n.as_f64().filter(|x| x.is_finite()),
        _ => None,
    }
    .ok_or_else(|| format!("{label} must be a finite number"))
}

/// `_passed`: a bool.
fn passed_of(v: Option<&Value>) -> Result<bool, String> {
    v.and_then(Value::as_bool)
        .ok_or_else(|| "passed must be a boolean".to_string())
}

/// Python's `round(x, 4)` (correctly rounded, ties to even).
fn round4(x: f64) -> f64 {
    format!("{x:.4}").parse().unwrap_or(x)
}

/// `statistics.mean` of floats: the exact mean, rounded once. Inputs here are
/// normalised judge scores in [0, 1] with at most 60 fractional bits.
fn exact_mean(xs: &[f64]) -> f64 {
    const SCALE: f64 = (1u64 << 60) as f64;
    let sum: u128 = xs.iter().map(|x| (x * SCALE) as u128).sum();
    let n = xs.len() as u128;
    let scaled = sum << 60;
    let (q, r) = (scaled / n, scaled % n);
    // A set low bit stands for the remainder, so a tie rounds the right way.
    let q = if r != 0 { q | 1 } else { q };
    (q as f64) / SCALE / SCALE
}

fn verdict_from(raw: &Map<String, Value>, strict: bool) -> Result<Kind, String> {
    let explicit = raw.get("verdict_kind").filter(|v| !v.is_null());
    let kinds = ["boolean", "scored", "dimensions", "dynamic", "consensus"];
    let mut kind = match explicit {
        None => None,
        Some(Value::String(k)) if kinds.contains(&k.as_str()) => Some(k.as_str()),
        Some(other) => return Err(format!("unknown verdict_kind {}", repr(other))),
    };
    let (has_dims, has_dynamic) = (
        raw.contains_key("dimension_scores"),
        raw.contains_key("criteria"),
    );
    if has_dims && has_dynamic {
        return Err("judge verdict cannot mix dimensions and dynamic criteria".into());
    }
    if kind.is_none() {
        kind = Some(
            if raw.get("judge_model").and_then(Value::as_str) == Some("consensus")
                || raw.contains_key("judge_panel")
            {
                "consensus"
            } else if has_dims {
                "dimensions"
            } else if has_dynamic {
                "dynamic"
            } else if raw.get("score").is_some_and(|s| !s.is_null()) {
                "scored"
            } else if raw.contains_key("passed") {
                "boolean"
            } else {
                return Err("judge verdict has no recognized payload".into());
            },
        );
    }
    let kind = kind.expect("set above");
    let score_none = raw.get("score").is_none_or(Value::is_null);
    let mut foreign: Vec<&str> = SEMANTIC
        .iter()
        .copied()
        .filter(|k| raw.contains_key(*k))
        .filter(|k| !(*k == "score" && score_none))
        .filter(|k| !(*k == "threshold" && kind == "boolean" && score_none))
        .filter(|k| !allowed(kind).contains(k))
        .collect();
    foreign.sort();
    if !foreign.is_empty() {
        return Err(format!(
            "{kind} verdict cannot carry fields: {}",
            foreign.join(", ")
        ));
    }
    match kind {
        "boolean" => Ok(Kind::Boolean {
            passed: passed_of(raw.get("passed"))?,
        }),
        "scored" => {
            let threshold = match raw.get("threshold").filter(|t| !t.is_null()) {
                Some(t) => number(Some(t), "threshold")?,
                None if strict => return Err("stored scored verdict requires threshold".into()),
                None => 1.0,
            };
            let score = number(raw.get("score"), "score")?;
            let passed = match raw.get("passed") {
                Some(p) => passed_of(Some(p))?,
                None => score >= threshold,
            };
            if passed != (score >= threshold) {
                return Err("passed contradicts score and threshold".into());
            }
            Ok(Kind::Scored {
                score,
                threshold,
                passed,
            })
        }
        "dimensions" => {
            let Some(Value::Object(dims)) = raw.get("dimension_scores") else {
                return Err("dimension_scores must be an object".into());
            };
            let mut pairs = Vec::new();
            for (name, v) in dims {
                pairs.push((name.clone(), number(Some(v), &format!("dimension {name}"))?));
            }
            if pairs.iter().any(|(n, _)| n.is_empty()) {
                return Err("dimension names must be non-empty strings".into());
            }
            let Some(threshold) = raw.get("threshold").filter(|t| !t.is_null()) else {
                return Err("stored dimension verdict requires normalized threshold".into());
            };
            if pairs.is_empty() {
                return Err("dimension names must be non-empty and unique".into());
            }
            if pairs.iter().any(|(_, v)| !(1.0..=5.0).contains(v)) {
                return Err("dimension scores must be in [1,5]".into());
            }
            let normalized: Vec<f64> = pairs.iter().map(|(_, v)| (v - 1.0) / 4.0).collect();
            let derived = round4(exact_mean(&normalized));
            let threshold = number(Some(threshold), "threshold")?;
            let passed = match raw.get("passed") {
                Some(p) => passed_of(Some(p))?,
                None => derived >= threshold,
            };
            if !(0.0..=1.0).contains(&threshold) {
                return Err("dimension threshold must be normalized to [0,1]".into());
            }
            let score = match raw.get("score") {
                Some(s) => number(Some(s), "score")?,
                None => derived,
            };
            if (score - derived).abs() > 1e-9 {
                return Err("dimension aggregate score contradicts dimension_scores".into());
            }
            if passed != (derived >= threshold) {
                return Err("dimension passed contradicts score and threshold".into());
            }
            Ok(Kind::Dimensions {
                pairs,
                score: derived,
                threshold,
                passed,
            })
        }
        "dynamic" => {
            let Some(Value::Array(items)) = raw.get("criteria") else {
                return Err("criteria must be a list".into());
            };
            let mut criteria = Vec::new();
            for item in items {
                let Value::Object(c) = item else {
                    return Err("criterion must be an object".into());
                };
                match (c.get("name"), c.get("met")) {
                    (Some(Value::String(n)), Some(Value::Bool(m))) if !n.is_empty() => {
                        criteria.push((n.clone(), *m))
                    }
                    _ => {
                        return Err(
                            "stored dynamic criteria are not name/met pairs liftdb can check"
                                .into(),
                        )
                    }
                }
            }
            let minimum = match raw.get("minimum_criteria") {
                None | Some(Value::Null) => {
                    return Err("stored dynamic verdict requires minimum_criteria".into())
                }
                Some(Value::Number(n)) if n.is_i64() => n.as_i64().unwrap_or(0),
                Some(_) => return Err("minimum_criteria must be a positive integer".into()),
            };
            let met = criteria.iter().filter(|(_, m)| *m).count() as i64;
            let total = criteria.len() as i64;
            let expected = total >= minimum && met >= minimum;
            let passed = match raw.get("passed") {
                Some(p) => passed_of(Some(p))?,
                None => expected,
            };
            if minimum < 1 {
                return Err("minimum_criteria must be a positive integer".into());
            }
            let mut names: Vec<&String> = criteria.iter().map(|(n, _)| n).collect();
            names.sort();
            names.dedup();
            if criteria.is_empty() || names.len() != criteria.len() {
                return Err("dynamic criteria names must be non-empty and unique".into());
            }
            if minimum > total {
                return Err("minimum_criteria cannot exceed the number of criteria".into());
            }
            let derived = round4(met as f64 / total as f64);
            let score = match raw.get("score") {
                Some(s) => number(Some(s), "score")?,
                None => derived,
            };
            if (score - derived).abs() > 1e-9 || passed != expected {
                return Err("dynamic score/passed contradict criteria".into());
            }
            Ok(Kind::Dynamic {
                criteria,
                minimum,
                score: derived,
                passed,
            })
        }
        _ => {
            let passed = passed_of(raw.get("passed"))?;
            let score = match raw.get("score").filter(|s| !s.is_null()) {
                Some(s) => Some(number(Some(s), "score")?),
                None => None,
            };
            Ok(Kind::Consensus { passed, score })
        }
    }
}

/// `validated_result_row`: the row's other fields, then the verdict's own.
pub fn validate(raw: &Value) -> Result<Map<String, Value>, String> {
    let Value::Object(raw) = raw else {
        return Err("judge result row must be an object".into());
    };
    let kind = verdict_from(raw, true)?;
    let mut out: Map<String, Value> = raw
        .iter()
        .filter(|(k, _)| !SEMANTIC.contains(&k.as_str()) && *k != "verdict_kind")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let float = |x: f64| Value::from(x);
    let (name, passed) = match &kind {
        Kind::Boolean { passed } => ("boolean", *passed),
        Kind::Scored { passed, .. } => ("scored", *passed),
        Kind::Dimensions { passed, .. } => ("dimensions", *passed),
        Kind::Dynamic { passed, .. } => ("dynamic", *passed),
        Kind::Consensus { passed, .. } => ("consensus", *passed),
    };
    out.insert("verdict_kind".into(), Value::String(name.into()));
    out.insert("passed".into(), Value::Bool(passed));
    match kind {
        Kind::Scored {
            score, threshold, ..
        } => {
            out.insert("score".into(), float(score));
            out.insert("threshold".into(), float(threshold));
        }
        Kind::Dimensions {
            pairs,
            score,
            threshold,
            ..
        } => {
            out.insert("score".into(), float(score));
            out.insert("threshold".into(), float(threshold));
            let dims: Map<String, Value> = pairs.into_iter().map(|(n, v)| (n, float(v))).collect();
            out.insert("dimension_scores".into(), Value::Object(dims));
        }
        Kind::Dynamic {
            criteria,
            minimum,
            score,
            ..
        } => {
            out.insert("score".into(), float(score));
            out.insert("minimum_criteria".into(), Value::from(minimum));
            let list = criteria
                .into_iter()
                .map(|(n, m)| serde_json::json!({"name": n, "met": m}))
                .collect();
            out.insert("criteria".into(), Value::Array(list));
        }
        Kind::Consensus {
            score: Some(score), ..
        } => {
            out.insert("score".into(), float(score));
        }
        _ => {}
    }
    Ok(out)
}

/// `judge_verdict_passed` on a validated row: a score without threshold
/// passes at 1; a verdict that does not parse fails.
fn verdict_passed(judged: &Map<String, Value>) -> bool {
    let mut candidate = judged.clone();
    let kind = judged.get("verdict_kind").and_then(Value::as_str);
    if judged.get("score").is_some_and(|s| !s.is_null())
        && judged.get("threshold").is_none_or(Value::is_null)
        && !matches!(kind, Some("consensus" | "dynamic"))
    {
        candidate.insert("threshold".into(), Value::from(1));
    }
    match verdict_from(&candidate, false) {
        Ok(Kind::Boolean { passed })
        | Ok(Kind::Scored { passed, .. })
        | Ok(Kind::Dimensions { passed, .. })
        | Ok(Kind::Dynamic { passed, .. })
        | Ok(Kind::Consensus { passed, .. }) => passed,
        Err(_) => false,
    }
}

/// One merged row: passed, score (None when the verdict has none), evidence
/// (None when the verdict's evidence is null).
pub struct Merged {
    pub passed: bool,
    pub score: Option<f64>,
    pub evidence: Option<String>,
}

/// `merged_qualitative_entry` for an expanded assertion and its validated verdict.
pub fn merge(a: &Value, judged: &Map<String, Value>) -> Result<Merged, String> {
    let evidence = judged
        .get("evidence")
        .or_else(|| judged.get("rationale"))
        .or_else(|| judged.get("reasoning"))
        .cloned()
        .unwrap_or_else(|| Value::String("judge result supplied".into()));
    let dims = a.get("graded_dimensions").filter(|d| truthy(Some(d)));
    let dynamic = a.get("dynamic_rubric").filter(|d| truthy(Some(d)));
    if let (Some(dims), Some(Value::Object(scores))) = (dims, judged.get("dimension_scores")) {
        let declared: Vec<String> = match dims {
            Value::Array(items) => items
                .iter()
                .filter(|i| i.is_object())
                .map(|i| i.get("name").map(str_of).unwrap_or_else(|| "None".into()))
                .collect(),
            Value::Object(_) | Value::String(_) => Vec::new(),
            _ => {
                return Err(
                    "graded_dimensions is not iterable: skill-benchmark stops with a TypeError"
                        .into(),
                )
            }
        };
        let mut expected = declared.clone();
        expected.sort();
        expected.dedup();
        let mut given: Vec<&String> = scores.keys().collect();
        given.sort();
        if given
            .iter()
            .map(|s| s.as_str())
            .ne(expected.iter().map(String::as_str))
        {
            return Err("dimension_scores must exactly match the declared dimensions".into());
        }
        let raw: Vec<(String, f64)> = scores
            .iter()
            .filter_map(|(k, v)| v.as_f64().filter(|_| v.is_number()).map(|x| (k.clone(), x)))
            .collect();
        if raw.len() != expected.len()
            || !raw
                .iter()
                .all(|(_, v)| v.is_finite() && (1.0..=5.0).contains(v))
        {
            return Err("dimension scores must be finite numbers in [1,5]".into());
        }
        let normalized: Vec<f64> = raw.iter().map(|(_, v)| (v - 1.0) / 4.0).collect();
        let score = (!normalized.is_empty()).then(|| round4(exact_mean(&normalized)));
        let threshold_raw = match a.get("threshold") {
            None => 4.0,
            Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
            Some(Value::Bool(b)) => f64::from(u8::from(*b)),
            Some(Value::String(s)) => s
                .trim()
                .parse()
                .map_err(|_| "threshold is not a number: skill-benchmark stops".to_string())?,
            Some(_) => return Err("threshold is not a number: skill-benchmark stops".into()),
        };
        let threshold = ((threshold_raw - 1.0) / 4.0).clamp(0.0, 1.0);
        let mut sorted = raw.clone();
        sorted.sort_by(|x, y| x.0.cmp(&y.0));
        let dumped = sorted
            .iter()
            .map(|(k, v)| format!("{}: {}", json_str(k), float_repr(*v)))
            .collect::<Vec<_>>()
            .join(", ");
        return Ok(Merged {
            passed: score.is_some_and(|s| s >= threshold),
            score,
            evidence: Some(format!(
                "dimension scores (1-5): {{{dumped}}}; {}",
                str_of(&evidence)
            )),
        });
    }
    if let (Some(dynamic), Some(Value::Array(criteria))) = (dynamic, judged.get("criteria")) {
        let Value::Object(rubric) = dynamic else {
            return Err(
                "dynamic_rubric is not an object: skill-benchmark stops with an AttributeError"
                    .into(),
            );
        };
        let criteria: Vec<&Value> = criteria.iter().filter(|c| c.is_object()).collect();
        let met = criteria.iter().filter(|c| truthy(c.get("met"))).count();
        let total = criteria.len();
        let minimum = match rubric.get("minimum_criteria") {
            None => 3,
            Some(Value::Number(n)) if n.is_i64() => n.as_i64().unwrap_or(3),
            Some(Value::Number(n)) => n.as_f64().map_or(3, |f| f.trunc() as i64),
            Some(Value::Bool(b)) => i64::from(*b),
            Some(_) => return Err("minimum_criteria is not a number: skill-benchmark stops".into()),
        }
        .max(1);
        return Ok(Merged {
            passed: total as i64 >= minimum && met as i64 >= minimum,
            score: (total > 0).then(|| round4(met as f64 / total as f64)),
            evidence: Some(format!(
                "{met}/{total} dynamic criteria met (minimum {minimum}); {}",
                str_of(&evidence)
            )),
        });
    }
    Ok(Merged {
        passed: verdict_passed(judged),
        score: judged.get("score").and_then(Value::as_f64),
        evidence: match evidence {
            Value::Null => None,
            Value::String(s) => Some(s),
            other => Some(other.to_string()),
        },
    })
}

/// A string as `json.dumps` writes it (ASCII-escaped, as its default).
fn json_str(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn repr(v: &Value) -> String {
    match v {
        Value::String(s) => str_repr(s),
        other => str_of(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_and_means_follow_python() {
        // Python 3.11: round(0.03125, 4) == 0.0312; round(0.00015, 4) == 0.0001
        // (0.00015 is just below the tie in binary); statistics.mean([0.75, 1.0, 0.5]) == 0.75.
        assert_eq!(round4(0.03125), 0.0312);
        assert_eq!(round4(0.00015), 0.0001);
        assert_eq!(exact_mean(&[0.75, 1.0, 0.5]), 0.75);
        // statistics.mean([0.1, 0.2]) == 0.15000000000000002; naive (0.1 + 0.2) / 2 is 0.15000000000000002 too,
        // but statistics.mean([0.25, 0.5, 0.5]) == 0.4166666666666667.
        assert_eq!(exact_mean(&[0.25, 0.5, 0.5]), 0.4166666666666667);
    }

    #[test]
    fn stored_verdicts_are_checked_like_the_harness() {
        let v = |s: &str| serde_json::from_str::<Value>(s).unwrap();
        assert!(validate(&v(r#"{"passed": true}"#)).is_ok());
        assert_eq!(
            validate(&v(r#"{"score": 0.5}"#)).unwrap_err(),
            "stored scored verdict requires threshold"
        );
        assert_eq!(
            validate(&v(r#"{"score": 0.5, "threshold": 0.7, "passed": true}"#)).unwrap_err(),
            "passed contradicts score and threshold"
        );
        // Outputs of judge_verdict.validated_result_row (0.6.0) on the same rows.
        assert_eq!(
            validate(&v(r#"{"passed": true, "criteria": []}"#)).unwrap_err(),
            "stored dynamic verdict requires minimum_criteria"
        );
        // A threshold without a score is tolerated on a boolean verdict, and dropped.
        let boolean = validate(&v(r#"{"passed": true, "threshold": 0.5}"#)).unwrap();
        assert_eq!(
            Value::Object(boolean),
            v(r#"{"verdict_kind": "boolean", "passed": true}"#)
        );
        let scored = validate(&v(r#"{"score": 0.9, "threshold": 0.5}"#)).unwrap();
        assert_eq!(
            Value::Object(scored),
            v(r#"{"verdict_kind": "scored", "passed": true, "score": 0.9, "threshold": 0.5}"#)
        );
    }
}
