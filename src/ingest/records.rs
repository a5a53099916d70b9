//! The normalized model, and (with the `store` feature) its rows ready for DuckDB appenders. Each struct maps
//! to one table of `sql/migrations/0001_core.sql`; `row()` yields the values
//! in the table's column order.

use sha2::{Digest, Sha256};

#[cfg(feature = "store")]
pub use cells::*;
#[cfg(feature = "store")]
use duckdb::types::Value;

/// Typed DuckDB values (NULL for absent or non-finite), for `row()`.
#[cfg(feature = "store")]
mod cells {
    use duckdb::types::{TimeUnit, Value};

    pub type Row = Vec<Value>;

    pub fn text<S: AsRef<str>>(v: Option<S>) -> Value {
        v.map_or(Value::Null, |s| Value::Text(s.as_ref().to_string()))
    }
    pub fn int(v: Option<i64>) -> Value {
        v.map_or(Value::Null, Value::BigInt)
    }
    pub fn float(v: Option<f64>) -> Value {
        v.filter(|f| f.is_finite())
            .map_or(Value::Null, Value::Double)
    }
    pub fn boolean(v: Option<bool>) -> Value {
        v.map_or(Value::Null, Value::Boolean)
    }
    pub fn epoch_seconds(v: Option<f64>) -> Value {
        v.map_or(Value::Null, |s| {
            Value::Timestamp(TimeUnit::Microsecond, (s * 1_000_000.0) as i64)
        })
    }
}

/// Deterministic identity key: the same parts always give the same key, so
/// re-ingesting produces the same rows. `None` parts are distinct from "".
pub fn key(parts: &[Option<&str>]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        match p {
            Some(s) => {
                h.update([1u8]);
                h.update(s.as_bytes());
            }
            None => h.update([0u8]),
        }
        h.update([0x1f]);
    }
    h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[derive(Debug, Clone)]
pub struct SuiteRec {
    pub suite_id: String,
    pub release_label: String,
    pub skill_name: String,
    pub source_format: String,
    pub harness_name: Option<String>,
    pub harness_version: Option<String>,
    pub manifest_path: Option<String>,
    pub manifest_sha256: Option<String>,
    pub skill_tree_hash: Option<String>,
    pub variants: Option<String>,
    pub ablations: Option<String>,
}

impl SuiteRec {
    #[cfg(feature = "store")]
    pub fn row(&self, batch_id: i64) -> Row {
        vec![
            text(Some(&self.suite_id)),
            text(Some(&self.release_label)),
            text(Some(&self.skill_name)),
            text(Some(&self.source_format)),
            text(self.harness_name.as_ref()),
            text(self.harness_version.as_ref()),
            text(self.manifest_path.as_ref()),
            text(self.manifest_sha256.as_ref()),
            text(self.skill_tree_hash.as_ref()),
            text(self.variants.as_ref()),
            text(self.ablations.as_ref()),
            Value::BigInt(batch_id),
        ]
    }
}

#[derive(Debug, Clone, Default)]
pub struct CaseRec {
    pub case_pk: String,
    pub suite_id: String,
    pub release_label: String,
    pub skill_name: String,
    pub case_id: String,
    pub split: Option<String>,
    pub kind: Option<String>,
    pub population: Option<String>,
    pub polarity: Option<String>,
    pub eval_intent: Option<String>,
    pub domain: Option<String>,
    pub difficulty: Option<String>,
    pub trigger_type: Option<String>,
    pub prompt: Option<String>,
    pub expected_behavior: Option<String>,
    pub success_goals: Option<String>,
    pub tags: Option<String>,
    pub assertions: Option<String>,
    pub reference_floor: Option<f64>,
    pub raw: Option<String>,
    /// The file that defined the case (manifest, case.json, report).
    pub source_path: Option<String>,
}

