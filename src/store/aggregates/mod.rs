//! Derived tables: views stored as rows, refilled at the end of every batch
//! once its rows are committed (refill.rs), so reports read a few stored aggregates instead of
//! recomputing every run and pair of the store. Each table is created beside its view
//! (`CREATE TABLE t AS SELECT * FROM v LIMIT 0` in the view's .sql file), so
//! its columns follow the view's definition; the views stay live for ad-hoc
//! SQL and `liftdb check` verifies each table holds its view's rows.
//!
//! Every row of these views belongs to one release and is computed from that
//! release's rows only, so a batch refills the releases it touched: each view
//! is `SELECT * FROM <view>_in(NULL)`, and `<view>_in(releases)` reads only
//! the runs of the releases listed. The runs are worked out once, into
//! run_rows, and every later aggregate but cost_per_lift reads them there
//! (`run_rows_in`; sql/views/20_pairs.sql says why not that one), not once
//! per aggregate.

pub mod ablation;
pub mod lift_stats;
pub mod refill;
pub mod trend;

use std::sync::LazyLock;

use duckdb::Connection;

use crate::Result;

/// A stored view: its table, the view, and the table macro giving the
/// view's rows for a list of releases. Declared in the view's own file by
/// header lines (`parse_declaration`), so adding one touches that file only.
#[derive(Debug)]
pub struct Derived {
    pub table: &'static str,
    pub view: &'static str,
    /// The view whose column comments the table and the view are given
    /// when the view holds another's rows (None: the view's own comments).
    pub comments_from: Option<&'static str>,
    /// Refilled on two threads under a memory budget (refill.rs): the others'
    /// ordered list aggregates keep a state per thread DuckDB cannot spill.
    pub two_threads: bool,
    /// The order the reports listing the table print its rows in, as an
    /// ORDER BY over the table's columns, release_label first: in a DuckDB
    /// file the whole table is kept in it (`refresh` refills the releases
    /// asked for and every release sorting after the first of them), so that
    /// the reports list it with no sort of their own: DuckDB returns one
    /// table's rows, filtered, in the order they were stored (its
    /// documentation: SQL dialect, order preservation); `liftdb check`
    /// verifies the order. A lake keeps none: its reports sort.
    pub listed_in: Option<&'static str>,
    /// Every row is of one case (release, skill, case) and worked out from
    /// that case's rows only (`-- stored grain: case`): a batch that touched
    /// a few cases of a release refills their rows alone, through the
    /// view's `<view>_of(releases, cases)` macro.
    pub case_grained: bool,
    /// Predicates over the view's columns that split its rows into parts
    /// (`-- stored in parts: scope = 'overall'; scope = 'model'`): a table
    /// whose rows pool many cases (a release's list of unit deltas) is
    /// inserted a part at a time when its refill works in parts.
    pub parts_by: Vec<&'static str>,
}

/// Every stored view, in refill order: the order of the view files (a later
/// view reads an earlier table, as the views themselves are created).
pub static DERIVED: LazyLock<Vec<Derived>> = LazyLock::new(|| {
    crate::sqlfiles::VIEWS
        .iter()
        .filter_map(|(name, sql)| parse_declaration(name, sql))
        .collect()
});

/// The header lines a view file declares its stored table with:
///
/// ```sql
/// -- stored: lift_rows                   the table (required)
/// -- stored view: lift                   the view it holds (default: the file's)
/// -- stored comments from: pairs         whose column comments it takes
/// -- stored threads: 2                   refilled on two threads under a budget
/// -- stored order: release_label, ...    the order it is kept in
/// -- stored grain: case                  refilled per case (release, skill, case)
/// -- stored in parts: p1; p2; ...         inserted a part at a time under a budget
/// ```
fn parse_declaration(file_view: &'static str, sql: &'static str) -> Option<Derived> {
    let value = |key: &str| -> Option<&'static str> {
        sql.lines().find_map(|line| {
            let rest = line.strip_prefix("-- ")?.strip_prefix(key)?;
            rest.strip_prefix(':').map(str::trim)
        })
    };
    let table = value("stored")?;
    let view = value("stored view").unwrap_or(file_view);
    Some(Derived {
        table,
        view,
        comments_from: value("stored comments from"),
        two_threads: match value("stored threads") {
            None | Some("1") => false,
            Some("2") => true,
            Some(other) => panic!("{file_view}: `-- stored threads: {other}` (1 or 2)"),
        },
        listed_in: value("stored order"),
        case_grained: match value("stored grain") {
            None | Some("release") => false,
            Some("case") => true,
            Some(other) => panic!("{file_view}: `-- stored grain: {other}` (release or case)"),
        },
        parts_by: value("stored in parts")
            .map(|parts| parts.split(';').map(str::trim).collect())
            .unwrap_or_default(),
    })
}

