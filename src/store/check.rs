//! `liftdb check`: is the store whole? Its migrations ledger (checked when it
//! is opened), every block of every table (each row read in full, so DuckDB
//! verifies each block's checksum as it loads it), and every view (run to
//! the end, so a view that no longer binds or fails on the data is found),
//! the keys the child tables hold without an index (migration 0012), and
//! each derived table against the view it stores (store/aggregates/mod.rs).

use duckdb::Connection;

use super::aggregates::{Derived, DERIVED};
use crate::Result;

/// One thing checked: a table or a view, and what was found.
#[derive(Debug, Clone)]
pub struct Checked {
    pub kind: &'static str,
    pub name: String,
    pub rows: Option<i64>,
    /// None when it is sound; else DuckDB's text.
    pub problem: Option<String>,
    /// DuckDB ran out of the budget's memory reading it: not read, which
    /// says nothing of damage (`problem` holds DuckDB's text).
    pub out_of_memory: bool,
}

impl Checked {
    /// Found damaged (not merely unread for want of memory).
    pub fn damaged(&self) -> bool {
        self.problem.is_some() && !self.out_of_memory
    }
}

fn names(conn: &Connection, sql: &str) -> Result<Vec<String>> {
    let mut stmt = conn.prepare(sql)?;
    let names = stmt
        .query_map([], |r| r.get(0))?
        .collect::<Result<Vec<String>, _>>()?;
    Ok(names)
}

fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Every table read in full, then every view run to the end, under the
/// process budget's refill share on one thread (left to DuckDB, a large
/// store's check takes many gigabytes); DuckDB's own limits are back
/// afterwards.
pub fn check(conn: &Connection) -> Result<Vec<Checked>> {
    super::budget::under_process_budget(conn, || check_all(conn))
}

fn check_all(conn: &Connection) -> Result<Vec<Checked>> {
    // (kind, what lists them, how one is read: hash() of the whole row
    // loads every column of every row of a table)
    let passes = [
        (
            "table",
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal AND NOT temporary ORDER BY table_name",
            "SELECT count(*), bit_xor(hash(t)) FROM {} t",
        ),
        (
            "view",
            "SELECT view_name FROM duckdb_views() WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal ORDER BY view_name",
            "SELECT count(*) FROM {}",
        ),
    ];
    // A case-grained view and its table are read a part of the cases at a
    // time, as the refill writes them: whole, their per-run folds outgrow a
    // small budget on a large store.
    let parts = super::aggregates::refill::parts_to_compare(conn)?;
    let in_parts = |d: &Derived| d.case_grained && d.listed_in.is_none() && parts > 1;
    let mut out = Vec::new();
    for (kind, list, read) in passes {
        for name in names(conn, list)? {
            let found = match DERIVED.iter().find(|d| kind == "view" && d.view == name) {
                Some(d) if in_parts(d) => by_parts(
                    conn,
                    parts,
                    &format!(
                    "SELECT count(*) FROM {}((SELECT list(DISTINCT release_label) FROM run), NULL)",
                    d.of_cases()
                ),
                ),
                _ => conn.query_row(&read.replace("{}", &quoted(&name)), [], |r| {
                    r.get::<_, i64>(0)
                }),
            };
            out.push(checked(kind, name, found));
        }
    }
    for (table, key) in UNINDEXED_KEYS {
        let sql = format!(
            "SELECT count(*) FROM (SELECT 1 FROM {table} GROUP BY {key} HAVING count(*) > 1)"
        );
        let name = format!("{table} ({key})");
        let found = conn.query_row(&sql, [], |r| r.get::<_, i64>(0));
        out.push(none_expected("key", name, found, |twice| {
            format!("{twice} keys held by more than one row; hint: `liftdb rebuild` writes the store again from its sources")
        }));
    }
    out.extend(identity_checks(conn));
    for d in DERIVED.iter() {
        let (table, view) = (d.table, d.view);
        // The view's rows as the table holds them: its macro's columns (the
        // view adds the reports' names of some after them).
        let (rows, stored) = match in_parts(d) {
            true => (
                format!("{}((SELECT list(DISTINCT release_label) FROM run), NULL)", d.of_cases()),
                format!("(SELECT * FROM {table} WHERE liftdb_in_scope(NULL, NULL, release_label, skill_name, case_id))"),
            ),
            false => (format!("{}(NULL)", d.of_releases()), table.to_string()),
        };
        let sql = format!(
            "SELECT count(*) FROM ((SELECT * FROM {stored} EXCEPT ALL SELECT * FROM {rows})
                                   UNION ALL (SELECT * FROM {rows} EXCEPT ALL SELECT * FROM {stored}))"
        );
        let name = format!("{table} = {view}");
        let found = match in_parts(d) {
            true => by_parts(conn, parts, &sql),
            false => conn.query_row(&sql, [], |r| r.get::<_, i64>(0)),
        };
        out.push(none_expected("derived", name, found, |differ| {
            format!("{differ} rows differ from the view; hint: written outside an ingest? the next ingest refills {table} for the releases it changes, `liftdb rebuild` writes the store anew")
        }));
    }
    // A table its reports list with no sort of their own must be in their
    // order; a lake's reports sort it (its rows come back in no set order).
    let kept_in_order = !super::lake::on_lake(conn)?;
    for Derived {
        table, listed_in, ..
    } in DERIVED.iter().filter(|_| kept_in_order)
    {
        let Some(order) = listed_in else { continue };
        let sql = format!(
            "SELECT count(*) FROM (
                 SELECT stored_at, row_number() OVER (ORDER BY {order}, stored_at) AS sorted_at
                 FROM (SELECT *, row_number() OVER () AS stored_at FROM {table}))
             WHERE stored_at <> sorted_at"
        );
        let found = conn.query_row(&sql, [], |r| r.get::<_, i64>(0));
        out.push(none_expected("order", table.to_string(), found, |misplaced| {
            format!("{misplaced} rows out of the order its reports list it in ({order}), which they print as stored; hint: written outside an ingest? `liftdb rebuild` writes the store anew")
        }));
    }
    // Each file's print as written with its row (the change check XORs them).
    let found = conn.query_row(
        "SELECT count(*) FROM source_file
         WHERE print IS DISTINCT FROM liftdb_file_print(size_bytes, mtime_ns, path)",
        [],
        |r| r.get::<_, i64>(0),
    );
    out.push(none_expected("derived", "source_file.print".into(), found, |differ| {
        format!("{differ} files' prints differ from liftdb_file_print; hint: written outside an ingest? their owners take the change check's slower exact path on every ingest; `liftdb rebuild` writes the store anew")
    }));
    Ok(out)
}

