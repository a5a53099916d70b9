//! The normalized model: one record per table of the raw layer
//! (`sql/migrations/`), each declared once with `table!` (its columns in DDL
//! order, checked against the migrated store by a test), and `Records`, the
//! rows one unit gives, table by table.

use sha2::{Digest, Sha256};

pub use super::errors::{ErrorKind, IngestErrorRec};
pub use super::table::EpochSeconds;
use super::table::{record_tables, table, Cell, Kind};

#[cfg(feature = "store")]
pub use cells::*;
#[cfg(feature = "store")]
use duckdb::types::Value;

/// Typed DuckDB values (NULL for absent or non-finite), for the statistics tables' rows.
#[cfg(feature = "store")]
mod cells {
    use duckdb::types::Value;

    pub use crate::model::table::Row;

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
    crate::sys::hash::hex(&h.finalize()[..16])
}

table! {
    #[derive(Debug, Clone)]
    pub struct SuiteRec in "suite_record" {
        suite_id: String => "VARCHAR",
        release_label: String => "VARCHAR",
        skill_name: String => "VARCHAR",
        source_format: String => "VARCHAR",
        harness_name: Option<String> => "VARCHAR",
        harness_version: Option<String> => "VARCHAR",
        manifest_path: Option<String> => "VARCHAR",
        manifest_sha256: Option<String> => "VARCHAR",
        skill_tree_hash: Option<String> => "VARCHAR",
        variants: Option<String> => "JSON",
        ablations: Option<String> => "JSON",
        @batch_id,
    }
}

table! {
    #[derive(Debug, Clone, Default)]
    pub struct CaseRec in "case_def_record" {
        case_pk: String => "VARCHAR",
        suite_id: String => "VARCHAR",
        release_label: String => "VARCHAR",
        skill_name: String => "VARCHAR",
        case_id: String => "VARCHAR",
        split: Option<String> => "VARCHAR",
        kind: Option<String> => "VARCHAR",
        population: Option<String> => "VARCHAR",
        polarity: Option<String> => "VARCHAR",
        eval_intent: Option<String> => "VARCHAR",
        domain: Option<String> => "VARCHAR",
        difficulty: Option<String> => "VARCHAR",
        trigger_type: Option<String> => "VARCHAR",
        prompt: Option<String> => "VARCHAR",
        expected_behavior: Option<String> => "JSON",
        success_goals: Option<String> => "JSON",
        tags: Option<String> => "JSON",
        assertions: Option<String> => "JSON",
        reference_floor: Option<f64> => "DOUBLE",
        raw: Option<String> => "JSON",
        /// The file that defined the case (manifest, case.json, report).
        source_path: Option<String> => "VARCHAR",
    }
}

table! {
    #[derive(Debug, Clone, Default)]
    pub struct RunRec in "run" {
        run_id: String => "VARCHAR",
        @batch_id,
        release_label: String => "VARCHAR",
        native_batch: Option<String> => "VARCHAR",
        source_format: String => "VARCHAR",
        skill_name: String => "VARCHAR",
        case_id: String => "VARCHAR",
        model: Option<String> => "VARCHAR",
        model_source: Option<String> => "VARCHAR",
        arm: String => "VARCHAR",
        repetition: i64 => "INTEGER",
        repetition_source: String => "VARCHAR",
        provider: Option<String> => "VARCHAR",
        population: Option<String> => "VARCHAR",
        run_dir: String => "VARCHAR",
        output_file: Option<String> => "VARCHAR",
        output_present: bool => "BOOLEAN",
        output_text: Option<String> => "VARCHAR",
        failure_marker: Option<String> => "VARCHAR",
        returncode: Option<i64> => "INTEGER",
        timed_out: Option<bool> => "BOOLEAN",
        observation_complete: Option<bool> => "BOOLEAN",
        trace_observation_complete: Option<bool> => "BOOLEAN",
        execution_valid: bool => "BOOLEAN",
        unscorable_reason: Option<String> => "VARCHAR",
        skill_tree_hash: Option<String> => "VARCHAR",
        metadata_error: Option<String> => "VARCHAR",
        identity_conflicts: Option<String> => "JSON",
        raw_metadata: Option<String> => "JSON",
        environment: Option<String> => "JSON",
        layout_reading: Option<String> => "VARCHAR",
        stop_class: Option<String> => "VARCHAR",
        stop_reason: Option<String> => "VARCHAR",
        requested_model: Option<String> => "VARCHAR",
        served_model: Option<String> => "VARCHAR",
        served_model_check: Option<String> => "VARCHAR",
        effort: Option<String> => "VARCHAR",
        content_sha256: Option<String> => "VARCHAR",
        shard: Option<String> => "VARCHAR",
        /// The report that defined the run (its folder never read).
        defined_by: Option<String> => "VARCHAR",
        /// The case's name beside its id, where the harness gives one.
        case_name: Option<String> => "VARCHAR",
        /// When the run started, where the harness records it.
        started_at: EpochSeconds => "TIMESTAMP",
    }
}