/// Which releases a refill recomputes.
#[derive(Debug, Clone, Copy)]
pub enum Scope<'a> {
    Every,
    /// Only these; the rows of every other release stay as they are.
    Releases(&'a [String]),
    /// `releases` for every table but the case-grained ones, which refill
    /// the releases of `whole` and the cases of `cases` (liftdb_case_key
    /// keys) alone: a small batch into a large release.
    Cases {
        releases: &'a [String],
        whole: &'a [String],
        cases: &'a [String],
    },
}

impl Scope<'_> {
    /// `column` among the releases (for a WHERE clause).
    pub fn filter(&self, column: &str) -> String {
        match self.releases() {
            None => "true".into(),
            Some(labels) => format!("list_contains({}, {column})", sql_list(labels)),
        }
    }

    /// The argument of a `<view>_in` macro.
    pub fn argument(&self) -> String {
        match self.releases() {
            None => "NULL".into(),
            Some(labels) => sql_list(labels),
        }
    }

    /// The releases refilled (None: every one).
    fn releases(&self) -> Option<&[String]> {
        match self {
            Scope::Every => None,
            Scope::Releases(labels)
            | Scope::Cases {
                releases: labels, ..
            } => Some(labels),
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
    /// `<view>_in`, the table macro of the view's rows for some releases.
    pub fn of_releases(&self) -> String {
        format!("{}_in", self.view)
    }

    /// This table's rows of `scope`, replaced by its view's; a table kept
    /// in order (`listed_in`) in a DuckDB file has the rows of every release
    /// sorting after the first of `scope` replaced too, so that they follow
    /// it again.
    pub fn refresh(&self, conn: &Connection, scope: Scope) -> Result<()> {
        match (self.listed_in, scope) {
            (None, Scope::Cases { whole, cases, .. }) if self.case_grained => {
                self.replace_cases(conn, whole, cases)
            }
            (_, Scope::Cases { releases, .. }) => self.refresh(conn, Scope::Releases(releases)),
            (Some(_), Scope::Releases(labels)) => {
                // A lake gives a table's rows back in no set order
                // (sql/present/listing_sorted.sql): no order to keep.
                let replaced = match crate::store::lake::on_lake(conn)? {
                    true => labels.to_vec(),
                    false => releases_from(conn, labels)?,
                };
                self.replace(conn, Scope::Releases(&replaced))
            }
            _ => self.replace(conn, scope),
        }
    }

    /// `refresh` in `parts` parts, each its own delete and insert, for a
    /// case-grained table: the cases split by a hash of their key (the
    /// variable `liftdb_in_scope` reads), so DuckDB holds one part's runs
    /// at a time — state it cannot spill (strings under `max` and `list`,
    /// ordered aggregates) grows with a part, not with the release. Any
    /// other table, or one part: `refresh`.
    pub fn refresh_in_parts(&self, conn: &Connection, scope: Scope, parts: u64) -> Result<()> {
        if parts > 1 && !self.parts_by.is_empty() && self.listed_in.is_none() && !self.case_grained
        {
            return self.replace_by_predicates(conn, scope);
        }
        if parts <= 1 || !self.case_grained || self.listed_in.is_some() {
            return self.refresh(conn, scope);
        }
        // What a part deletes, and the releases whose rows it inserts: for
        // every release, every row of the part goes (a release no run
        // holds any more included) and the releases the runs hold come
        // back (with no list the views would work out every case at once).
        let (deleted, inserted, cases) = match scope {
            Scope::Every => (
                "NULL".to_string(),
                "(SELECT list(DISTINCT release_label) FROM run)".to_string(),
                "NULL".to_string(),
            ),
            Scope::Releases(labels) => (sql_list(labels), sql_list(labels), "NULL".to_string()),
            Scope::Cases { whole, cases, .. } => {
                (sql_list(whole), sql_list(whole), sql_list(cases))
            }
        };
        for part in 0..parts {
            let done = conn.execute_batch(&format!(
                "SET VARIABLE liftdb_refill_part = [{part}, {parts}]::UBIGINT[];
                 DELETE FROM {table} WHERE liftdb_in_scope({deleted}, {cases}, release_label, skill_name, case_id);
                 INSERT INTO {table} BY NAME SELECT * FROM {macro_}({inserted}, {cases});",
                table = self.table,
                macro_ = self.of_cases(),
            ));
            if let Err(e) = done {
                let _ = conn.execute_batch("RESET VARIABLE liftdb_refill_part;");
                return Err(e.into());
            }
        }
        conn.execute_batch("RESET VARIABLE liftdb_refill_part;")?;
        Ok(())
    }

    /// The rows of `scope` deleted and the view's inserted one declared
    /// part (`parts_by`) at a time: DuckDB holds one part's groups at once.
    fn replace_by_predicates(&self, conn: &Connection, scope: Scope) -> Result<()> {
        let releases = match scope {
            Scope::Cases { releases, .. } => Scope::Releases(releases),
            other => other,
        };
        conn.execute_batch(&format!(
            "DELETE FROM {} WHERE {}",
            self.table,
            releases.filter("release_label")
        ))?;
        for part in &self.parts_by {
            conn.execute_batch(&format!(
                "INSERT INTO {table} BY NAME SELECT * FROM {macro_}({argument}) WHERE {part}",
                table = self.table,
                macro_ = self.of_releases(),
                argument = releases.argument(),
            ))?;
        }
        Ok(())
    }

    /// `<view>_of`, the table macro of the view's rows for some releases and cases.
    pub fn of_cases(&self) -> String {
        format!("{}_of", self.view)
    }

    /// The rows of the releases `whole` and of the cases `cases` deleted
    /// and the view's rows of them inserted (one predicate, liftdb_in_scope,
    /// picks both).
    fn replace_cases(&self, conn: &Connection, whole: &[String], cases: &[String]) -> Result<()> {
        let (whole, cases) = (sql_list(whole), sql_list(cases));
        conn.execute_batch(&format!(
            "DELETE FROM {table} WHERE liftdb_in_scope({whole}, {cases}, release_label, skill_name, case_id);
             INSERT INTO {table} BY NAME SELECT * FROM {macro_}({whole}, {cases});",
            table = self.table,
            macro_ = self.of_cases(),
        ))?;
        Ok(())
    }

    /// The rows of `scope` deleted and its view's inserted after every
    /// other row, in the table's order when it has one.
    fn replace(&self, conn: &Connection, scope: Scope) -> Result<()> {
        conn.execute_batch(&format!(
            "DELETE FROM {table} WHERE {filter};
             INSERT INTO {table} BY NAME SELECT * FROM {macro_}({argument}){order};",
            table = self.table,
            filter = scope.filter("release_label"),
            macro_ = self.of_releases(),
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
/// table sees what each column means. A lake keeps no comments on a view's
/// columns: its tables take them from the view files.
pub fn copy_comments(conn: &Connection) -> Result<()> {
    let on_lake = crate::store::lake::on_lake(conn)?;
    for d in DERIVED.iter() {
        let source = d.comments_from.unwrap_or(d.view);
        let comments: Vec<(String, String)> = match on_lake {
            true => crate::sqlfiles::VIEWS
                .iter()
                .flat_map(|(_, sql)| crate::store::lake::view_column_comments(sql))
                .filter(|(view, _, _)| *view == source)
                .map(|(_, column, comment)| (column.to_string(), comment))
                .collect(),
            false => {
                let mut stmt = conn.prepare(
                    "SELECT column_name, comment FROM duckdb_columns()
                     WHERE table_name = ? AND database_name = current_database()
                       AND schema_name = 'main' AND comment IS NOT NULL",
                )?;
                let rows = stmt
                    .query_map([source], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect::<std::result::Result<Vec<_>, _>>()?;
                rows
            }
        };
        let targets: &[&str] = match (d.comments_from, on_lake) {
            (Some(_), false) => &[d.table, d.view],
            _ => &[d.table],
        };
        // Only the columns a target has: a view adds the reports' names of
        // some of its columns, which its stored table does not hold.
        let mut held = conn.prepare(
            "SELECT column_name FROM duckdb_columns()
             WHERE table_name = ? AND database_name = current_database() AND schema_name = 'main'",
        )?;
        let mut columns_of = |target: &str| -> Result<Vec<String>> {
            Ok(held
                .query_map([target], |r| r.get::<_, String>(0))?
                .collect::<std::result::Result<Vec<_>, _>>()?)
        };
        let held: Vec<(&str, Vec<String>)> = targets
            .iter()
            .map(|t| Ok((*t, columns_of(t)?)))
            .collect::<Result<_>>()?;
        let sql: String = held
            .iter()
            .flat_map(|(target, columns)| {
                comments
                    .iter()
                    .filter(|(column, _)| columns.contains(column))
                    .map(move |(column, comment)| {
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

#[cfg(test)]
mod declaration_tests {
    use super::*;

    /// Every reason liftdb_cost_blocked_reason (and cost_pairs) can give has
    /// its bit in liftdb_cost_reasons (61_cost_pairs.sql): a reason without
    /// one would be dropped from cost_per_lift_cases.cost_blocked.
    #[test]
    fn every_cost_blocked_reason_has_its_bit() {
        let sql = crate::sqlfiles::VIEWS
            .iter()
            .find(|(name, _)| *name == "cost_pairs")
            .map(|(_, sql)| *sql)
            .expect("61_cost_pairs.sql");
        let listed = sql
            .split("MACRO liftdb_cost_reasons() AS")
            .nth(1)
            .and_then(|rest| rest.split(';').next())
            .expect("the list");
        let given = regex::Regex::new(r"THEN '([a-z_]+)'").unwrap();
        let reasons: Vec<&str> = given
            .captures_iter(sql)
            .map(|c| c.get(1).unwrap().as_str())
            .collect();
        assert!(reasons.len() >= 11, "{reasons:?}");
        for reason in reasons {
            assert!(
                listed.contains(&format!("'{reason}'")),
                "{reason} has no bit"
            );
        }
    }

    /// Every table a view file creates beside its view is declared in that
    /// file's header, and every declaration names a table the file creates
    /// from the view it declares: the header is the one place a stored
    /// aggregate is declared.
    #[test]
    fn each_stored_table_is_declared_by_the_file_that_creates_it() {
        for (name, sql) in crate::sqlfiles::VIEWS {
            let created: Vec<&str> = sql
                .lines()
                .filter_map(|l| l.strip_prefix("CREATE OR REPLACE TABLE "))
                .filter_map(|l| l.split_whitespace().next())
                .collect();
            match parse_declaration(name, sql) {
                None => assert!(created.is_empty(), "{name} creates {created:?} undeclared"),
                Some(d) => {
                    assert_eq!(created, [d.table], "{name}: one table, the declared one");
                    assert!(
                        !(d.case_grained && d.listed_in.is_some()),
                        "{name}: a table kept in order is refilled by release"
                    );
                    assert!(
                        d.parts_by.is_empty() || !(d.case_grained || d.listed_in.is_some()),
                        "{name}: parts by predicate are for a release-grained table kept in no order"
                    );
                    assert!(
                        !d.case_grained || sql.contains(&format!("MACRO {}(", d.of_cases())),
                        "{name}: no table macro {}",
                        d.of_cases()
                    );
                    assert!(
                        sql.contains(&format!("MACRO {} (", d.of_releases()))
                            || sql.contains(&format!("MACRO {}(", d.of_releases())),
                        "{name}: no table macro {}",
                        d.of_releases()
                    );
                }
            }
        }
        let tables: Vec<&str> = DERIVED.iter().map(|d| d.table).collect();
        assert!(tables.starts_with(&["run_rows"]), "the runs refilled first");
    }
}
