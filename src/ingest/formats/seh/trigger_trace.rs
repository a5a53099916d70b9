//! Trigger-run trace folders (docs/harnesses.md §C.12): what
//! `skill-trigger-matrix --trace-runs` and `skill-pi-trigger-eval
//! --trace-runs` leave per observation, `<root>/<agent>/<model>/query-NNN-<label>/run-N`
//! (the matrix) or `<root>/query-NNN-<label>/run-N` (pi). Each folder's
//! metadata.json says who ran it, whether the skill loaded and whether the
//! observation is complete, but not the query: that comes from the
//! manifest's trigger cases, matched by the label the harness made of the
//! query. One observation per folder, as the harness's report rows.

use std::path::Path;

use serde_json::Value;

use crate::ingest::kernel::trigger_query::{safe_trace_label, TriggerQuery};
use crate::ingest::kernel::{name_of, parse_run_segment};
use crate::json::{json_text, Get};
use crate::model::records::{key, Records, TriggerObsRec};

/// The query folder `query-NNN-<label>` split: (NNN, label).
fn query_folder(name: &str) -> Option<(usize, &str)> {
    let rest = name.strip_prefix("query-")?;
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let index = rest[..digits].parse().ok()?;
    Some((index, rest[digits..].strip_prefix('-').unwrap_or("")))
}

/// The manifest query a folder label names; of several with one label, the
/// one at the folder's position among the trigger cases.
fn query_for<'a>(
    queries: &'a [TriggerQuery],
    index: usize,
    label: &str,
) -> Option<&'a TriggerQuery> {
    let mut named = queries
        .iter()
        .enumerate()
        .filter(|(_, q)| q.label() == label);
    let first = named.next()?;
    Some(
        std::iter::once(first)
            .chain(named)
            .find(|(i, _)| i + 1 == index)
            .unwrap_or(first)
            .1,
    )
}

/// One trigger-run folder's observation. `queries`: the manifests' trigger
/// cases; `skill_of` maps a case id to its skill. Without a manifest query
/// for its label the observation keeps the label as its query and no
/// polarity (trigger_rates then cannot say whether it should have fired).
pub fn observation(
    run_dir: &Path,
    metadata: &Value,
    release: &str,
    queries: &[TriggerQuery],
    skill_of: impl Fn(&str) -> Option<String>,
    records: &mut Records,
) {
    let dir = run_dir.display().to_string();
    let repetition = name_of(run_dir).and_then(|n| parse_run_segment(&n));
    let query_dir = if repetition.is_some() {
        run_dir.parent().unwrap_or(run_dir)
    } else {
        run_dir
    };
    let (index, label) = name_of(query_dir)
        .as_deref()
        .and_then(query_folder)
        .map_or((0, String::new()), |(i, l)| (i, l.to_string()));
    let agent = metadata.str_at("provider").map(str::to_string);
    let model = metadata.str_at("model").map(str::to_string);
    let experiment = trace_root(query_dir, agent.as_deref(), model.as_deref());
    let asked = query_for(queries, index, &label);
    let triggered = metadata.bool_at("triggered");
    let complete = metadata.bool_at("observation_complete");
    let should_trigger = asked.map(|q| q.should_trigger);
    records.trigger_observations.push(TriggerObsRec {
        obs_id: key(&[Some("trigger"), Some(&dir)]),
        source_path: dir.clone(),
        release_label: release.to_string(),
        skill_name: asked.and_then(|q| skill_of(&q.case_id)),
        agent,
        model,
        query_id: asked.map(|q| q.case_id.clone()),
        query_text: Some(asked.map_or(label, |q| q.query.clone())),
        should_trigger,
        repetition,
        repetition_source: Some(
            if repetition.is_some() {
                "run_dir"
            } else {
                "single"
            }
            .into(),
        ),
        runs: 1,
        triggered_runs: triggered.map(i64::from),
        triggered,
        observation_complete: complete,
        // The harness's pass: a complete observation that fired as it should.
        passed: match (complete, triggered, should_trigger) {
            (Some(c), Some(t), Some(s)) => Some(c && t == s),
            _ => None,
        },
        evidence: json_text(metadata.get("evidence")),
        elapsed_ms: metadata.f64_at("elapsed_ms"),
        ablation: json_text(metadata.get("ablation")),
        skill_tree_hash: metadata.str_at("skill_tree_hash").map(str::to_string),
        evidence_class: Some("raw_autonomous_trigger_measurement".into()),
        trace_dir: Some(dir),
        experiment,
    });
}

/// The folder the runner was given (`--trace-runs`) made its run under: the
/// matrix's `matrix-*` folder above `<agent>/<model>`, else the folder
/// holding the query folders. Its name is the observations' experiment.
fn trace_root(query_dir: &Path, agent: Option<&str>, model: Option<&str>) -> Option<String> {
    let segment = |text: Option<&str>, fallback: &str| {
        let label = safe_trace_label(text.unwrap_or(fallback));
        let label = label.trim_matches(['.', '-']);
        if label.is_empty() {
            fallback.to_string()
        } else {
            label.to_string()
        }
    };
    let model_dir = query_dir.parent()?;
    let agent_dir = model_dir.parent();
    let matrix = name_of(model_dir) == Some(segment(model, "default"))
        && agent_dir.and_then(name_of) == Some(segment(agent, "agent"));
    match (matrix, agent_dir.and_then(Path::parent)) {
        (true, Some(root)) => name_of(root),
        _ => name_of(model_dir),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_folders_split_as_the_harness_names_them() {
        assert_eq!(query_folder("query-012-a-b"), Some((12, "a-b")));
        assert_eq!(query_folder("run-1"), None);
    }
}
