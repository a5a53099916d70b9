//! liftdb: an embedded analytics store for AI agent-skill evaluations.
//!
//! Run trees written by eval harnesses are parsed by format adapters
//! (`ingest`), normalized into one relational model and written into a
//! DuckDB file (`store`), then answered with pure-SQL views (`sql/views`).

pub mod error;
pub mod export;
pub mod ingest;
pub mod output;
pub mod repl;
pub mod report;
pub mod sqlfiles;
pub mod stats;
pub mod store;

pub use error::{Error, Result};

/// The liftdb version recorded with every migration and batch.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
