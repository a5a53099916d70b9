//! Releases a user controls: rename one, drop one with everything it
//! holds, or move one to its place in the order. Each is one transaction recorded in `release_action` (the batches
//! stay in `ingest_batch` as they were ingested), after which every stored
//! aggregate is refilled: trends read each release beside the one before.

use duckdb::{params, Connection};

use super::aggregates::refill;
use crate::{Error, Result};

/// Tables whose rows name their release directly; a rename relabels them.
/// (`ingest_batch` too: the next ingest of the same files without
/// --release then derives the new name.)
const LABELLED: &[&str] = &[
    "run",
    "run_stored",
    "case_def_record",
    "suite_record",
    "trigger_observation",
    "peer_metric",
    "source_file",
    "release_record",
    "release_position",
    "ingest_batch",
];

/// A release's rows, deleted in this order: what hangs off its runs first.
/// `liftdb_dropped_runs` holds the release's run ids and folders.
const DROP: &[&str] = &[
    "DELETE FROM trace_event WHERE run_id IN (SELECT run_id FROM liftdb_dropped_runs)",
    "DELETE FROM trace_line WHERE run_id IN (SELECT run_id FROM liftdb_dropped_runs)",
    "DELETE FROM skill_activation WHERE run_id IN (SELECT run_id FROM liftdb_dropped_runs)",
    "DELETE FROM measurement WHERE run_id IN (SELECT run_id FROM liftdb_dropped_runs)",
    "DELETE FROM assertion_result WHERE run_id IN (SELECT run_id FROM liftdb_dropped_runs)",
    "DELETE FROM grading WHERE run_id IN (SELECT run_id FROM liftdb_dropped_runs)",
    "DELETE FROM run_stored WHERE run_id IN (SELECT run_id FROM liftdb_dropped_runs)",
    "DELETE FROM run WHERE release_label = $1",
    "DELETE FROM peer_metric WHERE release_label = $1",
    "DELETE FROM trigger_observation WHERE release_label = $1",
    "DELETE FROM case_def_record WHERE release_label = $1",
    "DELETE FROM suite_record WHERE release_label = $1",
    "DELETE FROM release_record WHERE release_label = $1",
    "DELETE FROM release_position WHERE release_label = $1",
];

/// Its files are forgotten (so the next ingest naming them reads them
/// again): each file's row names the release it was read for, so other
/// releases keep theirs (a manifest defining their cases too, the folder a
/// harness re-used for the next release).
const FORGET_SOURCES: &str = "DELETE FROM source_file WHERE release_label = $1";

/// What a change did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    /// The runs the release held.
    pub runs: i64,
}

/// The runs `label` holds; an error naming the releases there are when the
/// store has no such release.
pub fn runs_of(conn: &Connection, label: &str) -> Result<i64> {
    let (known, runs, existing): (bool, i64, Option<String>) = conn.query_row(
        "SELECT coalesce(bool_or(release_label = $1), false),
                (SELECT count(*) FROM run WHERE release_label = $1),
                string_agg(release_label, ', ' ORDER BY ordinal)
         FROM releases",
        [label],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    match known {
        true => Ok(runs),
        false => Err(Error::NoSuchRelease {
            label: label.to_string(),
            existing: existing.unwrap_or_else(|| "none".into()),
        }),
    }
}

/// Rename release `old` to `new` (which must not exist), in one transaction,
/// then refill the aggregates.
pub fn rename(conn: &Connection, old: &str, new: &str) -> Result<Changed> {
    if new.trim().is_empty() {
        return Err(Error::Invalid("a release needs a name".into()));
    }
    let tx = conn.unchecked_transaction()?;
    let runs = runs_of(&tx, old)?;
    if runs_of(&tx, new).is_ok() {
        return Err(Error::ReleaseExists {
            label: new.to_string(),
        });
    }
    for table in LABELLED {
        tx.execute(
            &format!("UPDATE {table} SET release_label = $2 WHERE release_label = $1"),
            params![old, new],
        )?;
    }
    record(&tx, "rename", old, Some(new), runs)?;
    refill::mark_every_waiting(&tx)?;
    tx.commit()?;
    refill::finish_waiting(conn)?;
    Ok(Changed { runs })
}

/// Drop release `label` with every row it holds (runs, their gradings,
/// measurements and traces, its cases, trigger observations and report
/// figures), in one transaction, then refill the aggregates. Its batches
/// stay in the ledger; its files are read again by the next ingest naming
/// them.
pub fn drop(conn: &Connection, label: &str) -> Result<Changed> {
    let tx = conn.unchecked_transaction()?;
    let runs = runs_of(&tx, label)?;
    tx.execute(
        "CREATE OR REPLACE TEMP TABLE liftdb_dropped_runs AS
         SELECT run_id, run_dir FROM run WHERE release_label = $1",
        [label],
    )?;
    for sql in DROP {
        match sql.contains("$1") {
            true => tx.execute(sql, [label])?,
            false => tx.execute(sql, params![])?,
        };
    }
    tx.execute(FORGET_SOURCES, [label])?;
    record(&tx, "drop", label, None, runs)?;
    refill::mark_every_waiting(&tx)?;
    tx.commit()?;
    refill::finish_waiting(conn)?;
    Ok(Changed { runs })
}

/// Where `release move` puts a release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// Before every other release.
    First,
    /// Right after this one.
    After(String),
}

