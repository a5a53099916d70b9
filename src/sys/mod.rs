//! The machine under liftdb: phase timings and RSS, the reading threads,
//! memory handed back to the system, and hashing.

pub mod cache;
pub mod hash;
pub mod host;
pub mod memory;
pub(crate) mod readers;
#[cfg(feature = "store")]
pub mod timings;