impl CaseRec {
    #[cfg(feature = "store")]
    pub fn row(&self) -> Row {
        vec![
            text(Some(&self.case_pk)),
            text(Some(&self.suite_id)),
            text(Some(&self.release_label)),
            text(Some(&self.skill_name)),
            text(Some(&self.case_id)),
            text(self.split.as_ref()),
            text(self.kind.as_ref()),
            text(self.population.as_ref()),
            text(self.polarity.as_ref()),
            text(self.eval_intent.as_ref()),
            text(self.domain.as_ref()),
            text(self.difficulty.as_ref()),
            text(self.trigger_type.as_ref()),
            text(self.prompt.as_ref()),
            text(self.expected_behavior.as_ref()),
            text(self.success_goals.as_ref()),
            text(self.tags.as_ref()),
            text(self.assertions.as_ref()),
            float(self.reference_floor),
            text(self.raw.as_ref()),
            text(self.source_path.as_ref()),
        ]
    }
}

#[derive(Debug, Clone, Default)]
pub struct RunRec {
    pub run_id: String,
    pub release_label: String,
    pub native_batch: Option<String>,
    pub source_format: String,
    pub skill_name: String,
    pub case_id: String,
    pub model: Option<String>,
    pub model_source: Option<String>,
    pub arm: String,
    pub repetition: i64,
    pub repetition_source: String,
    pub provider: Option<String>,
    pub population: Option<String>,
    pub run_dir: String,
    pub output_file: Option<String>,
    pub output_present: bool,
    pub output_text: Option<String>,
    pub failure_marker: Option<String>,
    pub returncode: Option<i64>,
    pub timed_out: Option<bool>,
    pub observation_complete: Option<bool>,
    pub trace_observation_complete: Option<bool>,
    pub execution_valid: bool,
    pub unscorable_reason: Option<String>,
    pub skill_tree_hash: Option<String>,
    pub metadata_error: Option<String>,
    pub identity_conflicts: Option<String>,
    pub raw_metadata: Option<String>,
    pub environment: Option<String>,
}

impl RunRec {
    #[cfg(feature = "store")]
    pub fn row(&self, batch_id: i64) -> Row {
        vec![
            text(Some(&self.run_id)),
            Value::BigInt(batch_id),
            text(Some(&self.release_label)),
            text(self.native_batch.as_ref()),
            text(Some(&self.source_format)),
            text(Some(&self.skill_name)),
            text(Some(&self.case_id)),
            text(self.model.as_ref()),
            text(self.model_source.as_ref()),
            text(Some(&self.arm)),
            Value::BigInt(self.repetition),
            text(Some(&self.repetition_source)),
            text(self.provider.as_ref()),
            text(self.population.as_ref()),
            text(Some(&self.run_dir)),
            text(self.output_file.as_ref()),
            Value::Boolean(self.output_present),
            text(self.output_text.as_ref()),
            text(self.failure_marker.as_ref()),
            int(self.returncode),
            boolean(self.timed_out),
            boolean(self.observation_complete),
            boolean(self.trace_observation_complete),
            Value::Boolean(self.execution_valid),
            text(self.unscorable_reason.as_ref()),
            text(self.skill_tree_hash.as_ref()),
            text(self.metadata_error.as_ref()),
            text(self.identity_conflicts.as_ref()),
            text(self.raw_metadata.as_ref()),
            text(self.environment.as_ref()),
        ]
    }
}

#[derive(Debug, Clone, Default)]
pub struct GradingRec {
    pub grading_id: String,
    pub run_id: String,
    pub report_path: String,
    pub generated_at: Option<f64>,
    pub peer_missing_output: Option<bool>,
    pub peer_execution_valid: Option<bool>,
    pub peer_objective_pass_rate: Option<f64>,
    pub peer_combined_pass_rate: Option<f64>,
    pub peer_vetoed: Option<bool>,
    pub peer_graded_score: Option<f64>,
    pub below_reference_floor: Option<String>,
    pub deferred_judge_tasks: Option<i64>,
    pub rate_basis: RateBasis,
    pub peer_pass: Option<bool>,
    pub peer_pass_rate: Option<f64>,
}

/// How a tool defines a run's rate (see `grading.rate_basis`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RateBasis {
    #[default]
    Assertions,
    RunOutcome,
    Summary,
}

impl RateBasis {
    pub fn code(self) -> &'static str {
        match self {
            RateBasis::Assertions => "assertions",
            RateBasis::RunOutcome => "run_outcome",
            RateBasis::Summary => "summary",
        }
    }
}

