//! Writing one ingest batch: delete the rows of every changed unit, append
//! the new rows through DuckDB appenders, record files and the batch, all in
//! one transaction. Any failure rolls back and leaves the store unchanged.
//! Once it commits, the stored aggregates of the releases it touched are
//! refilled (refill.rs).

use duckdb::{params, Connection, Transaction};

use super::aggregates::refill::{Touched, CASES_AT_MOST};
use super::appenders::Appenders;
use super::budget::MemoryBudget;
use crate::model::records::{IngestErrorRec, Records, Row, TableBatch};
use crate::model::table::{Column, DOOMED_KEY, TEXT_KEY};
use crate::sqlfiles::batch_sql;
use crate::{Error, Result};

pub use crate::model::records::{SourceFileRec, TableRows};

pub struct BatchInfo<'a> {
    pub release_label: &'a str,
    /// How the label was chosen (--release, skill_tree_hash, generated_at, default).
    pub release_source: &'a str,
    pub paths_json: String,
    pub files_seen: i64,
    pub files_changed: i64,
    pub files_unchanged: i64,
    /// Refill the stored aggregates after the commit. False leaves them
    /// waiting (`ingest --defer-refill`): the jobs of a lake's fan-out do
    /// not each refill a shared release; `liftdb lake refresh` or the next
    /// reader does it once.
    pub refill: bool,
    /// Reports define the runs they list that no folder holds even where
    /// their release holds runs read from folders (sql/batch/define_reported.sql).
    pub define_reported: bool,
    /// The machine that read the trees, and the shard they are of.
    pub host: &'a str,
    pub shard: Option<&'a str>,
    /// The batches committed when this one planned, sorted: on a lake, one
    /// committed since with the same runs is another job's (`lake::guard_commit`).
    pub planned_after: &'a [i64],
}

impl BatchInfo<'_> {
    pub fn with_files_changed(self, files_changed: usize) -> Self {
        BatchInfo {
            files_changed: files_changed as i64,
            ..self
        }
    }
}

#[derive(Debug, Default, Clone)]
pub struct WriteCounts {
    pub batch_id: i64,
    pub rows_written: u64,
    pub runs_written: u64,
    /// Runs the batch's reports defined (their identity held by no run).
    pub runs_reported: u64,
    /// Runs the batch's reports list that no folder of their release
    /// holds, left undefined because the release holds runs read from
    /// folders (`BatchInfo::define_reported` defines them).
    pub runs_reported_not_in_tree: u64,
    /// Runs an Anthropic-format report had defined that a folder of this
    /// batch holds by what the report carries (sql/batch/carried_by_folders.sql).
    pub reported_replaced: u64,
    /// The batch's release was taken back: nothing of it was stored.
    pub release_dropped: bool,
}

/// The staging table of a table reported runs write.
fn staged_table(table: &str) -> Option<&'static str> {
    match table {
        "run" => Some("liftdb_reported_run"),
        "measurement" => Some("liftdb_reported_measurement"),
        "skill_activation" => Some("liftdb_reported_skill_activation"),
        "grading" => Some("liftdb_reported_grading"),
        "assertion_result" => Some("liftdb_reported_assertion_result"),
        _ => None,
    }
}

/// The files this batch read, held out of `source_file` until its commit:
/// on a lake, jobs at one checkout path read the same manifest, and the row
/// another job stored meanwhile is dropped from here, where DuckLake sees no
/// delete (a delete from `source_file` would conflict with every other
/// job's insert into it and send the batch round again).
const BATCH_FILES: &str = "liftdb_batch_files";

/// `name TYPE, ...` of `columns`, for a temporary table shaped like a stored one.
fn column_definitions(columns: &[Column]) -> String {
    let defs: Vec<String> = columns
        .iter()
        .map(|c| format!("{} {}", c.name, c.sql_type))
        .collect();
    defs.join(", ")
}

fn column_names(columns: &[Column]) -> String {
    let names: Vec<&str> = columns.iter().map(|c| c.name).collect();
    names.join(", ")
}

