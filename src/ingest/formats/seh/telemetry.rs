//! Per-run measurements with the precedence of docs/harnesses.md §C.5 and docs/metrics.md §M9: the v3
//! telemetry envelope, else the normalized usage/cost blocks, else legacy
//! scalars (as `legacy_unverified`). The zero-traps are honoured: flat trace
//! counters count only when the trace observation was complete.

use std::collections::HashMap;

use serde_json::Value;

use super::metrics_doc::{Measurement, MetricsDoc};
use crate::json::{as_f64, as_whole_i64, json_text, Get};
use crate::model::records::{ActivationRec, MeasurementRec};

pub const TOKEN_METRICS: &[&str] = &["input_tokens", "output_tokens", "total_tokens"];
pub const COUNTER_METRICS: &[&str] = &[
    "tool_calls",
    "commands",
    "file_reads",
    "file_writes",
    "errors",
    "retries",
    "repeated_command_max",
];

fn unavailable(run_id: &str, metric: &str, reason: &str, basis: Option<String>) -> MeasurementRec {
    MeasurementRec {
        basis,
        ..MeasurementRec::unavailable(run_id, metric, reason)
    }
}

fn available(run_id: &str, metric: &str, value: f64, provenance: &str) -> MeasurementRec {
    // Amounts are set by the caller from the exact decimal text.
    MeasurementRec {
        amount: None,
        currency: None,
        ..MeasurementRec::available(run_id, metric, value, provenance)
    }
}

/// The v3 measurements, if the merged metrics carry them.
fn v3_measurements(merged: &MetricsDoc) -> Option<&HashMap<&'static str, Measurement>> {
    let tel = merged.telemetry.as_ref()?;
    let version = tel
        .schema_version
        .as_ref()
        .and_then(as_whole_i64)
        .or_else(|| {
            merged
                .get("telemetry_schema_version")
                .and_then(Value::as_i64)
        });
    if version != Some(3) {
        return None;
    }
    tel.measurements.as_ref().map(|m| &m.0)
}

/// A v3 entry's string (None when absent or of another type).
fn text(v: &Option<Value>) -> Option<&str> {
    v.as_ref().and_then(Value::as_str)
}

/// One measurement from a v3 entry `{availability, value, provenance, reason, basis}`.
fn from_v3(run_id: &str, metric: &str, m: &Measurement) -> MeasurementRec {
    let basis = m.basis.clone();
    let availability = text(&m.availability).unwrap_or("unavailable");
    if availability != "available" {
        let mut rec = unavailable(run_id, metric, text(&m.reason).unwrap_or("missing"), basis);
        rec.availability = availability.to_string();
        return rec;
    }
    let provenance = text(&m.provenance).unwrap_or("unknown");
    let value = m.value.as_ref();
    let mut rec = if metric == "cost" {
        let amount = value.and_then(|v| match v {
            Value::Object(o) => o.get("amount").cloned(),
            other => Some(other.clone()),
        });
        let amount_text = amount.as_ref().and_then(|a| match a {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        });
        let currency = value
            .and_then(|v| v.str_at("currency"))
            .unwrap_or("USD")
            .to_string();
        match amount_text.as_deref().and_then(|t| t.parse::<f64>().ok()) {
            Some(v) => MeasurementRec {
                amount: amount_text,
                currency: Some(currency),
                ..available(run_id, metric, v, provenance)
            },
            None => unavailable(run_id, metric, "invalid_v3_cost", None),
        }
    } else {
        match value.and_then(|v| v.as_bool().map(|b| b as i64 as f64).or_else(|| as_f64(v))) {
            Some(v) => available(run_id, metric, v, provenance),
            None => unavailable(run_id, metric, &format!("invalid_v3_{metric}"), None),
        }
    };
    rec.basis = basis;
    rec
}

fn usable_source(block: Option<&Value>) -> Option<&str> {
    let source = block?.str_at("source")?;
    (!matches!(source, "missing" | "not_applicable")).then_some(source)
}

fn legacy_tokens(run_id: &str, metric: &str, merged: &MetricsDoc) -> MeasurementRec {
    let usage = merged.get("usage_normalized");
    if let (Some(source), Some(v)) = (usable_source(usage), usage.and_then(|u| u.f64_at(metric))) {
        return available(run_id, metric, v, source);
    }
    if usage.and_then(|u| u.str_at("source")) == Some("not_applicable") {
        let mut rec = unavailable(run_id, metric, "not_applicable", None);
        rec.availability = "not_applicable".into();
        return rec;
    }
    // Zero-trap: pre-v3 files hold 0 for unknown usage; a 0 is not a measurement.
    match merged.get(metric).and_then(as_f64) {
        Some(v) if v > 0.0 => available(run_id, metric, v, "legacy_unverified"),
        _ => unavailable(run_id, metric, "missing", None),
    }
}

