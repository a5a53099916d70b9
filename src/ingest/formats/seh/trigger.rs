//! Trigger reports of `skill-trigger-matrix` / `skill-pi-trigger-eval`
//! (docs/harnesses.md §C.12): one observation per results[] row. 0.6.0 rows carry
//! no repetition, so it comes from the trace_dir's run-<n> when present,
//! else an ordinal within (agent, model, query) in file order.

use std::collections::HashMap;

use serde_json::Value;

use crate::ingest::kernel::{parse_run_segment, peer, report_experiment};
use crate::json::{json_text, Get};
use crate::model::records::{key, Records, TriggerObsRec};

pub fn looks_like_trigger_report(doc: &Value) -> bool {
    doc.str_at("evidence_class") == Some("raw_autonomous_trigger_measurement")
        || (doc.get("results").is_some_and(Value::is_array)
            && doc
                .get("results")
                .and_then(Value::as_array)
                .and_then(|r| r.first())
                .is_some_and(|r| r.str_at("population") == Some("trigger")))
}

pub fn parse(doc: &Value, path: &str, release: &str, records: &mut Records) {
    let skill = doc.str_at("skill_name");
    let rows = doc
        .get("results")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut ordinals: HashMap<(String, String, String), i64> = HashMap::new();
    for (i, row) in rows.iter().enumerate() {
        let agent = row.str_at("agent").map(str::to_string);
        let model = row.str_at("model").map(str::to_string);
        let query = row.str_at("query").map(str::to_string);
        let trace_dir = row.str_at("trace_dir");
        let from_dir = trace_dir.and_then(|d| {
            std::path::Path::new(d)
                .file_name()
                .and_then(|n| parse_run_segment(&n.to_string_lossy()))
        });
        let cell = (
            agent.clone().unwrap_or_default(),
            model.clone().unwrap_or_default(),
            query.clone().unwrap_or_default(),
        );
        let ordinal = ordinals.entry(cell).or_insert(0);
        *ordinal += 1;
        let (repetition, repetition_source) = match (row.i64_at("run_number"), from_dir) {
            (Some(n), _) => (n, "run_number"),
            (None, Some(n)) => (n, "trace_dir"),
            (None, None) => (*ordinal, "synthetic"),
        };
        let row_index = i.to_string();
        let triggered = row.bool_at("triggered");
        records.trigger_observations.push(TriggerObsRec {
            obs_id: key(&[Some("trigger"), Some(path), Some(&row_index)]),
            source_path: path.to_string(),
            release_label: release.to_string(),
            skill_name: skill.map(str::to_string),
            agent,
            model,
            query_id: row.str_at("query_id").map(str::to_string),
            query_text: query,
            should_trigger: row.bool_at("should_trigger"),
            repetition: Some(repetition),
            repetition_source: Some(repetition_source.into()),
            runs: 1,
            triggered_runs: triggered.map(i64::from),
            triggered,
            observation_complete: row.bool_at("observation_complete"),
            passed: row.bool_at("pass"),
            evidence: json_text(row.get("evidence_typed").or(row.get("evidence"))),
            elapsed_ms: row.f64_at("elapsed_ms"),
            ablation: json_text(row.get("ablation")),
            skill_tree_hash: row
                .str_at("skill_tree_hash")
                .or(doc.str_at("skill_tree_hash"))
                .map(str::to_string),
            evidence_class: doc.str_at("evidence_class").map(str::to_string),
            trace_dir: trace_dir.map(str::to_string),
            experiment: Some(report_experiment(path)),
        });
    }
    let src = peer::PeerSource {
        path,
        report_kind: "trigger_matrix",
        release,
        skill_name: skill,
    };
    peer::flatten(doc, &src, &["results"], &mut records.peer_metrics);
}
