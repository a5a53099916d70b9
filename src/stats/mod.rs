//! Statistics SQL cannot express exactly: the sign-flip test (exact and
//! Python-stream sampled), its inverted interval and the noise check;
//! exposed as DuckDB functions and materialized into `lift_stats`.

#[cfg(feature = "store")]
pub mod ablation;
pub mod bootstrap;
pub mod interval;
#[cfg(feature = "store")]
pub mod materialize;
pub mod mt19937;
pub mod multiple;
pub mod rounding;
pub mod sign_flip;
pub mod sign_table;
#[cfg(feature = "store")]
pub mod sql_functions;
#[cfg(feature = "store")]
pub mod trend;

pub use interval::{interval, noise_check, Interval, NoiseCheck};

/// Refill every derived table (the stored views, lift_stats, ablation_stats,
/// trend_stats), inside the caller's transaction.
#[cfg(feature = "store")]
pub fn refresh_all(conn: &duckdb::Connection) -> crate::Result<()> {
    crate::store::derived::refresh(conn, crate::store::derived::Scope::Every, |_| {})?;
    materialize::refresh(conn, crate::store::derived::Scope::Every)?;
    ablation::refresh(conn, crate::store::derived::Scope::Every)?;
    trend::refresh(conn, crate::store::derived::Scope::Every)?;
    Ok(())
}
pub use rounding::py_round;
pub use sign_flip::{sign_flip, SignFlip};