impl GradingRec {
    #[cfg(feature = "store")]
    pub fn row(&self) -> Row {
        vec![
            text(Some(&self.grading_id)),
            text(Some(&self.run_id)),
            text(Some(&self.report_path)),
            epoch_seconds(self.generated_at),
            boolean(self.peer_missing_output),
            boolean(self.peer_execution_valid),
            float(self.peer_objective_pass_rate),
            float(self.peer_combined_pass_rate),
            boolean(self.peer_vetoed),
            float(self.peer_graded_score),
            text(self.below_reference_floor.as_ref()),
            int(self.deferred_judge_tasks),
            text(Some(self.rate_basis.code())),
            boolean(self.peer_pass),
            float(self.peer_pass_rate),
        ]
    }
}

#[derive(Debug, Clone, Default)]
pub struct AssertionRec {
    pub grading_id: String,
    pub run_id: String,
    pub seq: i64,
    pub name: Option<String>,
    pub kind: Option<String>,
    pub channel: String,
    pub severity: Option<String>,
    pub oracle_tier: Option<String>,
    pub passed: Option<bool>,
    pub score: Option<f64>,
    pub skipped: bool,
    pub skip_reason: Option<String>,
    pub turn: Option<i64>,
    pub evidence: Option<String>,
    pub judge_task_id: Option<String>,
    pub availability: String,
}

impl AssertionRec {
    #[cfg(feature = "store")]
    pub fn row(&self) -> Row {
        vec![
            text(Some(&self.grading_id)),
            text(Some(&self.run_id)),
            Value::BigInt(self.seq),
            text(self.name.as_ref()),
            text(self.kind.as_ref()),
            text(Some(&self.channel)),
            text(self.severity.as_ref()),
            text(self.oracle_tier.as_ref()),
            boolean(self.passed),
            float(self.score),
            Value::Boolean(self.skipped),
            text(self.skip_reason.as_ref()),
            int(self.turn),
            text(self.evidence.as_ref()),
            text(self.judge_task_id.as_ref()),
            text(Some(&self.availability)),
        ]
    }
}

#[derive(Debug, Clone, Default)]
pub struct JudgeVerdictRec {
    pub judge_task_id: String,
    pub source_path: String,
    pub case_id: Option<String>,
    pub model: Option<String>,
    pub arm: Option<String>,
    pub repetition: Option<i64>,
    pub assertion_name: Option<String>,
    pub judge_model: Option<String>,
    pub judge_backend: Option<String>,
    pub verdict_kind: Option<String>,
    pub passed: Option<bool>,
    pub score: Option<f64>,
    pub threshold: Option<f64>,
    pub dimension_scores: Option<String>,
    pub criteria: Option<String>,
    pub minimum_criteria: Option<i64>,
    pub agreement: Option<String>,
    pub evidence: Option<String>,
    pub schema_errors: Option<String>,
    pub cost_usd: Option<f64>,
    pub raw: Option<String>,
}

impl JudgeVerdictRec {
    #[cfg(feature = "store")]
    pub fn row(&self) -> Row {
        vec![
            text(Some(&self.judge_task_id)),
            text(Some(&self.source_path)),
            text(self.case_id.as_ref()),
            text(self.model.as_ref()),
            text(self.arm.as_ref()),
            int(self.repetition),
            text(self.assertion_name.as_ref()),
            text(self.judge_model.as_ref()),
            text(self.judge_backend.as_ref()),
            text(self.verdict_kind.as_ref()),
            boolean(self.passed),
            float(self.score),
            float(self.threshold),
            text(self.dimension_scores.as_ref()),
            text(self.criteria.as_ref()),
            int(self.minimum_criteria),
            text(self.agreement.as_ref()),
            text(self.evidence.as_ref()),
            text(self.schema_errors.as_ref()),
            float(self.cost_usd),
            text(self.raw.as_ref()),
        ]
    }
}

#[derive(Debug, Clone, Default)]
pub struct TraceEventRec {
    pub run_id: String,
    pub seq: i64,
    pub event_type: String,
    pub status: Option<String>,
    pub state_source: Option<String>,
    pub name: Option<String>,
    pub input_summary: Option<String>,
    pub output_summary: Option<String>,
    pub exit_code: Option<i64>,
    pub duration_ms: Option<f64>,
    pub ts: Option<String>,
    pub turn: Option<i64>,
    pub tokens: Option<String>,
    pub raw_ref: Option<String>,
    pub source: Option<String>,
}