table! {
    #[derive(Debug, Clone, Default)]
    pub struct GradingRec in "grading" {
        grading_id: String => "VARCHAR",
        run_id: String => "VARCHAR",
        report_path: String => "VARCHAR",
        generated_at: EpochSeconds => "TIMESTAMP",
        peer_missing_output: Option<bool> => "BOOLEAN",
        peer_execution_valid: Option<bool> => "BOOLEAN",
        peer_objective_pass_rate: Option<f64> => "DOUBLE",
        peer_combined_pass_rate: Option<f64> => "DOUBLE",
        peer_vetoed: Option<bool> => "BOOLEAN",
        peer_graded_score: Option<f64> => "DOUBLE",
        below_reference_floor: Option<String> => "JSON",
        deferred_judge_tasks: Option<i64> => "INTEGER",
        rate_basis: RateBasis => "VARCHAR",
        peer_pass: Option<bool> => "BOOLEAN",
        peer_pass_rate: Option<f64> => "DOUBLE",
        /// 'liftdb' when liftdb graded the run; None when a report carried it.
        origin: Option<String> => "VARCHAR",
        /// What a liftdb grading was computed from (see `GradingContext::key`).
        grading_key: Option<String> => "VARCHAR",
    }
}

/// How a tool defines a run's rate (see `grading.rate_basis`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RateBasis {
    #[default]
    Assertions,
    RunOutcome,
    Summary,
}

