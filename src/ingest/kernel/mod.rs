//! The neutral ingest kernel every format adapter builds on: run identity and
//! keys, a unit's file map and outcome, the one list of run-file names, path
//! helpers, JSON-pointer flattening of a tool's own numbers, and the
//! expectations-shaped grading both skill-eval-harness and skill-creator
//! write. Adapters import this module, never each other.

pub mod expectations;
pub mod format;
pub mod identity;
pub mod paths;
pub mod peer;
pub mod trigger_query;
pub mod unit;

pub use format::Format;
pub use identity::{case_pk, run_key, suite_id, RunIdentity};
pub use paths::{name_of, parse_run_segment, report_experiment};
pub use unit::{GradingContext, ManifestCase, RunContext, RunFiles, RunOutcome};
