//! Writing one ingest batch: delete the rows of every changed unit, append
//! the new rows through DuckDB appenders, record files and the batch, all in
//! one transaction. Any failure rolls back and leaves the store unchanged.

use duckdb::{params, Connection};

use crate::ingest::records::{text, IngestErrorRec, Records, Row};
use crate::{Error, Result};

#[derive(Debug, Clone)]
pub struct SourceFileRow {
    pub path: String,
    pub sha256: String,
    pub size_bytes: i64,
    pub mtime_ns: i64,
    pub kind: String,
    pub source_format: String,
    pub owner_key: String,
}

pub struct BatchInfo<'a> {
    pub release_label: &'a str,
    /// How the label was chosen (--release, skill_tree_hash, generated_at, default).
    pub release_source: &'a str,
    pub paths_json: String,
    pub files_seen: i64,
    pub files_changed: i64,
    pub files_unchanged: i64,
}

#[derive(Debug, Default, Clone)]
pub struct WriteCounts {
    pub batch_id: i64,
    pub rows_written: u64,
    pub runs_written: u64,
}

const DELETE_UNITS: &[&str] = &[
    "DELETE FROM trace_event WHERE run_id IN (SELECT run_id FROM run WHERE run_dir IN (SELECT path FROM liftdb_doomed))",
    "DELETE FROM trace_line WHERE run_id IN (SELECT run_id FROM run WHERE run_dir IN (SELECT path FROM liftdb_doomed))",
    "DELETE FROM skill_activation WHERE run_id IN (SELECT run_id FROM run WHERE run_dir IN (SELECT path FROM liftdb_doomed))",
    "DELETE FROM measurement WHERE run_id IN (SELECT run_id FROM run WHERE run_dir IN (SELECT path FROM liftdb_doomed))",
    "DELETE FROM run WHERE run_dir IN (SELECT path FROM liftdb_doomed)",
    "DELETE FROM assertion_result WHERE grading_id IN (SELECT grading_id FROM grading WHERE report_path IN (SELECT path FROM liftdb_doomed))",
    "DELETE FROM grading WHERE report_path IN (SELECT path FROM liftdb_doomed)",
    "DELETE FROM peer_metric WHERE source_path IN (SELECT path FROM liftdb_doomed)",
    "DELETE FROM trigger_observation WHERE source_path IN (SELECT path FROM liftdb_doomed)",
    "DELETE FROM judge_verdict WHERE source_path IN (SELECT path FROM liftdb_doomed)",
    "DELETE FROM case_def WHERE source_path IN (SELECT path FROM liftdb_doomed)",
    "DELETE FROM suite WHERE manifest_path IN (SELECT path FROM liftdb_doomed)",
    "DELETE FROM source_file WHERE owner_key IN (SELECT path FROM liftdb_doomed)",
];

/// Secrets out of every text value of a row.
fn redacted(row: Row) -> Row {
    row.into_iter()
        .map(|v| match v {
            duckdb::types::Value::Text(t) => match crate::ingest::redact::redact(&t) {
                std::borrow::Cow::Borrowed(_) => duckdb::types::Value::Text(t),
                std::borrow::Cow::Owned(clean) => duckdb::types::Value::Text(clean),
            },
            other => other,
        })
        .collect()
}

