//! A run's metadata.json, timing.json, metrics files and environment.json,
//! read for the keys ingest uses (run_dir.rs, telemetry.rs) without building
//! their trees. Most of each file is the v3 telemetry envelope: every
//! measurement with its basis, of which ingest keeps a few strings, the
//! value, and the basis as compact text.

use std::collections::HashMap;

use serde::de::{Deserialize, MapAccess};
use serde_json::{Map, Value};

use crate::json::fields::{fields_or_default, skip_value, CompactText, Fields, ObjectOf};
use crate::json::{compact_lenient, parse_lenient, parse_lenient_as};

/// One document's top-level keys that ingest reads, or (merged) the run's.
#[derive(Debug, Default)]
pub struct MetricsDoc {
    /// The keys of `KEYS` the document has, other than `telemetry`.
    pub fields: Map<String, Value>,
    /// `telemetry`, if the document has the key (whatever its value).
    pub telemetry: Option<Telemetry>,
}

impl Fields for MetricsDoc {
    /// Every top-level key run_dir.rs and telemetry.rs read.
    const KEYS: &'static [&'static str] = &[
        // identity and status (run_dir.rs)
        "case_id",
        "variant",
        "run_number",
        "model",
        "provider",
        "population",
        "returncode",
        "timed_out",
        "timeout",
        "observation_complete",
        "trace_observation_complete",
        "skill_tree_hash",
        // how the run ended (after 0.6.0; run_dir.rs RunEnding)
        "stop_class",
        "stop_reason",
        "requested_model",
        "served_model",
        "served_model_check",
        "effort",
        // a trigger-run trace's observation (trigger_trace.rs)
        "triggered",
        "evidence",
        "ablation",
        // measurements before v3 (telemetry.rs)
        "telemetry",
        "telemetry_schema_version",
        "usage_normalized",
        "cost_normalized",
        "cost_usd",
        "cost",
        "duration_ms",
        "skill_invocation_evidence",
        "skill_invoked",
        "input_tokens",
        "output_tokens",
        "total_tokens",
        "elapsed_ms",
        "tool_calls",
        "commands",
        "file_reads",
        "file_writes",
        "errors",
        "retries",
        "repeated_command_max",
    ];

    fn read<'de, A: MapAccess<'de>>(
        &mut self,
        key: &'static str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match key {
            "telemetry" => self.telemetry = Some(fields_or_default(map)?),
            _ => {
                self.fields.insert(key.to_string(), map.next_value()?);
            }
        }
        Ok(())
    }
}

impl MetricsDoc {
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.fields.get(key)
    }

    /// Documents merged key by key, a later one's key winning (the
    /// harness's `read_metrics_base`: dict.update in order).
    pub fn merge(docs: impl IntoIterator<Item = MetricsDoc>) -> MetricsDoc {
        let mut merged = MetricsDoc::default();
        for doc in docs {
            merged.fields.extend(doc.fields);
            if doc.telemetry.is_some() {
                merged.telemetry = doc.telemetry;
            }
        }
        merged
    }
}

/// The v3 telemetry envelope's keys ingest reads.
#[derive(Debug, Default)]
pub struct Telemetry {
    pub schema_version: Option<Value>,
    /// None when absent or not an object.
    pub measurements: Option<Measurements>,
}

impl Fields for Telemetry {
    const KEYS: &'static [&'static str] = &["schema_version", "measurements"];

    fn read<'de, A: MapAccess<'de>>(
        &mut self,
        key: &'static str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match key {
            "schema_version" => self.schema_version = Some(map.next_value()?),
            _ => self.measurements = map.next_value::<ObjectOf<Measurements>>()?.0,
        }
        Ok(())
    }
}

/// The measurements ingest stores, by metric name.
#[derive(Debug, Default)]
pub struct Measurements(pub HashMap<&'static str, Measurement>);

impl Fields for Measurements {
    /// telemetry.rs's TOKEN_METRICS, cost, elapsed_ms, COUNTER_METRICS and skill_invoked.
    const KEYS: &'static [&'static str] = &[
        "input_tokens",
        "output_tokens",
        "total_tokens",
        "cost",
        "elapsed_ms",
        "tool_calls",
        "commands",
        "file_reads",
        "file_writes",
        "errors",
        "retries",
        "repeated_command_max",
        "skill_invoked",
    ];

    fn read<'de, A: MapAccess<'de>>(
        &mut self,
        key: &'static str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        self.0.insert(key, fields_or_default(map)?);
        Ok(())
    }
}