impl Cell for RateBasis {
    const KIND: Kind = Kind::Text;
    const NULLABLE: bool = false;
    #[cfg(feature = "store")]
    fn cell(&self) -> Value {
        Value::Text(self.code().to_string())
    }
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

table! {
    #[derive(Debug, Clone, Default)]
    pub struct AssertionRec in "assertion_result" {
        grading_id: String => "VARCHAR",
        run_id: String => "VARCHAR",
        seq: i64 => "INTEGER",
        name: Option<String> => "VARCHAR",
        r#type: Option<String> => "VARCHAR",
        channel: String => "VARCHAR",
        severity: Option<String> => "VARCHAR",
        oracle_tier: Option<String> => "VARCHAR",
        passed: Option<bool> => "BOOLEAN",
        score: Option<f64> => "DOUBLE",
        skipped: bool => "BOOLEAN",
        skip_reason: Option<String> => "VARCHAR",
        turn: Option<i64> => "INTEGER",
        evidence: Option<String> => "VARCHAR",
        judge_task_id: Option<String> => "VARCHAR",
        availability: String => "VARCHAR",
    }
}

table! {
    #[derive(Debug, Clone, Default)]
    pub struct JudgeVerdictRec in "judge_verdict" {
        judge_task_id: String => "VARCHAR",
        source_path: String => "VARCHAR",
        case_id: Option<String> => "VARCHAR",
        model: Option<String> => "VARCHAR",
        arm: Option<String> => "VARCHAR",
        repetition: Option<i64> => "INTEGER",
        assertion_name: Option<String> => "VARCHAR",
        judge_model: Option<String> => "VARCHAR",
        judge_backend: Option<String> => "VARCHAR",
        verdict_kind: Option<String> => "VARCHAR",
        passed: Option<bool> => "BOOLEAN",
        score: Option<f64> => "DOUBLE",
        threshold: Option<f64> => "DOUBLE",
        dimension_scores: Option<String> => "JSON",
        criteria: Option<String> => "JSON",
        minimum_criteria: Option<i64> => "INTEGER",
        agreement: Option<String> => "JSON",
        evidence: Option<String> => "VARCHAR",
        schema_errors: Option<String> => "JSON",
        cost_usd: Option<f64> => "DOUBLE",
        raw: Option<String> => "JSON",
    }
}

table! {
    #[derive(Debug, Clone, Default)]
    pub struct TraceEventRec in "trace_event" {
        run_id: String => "VARCHAR",
        seq: i64 => "INTEGER",
        event_type: String => "VARCHAR",
        status: Option<String> => "VARCHAR",
        state_source: Option<String> => "VARCHAR",
        name: Option<String> => "VARCHAR",
        input_summary: Option<String> => "VARCHAR",
        output_summary: Option<String> => "VARCHAR",
        exit_code: Option<i64> => "INTEGER",
        duration_ms: Option<f64> => "DOUBLE",
        ts: Option<String> => "VARCHAR",
        turn: Option<i64> => "INTEGER",
        tokens: Option<String> => "JSON",
        raw_ref: Option<String> => "JSON",
        source: Option<String> => "VARCHAR",
    }
}

table! {
    #[derive(Debug, Clone, Default)]
    pub struct TraceLineRec in "trace_line" {
        run_id: String => "VARCHAR",
        line_no: i64 => "INTEGER",
        line: String => "VARCHAR",
    }
}

table! {
    #[derive(Debug, Clone, Default)]
    pub struct ActivationRec in "skill_activation" {
        run_id: String => "VARCHAR",
        skill_name: Option<String> => "VARCHAR",
        loaded: Option<bool> => "BOOLEAN",
        evidence: Option<String> => "JSON",
        source: String => "VARCHAR",
    }
}

table! {
    #[derive(Debug, Clone, Default)]
    pub struct MeasurementRec in "measurement" {
        run_id: String => "VARCHAR",
        metric: String => "VARCHAR",
        value: Option<f64> => "DOUBLE",
        /// Exact decimal text for money (Python Decimal strings are kept verbatim).
        amount: Option<String> => "DECIMAL(38,12)",
        currency: Option<String> => "VARCHAR",
        availability: String => "VARCHAR",
        provenance: Option<String> => "VARCHAR",
        reason: Option<String> => "VARCHAR",
        basis: Option<String> => "JSON",
    }
}

impl MeasurementRec {
    /// A measured value; money (metrics `cost`, `incurred_cost`) keeps its
    /// exact text in USD.
    pub fn available(run_id: &str, metric: &str, value: f64, provenance: &str) -> Self {
        let is_cost = matches!(metric, "cost" | "incurred_cost");
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
}

table! {
    #[derive(Debug, Clone, Default)]
    pub struct TriggerObsRec in "trigger_observation" {
        obs_id: String => "VARCHAR",
        source_path: String => "VARCHAR",
        release_label: String => "VARCHAR",
        skill_name: Option<String> => "VARCHAR",
        agent: Option<String> => "VARCHAR",
        model: Option<String> => "VARCHAR",
        query_id: Option<String> => "VARCHAR",
        query_text: Option<String> => "VARCHAR",
        should_trigger: Option<bool> => "BOOLEAN",
        repetition: Option<i64> => "INTEGER",
        repetition_source: Option<String> => "VARCHAR",
        runs: i64 => "INTEGER",
        triggered_runs: Option<i64> => "INTEGER",
        triggered: Option<bool> => "BOOLEAN",
        observation_complete: Option<bool> => "BOOLEAN",
        passed: Option<bool> => "BOOLEAN",
        evidence: Option<String> => "JSON",
        elapsed_ms: Option<f64> => "DOUBLE",
        ablation: Option<String> => "JSON",
        skill_tree_hash: Option<String> => "VARCHAR",
        evidence_class: Option<String> => "VARCHAR",
        trace_dir: Option<String> => "VARCHAR",
        experiment: Option<String> => "VARCHAR",
    }
}

table! {
    #[derive(Debug, Clone, Default)]
    pub struct PeerMetricRec in "peer_metric" {
        source_path: String => "VARCHAR",
        report_kind: String => "VARCHAR",
        release_label: String => "VARCHAR",
        skill_name: Option<String> => "VARCHAR",
        json_path: String => "VARCHAR",
        metric_name: String => "VARCHAR",
        value: Option<f64> => "DOUBLE",
        value_text: Option<String> => "VARCHAR",
        availability: String => "VARCHAR",
    }
}

table! {
    /// An ingested file: which unit read it, with the hash change detection compares.
    #[derive(Debug, Clone)]
    pub struct SourceFileRec in "source_file" {
        path: String => "VARCHAR",
        sha256: String => "VARCHAR",
        size_bytes: i64 => "BIGINT",
        mtime_ns: i64 => "BIGINT",
        kind: String => "VARCHAR",
        source_format: String => "VARCHAR",
        owner_key: String => "VARCHAR",
        @batch_id,
        /// `state::file_print` of path, size and mtime.
        print: u64 => "UBIGINT",
        /// The release it was read for (a run folder's: its run's).
        release_label: String => "VARCHAR",
        /// The batch's `--shard` for a run folder's file; None for a
        /// manifest's or report's (shared by the release's shards).
        shard: Option<String> => "VARCHAR",
    }
}

/// One table's rows, ready for its appender.
#[cfg(feature = "store")]
pub struct TableBatch {
    pub table: &'static str,
    pub columns: &'static [super::table::Column],
    pub rows: Vec<Row>,
}

/// Rows per table, in the order they are appended.
#[cfg(feature = "store")]
pub type TableRows = Vec<TableBatch>;

record_tables! {
    suites: SuiteRec,
    cases: CaseRec,
    runs: RunRec,
    gradings: GradingRec,
    assertions: AssertionRec,
    judge_verdicts: JudgeVerdictRec,
    trace_events: TraceEventRec,
    trace_lines: TraceLineRec,
    activations: ActivationRec,
    measurements: MeasurementRec,
    trigger_observations: TriggerObsRec,
    peer_metrics: PeerMetricRec,
}

/// The items of `items` that `taken` picks, moved out in order; the rest stay.
fn take_where<T>(items: &mut Vec<T>, taken: impl Fn(&T) -> bool) -> Vec<T> {
    let (out, kept) = std::mem::take(items).into_iter().partition(|x| taken(x));
    *items = kept;
    out
}

/// `grading.origin` of a grading a report gives only with a run it defines
/// (skill-creator's benchmark.json).
pub const DEFINED_WITH_RUN: &str = "report_definition";

impl Records {
    /// The runs a report defines (`defined_by` set), with their measurements
    /// and skill activations, taken out: the writer stages them, and keeps
    /// those whose identity the store does not hold.
    pub fn take_reported(&mut self) -> Records {
        if !self.runs.iter().any(|r| r.defined_by.is_some()) {
            return Records::default();
        }
        let reported = take_where(&mut self.runs, |r| r.defined_by.is_some());
        let ids: std::collections::HashSet<&str> =
            reported.iter().map(|r| r.run_id.as_str()).collect();
        let measurements = take_where(&mut self.measurements, |m| ids.contains(m.run_id.as_str()));
        let activations = take_where(&mut self.activations, |a| ids.contains(a.run_id.as_str()));
        // A grading the report gives only with the run it defines (one
        // that grades a held run too, a seh report's, stays where it is).
        let gradings = take_where(&mut self.gradings, |g| {
            ids.contains(g.run_id.as_str()) && g.origin.as_deref() == Some(DEFINED_WITH_RUN)
        });
        let staged: std::collections::HashSet<&str> =
            gradings.iter().map(|g| g.grading_id.as_str()).collect();
        let assertions = take_where(&mut self.assertions, |a| {
            staged.contains(a.grading_id.as_str())
        });
        Records {
            runs: reported,
            measurements,
            activations,
            gradings,
            assertions,
            ..Records::default()
        }
    }
}

#[cfg(all(test, feature = "store"))]
mod tests {
    use super::*;

