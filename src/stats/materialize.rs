//! Fill `lift_stats` from `lift_rows` (the lift view stored): one row of
//! test, interval and noise check per lift row. Runs inside the ingest transaction.

use std::collections::HashMap;

use duckdb::arrow::array::{Array, AsArray};
use duckdb::arrow::datatypes::Float64Type;
use duckdb::{appender_params_from_iter, Connection};
use rayon::prelude::*;

use crate::ingest::records::{boolean, float, int, text, Row};
use crate::store::derived::Scope;
use crate::Result;

use super::{bootstrap, interval, multiple, noise_check, py_round, sign_flip};

fn strings(col: &dyn Array, i: usize) -> Option<String> {
    let a = col.as_string::<i32>();
    (!a.is_null(i)).then(|| a.value(i).to_string())
}

fn doubles(col: &dyn Array, i: usize) -> Vec<f64> {
    let list = col.as_list::<i32>();
    if list.is_null(i) {
        return Vec::new();
    }
    list.value(i)
        .as_primitive::<Float64Type>()
        .iter()
        .flatten()
        .collect()
}

fn texts(col: &dyn Array, i: usize) -> Vec<String> {
    let list = col.as_list::<i32>();
    if list.is_null(i) {
        return Vec::new();
    }
    let values = list.value(i);
    let values = values.as_string::<i32>();
    values.iter().map(|v| v.unwrap_or("").to_string()).collect()
}

/// Key columns of a lift row, before its deltas and control rates.
const KEYS: usize = 10;
/// Position of `channel` among the keys.
const CHANNEL: usize = 3;

/// The keys a family of reports shares: release, skill, control arm,
/// channel, split. A family holds a report's experiment and release rows,
/// which are equal for a release of one experiment (tested once).
const FAMILY: [&str; 5] = [
    "release_label",
    "skill_name",
    "control_arm",
    "channel",
    "split",
];

/// Test the lift rows of the releases in `scope` (each report's q-values
/// stay within its release), replacing their stored statistics. A family
/// of reports is read, tested and written at a time: a release's lift rows
/// and their statistics held at once grow with its cases (not measured
/// alone; estimated at some hundreds of MB at a million runs).
pub fn refresh(conn: &Connection, scope: Scope) -> Result<u64> {
    let in_scope = scope.filter("release_label");
    conn.execute_batch(&format!("DELETE FROM lift_stats WHERE {in_scope}"))?;
    let families: Vec<Vec<Option<String>>> = conn
        .prepare(&format!(
            "SELECT DISTINCT {} FROM lift_rows WHERE {in_scope} ORDER BY ALL",
            FAMILY.join(", ")
        ))?
        .query_map([], |r| (0..FAMILY.len()).map(|k| r.get(k)).collect())?
        .collect::<duckdb::Result<_>>()?;
    let same_family: Vec<String> = FAMILY
        .iter()
        .map(|key| format!("{key} IS NOT DISTINCT FROM ?"))
        .collect();
    let mut of_family = conn.prepare(&format!(
        "SELECT release_label, skill_name, control_arm, channel, split, row_kind, experiment,
                scope, model, case_id, deltas, unit_without_rates, unit_cases
         FROM lift_rows WHERE {}",
        same_family.join(" AND ")
    ))?;
    let mut appender = conn.appender("lift_stats")?;
    let mut written = 0;
    for family in &families {
        let batches: Vec<_> = of_family
            .query_arrow(duckdb::params_from_iter(family))?
            .collect();
        for row in test_family(&batches) {
            appender.append_row(appender_params_from_iter(row))?;
            written += 1;
        }
        // A family's rows were made on rayon's threads and are dropped here:
        // handed back before the next family's (up to 66,676 rows at a
        // million runs).
        crate::memory::give_back_now();
    }
    appender.flush()?;
    Ok(written)
}