/// One v3 measurement `{availability, value, provenance, reason, basis}`
/// (a measurement that is not an object has none of them).
#[derive(Debug, Default)]
pub struct Measurement {
    pub availability: Option<Value>,
    pub reason: Option<Value>,
    pub provenance: Option<Value>,
    pub value: Option<Value>,
    /// Compact JSON text; None when absent or null.
    pub basis: Option<String>,
}

impl Fields for Measurement {
    const KEYS: &'static [&'static str] =
        &["availability", "reason", "provenance", "value", "basis"];

    fn read<'de, A: MapAccess<'de>>(
        &mut self,
        key: &'static str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        let slot = match key {
            "availability" => &mut self.availability,
            "reason" => &mut self.reason,
            "provenance" => &mut self.provenance,
            "value" => &mut self.value,
            _ => {
                self.basis = map.next_value::<CompactText>()?.0;
                return Ok(());
            }
        };
        *slot = Some(map.next_value()?);
        Ok(())
    }
}

/// A document read: its keys, and with `with_text` its compact text.
pub struct ReadDoc {
    pub doc: MetricsDoc,
    pub text: Option<String>,
}

/// [`MetricsDoc`] read with its telemetry, or (`false`) skipping it: a run's
/// metadata carries the same envelope its metrics.json replaces.
#[derive(Default)]
struct Reading<const TELEMETRY: bool>(MetricsDoc);

impl<const TELEMETRY: bool> Fields for Reading<TELEMETRY> {
    const KEYS: &'static [&'static str] = MetricsDoc::KEYS;

    fn read<'de, A: MapAccess<'de>>(
        &mut self,
        key: &'static str,
        map: &mut A,
    ) -> Result<(), A::Error> {
        match key == "telemetry" && !TELEMETRY {
            true => skip_value(map),
            false => self.0.read(key, map),
        }
    }
}

/// Read one document leniently (json.rs): Ok(None) when it is JSON but not
/// an object. Without `with_telemetry` its telemetry is checked and skipped.
/// A document the quick reading refuses is read again as a tree, so that
/// invalid JSON is told with the very error it always was.
pub fn read(
    bytes: &[u8],
    with_text: bool,
    with_telemetry: bool,
) -> Result<Option<ReadDoc>, String> {
    if let Some(read) = read_quickly(bytes, with_text, with_telemetry) {
        return Ok(read);
    }
    let tree = parse_lenient(bytes)?;
    let doc = ObjectOf::<MetricsDoc>::deserialize(&tree).map_err(|e| e.to_string())?;
    Ok(doc.0.map(|doc| ReadDoc {
        doc,
        text: with_text.then(|| tree.to_string()),
    }))
}

fn read_quickly(bytes: &[u8], with_text: bool, with_telemetry: bool) -> Option<Option<ReadDoc>> {
    let text = match with_text {
        true => Some(compact_lenient(bytes).ok()?),
        false => None,
    };
    let doc = match with_telemetry {
        true => read_fields::<true>(bytes)?,
        false => read_fields::<false>(bytes)?,
    };
    Some(doc.map(|doc| ReadDoc { doc, text }))
}

