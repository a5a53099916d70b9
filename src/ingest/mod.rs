//! Ingest: the format adapters that turn harness files into the normalized
//! records (available without the store, for fuzzing), and with the `store`
//! feature the pipeline that writes them as one batch per call.

mod dir_entries;
pub mod discover;
pub mod errors;
pub mod formats;
pub mod json;
pub mod json_fields;
pub mod kernel;
pub mod loose;
pub mod records;
pub mod redact;
pub mod table;

#[cfg(feature = "store")]
mod pipeline;
pub(crate) mod readers;
#[cfg(feature = "store")]
mod release;
#[cfg(feature = "store")]
mod state;
#[cfg(feature = "store")]
pub mod timings;

#[cfg(feature = "store")]
pub use pipeline::*;
