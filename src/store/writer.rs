//! Writing one ingest batch: delete the rows of every changed unit, append
//! the new rows through DuckDB appenders, record files and the batch, all in
//! one transaction. Any failure rolls back and leaves the store unchanged.

use duckdb::{appender_params_from_iter, params, Connection};

use crate::ingest::records::{text, Records, Row};
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

/// What one batch changes in the store.
pub struct WritePlan<'a> {
    pub batch: BatchInfo<'a>,
    /// Units (run directories, report files) whose previous rows are replaced.
    pub replaced_units: Vec<String>,
    pub records: &'a Records,
    pub source_files: Vec<SourceFileRow>,
    /// Unchanged files whose modification time moved (content identical).
    pub touched: Vec<(String, i64)>,
    /// Replace secrets in every text value (on unless --no-redact).
    pub redact: bool,
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

fn append_data<I>(conn: &Connection, table: &str, rows: I, redact: bool) -> Result<u64>
where
    I: IntoIterator<Item = Row>,
{
    if redact {
        append_rows(conn, table, rows.into_iter().map(redacted))
    } else {
        append_rows(conn, table, rows)
    }
}

fn append_rows<I>(conn: &Connection, table: &str, rows: I) -> Result<u64>
where
    I: IntoIterator<Item = Row>,
{
    let mut appender = conn.appender(table)?;
    let mut n = 0u64;
    for row in rows {
        appender.append_row(appender_params_from_iter(row))?;
        n += 1;
    }
    // Constraint violations surface at flush, not at append.
    appender
        .flush()
        .map_err(|e| Error::Invalid(format!("writing {table}: {e}")))?;
    Ok(n)
}

pub fn write(conn: &Connection, plan: &WritePlan) -> Result<WriteCounts> {
    conn.execute_batch("BEGIN TRANSACTION")?;
    match write_in_transaction(conn, plan) {
        Ok(counts) => {
            conn.execute_batch("COMMIT")?;
            Ok(counts)
        }
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}

fn write_in_transaction(conn: &Connection, plan: &WritePlan) -> Result<WriteCounts> {
    let batch_id: i64 = conn.query_row(
        "SELECT coalesce(max(batch_id), 0) + 1 FROM ingest_batch",
        [],
        |r| r.get(0),
    )?;
    conn.execute(
        "INSERT INTO ingest_batch (batch_id, release_label, paths, liftdb_version, started_at)
         VALUES (?, ?, ?, ?, now()::TIMESTAMP)",
        params![
            batch_id,
            plan.batch.release_label,
            plan.batch.paths_json,
            crate::VERSION
        ],
    )?;
    conn.execute(
        "INSERT INTO releases
         SELECT ?, coalesce((SELECT max(ordinal) FROM releases), 0) + 1, now()::TIMESTAMP, ?
         WHERE NOT EXISTS (SELECT 1 FROM releases WHERE release_label = ?)",
        params![
            plan.batch.release_label,
            plan.batch.release_source,
            plan.batch.release_label
        ],
    )?;

    conn.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS liftdb_doomed (path VARCHAR); DELETE FROM liftdb_doomed;",
    )?;
    append_rows(
        conn,
        "liftdb_doomed",
        plan.replaced_units.iter().map(|p| vec![text(Some(p))]),
    )?;
    for sql in DELETE_UNITS {
        conn.execute_batch(sql)?;
    }

    let r = plan.records;
    let mut rows = 0u64;
    rows += append_data(
        conn,
        "suite",
        r.suites.iter().map(|x| x.row(batch_id)),
        plan.redact,
    )?;
    rows += append_data(
        conn,
        "case_def",
        r.cases.iter().map(|x| x.row()),
        plan.redact,
    )?;
    let runs_written = append_data(
        conn,
        "run",
        r.runs.iter().map(|x| x.row(batch_id)),
        plan.redact,
    )?;
    rows += runs_written;
    rows += append_data(
        conn,
        "grading",
        r.gradings.iter().map(|x| x.row()),
        plan.redact,
    )?;
    rows += append_data(
        conn,
        "assertion_result",
        r.assertions.iter().map(|x| x.row()),
        plan.redact,
    )?;
    rows += append_data(
        conn,
        "judge_verdict",
        r.judge_verdicts.iter().map(|x| x.row()),
        plan.redact,
    )?;
    rows += append_data(
        conn,
        "trace_event",
        r.trace_events.iter().map(|x| x.row()),
        plan.redact,
    )?;
    rows += append_data(
        conn,
        "trace_line",
        r.trace_lines.iter().map(|x| x.row()),
        plan.redact,
    )?;
    rows += append_data(
        conn,
        "skill_activation",
        r.activations.iter().map(|x| x.row()),
        plan.redact,
    )?;
    rows += append_data(
        conn,
        "measurement",
        r.measurements.iter().map(|x| x.row()),
        plan.redact,
    )?;
    rows += append_data(
        conn,
        "trigger_observation",
        r.trigger_observations.iter().map(|x| x.row()),
        plan.redact,
    )?;
    rows += append_data(
        conn,
        "peer_metric",
        r.peer_metrics.iter().map(|x| x.row()),
        plan.redact,
    )?;

    {
        let mut stmt =
            conn.prepare("INSERT INTO ingest_error VALUES (?, ?, ?, ?, now()::TIMESTAMP)")?;
        for e in &r.errors {
            stmt.execute(params![batch_id, e.path, e.stage, e.reason])?;
        }
    }

    conn.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS liftdb_new_files (path VARCHAR); DELETE FROM liftdb_new_files;",
    )?;
    append_rows(
        conn,
        "liftdb_new_files",
        plan.source_files.iter().map(|f| vec![text(Some(&f.path))]),
    )?;
    conn.execute_batch(
        "DELETE FROM source_file WHERE path IN (SELECT path FROM liftdb_new_files)",
    )?;
    append_rows(
        conn,
        "source_file",
        plan.source_files.iter().map(|f| {
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
    update_mtimes(conn, &plan.touched)?;
    crate::stats::materialize::refresh(conn)?;
    crate::stats::ablation::refresh(conn)?;
    crate::stats::trend::refresh(conn)?;

    conn.execute(
        "UPDATE ingest_batch SET finished_at = now()::TIMESTAMP, files_seen = ?, files_changed = ?,
                files_unchanged = ?, runs_written = ?, errors = ? WHERE batch_id = ?",
        params![
            plan.batch.files_seen,
            plan.batch.files_changed,
            plan.batch.files_unchanged,
            runs_written as i64,
            r.errors.len() as i64,
            batch_id
        ],
    )?;
    Ok(WriteCounts {
        batch_id,
        rows_written: rows,
        runs_written,
    })
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