/// The document's keys (None: not an object), or None when the quick
/// reading refuses it.
fn read_fields<const TELEMETRY: bool>(bytes: &[u8]) -> Option<Option<MetricsDoc>> {
    let read = parse_lenient_as::<ObjectOf<Reading<TELEMETRY>>>(bytes).ok()?;
    Some(read.0.map(|r| r.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::formats::seh::telemetry::{COUNTER_METRICS, TOKEN_METRICS};

    #[test]
    fn every_measurement_telemetry_stores_is_read() {
        let wanted = TOKEN_METRICS.iter().chain(COUNTER_METRICS).chain(&[
            "cost",
            "elapsed_ms",
            "skill_invoked",
        ]);
        for metric in wanted {
            assert!(Measurements::KEYS.contains(metric), "{metric}");
        }
    }

    /// The quick reading against the tree's, on documents of every shape:
    /// the same keys with the same values, the same text, the same errors.
    #[test]
    fn the_quick_reading_is_the_trees() {
        let deep = format!("{{\"x\": {}{}}}", "[".repeat(200), "]".repeat(200));
        let docs: &[&[u8]] = &[
            br#"{"model": "m", "returncode": 0, "other": {"model": "x"}, "population": null}"#,
            br#"{"telemetry": {"schema_version": 3, "measurements": {"cost": {"availability": "available", "value": {"amount": "0.1"}, "basis": {"b": [1, 2.5]}}, "commands": 7, "unknown": {}}}}"#,
            br#"{"telemetry": [1], "elapsed_ms": NaN, "cost": 1e400}"#,
            b"\xef\xbb\xbf{\"case_id\": \"c\\u00e9\"}",
            br#"["not", "an", "object"]"#,
            br#"{"skill_invoked": true"#,
            b"{\"stderr\": \"\xff\"}",
            br#"{"stderr": "\ud800"}"#,
            deep.as_bytes(),
        ];
        for bytes in docs {
            let tree = parse_lenient(bytes);
            let read = read(bytes, true, true);
            let text = String::from_utf8_lossy(bytes);
            match (&tree, &read) {
                (Err(a), Err(b)) => assert_eq!(a, b, "{text}"),
                (Ok(Value::Object(map)), Ok(Some(read))) => {
                    assert_eq!(
                        read.text.as_deref(),
                        Some(&*Value::Object(map.clone()).to_string()),
                        "{text}"
                    );
                    for key in MetricsDoc::KEYS.iter().filter(|k| **k != "telemetry") {
                        assert_eq!(read.doc.get(key), map.get(*key), "{text}: {key}");
                    }
                    assert_eq!(read.doc.telemetry.is_some(), map.contains_key("telemetry"));
                }
                (Ok(v), Ok(None)) => assert!(!v.is_object(), "{text}"),
                _ => panic!("{text}: tree {tree:?}, quick {}", read.is_ok()),
            }
        }
    }

    #[test]
    fn a_measurement_keeps_its_strings_value_and_basis_text() {
        let bytes = br#"{"telemetry": {"schema_version": 3, "measurements": {
            "cost": {"availability": "available", "value": {"amount": "0.1"}, "basis": {"b": [1, 2.5]}, "reason": null},
            "commands": 7}}}"#;
        let read = read(bytes, false, true).unwrap().unwrap();
        let tel = read.doc.telemetry.unwrap();
        assert_eq!(tel.schema_version, Some(Value::from(3)));
        let m = tel.measurements.unwrap().0;
        let cost = &m["cost"];
        assert_eq!(cost.availability, Some(Value::from("available")));
        assert_eq!(cost.value, Some(serde_json::json!({"amount": "0.1"})));
        assert_eq!(cost.basis.as_deref(), Some(r#"{"b":[1,2.5]}"#));
        assert_eq!(cost.reason, Some(Value::Null));
        // Not an object: a measurement with nothing in it.
        assert!(m["commands"].availability.is_none() && m["commands"].value.is_none());
    }

    #[test]
    fn merged_documents_take_each_key_from_the_last_that_has_it() {
        let a = read(
            br#"{"model": "a", "cost": 1, "telemetry": {"schema_version": 2}}"#,
            false,
            true,
        )
        .unwrap()
        .unwrap()
        .doc;
        let b = read(br#"{"cost": null}"#, false, true)
            .unwrap()
            .unwrap()
            .doc;
        let merged = MetricsDoc::merge([a, b]);
        assert_eq!(merged.get("model"), Some(&Value::from("a")));
        assert_eq!(merged.get("cost"), Some(&Value::Null));
        assert_eq!(
            merged.telemetry.unwrap().schema_version,
            Some(Value::from(2))
        );
    }

    #[test]
    fn a_document_read_without_telemetry_has_none_but_is_checked() {
        let bytes = br#"{"model": "m", "telemetry": {"schema_version": 3}}"#;
        let read = read(bytes, false, false).unwrap().unwrap();
        assert!(read.doc.telemetry.is_none());
        assert_eq!(read.doc.get("model"), Some(&Value::from("m")));
        assert!(super::read(br#"{"telemetry": [1,]}"#, false, false).is_err());
    }

    /// A repeated key: its last value is read, as Python's json and a tree
    /// read it; the stored text keeps each (json_fields::compact).
    #[test]
    fn a_repeated_key_is_read_for_its_last_value() {
        let bytes = br#"{"model": "m", "returncode": 0, "model": null}"#;
        let read = read(bytes, true, true).unwrap().unwrap();
        assert_eq!(read.doc.get("model"), Some(&Value::Null));
        assert_eq!(
            read.text.as_deref(),
            Some(r#"{"model":"m","returncode":0,"model":null}"#)
        );
    }
}
