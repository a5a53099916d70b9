//! The data model every layer shares: the records adapters produce and the
//! store writes, the tables they fill, ingest errors, the run-file list and
//! the redaction every stored text passes through.

pub mod errors;
pub mod records;
pub mod redact;
pub mod run_files;
pub mod table;
