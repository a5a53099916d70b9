//! The DuckDB store: opening with clear lock errors, migrations, views,
//! and the batched writer used by ingest.

pub mod aggregates;
mod appenders;
mod arrow_rows;
pub mod budget;
pub mod check;
pub mod extensions;
pub mod ids;
pub mod lake;
pub mod literal;
pub mod location;
mod migrate;
pub mod object_storage;
pub(crate) mod open;
pub mod releases;
pub mod turn;
mod views;
pub mod writer;

pub use location::{Lake, Location};
pub use migrate::{applied_migrations, schema_version, AppliedMigration};
pub use open::{
    check_persists, check_store_path, classify_db_error, is_write_refusal, lake_exists,
    open_answer_at, open_read_after_upkeep, open_read_at, open_write, open_write_at,
    open_write_up_to, open_write_waiting, open_write_waiting_at, Store,
};
pub use views::recreate_views;