impl TraceEventRec {
    #[cfg(feature = "store")]
    pub fn row(&self) -> Row {
        vec![
            text(Some(&self.run_id)),
            Value::BigInt(self.seq),
            text(Some(&self.event_type)),
            text(self.status.as_ref()),
            text(self.state_source.as_ref()),
            text(self.name.as_ref()),
            text(self.input_summary.as_ref()),
            text(self.output_summary.as_ref()),
            int(self.exit_code),
            float(self.duration_ms),
            text(self.ts.as_ref()),
            int(self.turn),
            text(self.tokens.as_ref()),
            text(self.raw_ref.as_ref()),
            text(self.source.as_ref()),
        ]
    }
}

#[derive(Debug, Clone, Default)]
pub struct TraceLineRec {
    pub run_id: String,
    pub line_no: i64,
    pub line: String,
}

impl TraceLineRec {
    #[cfg(feature = "store")]
    pub fn row(&self) -> Row {
        vec![
            text(Some(&self.run_id)),
            Value::BigInt(self.line_no),
            text(Some(&self.line)),
        ]
    }
}

#[derive(Debug, Clone, Default)]
pub struct ActivationRec {
    pub run_id: String,
    pub skill_name: Option<String>,
    pub loaded: Option<bool>,
    pub evidence: Option<String>,
    pub source: String,
}

impl ActivationRec {
    #[cfg(feature = "store")]
    pub fn row(&self) -> Row {
        vec![
            text(Some(&self.run_id)),
            text(self.skill_name.as_ref()),
            boolean(self.loaded),
            text(self.evidence.as_ref()),
            text(Some(&self.source)),
        ]
    }
}

#[derive(Debug, Clone, Default)]
pub struct MeasurementRec {
    pub run_id: String,
    pub metric: String,
    pub value: Option<f64>,
    /// Exact decimal text for money (Python Decimal strings are kept verbatim).
    pub amount: Option<String>,
    pub currency: Option<String>,
    pub availability: String,
    pub provenance: Option<String>,
    pub reason: Option<String>,
    pub basis: Option<String>,
}

impl MeasurementRec {
    /// A measured value; money (metric `cost`) keeps its exact text in USD.
    pub fn available(run_id: &str, metric: &str, value: f64, provenance: &str) -> Self {
        let is_cost = metric == "cost";
        MeasurementRec {
            run_id: run_id.into(),
            metric: metric.into(),
            value: Some(value),
            amount: is_cost.then(|| value.to_string()),
            currency: is_cost.then(|| "USD".to_string()),
            availability: "available".into(),
            provenance: Some(provenance.into()),
            ..Default::default()
        }
    }

    /// Not measured: NULL with the reason, never 0.
    pub fn unavailable(run_id: &str, metric: &str, reason: &str) -> Self {
        MeasurementRec {
            run_id: run_id.into(),
            metric: metric.into(),
            availability: "unavailable".into(),
            reason: Some(reason.into()),
            ..Default::default()
        }
    }

    /// Available when the tool reported a value, else unavailable ("missing").
    pub fn reported(run_id: &str, metric: &str, value: Option<f64>, provenance: &str) -> Self {
        match value {
            Some(v) => Self::available(run_id, metric, v, provenance),
            None => Self::unavailable(run_id, metric, "missing"),
        }
    }

    #[cfg(feature = "store")]
    pub fn row(&self) -> Row {
        vec![
            text(Some(&self.run_id)),
            text(Some(&self.metric)),
            float(self.value),
            text(self.amount.as_ref()),
            text(self.currency.as_ref()),
            text(Some(&self.availability)),
            text(self.provenance.as_ref()),
            text(self.reason.as_ref()),
            text(self.basis.as_ref()),
        ]
    }
}

#[derive(Debug, Clone, Default)]
pub struct TriggerObsRec {
    pub obs_id: String,
    pub source_path: String,
    pub release_label: String,
    pub skill_name: Option<String>,
    pub agent: Option<String>,
    pub model: Option<String>,
    pub query_id: Option<String>,
    pub query_text: Option<String>,
    pub should_trigger: Option<bool>,
    pub repetition: Option<i64>,
    pub repetition_source: Option<String>,
    pub runs: i64,
    pub triggered_runs: Option<i64>,
    pub triggered: Option<bool>,
    pub observation_complete: Option<bool>,
    pub passed: Option<bool>,
    pub evidence: Option<String>,
    pub elapsed_ms: Option<f64>,
    pub ablation: Option<String>,
    pub skill_tree_hash: Option<String>,
    pub evidence_class: Option<String>,
    pub trace_dir: Option<String>,
}

