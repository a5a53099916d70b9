//! liftdb: an embedded analytics store for AI agent-skill evaluations.
//!
//! The layers point one way: `cli → batch → {ingest, store} → model`.
//! `ingest` walks run trees and turns harness files into records through pure
//! format adapters (and `grade` grades skill-eval-harness runs); `store` owns
//! the DuckDB file, its schema, the writer and the stored aggregates; `batch`
//! is one ingest call, joining the two. `model` holds the records every layer
//! shares, `json` and `sys` the plumbing, `stats` the pure statistics.

#[cfg(feature = "store")]
pub mod batch;
#[cfg(feature = "store")]
pub mod error;
pub mod exit;
#[cfg(feature = "store")]
pub mod export;
#[cfg(feature = "store")]
pub mod gate;
pub mod grade;
pub mod ingest;
pub mod json;
pub mod model;
#[cfg(feature = "store")]
pub mod output;
#[cfg(feature = "store")]
pub mod plan;
#[cfg(feature = "store")]
pub mod repl;
#[cfg(feature = "store")]
pub mod report;
#[cfg(feature = "store")]
pub mod sqlfiles;
pub mod stats;
#[cfg(feature = "store")]
pub mod store;
pub mod sys;

#[cfg(feature = "store")]
pub use error::{Error, Result};

/// The liftdb version recorded with every migration and batch.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
