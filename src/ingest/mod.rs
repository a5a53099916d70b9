//! Ingest: the walk of run trees and the pure format adapters that turn
//! harness files into the normalized records (`model`). Nothing here touches
//! the store: one ingest call, which writes a batch, is `batch`.

mod dir_entries;
pub mod discover;
pub mod formats;
pub mod kernel;
pub mod loose;
