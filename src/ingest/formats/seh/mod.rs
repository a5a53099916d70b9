//! skill-eval-harness (docs/harnesses.md §C): run directories, the
//! manifest, benchmark/cost/token reports, trigger reports, judge results.

pub mod benchmark;
pub mod benchmark_stream;
pub mod events;
pub mod judge;
pub mod layout;
pub mod manifest;
pub mod metrics_doc;
pub mod reported;
pub mod run_dir;
pub mod telemetry;
pub mod trigger;
pub mod trigger_trace;

pub const SOURCE_FORMAT: &str = crate::ingest::kernel::format::SEH;

/// Arms every harness run can use without a manifest declaring them.
pub fn is_known_arm(name: &str, declared: &std::collections::HashSet<String>) -> bool {
    matches!(name, "with_skill" | "without_skill" | "old_skill")
        || name.starts_with("ablation:")
        || declared.contains(name)
}