/// The `lift_stats` rows of one family's lift rows: each distinct input
/// tested once, in parallel (interval inversion runs the test ~120 times
/// per row).
fn test_family(batches: &[duckdb::arrow::record_batch::RecordBatch]) -> Vec<Row> {
    let mut keyed = Vec::new();
    let mut distinct: HashMap<TestInput, usize> = HashMap::new();
    let mut inputs: Vec<TestInput> = Vec::new();
    for batch in batches {
        for i in 0..batch.num_rows() {
            let col = |k: usize| batch.column(k).as_ref();
            let keys: Vec<Option<String>> = (0..KEYS).map(|k| strings(col(k), i)).collect();
            let input = TestInput::new(
                keys[CHANNEL].as_deref() == Some("pass_at_1"),
                doubles(col(KEYS), i),
                doubles(col(KEYS + 1), i),
                texts(col(KEYS + 2), i),
            );
            let slot = *distinct.entry(input.clone()).or_insert_with(|| {
                inputs.push(input);
                inputs.len() - 1
            });
            keyed.push((keys, slot));
        }
    }
    drop(distinct);
    let tested: Vec<(Row, Option<f64>)> = inputs.par_iter().map(TestInput::test).collect();
    let q = case_q_values(&keyed, &tested);
    keyed
        .into_iter()
        .zip(q)
        .map(|((keys, slot), q)| {
            let mut row: Row = keys.into_iter().map(text).collect();
            row.extend(tested[slot].0.iter().cloned());
            row.push(float(q));
            row
        })
        .collect()
}

/// Position of `scope` among the keys; the keys before it name a report
/// (release, skill, control arm, channel, split, row kind, experiment).
const SCOPE: usize = 7;

/// Benjamini–Hochberg q of each case row's unrounded p among the case rows
/// of its report that have one; None elsewhere.
fn case_q_values(
    keyed: &[(Vec<Option<String>>, usize)],
    tested: &[(Row, Option<f64>)],
) -> Vec<Option<f64>> {
    let mut reports: HashMap<&[Option<String>], Vec<(usize, f64)>> = HashMap::new();
    for (i, (keys, slot)) in keyed.iter().enumerate() {
        if let (Some("case"), Some(p)) = (keys[SCOPE].as_deref(), tested[*slot].1) {
            reports.entry(&keys[..SCOPE]).or_default().push((i, p));
        }
    }
    let mut q = vec![None; keyed.len()];
    for members in reports.values() {
        let ps: Vec<f64> = members.iter().map(|(_, p)| *p).collect();
        for ((i, _), qv) in members.iter().zip(multiple::benjamini_hochberg(&ps)) {
            q[*i] = Some(qv);
        }
    }
    q
}

/// What a lift row's test depends on: its unit deltas (rounded to 6 places
/// on the pass@1 channel, as the harness tests them) and control means,
/// compared bit for bit.
#[derive(Clone, PartialEq, Eq, Hash)]
struct TestInput {
    deltas: Vec<u64>,
    without: Vec<u64>,
    /// Each unit's case: the bootstrap's clusters.
    cases: Vec<String>,
}

impl TestInput {
    fn new(pass_at_1: bool, d: Vec<f64>, without: Vec<f64>, cases: Vec<String>) -> TestInput {
        let round = |v: f64| if pass_at_1 { py_round(v, 6) } else { v };
        TestInput {
            deltas: d.into_iter().map(|v| round(v).to_bits()).collect(),
            without: without.into_iter().map(f64::to_bits).collect(),
            cases,
        }
    }

    /// The stats columns of a `lift_stats` row (test, interval, noise check,
    /// bootstrap), and the unrounded p the q-values start from.
    fn test(&self) -> (Row, Option<f64>) {
        let d: Vec<f64> = self.deltas.iter().map(|b| f64::from_bits(*b)).collect();
        let without: Vec<f64> = self.without.iter().map(|b| f64::from_bits(*b)).collect();
        let (mut row, p) = stats_columns(&d, &without);
        let boot = bootstrap::case_bootstrap(&d, &self.cases);
        row.extend([float(boot.map(|b| b.0)), float(boot.map(|b| b.1))]);
        (row, p)
    }
}

fn stats_columns(d: &[f64], without: &[f64]) -> (Row, Option<f64>) {
    let mean = (!d.is_empty()).then(|| d.iter().sum::<f64>() / d.len() as f64);
    let test = sign_flip(d);
    let iv = interval(d);
    let noise = noise_check(d, without, &iv, None);
    let mut row: Row = Vec::new();
    row.extend([
        int(Some(test.n as i64)),
        text(Some(test.method)),
        float(test.observed_mean_delta),
        float(mean.map(|m| py_round(m, 4))),
        float(test.p_value),
        float(test.p_exact),
        boolean(Some(test.significant_at_0_05)),
        text(Some(iv.method)),
        float(iv.lower),
        float(iv.upper),
        boolean(Some(iv.bounded)),
        text(Some(noise.verdict)),
        float(noise.noise_floor),
        float(noise.headroom),
        int(Some(noise.cases_moved as i64)),
        float(Some(noise.smallest_achievable_p)),
        int(noise.projected_cases.map(|p| p as i64)),
    ]);
    (row, test.p_exact)
}
