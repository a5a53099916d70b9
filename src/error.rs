//! Library error type. The CLI wraps these with `anyhow` context.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("database error: {0}")]
    Db(#[from] duckdb::Error),

    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("store {path} was written by a newer liftdb (schema version {found}, this binary knows up to {known}); upgrade liftdb to open it")]
    StoreTooNew {
        path: String,
        found: i64,
        known: i64,
    },

    #[error("store {path}: migration {version} ({name}) was applied with checksum {applied} but this binary has {expected}; the store or the binary was modified, refusing to open it")]
    ChecksumMismatch {
        path: String,
        version: i64,
        name: String,
        applied: String,
        expected: String,
    },

    #[error("store {path} is being written by another liftdb ({holder}); try again when it finishes, or give ingest --wait SECONDS")]
    Locked { path: String, holder: String },

    #[error("view {name} failed its probe after being created: {detail}")]
    ViewProbe { name: String, detail: String },

    #[error("unknown report '{0}' (see `liftdb report --list`)")]
    UnknownReport(String),

    #[error("report '{report}' does not take the filter --{filter} (it takes: {accepted})")]
    UnsupportedFilter {
        report: String,
        filter: String,
        accepted: String,
    },

    #[error("{0}")]
    Invalid(String),

    #[error("{path} could not be read again while its rows were appended ({detail}); nothing was written — ingest it again")]
    ReportChanged { path: String, detail: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
