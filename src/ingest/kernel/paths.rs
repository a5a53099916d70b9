//! Path helpers the layouts of every harness need.

use std::path::Path;

/// `run-<n>` with a positive integer n.
pub fn parse_run_segment(name: &str) -> Option<i64> {
    name.strip_prefix("run-")
        .and_then(|n| n.parse::<i64>().ok())
        .filter(|n| *n >= 1)
}

/// The experiment of observations read from one report file: the file's
/// name (a baseline and an ablation trigger matrix are two experiments).
pub fn report_experiment(path: &str) -> String {
    name_of(Path::new(path)).unwrap_or_else(|| path.to_string())
}

/// A path's last component as text.
pub fn name_of(p: &Path) -> Option<String> {
    p.file_name().map(|n| n.to_string_lossy().to_string())
}