/// Rows per table, in the order they are appended.
pub type TableRows = Vec<(&'static str, Vec<Row>)>;

/// The rows of `r` (all but its errors), secrets redacted unless opted out.
/// Pure: run it on the parsing threads so the writer thread only appends.
pub fn table_rows(r: &Records, batch_id: i64, redact: bool) -> TableRows {
    let b = batch_id;
    let tables: TableRows = vec![
        ("suite", r.suites.iter().map(|x| x.row(b)).collect()),
        ("case_def", r.cases.iter().map(|x| x.row()).collect()),
        ("run", r.runs.iter().map(|x| x.row(b)).collect()),
        ("grading", r.gradings.iter().map(|x| x.row()).collect()),
        (
            "assertion_result",
            r.assertions.iter().map(|x| x.row()).collect(),
        ),
        (
            "judge_verdict",
            r.judge_verdicts.iter().map(|x| x.row()).collect(),
        ),
        (
            "trace_event",
            r.trace_events.iter().map(|x| x.row()).collect(),
        ),
        (
            "trace_line",
            r.trace_lines.iter().map(|x| x.row()).collect(),
        ),
        (
            "skill_activation",
            r.activations.iter().map(|x| x.row()).collect(),
        ),
        (
            "measurement",
            r.measurements.iter().map(|x| x.row()).collect(),
        ),
        (
            "trigger_observation",
            r.trigger_observations.iter().map(|x| x.row()).collect(),
        ),
        (
            "peer_metric",
            r.peer_metrics.iter().map(|x| x.row()).collect(),
        ),
    ];
    if !redact {
        return tables;
    }
    tables
        .into_iter()
        .map(|(table, rows)| (table, rows.into_iter().map(redacted).collect()))
        .collect()
}

fn append_rows<I>(conn: &Connection, table: &str, rows: I) -> Result<u64>
where
    I: IntoIterator<Item = Row>,
{
    let rows: Vec<Row> = rows.into_iter().collect();
    let Some(width) = rows.first().map(Vec::len) else {
        return Ok(0);
    };
    let mut appender = conn.appender(table)?;
    // Whole columns per call; DuckDB casts each to the table's column type.
    for slice in rows.chunks(APPEND_BATCH_ROWS) {
        appender.append_record_batch(super::arrow_rows::record_batch(slice, width)?)?;
    }
    // Constraint violations surface at flush, not at append.
    appender
        .flush()
        .map_err(|e| Error::Invalid(format!("writing {table}: {e}")))?;
    Ok(rows.len() as u64)
}

/// Rows per record batch: bounds the Arrow copy of a chunk's largest table.
const APPEND_BATCH_ROWS: usize = 8192;

/// One batch being written: opened with the units it replaces, fed with
/// records chunk by chunk (memory stays bounded by the chunk), committed by
/// `finish`. Dropped unfinished, it rolls back and the store is unchanged.
pub struct BatchWriter<'c> {
    conn: &'c Connection,
    batch_id: i64,
    redact: bool,
    counts: WriteCounts,
    open: bool,
}

impl<'c> BatchWriter<'c> {
    /// Begin the transaction, record the batch and its release, and delete
    /// every row of the units being replaced.
    pub fn begin(
        conn: &'c Connection,
        batch: &BatchInfo,
        replaced_units: &[String],
        redact: bool,
    ) -> Result<Self> {
        // A batch can be a whole tree: let DuckDB spill what it holds for the
        // open transaction instead of growing with the tree.
        if let Ok(limit) = std::env::var("LIFTDB_MEMORY_LIMIT") {
            conn.execute_batch(&format!("SET memory_limit = '{}'", limit.replace('\'', "")))?;
        }
        conn.execute_batch("BEGIN TRANSACTION")?;
        let mut writer = BatchWriter {
            conn,
            batch_id: 0,
            redact,
            counts: WriteCounts::default(),
            open: true,
        };
        writer.batch_id = conn.query_row(
            "SELECT coalesce(max(batch_id), 0) + 1 FROM ingest_batch",
            [],
            |r| r.get(0),
        )?;
        conn.execute(
            "INSERT INTO ingest_batch (batch_id, release_label, paths, liftdb_version, started_at)
             VALUES (?, ?, ?, ?, now()::TIMESTAMP)",
            params![
                writer.batch_id,
                batch.release_label,
                batch.paths_json,
                crate::VERSION
            ],
        )?;
        conn.execute(
            "INSERT INTO releases
             SELECT ?, coalesce((SELECT max(ordinal) FROM releases), 0) + 1, now()::TIMESTAMP, ?
             WHERE NOT EXISTS (SELECT 1 FROM releases WHERE release_label = ?)",
            params![
                batch.release_label,
                batch.release_source,
                batch.release_label
            ],
        )?;
        conn.execute_batch(
            "CREATE TEMP TABLE IF NOT EXISTS liftdb_doomed (path VARCHAR); DELETE FROM liftdb_doomed;",
        )?;
        append_rows(
            conn,
            "liftdb_doomed",
            replaced_units.iter().map(|p| vec![text(Some(p))]),
        )?;
        for sql in DELETE_UNITS {
            conn.execute_batch(sql)?;
        }
        Ok(writer)
    }

