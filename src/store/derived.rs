//! Derived tables: views stored as rows, refilled at the end of every batch
//! once its rows are committed (refill.rs), so reports read a few stored aggregates instead of
//! recomputing every run and pair of the store (at a million runs a report
//! over the live views took seconds). Each table is created beside its view
//! (`CREATE TABLE t AS SELECT * FROM v LIMIT 0` in the view's .sql file), so
//! its columns follow the view's definition; the views stay live for ad-hoc
//! SQL and `liftdb check` verifies each table holds its view's rows.
//!
//! Every row of these views belongs to one release and is computed from that
//! release's rows only, so a batch refills the releases it touched: each view
//! is `SELECT * FROM <view>_in(NULL)`, and `<view>_in(releases)` reads only
//! the runs of the releases listed. The runs are worked out once, into
//! run_rows, and every later aggregate but cost_per_lift reads them there
//! (`run_rows_in`; sql/views/20_pairs.sql says why not that one):
//! recomputing them per aggregate was most of the end of a million-run batch.

use duckdb::Connection;

use crate::Result;

/// A stored view: its table, the view, and the table macro giving the
/// view's rows for a list of releases.
pub struct Derived {
    pub table: &'static str,
    pub view: &'static str,
    pub of_releases: &'static str,
    /// The view whose column comments the table and the view are given
    /// when the view holds another's rows (None: the view's own comments).
    pub comments_from: Option<&'static str>,
    /// Refilled on two threads under a memory budget (refill.rs): run_rows
    /// fit the refill's 640 MiB at a million runs on two, in a third of the
    /// time. cost_per_lift_rows did not; the others' ordered list
    /// aggregates keep a state per thread DuckDB cannot spill, and two
    /// threads saved them a few seconds at most.
    pub two_threads: bool,
    /// The order the reports listing the table print its rows in, as an
    /// ORDER BY over the table's columns, release_label first: the whole
    /// table is kept in it (`refresh` refills the releases asked for and
    /// every release sorting after the first of them), so that the reports
    /// list it with no sort of their own: DuckDB returns one table's rows,
    /// filtered, in the order they were stored (its documentation: SQL
    /// dialect, order preservation). `liftdb check` verifies the order. A
    /// million runs, `report runs`: 1.05 s sorted by DuckDB, 0.45 s listed
    /// (on one thread: `report::stream`).
    pub listed_in: Option<&'static str>,
}

/// In refill order: a later view reads an earlier table (the aggregates
/// read their runs from run_rows, lift reads lift_unit_rows).
pub const DERIVED: &[Derived] = &[
    Derived {
        table: "run_rows",
        view: "runs",
        of_releases: "runs_in",
        comments_from: None,
        two_threads: true,
        listed_in: None,
    },
    Derived {
        table: "run_listing_rows",
        view: "run_listing",
        of_releases: "run_listing_in",
        comments_from: None,
        two_threads: false,
        listed_in: Some(
            "release_label, skill_name, experiment NULLS FIRST, case_id, model NULLS FIRST, arm, repetition",
        ),
    },
    Derived {
        table: "run_total_rows",
        view: "run_totals",
        of_releases: "run_totals_in",
        comments_from: None,
        two_threads: false,
        listed_in: None,
    },
    Derived {
        table: "reliability_rows",
        view: "reliability",
        of_releases: "reliability_in",
        comments_from: None,
        two_threads: false,
        listed_in: Some("release_label, skill_name, experiment NULLS FIRST, case_id, arm, k"),
    },
    Derived {
        table: "blocked_pair_rows",
        view: "blocked_pairs",
        of_releases: "blocked_pairs_in",
        comments_from: Some("pairs"),
        two_threads: false,
        listed_in: None,
    },
    Derived {
        table: "lift_unit_rows",
        view: "lift_units",
        of_releases: "lift_units_in",
        comments_from: None,
        two_threads: false,
        listed_in: None,
    },
    Derived {
        table: "reliability_lift_pooled_rows",
        view: "reliability_lift_pooled",
        of_releases: "reliability_lift_pooled_in",
        comments_from: Some("reliability_lift"),
        two_threads: false,
        listed_in: None,
    },
    Derived {
        table: "lift_rows",
        view: "lift",
        of_releases: "lift_in",
        comments_from: None,
        two_threads: false,
        listed_in: None,
    },
    Derived {
        table: "case_flag_rows",
        view: "case_flags",
        of_releases: "case_flags_in",
        comments_from: None,
        two_threads: false,
        listed_in: None,
    },
    Derived {
        table: "failing_assertion_rows",
        view: "failing_assertions",
        of_releases: "failing_assertions_in",
        comments_from: None,
        two_threads: false,
        listed_in: None,
    },
    Derived {
        table: "cost_per_lift_rows",
        view: "cost_per_lift",
        of_releases: "cost_per_lift_in",
        comments_from: None,
        two_threads: false,
        listed_in: None,
    },
    Derived {
        table: "cost_per_lift_case_rows",
        view: "cost_per_lift_cases",
        of_releases: "cost_per_lift_cases_in",
        comments_from: None,
        two_threads: false,
        listed_in: None,
    },
];