/// What the runs mean (`sql/check/`): no release emptied by a later batch,
/// no run held twice under two identities. Each is named with what to do.
fn identity_checks(conn: &Connection) -> Vec<Checked> {
    let ask = |name: &str| -> duckdb::Result<Vec<(String, String, i64)>> {
        let sql = crate::sqlfiles::named(crate::sqlfiles::CHECK_QUERIES, name);
        let mut stmt = conn.prepare(sql)?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        rows.collect()
    };
    let mut out = Vec::new();
    let emptied = ask("emptied_releases").map(|rows| {
        let named: Vec<String> = rows
            .iter()
            .map(|(release, batches, runs)| {
                format!("'{release}' ({runs} runs stored by batch {batches})")
            })
            .collect();
        (rows.len() as i64, named.join(", "))
    });
    out.push(found_wrong("identity", "emptied releases", emptied, |listed| {
        format!("releases whose runs a later batch replaced: {listed}; a folder re-used for the next release was taken for the same runs by an earlier liftdb; hint: ingest that release's tree again with --release NAME if it was kept, else `liftdb release drop NAME`")
    }));
    let doubled = ask("doubled_runs").map(|rows| {
        let runs: i64 = rows.iter().map(|(_, _, n)| n).sum();
        let named: Vec<String> = rows
            .iter()
            .map(|(release, report, n)| format!("{n} of {report} in '{release}'"))
            .collect();
        (runs, named.join(", "))
    });
    out.push(found_wrong("identity", "runs held twice", doubled, |listed| {
        format!("runs an Anthropic-format report defined that a run read from a folder holds: {listed}; hint: `liftdb rebuild` writes the store anew, taking such a report for the folders' runs")
    }));
    out
}

