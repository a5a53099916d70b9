//! events.json (normalized trace events) and trace.jsonl (raw provider
//! stream) of one run.

use serde_json::Value;

use crate::json::{json_text, Get};
use crate::model::records::{TraceEventRec, TraceLineRec};

const EVENT_TYPES: &[&str] = &[
    "skill_load",
    "command",
    "tool_call",
    "file_write",
    "file_read",
    "error",
    "message",
    "metric",
    "event",
    "turn",
];

/// `{schema_version, source, events: [...]}` or a bare list (schema 1).
pub fn parse_events(run_id: &str, doc: &Value) -> Result<Vec<TraceEventRec>, String> {
    let (events, schema, source) = match doc {
        Value::Array(list) => (list, 1, None),
        Value::Object(_) => (
            doc.get("events")
                .and_then(Value::as_array)
                .ok_or("no 'events' list")?,
            doc.i64_at("schema_version").unwrap_or(1),
            doc.str_at("source"),
        ),
        _ => return Err("expected an object with 'events' or a list".into()),
    };
    let mut out = Vec::with_capacity(events.len());
    for (i, e) in events.iter().enumerate() {
        let raw_type = e.str_at("type").unwrap_or("event");
        let event_type = if EVENT_TYPES.contains(&raw_type) {
            raw_type
        } else {
            "event"
        };
        // Schema-1 events carry no status and are read as completed (C.4).
        let (status, state_source) = match e.str_at("status") {
            Some(s) => (
                Some(s.to_string()),
                e.str_at("state_source").map(str::to_string),
            ),
            None if schema < 2 => (
                Some("completed".to_string()),
                Some("legacy_assumed_completed".to_string()),
            ),
            None => (Some("unknown".to_string()), Some("unknown".to_string())),
        };
        out.push(TraceEventRec {
            run_id: run_id.to_string(),
            seq: e.i64_at("index").unwrap_or(i as i64 + 1),
            event_type: event_type.to_string(),
            status,
            state_source,
            name: e.str_at("name").map(str::to_string),
            input_summary: e.str_at("input_summary").map(str::to_string),
            output_summary: e.str_at("output_summary").map(str::to_string),
            exit_code: e.i64_at("exit_code"),
            duration_ms: e.f64_at("duration_ms"),
            ts: e.at("timestamp").map(|t| match t {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            }),
            turn: e.i64_at("turn"),
            tokens: json_text(e.get("tokens")),
            raw_ref: json_text(e.get("raw_ref")),
            source: e.str_at("source").or(source).map(str::to_string),
        });
    }
    // Event indexes should be unique; fall back to positions when they are not.
    let mut seen = std::collections::HashSet::new();
    if !out.iter().all(|e| seen.insert(e.seq)) {
        for (i, e) in out.iter_mut().enumerate() {
            e.seq = i as i64 + 1;
        }
    }
    Ok(out)
}

/// trace.jsonl kept verbatim, one row per non-blank line.
pub fn trace_lines(run_id: &str, bytes: &[u8]) -> Vec<TraceLineRec> {
    String::from_utf8_lossy(bytes)
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| TraceLineRec {
            run_id: run_id.to_string(),
            line_no: i as i64 + 1,
            line: l.to_string(),
        })
        .collect()
}