fn legacy_cost(run_id: &str, merged: &MetricsDoc) -> MeasurementRec {
    let cost = merged.get("cost_normalized");
    if let Some(source) = usable_source(cost) {
        if let Some(total) = cost.and_then(|c| c.get("total_cost")) {
            let amount = match total {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            };
            if let Some(v) = amount.as_deref().and_then(|a| a.parse::<f64>().ok()) {
                return MeasurementRec {
                    amount,
                    currency: Some(
                        cost.and_then(|c| c.str_at("currency"))
                            .unwrap_or("USD")
                            .into(),
                    ),
                    ..available(run_id, "cost", v, source)
                };
            }
        }
    }
    let legacy = merged
        .get("cost_usd")
        .or_else(|| merged.get("cost"))
        .and_then(as_f64);
    match legacy {
        Some(v) if v > 0.0 => MeasurementRec {
            amount: Some(v.to_string()),
            currency: Some("USD".into()),
            ..available(run_id, "cost", v, "legacy_unverified")
        },
        _ => unavailable(run_id, "cost", "missing", None),
    }
}

/// All measurements of one run, plus its skill activation observation.
pub fn extract(
    run_id: &str,
    skill_name: &str,
    merged: &MetricsDoc,
) -> (Vec<MeasurementRec>, ActivationRec) {
    let v3 = v3_measurements(merged);
    let trace_complete = merged
        .get("trace_observation_complete")
        .and_then(Value::as_bool)
        == Some(true);
    let mut out = Vec::new();

    for metric in TOKEN_METRICS {
        out.push(match v3.and_then(|m| m.get(*metric)) {
            Some(m) => from_v3(run_id, metric, m),
            None => legacy_tokens(run_id, metric, merged),
        });
    }
    out.push(match v3.and_then(|m| m.get("cost")) {
        Some(m) => from_v3(run_id, "cost", m),
        None => legacy_cost(run_id, merged),
    });
    out.push(match v3.and_then(|m| m.get("elapsed_ms")) {
        Some(m) => from_v3(run_id, "elapsed_ms", m),
        None => match merged
            .get("elapsed_ms")
            .or_else(|| merged.get("duration_ms"))
            .and_then(as_f64)
        {
            Some(v) => available(run_id, "elapsed_ms", v, "legacy_unverified"),
            None => unavailable(run_id, "elapsed_ms", "missing", None),
        },
    });
    for metric in COUNTER_METRICS {
        out.push(match v3.and_then(|m| m.get(*metric)) {
            Some(m) => from_v3(run_id, metric, m),
            None if trace_complete => match merged.get(metric).and_then(as_f64) {
                Some(v) => available(run_id, metric, v, "trace_normalized"),
                None => unavailable(run_id, metric, "missing", None),
            },
            None => unavailable(run_id, metric, "trace_observation_incomplete", None),
        });
    }

    let loaded = match v3.and_then(|m| m.get("skill_invoked")) {
        Some(m) if text(&m.availability) == Some("available") => {
            m.value.as_ref().and_then(Value::as_bool)
        }
        Some(_) => None,
        None if trace_complete => merged.get("skill_invoked").and_then(Value::as_bool),
        None => None,
    };
    let activation = ActivationRec {
        run_id: run_id.to_string(),
        skill_name: Some(skill_name.to_string()),
        loaded,
        evidence: json_text(merged.get("skill_invocation_evidence")),
        source: if v3.is_some() {
            "metrics_v3"
        } else {
            "metadata"
        }
        .into(),
    };
    (out, activation)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A run's metrics read as ingest reads a file of them.
    fn merged(v: Value) -> MetricsDoc {
        crate::ingest::formats::seh::metrics_doc::read(v.to_string().as_bytes(), false, true)
            .unwrap()
            .unwrap()
            .doc
    }

    #[test]
    fn flat_zero_counters_without_trace_are_unavailable() {
        let m = merged(
            json!({"tool_calls": 0, "commands": 0, "skill_invoked": false,
                              "trace_observation_complete": false}),
        );
        let (ms, act) = extract("r", "s", &m);
        let commands = ms.iter().find(|m| m.metric == "commands").unwrap();
        assert_eq!(commands.availability, "unavailable");
        assert_eq!(commands.value, None);
        assert_eq!(act.loaded, None);
    }

    #[test]
    fn v3_money_keeps_the_decimal_string() {
        let m = merged(
            json!({"telemetry_schema_version": 3, "telemetry": {"schema_version": 3,
            "measurements": {"cost": {"availability": "available",
                "value": {"amount": "0.003", "currency": "USD"}, "provenance": "provider_reported"}}}}),
        );
        let (ms, _) = extract("r", "s", &m);
        let cost = ms.iter().find(|m| m.metric == "cost").unwrap();
        assert_eq!(cost.amount.as_deref(), Some("0.003"));
        assert_eq!(cost.provenance.as_deref(), Some("provider_reported"));
    }

    #[test]
    fn legacy_zero_tokens_are_not_measurements() {
        let m = merged(json!({"input_tokens": 0}));
        let (ms, _) = extract("r", "s", &m);
        assert_eq!(ms[0].availability, "unavailable");
    }
}