/// A count of what is wrong and its listing: sound at 0.
fn found_wrong(
    kind: &'static str,
    name: &str,
    found: duckdb::Result<(i64, String)>,
    problem: impl FnOnce(&str) -> String,
) -> Checked {
    match found {
        Ok((0, _)) => checked(kind, name.to_string(), Ok(0)),
        Ok((n, listed)) => Checked {
            kind,
            name: name.to_string(),
            rows: Some(n),
            problem: Some(problem(&listed)),
            out_of_memory: false,
        },
        Err(e) => checked(kind, name.to_string(), Err(e)),
    }
}

/// Keys unique by construction, not by an index (an index over them was
/// most of a large ingest's memory).
const UNINDEXED_KEYS: &[(&str, &str)] = &[
    ("run", "run_id"),
    ("grading", "grading_id"),
    ("measurement", "run_id, metric"),
    ("trace_event", "run_id, seq"),
    ("trace_line", "run_id, line_no"),
    ("assertion_result", "grading_id, seq"),
    ("source_file", "path, owner_key, release_label, shard"),
];

/// A count of offending rows: sound at 0, else damaged as `problem` says.
fn none_expected(
    kind: &'static str,
    name: String,
    found: duckdb::Result<i64>,
    problem: impl FnOnce(i64) -> String,
) -> Checked {
    match found {
        Ok(n) if n > 0 => Checked {
            kind,
            name,
            rows: Some(n),
            problem: Some(problem(n)),
            out_of_memory: false,
        },
        found => checked(kind, name, found),
    }
}

fn checked(kind: &'static str, name: String, found: duckdb::Result<i64>) -> Checked {
    match found {
        Ok(rows) => Checked {
            kind,
            name,
            rows: Some(rows),
            problem: None,
            out_of_memory: false,
        },
        Err(e) => {
            let text = crate::error::duckdb_text(&e);
            Checked {
                kind,
                name,
                rows: None,
                out_of_memory: text.contains("Out of Memory Error"),
                problem: Some(text),
            }
        }
    }
}

/// The sum of `sql`'s count over `parts` parts of the cases (the variable
/// `liftdb_in_scope` reads), the variable unset afterwards whatever happened.
fn by_parts(conn: &Connection, parts: u64, sql: &str) -> duckdb::Result<i64> {
    let mut sum = 0;
    let mut done = Ok(());
    for part in 0..parts {
        done = conn
            .execute_batch(&format!(
                "SET VARIABLE liftdb_refill_part = [{part}, {parts}]::UBIGINT[]"
            ))
            .and_then(|_| conn.query_row(sql, [], |r| r.get::<_, i64>(0)))
            .map(|n| sum += n);
        if done.is_err() {
            break;
        }
    }
    conn.execute_batch("RESET VARIABLE liftdb_refill_part")?;
    done.map(|_| sum)
}

/// One ingest that built the store: its release, whether the user named
/// it (--release: it holds every run of the batch) or liftdb derived it,
/// and the paths given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedBatch {
    pub release: String,
    pub named: bool,
    pub paths: Vec<String>,
    /// When it committed (microseconds since the epoch).
    pub finished_us: i64,
    /// The shard it stored (`ingest --shard`).
    pub shard: Option<String>,
}

/// The ingests that built the store, in order. A batch recorded before
/// liftdb kept how its release was chosen counts as named unless some of
/// its runs sit in another release (skill-creator iterations).
pub fn recorded_batches(conn: &Connection) -> Result<Vec<RecordedBatch>> {
    let mut stmt = conn.prepare(
        "SELECT b.release_label, b.paths::VARCHAR,
                CASE WHEN b.release_source IS NOT NULL THEN b.release_source = '--release'
                     ELSE NOT EXISTS (SELECT 1 FROM run r
                                      WHERE r.batch_id = b.batch_id AND r.release_label <> b.release_label)
                END,
                epoch_us(b.finished_at), b.shard
         FROM ingest_batch b WHERE b.finished_at IS NOT NULL ORDER BY b.batch_id",
    )?;
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, bool>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, Option<String>>(4)?,
            ))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows
        .into_iter()
        .map(
            |(release, paths, named, finished_us, shard)| RecordedBatch {
                release,
                named,
                paths: serde_json::from_str::<Vec<String>>(&paths).unwrap_or_default(),
                finished_us,
                shard,
            },
        )
        .collect())
}
