//! One DuckDB appender per table, held open for the whole batch and flushed
//! when what they buffer reaches a size, not after every chunk of runs.
//!
//! Why: each flush is a query of its own (a prepared INSERT over the
//! buffered rows, whose partial row groups are then merged into the
//! transaction's). Flushed per chunk of 512 runs, the flushes were half of
//! the writer thread's time at 100,000 runs, which the parse then waits on.

use std::collections::HashMap;

use duckdb::arrow::record_batch::RecordBatch;
use duckdb::{Appender, Connection};

use crate::{Error, Result};

/// What the held appenders may buffer, all tables together, before every one
/// is flushed. The buffers are DuckDB's but outside its memory limit, so
/// this bounds them; DuckDB also flushes a table itself at 204,800 rows.
const FLUSH_BYTES: usize = 48 << 20;

pub struct Appenders<'c> {
    conn: &'c Connection,
    open: HashMap<&'static str, Appender<'c>>,
    /// Arrow bytes appended since the last flush.
    buffered: usize,
}

impl<'c> Appenders<'c> {
    pub fn new(conn: &'c Connection) -> Self {
        Appenders {
            conn,
            open: HashMap::new(),
            buffered: 0,
        }
    }

    /// Buffer `batch` for `table`, flushing everything once the buffers are full.
    pub fn append(&mut self, table: &'static str, batch: RecordBatch) -> Result<()> {
        let bytes = batch.get_array_memory_size();
        let appender = match self.open.entry(table) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(self.conn.appender(table)?),
        };
        appender
            .append_record_batch(batch)
            .map_err(|e| written(table, e))?;
        self.buffered += bytes;
        if self.buffered >= FLUSH_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// Every buffered row into its table: before the batch is queried or
    /// committed. Constraint violations surface here, not at append.
    pub fn flush(&mut self) -> Result<()> {
        for (table, appender) in self.open.iter_mut() {
            appender.flush().map_err(|e| written(table, e))?;
        }
        self.buffered = 0;
        Ok(())
    }
}

fn written(table: &str, e: duckdb::Error) -> Error {
    Error::Invalid(format!("writing {table}: {e}"))
}