/// Keys of run and grading (sql/batch/duplicate_*_keys.sql says why): the
/// query that finds a duplicated key, and the one naming its holders.
const DUPLICATE_KEYS: &[(&str, &str, &str)] = &[
    ("run", "duplicate_run_keys", "run_key_holders"),
    ("grading", "duplicate_grading_keys", "grading_key_holders"),
];

/// A run another writer committed after this batch planned (`planned`:
/// the batches committed then, sorted) is that writer's: two jobs storing
/// one tree at once, the later having begun its transaction after the
/// other's commit. The batch is tried again (`StoredMeanwhile`) and then
/// finds the runs stored, as the commit guard would have said.
fn refuse_duplicate_keys(tx: &Connection, batch_id: i64, planned: &[i64]) -> Result<()> {
    for (table, find, holders) in DUPLICATE_KEYS {
        let mut stmt = tx.prepare(batch_sql(find))?;
        let mut rows = stmt.query([batch_id])?;
        let Some(row) = rows.next()? else { continue };
        let key: String = row.get(0)?;
        if *table == "run" {
            let mut stmt = tx.prepare(batch_sql("other_batches_of_run"))?;
            let others: Vec<i64> = stmt
                .query_map(duckdb::params![key, batch_id], |r| r.get(0))?
                .collect::<std::result::Result<_, _>>()?;
            if !others.is_empty() && others.iter().all(|b| planned.binary_search(b).is_err()) {
                return Err(Error::StoredMeanwhile { batches: others });
            }
        }
        return Err(Error::DuplicateKey {
            table,
            holders: tx.query_row(batch_sql(holders), [&key], |r| r.get(0))?,
            key,
        });
    }
    Ok(())
}

/// Secrets out of every text value of a row.
fn redacted(row: Row) -> Row {
    row.into_iter()
        .map(|v| match v {
            duckdb::types::Value::Text(t) => match crate::model::redact::redact(&t) {
                std::borrow::Cow::Borrowed(_) => duckdb::types::Value::Text(t),
                std::borrow::Cow::Owned(clean) => duckdb::types::Value::Text(clean),
            },
            other => other,
        })
        .collect()
}

/// The rows of `r` (all but its errors), secrets redacted unless opted out.
/// Pure: run it on the parsing threads so the writer thread only appends.
pub fn table_rows(r: &Records, batch_id: i64, redact: bool) -> TableRows {
    redacted_tables(r.table_rows(batch_id), redact)
}

/// `table_rows`, the records given up for them: their text is moved into
/// the rows, not copied (a run's outputs and metadata are most of its bytes).
pub fn into_table_rows(r: Records, batch_id: i64, redact: bool) -> TableRows {
    redacted_tables(r.into_table_rows(batch_id), redact)
}

fn redacted_tables(tables: TableRows, redact: bool) -> TableRows {
    if !redact {
        return tables;
    }
    tables
        .into_iter()
        .map(|t| TableBatch {
            rows: t.rows.into_iter().map(redacted).collect(),
            ..t
        })
        .collect()
}

fn append_rows(conn: &Connection, table: &str, columns: &[Column], rows: Vec<Row>) -> Result<u64> {
    if rows.is_empty() {
        return Ok(0);
    }
    let mut appender = conn.appender(table)?;
    // Whole columns per call; DuckDB casts each to the table's column type.
    for slice in rows.chunks(APPEND_BATCH_ROWS) {
        appender.append_record_batch(super::arrow_rows::record_batch(slice, columns)?)?;
    }
    // Constraint violations surface at flush, not at append.
    appender
        .flush()
        .map_err(|e| Error::Invalid(format!("writing {table}: {e}")))?;
    Ok(rows.len() as u64)
}

/// Paths into one of liftdb's temporary key tables, replacing what it held.
/// How many.
fn fill_key_table(
    conn: &Connection,
    table: &str,
    paths: impl Iterator<Item = String>,
) -> Result<u64> {
    conn.execute_batch(&format!(
        "CREATE TEMP TABLE IF NOT EXISTS {table} (path VARCHAR); DELETE FROM {table};"
    ))?;
    let rows = paths.map(|p| vec![duckdb::types::Value::Text(p)]);
    append_streamed(conn, table, TEXT_KEY, rows)
}