    /// Records made rows by moving their text give the rows a copy gives:
    /// every column of every table, text, NULLs, numbers, the enum column
    /// and the batch column alike.
    #[test]
    fn rows_taken_by_move_equal_rows_made_by_copy() {
        let mut r = Records::default();
        r.runs.push(RunRec {
            run_id: "r1".into(),
            release_label: "v1".into(),
            case_id: "case-a".into(),
            arm: "with_skill".into(),
            repetition: 3,
            output_text: Some("an answer".into()),
            model: None,
            returncode: Some(0),
            timed_out: Some(false),
            raw_metadata: Some(r#"{"k":1}"#.into()),
            ..Default::default()
        });
        r.gradings.push(GradingRec {
            grading_id: "g1".into(),
            run_id: "r1".into(),
            generated_at: EpochSeconds(Some(1.5)),
            peer_pass_rate: Some(0.25),
            peer_graded_score: Some(f64::NAN),
            ..Default::default()
        });
        r.measurements.push(MeasurementRec::available(
            "r1",
            "cost",
            0.002403,
            "provider_reported",
        ));
        r.measurements.push(MeasurementRec::default());
        let copied = r.table_rows(7);
        let moved = r.into_table_rows(7);
        assert_eq!(copied.len(), moved.len());
        for (c, m) in copied.iter().zip(&moved) {
            assert_eq!(c.table, m.table);
            assert_eq!(c.rows, m.rows, "table {}", c.table);
        }
        let run_rows = &moved.iter().find(|t| t.table == "run").unwrap().rows;
        assert_eq!(run_rows.len(), 1);
        assert!(run_rows[0].contains(&Value::Text("an answer".into())));
        assert!(run_rows[0].contains(&Value::BigInt(7)), "the batch column");
    }
}
