//! One run whole (`liftdb show RUN`), the terminal's twin of the HTML
//! drill-down: who it is, how it scored, each assertion with its evidence,
//! the start of its output. The queries are `sql/show/*.sql`.

use duckdb::Connection;

use crate::output::{cell_json, cell_text, ResultSet};
use crate::sqlfiles::SHOW_QUERIES;
use crate::{Error, Result};

use super::{query, Filters};

/// A run: its fields (name, value; None when unavailable) and its
/// assertions (assertion, outcome, severity, channel, type, evidence).
pub struct RunCard {
    pub fields: Vec<(String, Option<String>)>,
    run: ResultSet,
    pub assertions: ResultSet,
}

impl RunCard {
    /// A field's value by name (None when unavailable or not a field).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| v.as_deref())
    }

    /// `{"run": {field: value, …}, "assertions": [{…}, …]}`, values typed
    /// as the store holds them (unavailable: null).
    pub fn to_json(&self) -> serde_json::Value {
        let objects = |rs: &ResultSet| -> Vec<serde_json::Value> {
            let names = rs.column_names();
            rs.batches
                .iter()
                .flat_map(|b| {
                    let names = &names;
                    (0..b.num_rows()).map(move |i| {
                        names
                            .iter()
                            .zip(b.columns())
                            .map(|(n, c)| (n.clone(), cell_json(c, i)))
                            .collect::<serde_json::Map<_, _>>()
                            .into()
                    })
                })
                .collect()
        };
        let run = objects(&self.run).into_iter().next().unwrap_or_default();
        serde_json::json!({ "run": run, "assertions": objects(&self.assertions) })
    }
}

fn sql(name: &str) -> &'static str {
    crate::sqlfiles::named(SHOW_QUERIES, name)
}

/// The run `name` names: a run id, a prefix of one (6 characters or more),
/// or its folder (whole or its last parts). Several runs named is an error
/// listing them; none, an error saying where run ids are listed.
pub fn find(conn: &Connection, name: &str) -> Result<String> {
    let named = Filters::from([("run".to_string(), name.to_string())]);
    let found = query(conn, sql("find"), &named)?;
    let rows: Vec<Vec<String>> = found
        .text_rows()
        .into_iter()
        .map(|row| {
            row.into_iter()
                .map(|c| c.unwrap_or_else(|| "-".into()))
                .collect()
        })
        .collect();
    // The run id itself wins over a folder or prefix that also matches.
    if let Some(exact) = rows.iter().find(|r| r[0] == name) {
        return Ok(exact[0].clone());
    }
    match rows.len() {
        0 => Err(Error::NoSuchRun {
            run: name.to_string(),
        }),
        1 => Ok(rows[0][0].clone()),
        n => Err(Error::AmbiguousRun {
            run: name.to_string(),
            count: if n > 10 {
                "more than 10".into()
            } else {
                n.to_string()
            },
            candidates: rows
                .iter()
                .take(5)
                .map(|r| {
                    format!(
                        "{} (release {}, {} {} {} rep {})",
                        r[0], r[1], r[2], r[3], r[4], r[5]
                    )
                })
                .collect::<Vec<_>>()
                .join("; "),
        }),
    }
}

/// The run with this id, whole.
pub fn load(conn: &Connection, run_id: &str) -> Result<RunCard> {
    let named = Filters::from([("run".to_string(), run_id.to_string())]);
    let run = query(conn, sql("run"), &named)?;
    let batch = run
        .batches
        .iter()
        .find(|b| b.num_rows() > 0)
        .ok_or_else(|| Error::NoSuchRun {
            run: run_id.to_string(),
        })?;
    let fields = run
        .schema
        .fields()
        .iter()
        .enumerate()
        .map(|(c, f)| (f.name().clone(), cell_text(batch.column(c), 0)))
        .collect();
    let assertions = query(conn, sql("assertions"), &named)?;
    Ok(RunCard {
        fields,
        run,
        assertions,
    })
}
