//! The tool's own aggregates, flattened into `peer_metric` rows (one per
//! JSON leaf, addressed by JSON pointer) so `reconcile` can put our numbers
//! beside theirs without a schema per report.

use serde_json::Value;

use crate::model::records::PeerMetricRec;

pub struct PeerSource<'a> {
    pub path: &'a str,
    pub report_kind: &'a str,
    pub release: &'a str,
    pub skill_name: Option<&'a str>,
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Flatten `doc`, skipping the top-level keys in `skip` (e.g. per-run rows).
pub fn flatten(doc: &Value, src: &PeerSource, skip: &[&str], out: &mut Vec<PeerMetricRec>) {
    if let Value::Object(map) = doc {
        for (k, v) in map {
            if !skip.contains(&k.as_str()) {
                walk(v, &format!("/{}", escape(k)), k, src, out);
            }
        }
    }
}

fn walk(v: &Value, path: &str, name: &str, src: &PeerSource, out: &mut Vec<PeerMetricRec>) {
    let leaf = |value: Option<f64>, text: Option<String>, availability: &str| PeerMetricRec {
        source_path: src.path.to_string(),
        report_kind: src.report_kind.to_string(),
        release_label: src.release.to_string(),
        skill_name: src.skill_name.map(str::to_string),
        json_path: path.to_string(),
        metric_name: name.to_string(),
        value,
        value_text: text,
        availability: availability.to_string(),
    };
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                walk(child, &format!("{path}/{}", escape(k)), k, src, out);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                walk(child, &format!("{path}/{i}"), name, src, out);
            }
        }
        Value::Null => out.push(leaf(None, None, "null")),
        Value::Bool(b) => out.push(leaf(
            Some(f64::from(u8::from(*b))),
            Some(b.to_string()),
            "available",
        )),
        Value::Number(n) => out.push(leaf(n.as_f64(), Some(n.to_string()), "available")),
        Value::String(s) => out.push(leaf(s.parse::<f64>().ok(), Some(s.clone()), "available")),
    }
}