/// Which releases a refill recomputes.
#[derive(Debug, Clone, Copy)]
pub enum Scope<'a> {
    Every,
    /// Only these; the rows of every other release stay as they are.
    Releases(&'a [String]),
}

impl Scope<'_> {
    /// `column` among the releases (for a WHERE clause).
    pub fn filter(&self, column: &str) -> String {
        match self {
            Scope::Every => "true".into(),
            Scope::Releases(labels) => format!("list_contains({}, {column})", sql_list(labels)),
        }
    }

    /// The argument of a `<view>_in` macro.
    pub fn argument(&self) -> String {
        match self {
            Scope::Every => "NULL".into(),
            Scope::Releases(labels) => sql_list(labels),
        }
    }
}

/// Labels as a SQL list literal of strings (`[]::VARCHAR[]` when none).
fn sql_list(labels: &[String]) -> String {
    let quoted: Vec<String> = labels
        .iter()
        .map(|l| format!("'{}'", l.replace('\'', "''")))
        .collect();
    format!("[{}]::VARCHAR[]", quoted.join(", "))
}

impl Derived {
    /// This table's rows of `scope`, replaced by its view's; a table kept
    /// in order (`listed_in`) has the rows of every release sorting after
    /// the first of `scope` replaced too, so that they follow it again.
    pub fn refresh(&self, conn: &Connection, scope: Scope) -> Result<()> {
        match (self.listed_in, scope) {
            (Some(_), Scope::Releases(labels)) => {
                let following = releases_from(conn, labels)?;
                self.replace(conn, Scope::Releases(&following))
            }
            _ => self.replace(conn, scope),
        }
    }

    /// The rows of `scope` deleted and its view's inserted after every
    /// other row, in the table's order when it has one.
    fn replace(&self, conn: &Connection, scope: Scope) -> Result<()> {
        conn.execute_batch(&format!(
            "DELETE FROM {table} WHERE {filter};
             INSERT INTO {table} BY NAME SELECT * FROM {macro_}({argument}){order};",
            table = self.table,
            filter = scope.filter("release_label"),
            macro_ = self.of_releases,
            argument = scope.argument(),
            order = self
                .listed_in
                .map(|order| format!(" ORDER BY {order}"))
                .unwrap_or_default(),
        ))?;
        Ok(())
    }
}

/// `labels` and every release of the store sorting after the first of
/// them (compared as ORDER BY compares text).
fn releases_from(conn: &Connection, labels: &[String]) -> Result<Vec<String>> {
    let Some(first) = labels.iter().min() else {
        return Ok(Vec::new());
    };
    let mut stmt = conn.prepare("SELECT release_label FROM releases WHERE release_label >= ?")?;
    let mut following = stmt
        .query_map([first], |r| r.get::<_, String>(0))?
        .collect::<std::result::Result<Vec<_>, _>>()?;
    following.extend(labels.iter().cloned());
    following.sort();
    following.dedup();
    Ok(following)
}

/// Give each derived table's columns (and its view's, when they are
/// another view's) the comments of `comments_from`: an analyst reading the
/// table sees what each column means.
pub fn copy_comments(conn: &Connection) -> Result<()> {
    for d in DERIVED {
        let mut stmt = conn.prepare(
            "SELECT column_name, comment FROM duckdb_columns()
             WHERE table_name = ? AND schema_name = 'main' AND comment IS NOT NULL",
        )?;
        let comments = stmt
            .query_map([d.comments_from.unwrap_or(d.view)], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })?
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let targets: &[&str] = match d.comments_from {
            None => &[d.table],
            Some(_) => &[d.table, d.view],
        };
        let sql: String = targets
            .iter()
            .flat_map(|target| {
                comments.iter().map(move |(column, comment)| {
                    format!(
                        "COMMENT ON COLUMN {target}.\"{}\" IS '{}';\n",
                        column.replace('"', "\"\""),
                        comment.replace('\'', "''")
                    )
                })
            })
            .collect();
        conn.execute_batch(&sql)?;
    }
    Ok(())
}