    pub fn batch_id(&self) -> i64 {
        self.batch_id
    }

    /// Append every row of `r` except its errors (written by `finish`).
    pub fn append(&mut self, r: &Records) -> Result<()> {
        let rows = table_rows(r, self.batch_id, self.redact);
        self.append_prepared(rows)
    }

    /// Append rows made by `table_rows` (built off this thread, in parallel).
    pub fn append_prepared(&mut self, tables: TableRows) -> Result<()> {
        for (table, rows) in tables {
            let n = append_rows(self.conn, table, rows)?;
            self.counts.rows_written += n;
            if table == "run" {
                self.counts.runs_written += n;
            }
        }
        Ok(())
    }

    /// Record the files a chunk was read from (replacing older rows for the same paths).
    pub fn append_source_files(&mut self, files: &[SourceFileRow]) -> Result<()> {
        let conn = self.conn;
        conn.execute_batch(
            "CREATE TEMP TABLE IF NOT EXISTS liftdb_new_files (path VARCHAR); DELETE FROM liftdb_new_files;",
        )?;
        append_rows(
            conn,
            "liftdb_new_files",
            files.iter().map(|f| vec![text(Some(&f.path))]),
        )?;
        conn.execute_batch(
            "DELETE FROM source_file WHERE path IN (SELECT path FROM liftdb_new_files)",
        )?;
        let batch_id = self.batch_id;
        append_rows(
            conn,
            "source_file",
            files.iter().map(|f| {
                vec![
                    text(Some(&f.path)),
                    text(Some(&f.sha256)),
                    duckdb::types::Value::BigInt(f.size_bytes),
                    duckdb::types::Value::BigInt(f.mtime_ns),
                    text(Some(&f.kind)),
                    text(Some(&f.source_format)),
                    text(Some(&f.owner_key)),
                    duckdb::types::Value::BigInt(batch_id),
                ]
            }),
        )?;
        Ok(())
    }

    /// Write the errors, refresh the statistics, close the batch and commit.
    pub fn finish(
        mut self,
        batch: &BatchInfo,
        errors: &[IngestErrorRec],
        touched: &[(String, i64)],
        clock: &mut crate::ingest::timings::Timings,
    ) -> Result<WriteCounts> {
        let conn = self.conn;
        {
            let mut stmt =
                conn.prepare("INSERT INTO ingest_error (batch_id, path, stage, reason, occurred_at, hint) VALUES (?, ?, ?, ?, now()::TIMESTAMP, ?)")?;
            for e in errors {
                let hint = crate::ingest::hints::hint(&e.stage, &e.reason);
                stmt.execute(params![self.batch_id, e.path, e.stage, e.reason, hint])?;
            }
        }
        update_mtimes(conn, touched)?;
        clock.mark("errors + mtimes");
        crate::stats::materialize::refresh(conn)?;
        clock.mark("lift_stats");
        crate::stats::ablation::refresh(conn)?;
        crate::stats::trend::refresh(conn)?;
        clock.mark("ablation + trend stats");
        conn.execute(
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
        conn.execute_batch("COMMIT")?;
        clock.mark("commit");
        self.open = false;
        self.counts.batch_id = self.batch_id;
        Ok(self.counts.clone())
    }
}

impl Drop for BatchWriter<'_> {
    fn drop(&mut self) {
        if self.open {
            let _ = self.conn.execute_batch("ROLLBACK");
        }
    }
}

fn update_mtimes(conn: &Connection, touched: &[(String, i64)]) -> Result<()> {
    let mut stmt = conn.prepare("UPDATE source_file SET mtime_ns = ? WHERE path = ?")?;
    for (path, mtime) in touched {
        stmt.execute(params![mtime, path])?;
    }
    Ok(())
}

/// Files whose content is unchanged but whose mtime moved: remember the new
/// mtime so the next ingest skips them without reading.
pub fn touch(conn: &Connection, touched: &[(String, i64)]) -> Result<()> {
    if touched.is_empty() {
        return Ok(());
    }
    conn.execute_batch("BEGIN TRANSACTION")?;
    match update_mtimes(conn, touched) {
        Ok(()) => Ok(conn.execute_batch("COMMIT")?),
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}
