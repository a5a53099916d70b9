//! liftdb: an embedded analytics store for AI agent-skill evaluations.
//!
//! Run trees written by eval harnesses are parsed by format adapters
//! (`ingest`), normalized into one relational model and written into a
//! DuckDB file (`store`), then answered with pure-SQL views (`sql/views`).

#[cfg(feature = "store")]
pub mod error;
#[cfg(feature = "store")]
pub mod export;
pub mod grade;
pub mod ingest;
pub mod memory;
#[cfg(feature = "store")]
pub mod output;
#[cfg(feature = "store")]
pub mod repl;
#[cfg(feature = "store")]
pub mod report;
#[cfg(feature = "store")]
pub mod sqlfiles;
pub mod stats;
#[cfg(feature = "store")]
pub mod store;

#[cfg(feature = "store")]
pub use error::{Error, Result};

/// The liftdb version recorded with every migration and batch.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