/// Rows into one of liftdb's temporary tables, appended a record batch at
/// a time, never all held at once. How many.
fn append_streamed(
    conn: &Connection,
    table: &str,
    columns: &[Column],
    rows: impl Iterator<Item = Row>,
) -> Result<u64> {
    let mut rows = rows.peekable();
    let mut filled = 0;
    while rows.peek().is_some() {
        let batch = rows.by_ref().take(APPEND_BATCH_ROWS).collect();
        filled += append_rows(conn, table, columns, batch)?;
    }
    Ok(filled)
}

/// A unit whose stored rows a batch replaces: its path (a run folder, a
/// loose file), the release whose rows of it go (None: every release's)
/// and the shard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DoomedUnit {
    pub path: String,
    pub release: Option<String>,
    /// The shard its rows were read for (None: a manifest or report, shared
    /// by the release's shards, or an unsharded batch).
    pub shard: Option<String>,
}

/// The units a batch replaces into `liftdb_doomed` (path, release, shard),
/// a record batch at a time. How many.
fn fill_doomed(conn: &Connection, units: impl Iterator<Item = DoomedUnit>) -> Result<u64> {
    conn.execute_batch(
        "CREATE OR REPLACE TEMP TABLE liftdb_doomed (path VARCHAR, release VARCHAR, shard VARCHAR)",
    )?;
    let text = |t: Option<String>| t.map_or(duckdb::types::Value::Null, duckdb::types::Value::Text);
    let rows = units.map(|u| {
        vec![
            duckdb::types::Value::Text(u.path),
            text(u.release),
            text(u.shard),
        ]
    });
    append_streamed(conn, "liftdb_doomed", DOOMED_KEY, rows)
}

/// Rows per record batch: bounds the Arrow copy of a chunk's largest table.
const APPEND_BATCH_ROWS: usize = 8192;

/// One batch being written: opened with the units it replaces, fed with
/// records chunk by chunk (memory stays bounded by the chunk and the
/// appenders' buffers), committed by `finish`. Dropped unfinished, its
/// transaction rolls back and the store is unchanged.
pub struct BatchWriter<'c> {
    /// Declared before `tx`: dropped first, so whatever they still buffer
    /// goes into the transaction being rolled back, not after it.
    appenders: Appenders<'c>,
    tx: Transaction<'c>,
    /// The store, for the refill after `tx` commits.
    conn: &'c Connection,
    batch_id: i64,
    redact: bool,
    counts: WriteCounts,
    /// Under `--memory-mb`: DuckDB's share through the parse and the refill.
    budget: Option<MemoryBudget>,
    /// The staging tables of reported runs exist, and the run ids staged.
    staged_any: bool,
    staged: std::collections::HashSet<String>,
}

impl<'c> BatchWriter<'c> {
    /// Begin the transaction, record the batch and its release, and delete
    /// every row of the units being replaced.
    pub fn begin(
        conn: &'c Connection,
        batch: &BatchInfo,
        replaced_units: impl Iterator<Item = DoomedUnit>,
        redact: bool,
    ) -> Result<Self> {
        let tx = conn.unchecked_transaction()?;
        // Taken, not read: writers of one lake at once never share one.
        let batch_id = super::ids::new_id();
        tx.execute(
            "INSERT INTO ingest_batch (batch_id, release_label, paths, liftdb_version, started_at, release_source, host, shard)
             VALUES (?, ?, ?, ?, now()::TIMESTAMP, ?, ?, ?)",
            params![
                batch_id,
                batch.release_label,
                batch.paths_json,
                crate::VERSION,
                batch.release_source,
                batch.host,
                batch.shard
            ],
        )?;
        // Appended when new (two writers may both append it: the releases
        // view gives it once, by its first record).
        tx.execute(
            "INSERT INTO release_record (release_label, recorded_at, batch_id, position, derived_from)
             SELECT ?, now()::TIMESTAMP, ?, 0, ?
             WHERE NOT EXISTS (SELECT 1 FROM release_record WHERE release_label = ?)",
            params![
                batch.release_label,
                batch_id,
                batch.release_source,
                batch.release_label
            ],
        )?;
        tx.execute_batch(&format!(
            "CREATE OR REPLACE TEMP TABLE {BATCH_FILES} ({})",
            column_definitions(SourceFileRec::COLUMNS)
        ))?;
        let replaced = fill_doomed(&tx, replaced_units)?;
        // A batch that replaces nothing (new units only) skips the thirteen
        // deletes: each would still scan its table.
        match replaced > 0 {
            true => tx.execute_batch(&format!(
                "{}{}",
                batch_sql("doomed_rows"),
                batch_sql("touched_by_deletes")
            ))?,
            false => tx.execute_batch(batch_sql("touched_nothing"))?,
        }
        if replaced > 0 {
            for sql in ["delete_case_definitions", "delete_suite_definitions"].map(batch_sql) {
                tx.execute(sql, [&batch.release_label])?;
            }
            tx.execute_batch(batch_sql("delete_units"))?;
        }
        Ok(BatchWriter {
            appenders: Appenders::new(conn),
            tx,
            conn,
            batch_id,
            redact,
            counts: WriteCounts::default(),
            budget: None,
            staged_any: false,
            staged: Default::default(),
        })
    }