/// Move release `label` to `place` in the order trends, the HTML page and
/// the gate's baseline follow, in one transaction, then refill the
/// aggregates (each release's trend reads the one before it). The release
/// takes a sort key between its new neighbours'; where they are too close
/// to part, every release is given its place again, in the new order.
pub fn move_to(conn: &Connection, label: &str, place: &Place) -> Result<Changed> {
    let tx = conn.unchecked_transaction()?;
    let runs = runs_of(&tx, label)?;
    let after = match place {
        Place::After(other) if other == label => {
            return Err(Error::Invalid(format!(
                "release '{label}' cannot go after itself; hint: name the release it should follow, or --first"
            )))
        }
        Place::After(other) => {
            runs_of(&tx, other)?;
            Some(other.as_str())
        }
        Place::First => None,
    };
    let mut order: Vec<(String, f64)> = {
        let mut stmt =
            tx.prepare("SELECT release_label, sort_key FROM releases ORDER BY ordinal")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<std::result::Result<_, _>>()?
    };
    let from = order
        .iter()
        .position(|(l, _)| l == label)
        .expect("the release is held");
    let moved = order.remove(from);
    let at = match after {
        None => 0,
        Some(other) => order.iter().position(|(l, _)| l == other).expect("held") + 1,
    };
    let before = at.checked_sub(1).map(|i| order[i].1);
    let next = order.get(at).map(|(_, k)| *k);
    let key = match (before, next) {
        (None, None) => moved.1,
        (None, Some(n)) => n - 1.0,
        (Some(b), None) => b + 1.0,
        (Some(b), Some(n)) => b + (n - b) / 2.0,
    };
    let parts = before.is_none_or(|b| key > b) && next.is_none_or(|n| key < n);
    order.insert(at, (label.to_string(), key));
    let change_id = super::ids::new_id();
    let keep = |release: &str, key: f64| -> Result<()> {
        tx.execute(
            "INSERT INTO release_position VALUES (?, ?, now()::TIMESTAMP, ?)",
            params![release, key, change_id],
        )?;
        Ok(())
    };
    match parts {
        true => keep(label, key)?,
        // Neighbours a key cannot part (equal, or a moved release's keys
        // halved too often): every release its place again, a millisecond
        // apart from the first's key on.
        false => {
            let base = order.iter().map(|(_, k)| *k).fold(f64::INFINITY, f64::min);
            for (i, (release, _)) in order.iter().enumerate() {
                keep(release, base + i as f64 * 1e-3)?;
            }
        }
    }
    record_as(&tx, change_id, "move", label, after, runs)?;
    refill::mark_every_waiting(&tx)?;
    tx.commit()?;
    refill::finish_waiting(conn)?;
    Ok(Changed { runs })
}

fn record(tx: &Connection, action: &str, label: &str, new: Option<&str>, runs: i64) -> Result<()> {
    record_as(tx, super::ids::new_id(), action, label, new, runs)
}

/// One change in `release_action` (a move's `new` is the release it
/// follows, NULL for the first place).
fn record_as(
    tx: &Connection,
    change_id: i64,
    action: &str,
    label: &str,
    new: Option<&str>,
    runs: i64,
) -> Result<()> {
    tx.execute(
        "INSERT INTO release_action VALUES (now()::TIMESTAMP, ?, ?, ?, ?, ?, ?)",
        params![change_id, action, label, new, runs, crate::VERSION],
    )?;
    Ok(())
}

/// A recorded change, for `rebuild` to apply again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Rename { old: String, new: String },
    Drop { label: String },
    Move { label: String, place: Place },
}

/// Apply a recorded change again where it still applies (a rename whose
/// release a rebuilt batch already named anew finds nothing to rename).
pub fn replay(conn: &Connection, change: &Change) -> Result<bool> {
    let applies = |label: &str| runs_of(conn, label).is_ok();
    match change {
        Change::Rename { old, new } if applies(old) && !applies(new) => {
            rename(conn, old, new).map(|_| true)
        }
        Change::Drop { label } if applies(label) => drop(conn, label).map(|_| true),
        Change::Move { label, place } if applies(label) => {
            if let Place::After(other) = place {
                if !applies(other) {
                    return Ok(false);
                }
            }
            move_to(conn, label, place).map(|_| true)
        }
        _ => Ok(false),
    }
}

/// The changes the store records, in order, each with when it was made
/// (microseconds since the epoch). A store from before liftdb recorded
/// them has none.
pub fn recorded_changes(conn: &Connection) -> Result<Vec<(i64, Change)>> {
    let held: bool = conn.query_row(
        "SELECT count(*) > 0 FROM duckdb_tables() WHERE table_name = 'release_action' AND database_name = current_database()",
        [],
        |r| r.get(0),
    )?;
    if !held {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare(
        "SELECT epoch_us(changed_at), action, release_label, new_label
         FROM release_action ORDER BY changed_at, change_id",
    )?;
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<String>>(3)?,
            ))
        })?
        .collect::<std::result::Result<Vec<_>, _>>()?;
    Ok(rows
        .into_iter()
        .filter_map(|(at, action, label, new)| match (action.as_str(), new) {
            ("rename", Some(new)) => Some((at, Change::Rename { old: label, new })),
            ("drop", _) => Some((at, Change::Drop { label })),
            ("move", after) => Some((
                at,
                Change::Move {
                    label,
                    place: after.map_or(Place::First, Place::After),
                },
            )),
            _ => None,
        })
        .collect())
}
