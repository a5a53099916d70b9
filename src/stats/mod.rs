//! Statistics SQL cannot express exactly: the sign-flip test (exact and
//! Python-stream sampled), its inverted interval and the noise check;
//! exposed as DuckDB functions. Pure: the stored statistics that use them
//! (`lift_stats`, ablation and trend) are refilled by `store::aggregates`.

pub mod bootstrap;
pub mod interval;
pub mod mt19937;
pub mod multiple;
pub mod rounding;
pub mod sequential;
pub mod sign_flip;
pub mod sign_table;
#[cfg(feature = "store")]
pub mod sql_functions;

pub use interval::{interval, noise_check, Interval, NoiseCheck};

pub use rounding::py_round;
pub use sign_flip::{sign_flip, SignFlip};
