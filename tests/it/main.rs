//! The one integration-test binary (each test binary links all of DuckDB).

mod analyst;
mod atomicity;
mod case_trend;
mod cli;
mod common;
mod derived_tables;
mod evidence;
mod experiments;
mod formats;
mod grading;
mod hostile;
mod ingest_behaviour;
mod lake;
mod releases;
mod repl_tmux;
mod rounding;
mod schema_columns;
mod secrets;
mod seh_reference;
mod seh_statistics;
mod skill_creator_anthropic;
mod store_safety;
mod streaming;
mod terminal;
mod terminal_tmux;
mod trend_history;