    pub fn batch_id(&self) -> i64 {
        self.batch_id
    }

    /// Hold DuckDB to `budget` for the rest of the batch. Under a budget the
    /// stored aggregates are refilled on one thread: their ordered list
    /// aggregates keep a state per thread that DuckDB cannot spill, so two
    /// threads need twice what one does.
    pub fn hold_to(&mut self, budget: MemoryBudget) {
        self.budget = Some(budget);
    }

    /// After a chunk of runs is appended: DuckDB's share set again from what
    /// liftdb now holds (budget.rs).
    pub fn rebalance_memory(&mut self) -> Result<()> {
        match self.budget.as_mut() {
            Some(budget) => budget.rebalance(&self.tx),
            None => Ok(()),
        }
    }

    /// The run directory of each run of `run_ids` this batch has written so
    /// far (one scan of the batch's runs, however many are asked).
    pub fn run_dirs_of(
        &mut self,
        run_ids: impl Iterator<Item = String>,
    ) -> Result<std::collections::HashMap<String, String>> {
        let mut run_ids = run_ids.peekable();
        if run_ids.peek().is_none() {
            return Ok(Default::default());
        }
        self.appenders.flush()?;
        fill_key_table(&self.tx, "liftdb_asked_runs", run_ids)?;
        let mut stmt = self.tx.prepare(
            "SELECT run_id, run_dir FROM run
             WHERE batch_id = ? AND run_id IN (SELECT path FROM liftdb_asked_runs)",
        )?;
        let dirs = stmt
            .query_map([self.batch_id], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<std::result::Result<_, _>>()?;
        Ok(dirs)
    }

    /// Append every row of `r` except its errors (written by `finish`), the
    /// records moved into their rows. Runs a report defines are staged
    /// (`stage_reported`).
    pub fn append_owned(&mut self, mut r: Records) -> Result<()> {
        self.stage_reported(r.take_reported())?;
        let rows = into_table_rows(r, self.batch_id, self.redact);
        self.append_prepared(rows)
    }

    /// Runs a report defines, with their measurements and activations, held
    /// aside in temporary tables: `finish` keeps those whose identity the
    /// store holds no run of by then (no run folder of this batch or before
    /// it), the first report's where two define one.
    pub fn stage_reported(&mut self, reported: Records) -> Result<()> {
        if reported.runs.is_empty() {
            return Ok(());
        }
        if !self.staged_any {
            self.tx.execute_batch(batch_sql("stage_reported"))?;
            self.staged_any = true;
        }
        let mut keep = reported;
        let fresh: std::collections::HashSet<String> = keep
            .runs
            .iter()
            .map(|r| r.run_id.clone())
            .filter(|id| !self.staged.contains(id))
            .collect();
        keep.runs.retain(|r| fresh.contains(&r.run_id));
        keep.measurements.retain(|m| fresh.contains(&m.run_id));
        keep.activations.retain(|a| fresh.contains(&a.run_id));
        keep.gradings.retain(|g| fresh.contains(&g.run_id));
        keep.assertions.retain(|a| fresh.contains(&a.run_id));
        self.staged.extend(fresh);
        for t in into_table_rows(keep, self.batch_id, self.redact) {
            if let Some(stage) = staged_table(t.table) {
                append_rows(&self.tx, stage, t.columns, t.rows)?;
            }
        }
        Ok(())
    }

    /// Runs a report defined that run folders of this batch now replace:
    /// their rows go before the folders' are appended (the same run ids).
    pub fn replace_reported(&mut self, run_ids: Vec<String>) -> Result<()> {
        if run_ids.is_empty() {
            return Ok(());
        }
        self.appenders.flush()?;
        fill_key_table(&self.tx, "liftdb_replaced_reported", run_ids.into_iter())?;
        self.tx
            .execute_batch(batch_sql("touched_by_replaced_reported"))?;
        self.tx
            .execute_batch(batch_sql("delete_replaced_reported"))?;
        Ok(())
    }

    /// Append rows made by `table_rows` (built off this thread, in parallel).
    pub fn append_prepared(&mut self, tables: TableRows) -> Result<()> {
        for t in tables {
            let n = self.buffer_rows(t.table, t.columns, t.rows)?;
            self.counts.rows_written += n;
            if t.table == crate::model::records::RunRec::TABLE {
                self.counts.runs_written += n;
            }
        }
        Ok(())
    }

    /// Record the files a chunk was read from: staged (`BATCH_FILES`) until
    /// the commit, when the writers' turn says which another writer has
    /// stored meanwhile (`finish`).
    pub fn append_source_files(&mut self, files: &[SourceFileRec]) -> Result<()> {
        let rows = files.iter().map(|f| f.row(self.batch_id)).collect();
        self.buffer_rows(BATCH_FILES, SourceFileRec::COLUMNS, rows)?;
        Ok(())
    }

    /// `rows` into the table's held appender, a record batch at a time.
    fn buffer_rows(
        &mut self,
        table: &'static str,
        columns: &[Column],
        rows: Vec<Row>,
    ) -> Result<u64> {
        for slice in rows.chunks(APPEND_BATCH_ROWS) {
            let batch = super::arrow_rows::record_batch(slice, columns)?;
            self.appenders.append(table, batch)?;
        }
        Ok(rows.len() as u64)
    }

    /// Write the errors, close the batch and commit; then refill the
    /// aggregates of the releases it touched (refill.rs).
    pub fn finish(
        mut self,
        batch: &BatchInfo,
        errors: &[IngestErrorRec],
        moved_mtimes: &[(String, i64, String)],
        clock: &mut crate::sys::timings::Timings,
    ) -> Result<WriteCounts> {
        self.appenders.flush()?;
        let tx = &self.tx;
        if let Some(budget) = self.budget.as_mut() {
            budget.end_parse(tx)?;
        }
        clock.mark("flush appenders");
        {
            let mut stmt =
                tx.prepare("INSERT INTO ingest_error (batch_id, path, stage, reason, occurred_at, hint) VALUES (?, ?, ?, ?, now()::TIMESTAMP, ?)")?;
            for e in errors {
                stmt.execute(params![
                    self.batch_id,
                    e.path,
                    e.kind.stage(),
                    e.reason,
                    e.kind.hint()
                ])?;
            }
        }
        tx.execute(batch_sql("carried_by_folders"), [self.batch_id])?;
        let carried: i64 =
            tx.query_row("SELECT count(*) FROM liftdb_replaced_reported", [], |r| {
                r.get(0)
            })?;
        if carried > 0 {
            tx.execute_batch(batch_sql("touched_by_replaced_reported"))?;
            tx.execute_batch(batch_sql("delete_replaced_reported"))?;
            self.counts.reported_replaced = carried as u64;
        }
        if self.staged_any {
            tx.execute(batch_sql("reported_fate"), [batch.define_reported])?;
            tx.execute_batch(batch_sql("define_reported"))?;
            let (defined, beside): (i64, i64) = tx.query_row(
                "SELECT count(*) FILTER (WHERE fate = 'defined'), count(*) FILTER (WHERE fate = 'beside')
                 FROM liftdb_reported_fate",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?;
            self.counts.runs_reported_not_in_tree = beside as u64;
            self.counts.runs_reported = defined as u64;
            self.counts.runs_written += defined as u64;
            tx.execute(
                batch_sql("sort_reported_release"),
                params![self.batch_id, batch.release_label],
            )?;
        }
        clock.mark("errors + reports' runs");
        refuse_duplicate_keys(tx, self.batch_id, batch.planned_after)?;
        clock.mark("duplicate keys");
        tx.execute(batch_sql("record_stored_runs"), [self.batch_id])?;
        register_run_releases(tx, self.batch_id)?;
        let release_dropped = drop_empty_release(tx, self.batch_id, batch.release_label)?;
        clock.mark("run records");
        let touched = touched_by_batch(tx, self.batch_id)?;
        let releases: Vec<String> = touched.by_release.keys().cloned().collect();
        // A lake's refill takes whole releases (refill::run): its cases are not given.
        let lake = super::lake::on_lake(tx)?;
        let by_case = match lake {
            true => None,
            false => Some(whole_when_new(tx, touched)?),
        };
        super::aggregates::refill::mark_waiting(tx, &releases, self.batch_id)?;
        tx.execute(
            "UPDATE ingest_batch SET finished_at = now()::TIMESTAMP, files_seen = ?, files_changed = ?,
                    files_unchanged = ?, runs_written = ?, errors = ? WHERE batch_id = ?",
            params![
                batch.files_seen,
                batch.files_changed,
                batch.files_unchanged,
                self.counts.runs_written as i64,
                errors.len() as i64,
                self.batch_id
            ],
        )?;
        // On a lake the writers take turns from here to the commit.
        let writers_turn =
            super::lake::guard_commit(tx, self.batch_id, batch.planned_after, BATCH_FILES)?;
        let columns = column_names(SourceFileRec::COLUMNS);
        tx.execute_batch(&format!(
            "INSERT INTO source_file ({columns}) SELECT {columns} FROM {BATCH_FILES};
             DROP TABLE temp.{BATCH_FILES};"
        ))?;
        let counts = WriteCounts {
            batch_id: self.batch_id,
            release_dropped,
            ..self.counts
        };
        let BatchWriter {
            appenders,
            tx,
            conn,
            mut budget,
            ..
        } = self;
        drop(appenders);
        tx.commit()?;
        drop(writers_turn);
        clock.mark("commit");
        // After the commit, in a transaction of its own (`touch` skips a
        // lake, the one store where another writer could meet it).
        touch(conn, moved_mtimes)?;
        // What the parse and the checks freed, handed back before the
        // refill's share is used.
        super::budget::return_freed_memory();
        // The batch is stored: a failure from here leaves it so, its
        // releases' aggregates waiting for the next open to refill them.
        if !batch.refill {
            return Ok(counts);
        }
        super::aggregates::refill::run(conn, budget.as_mut(), by_case.as_ref(), clock).map_err(
            |e| Error::AggregatesWaiting {
                batch_id: counts.batch_id,
                releases,
                remedy: super::budget::refill_remedy(&e, lake),
                detail: match e {
                    Error::Db(db) => crate::error::duckdb_text(&db),
                    other => other.to_string(),
                },
            },
        )?;
        Ok(counts)
    }
}

/// Every release whose rows this batch deleted or wrote, with the cases it
/// touched of each: the release whole when a definition of it changed or
/// more than `CASES_AT_MOST` of its cases did.
fn touched_by_batch(tx: &Connection, batch_id: i64) -> Result<Touched> {
    tx.execute(batch_sql("touched_by_writes"), [batch_id])?;
    let mut stmt = tx.prepare(
        "SELECT DISTINCT release_label, case_key FROM liftdb_touched
         ORDER BY release_label, case_key NULLS FIRST",
    )?;
    let mut rows = stmt.query([])?;
    let mut touched = Touched {
        batch_id,
        ..Default::default()
    };
    while let Some(row) = rows.next()? {
        let release: String = row.get(0)?;
        let case: Option<String> = row.get(1)?;
        let entry = touched
            .by_release
            .entry(release)
            .or_insert_with(|| Some(Vec::new()));
        match (entry.as_mut(), case) {
            (Some(cases), Some(case)) if cases.len() < CASES_AT_MOST => cases.push(case),
            (Some(_), _) => *entry = None,
            (None, _) => {}
        }
    }
    Ok(touched)
}

/// `touched`, with each release the store held no runs of before (its
/// stored runs are not refilled yet) taken whole: all its cases are the
/// batch's, and its label picks them with no key built per row.
fn whole_when_new(tx: &Connection, mut touched: Touched) -> Result<Touched> {
    let mut held = tx.prepare("SELECT EXISTS (SELECT 1 FROM run_rows WHERE release_label = ?)")?;
    for (release, cases) in touched.by_release.iter_mut() {
        if cases.is_some() && !held.query_row([release], |r| r.get::<_, bool>(0))? {
            *cases = None;
        }
    }
    Ok(touched)
}

fn update_mtimes(conn: &Connection, touched: &[(String, i64, String)]) -> Result<()> {
    // The print moves with the mtime (its row's size and path are as stored).
    let mut stmt = conn.prepare(
        "UPDATE source_file SET mtime_ns = $1, print = liftdb_file_print(size_bytes, $1, path)
         WHERE path = $2 AND sha256 = $3",
    )?;
    // Only the rows of the content on disk: the same path read for another
    // release with other content keeps its own mtime (its change check
    // must still find it changed).
    for (path, mtime, sha) in touched {
        stmt.execute(params![mtime, path, sha])?;
    }
    Ok(())
}

/// Files whose content is unchanged but whose mtime moved (path, mtime,
/// sha256): remember the new mtime so the next ingest skips them without
/// reading. Not on a lake: an update is a delete to DuckLake, and a delete
/// from `source_file` rolls back every other writer's batch that inserts
/// into it meanwhile (matrix jobs at one checkout path each hold their own
/// copy of one manifest, its mtime their checkout's); a CI checkout gives
/// every file a new mtime anyway.
pub fn touch(conn: &Connection, touched: &[(String, i64, String)]) -> Result<()> {
    if touched.is_empty() || super::lake::on_lake(conn)? {
        return Ok(());
    }
    let tx = conn.unchecked_transaction()?;
    update_mtimes(&tx, touched)?;
    Ok(tx.commit()?)
}

/// The release this batch recorded, taken back when nothing in the store is
/// of it (a wrong path, an empty folder, runs that all went to iteration
/// releases): a release no row names would stay in `releases` for ever. The
/// batch itself stays in the ledger with the label it was given.
fn drop_empty_release(tx: &Connection, batch_id: i64, label: &str) -> Result<bool> {
    let dropped = tx.execute(
        "DELETE FROM release_record
         WHERE batch_id = ?1 AND release_label = ?2
           AND NOT EXISTS (SELECT 1 FROM run WHERE release_label = ?2)
           AND NOT EXISTS (SELECT 1 FROM suite_record WHERE release_label = ?2)
           AND NOT EXISTS (SELECT 1 FROM case_def_record WHERE release_label = ?2)
           AND NOT EXISTS (SELECT 1 FROM trigger_observation WHERE release_label = ?2)
           AND NOT EXISTS (SELECT 1 FROM peer_metric WHERE release_label = ?2)",
        params![batch_id, label],
    )?;
    Ok(dropped > 0)
}

/// Releases that runs carry besides their batch's (skill-creator's
/// iteration-N folders, one release each) join `releases` in their natural
/// order — iteration-2 before iteration-10 — after the batch's own.
fn register_run_releases(tx: &Connection, batch_id: i64) -> Result<()> {
    tx.execute(
        "INSERT INTO release_record (release_label, recorded_at, batch_id, position, derived_from)
         SELECT release_label, now()::TIMESTAMP, ?,
                row_number() OVER (ORDER BY TRY_CAST(regexp_extract(release_label, '(\\d+)$', 1) AS BIGINT) NULLS LAST, release_label)::INTEGER,
                'skill-creator iteration'
         FROM (SELECT release_label FROM run UNION SELECT release_label FROM suite)
         WHERE release_label NOT IN (SELECT release_label FROM release_record)",
        [batch_id],
    )?;
    Ok(())
}