impl TriggerObsRec {
    #[cfg(feature = "store")]
    pub fn row(&self) -> Row {
        vec![
            text(Some(&self.obs_id)),
            text(Some(&self.source_path)),
            text(Some(&self.release_label)),
            text(self.skill_name.as_ref()),
            text(self.agent.as_ref()),
            text(self.model.as_ref()),
            text(self.query_id.as_ref()),
            text(self.query_text.as_ref()),
            boolean(self.should_trigger),
            int(self.repetition),
            text(self.repetition_source.as_ref()),
            Value::BigInt(self.runs),
            int(self.triggered_runs),
            boolean(self.triggered),
            boolean(self.observation_complete),
            boolean(self.passed),
            text(self.evidence.as_ref()),
            float(self.elapsed_ms),
            text(self.ablation.as_ref()),
            text(self.skill_tree_hash.as_ref()),
            text(self.evidence_class.as_ref()),
            text(self.trace_dir.as_ref()),
        ]
    }
}

#[derive(Debug, Clone, Default)]
pub struct PeerMetricRec {
    pub source_path: String,
    pub report_kind: String,
    pub release_label: String,
    pub skill_name: Option<String>,
    pub json_path: String,
    pub metric_name: String,
    pub value: Option<f64>,
    pub value_text: Option<String>,
    pub availability: String,
}

impl PeerMetricRec {
    #[cfg(feature = "store")]
    pub fn row(&self) -> Row {
        vec![
            text(Some(&self.source_path)),
            text(Some(&self.report_kind)),
            text(Some(&self.release_label)),
            text(self.skill_name.as_ref()),
            text(Some(&self.json_path)),
            text(Some(&self.metric_name)),
            float(self.value),
            text(self.value_text.as_ref()),
            text(Some(&self.availability)),
        ]
    }
}

/// A file that could not be read or understood; the rest of the batch goes on.
#[derive(Debug, Clone)]
pub struct IngestErrorRec {
    pub path: String,
    pub stage: String,
    pub reason: String,
}

/// Everything parsed from one unit (a run directory, a report, a manifest).
#[derive(Debug, Default)]
pub struct Records {
    pub suites: Vec<SuiteRec>,
    pub cases: Vec<CaseRec>,
    pub runs: Vec<RunRec>,
    pub gradings: Vec<GradingRec>,
    pub assertions: Vec<AssertionRec>,
    pub judge_verdicts: Vec<JudgeVerdictRec>,
    pub trace_events: Vec<TraceEventRec>,
    pub trace_lines: Vec<TraceLineRec>,
    pub activations: Vec<ActivationRec>,
    pub measurements: Vec<MeasurementRec>,
    pub trigger_observations: Vec<TriggerObsRec>,
    pub peer_metrics: Vec<PeerMetricRec>,
    pub errors: Vec<IngestErrorRec>,
}

impl Records {
    pub fn error(&mut self, path: &str, stage: &str, reason: impl Into<String>) {
        self.errors.push(IngestErrorRec {
            path: path.to_string(),
            stage: stage.to_string(),
            reason: reason.into(),
        });
    }

    pub fn append(&mut self, mut other: Records) {
        self.suites.append(&mut other.suites);
        self.cases.append(&mut other.cases);
        self.runs.append(&mut other.runs);
        self.gradings.append(&mut other.gradings);
        self.assertions.append(&mut other.assertions);
        self.judge_verdicts.append(&mut other.judge_verdicts);
        self.trace_events.append(&mut other.trace_events);
        self.trace_lines.append(&mut other.trace_lines);
        self.activations.append(&mut other.activations);
        self.measurements.append(&mut other.measurements);
        self.trigger_observations
            .append(&mut other.trigger_observations);
        self.peer_metrics.append(&mut other.peer_metrics);
        self.errors.append(&mut other.errors);
    }
}
