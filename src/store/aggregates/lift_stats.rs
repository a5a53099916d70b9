//! Fill `lift_stats` from `lift_rows` (the lift view stored): one row of
//! test, interval and noise check per lift row. Runs inside the ingest transaction.

use std::collections::HashMap;

use duckdb::arrow::array::{Array, AsArray};
use duckdb::arrow::datatypes::Float64Type;
use duckdb::arrow::record_batch::RecordBatch;
use duckdb::{appender_params_from_iter, Appender, Connection};
use rayon::prelude::*;

use super::Scope;
use crate::model::records::{boolean, float, int, text, Row};
use crate::Result;

use crate::stats::{bootstrap, interval, multiple, noise_check, py_round, sign_flip};

fn string(col: &dyn Array, i: usize) -> Option<&str> {
    let a = col.as_string::<i32>();
    (!a.is_null(i)).then(|| a.value(i))
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

/// Each unit's case as its rank among the row's distinct cases (a null
/// case counts as ""): the bootstrap needs only which units share a case
/// and the cases' order, and a rank is 4 bytes where a case name is a
/// string per unit (a row of a large release has many units).
fn case_ranks(col: &dyn Array, i: usize) -> Vec<u32> {
    let list = col.as_list::<i32>();
    if list.is_null(i) {
        return Vec::new();
    }
    let values = list.value(i);
    let names: Vec<&str> = values
        .as_string::<i32>()
        .iter()
        .map(|v| v.unwrap_or(""))
        .collect();
    ranks(&names)
}

/// Each name's rank among the distinct names, in byte order.
fn ranks(names: &[&str]) -> Vec<u32> {
    let mut distinct = names.to_vec();
    distinct.sort_unstable();
    distinct.dedup();
    names
        .iter()
        .map(|name| distinct.binary_search(name).map_or(0, |rank| rank as u32))
        .collect()
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
/// and their statistics held at once grow with its cases.
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
        written += write_family(&mut appender, &batches)?;
        // The tests' working memory was made on rayon's threads and is
        // dropped here: handed back before the next family's.
        crate::sys::memory::give_back_now();
    }
    appender.flush()?;
    Ok(written)
}

/// Test one family's lift rows and append their `lift_stats` rows. Each
/// distinct input is tested once, in parallel (interval inversion runs the
/// test ~120 times per row); the rows are then written one at a time from
/// the Arrow batches, so a family is never held as rows.
fn write_family(appender: &mut Appender, batches: &[RecordBatch]) -> Result<u64> {
    let rows = || {
        batches
            .iter()
            .flat_map(|batch| (0..batch.num_rows()).map(move |i| (batch, i)))
    };
    let mut distinct: HashMap<TestInput, usize> = HashMap::new();
    let slots: Vec<usize> = rows()
        .map(|(batch, i)| {
            let next = distinct.len();
            *distinct.entry(TestInput::read(batch, i)).or_insert(next)
        })
        .collect();
    let mut inputs: Vec<(TestInput, usize)> = distinct.into_iter().collect();
    inputs.sort_unstable_by_key(|(_, slot)| *slot);
    crate::stats::sign_table::SignTable::prepare(
        inputs
            .iter()
            .map(|(input, _)| input.deltas.len())
            .filter(|&n| n > crate::stats::sign_flip::EXACT_MAX_N),
    );
    let (mut tested, clusters): (Vec<Tested>, Vec<_>) =
        inputs.par_iter().map(|(input, _)| input.test()).unzip();
    drop(inputs);
    let boots = bootstrap::intervals(&clusters, rayon::current_num_threads());
    for (t, boot) in tested.iter_mut().zip(boots) {
        t.head
            .extend([float(boot.map(|b| b.0)), float(boot.map(|b| b.1))]);
    }
    let q = case_q_values(rows().zip(&slots), &tested);
    for (((batch, i), slot), q) in rows().zip(&slots).zip(q) {
        let keys = (0..KEYS).map(|k| text(string(batch.column(k).as_ref(), i)));
        let t = &tested[*slot];
        let row = keys
            .chain(t.head.iter().cloned())
            .chain([float(q)])
            .chain(t.tail.iter().cloned());
        appender.append_row(appender_params_from_iter(row))?;
    }
    Ok(slots.len() as u64)
}

/// Position of `scope` among the keys; the keys before it name a report
/// (release, skill, control arm, channel, split, row kind, experiment).
const SCOPE: usize = 7;

/// Benjamini–Hochberg q of each case row's p among the case rows of its
/// report that have one, from the p the test decides on (`p_upper`: the
/// unrounded p of an exact test, a sampled test's upper bound); None elsewhere.
fn case_q_values<'a>(
    rows: impl Iterator<Item = ((&'a RecordBatch, usize), &'a usize)>,
    tested: &[Tested],
) -> Vec<Option<f64>> {
    let mut reports: HashMap<Vec<Option<&str>>, Vec<(usize, f64)>> = HashMap::new();
    let mut count = 0;
    for (at, ((batch, i), slot)) in rows.enumerate() {
        count += 1;
        let key = |k: usize| string(batch.column(k).as_ref(), i);
        if let (Some("case"), Some(p)) = (key(SCOPE), tested[*slot].p_upper) {
            let report = (0..SCOPE).map(key).collect();
            reports.entry(report).or_default().push((at, p));
        }
    }
    let mut q = vec![None; count];
    for members in reports.values() {
        let ps: Vec<f64> = members.iter().map(|(_, p)| *p).collect();
        for ((at, _), qv) in members.iter().zip(multiple::benjamini_hochberg(&ps)) {
            q[*at] = Some(qv);
        }
    }
    q
}

/// What a lift row's test depends on: its unit deltas (rounded to 6 places
/// on the pass@1 channel, as the harness tests them) and control means,
/// compared bit for bit.
#[derive(PartialEq, Eq, Hash)]
struct TestInput {
    deltas: Vec<u64>,
    without: Vec<u64>,
    /// Each unit's case (its rank, see `case_ranks`): the bootstrap's clusters.
    cases: Vec<u32>,
}

impl TestInput {
    /// The input of row `i`: its deltas, control rates and cases.
    fn read(batch: &RecordBatch, i: usize) -> TestInput {
        let col = |k: usize| batch.column(k).as_ref();
        let pass_at_1 = string(col(CHANNEL), i) == Some("pass_at_1");
        let round = |v: f64| if pass_at_1 { py_round(v, 6) } else { v };
        TestInput {
            deltas: doubles(col(KEYS), i)
                .into_iter()
                .map(|v| round(v).to_bits())
                .collect(),
            without: doubles(col(KEYS + 1), i)
                .into_iter()
                .map(f64::to_bits)
                .collect(),
            cases: case_ranks(col(KEYS + 2), i),
        }
    }

    /// The stats columns of a `lift_stats` row (`Tested`), and the
    /// bootstrap's clusters: rows with as many are resampled together
    /// (`bootstrap::intervals`).
    fn test(&self) -> (Tested, Option<bootstrap::Clusters>) {
        let d: Vec<f64> = self.deltas.iter().map(|b| f64::from_bits(*b)).collect();
        let without: Vec<f64> = self.without.iter().map(|b| f64::from_bits(*b)).collect();
        (
            stats_columns(&d, &without),
            bootstrap::clusters(&d, &self.cases),
        )
    }
}

/// A row's statistics as `lift_stats` orders its columns: `head` (test,
/// interval, noise check; the bootstrap's two are appended to it), then the
/// q-value (its input is `p_upper`), then `tail` (migration 0029's p_upper
/// and significant).
struct Tested {
    head: Row,
    p_upper: Option<f64>,
    tail: Row,
}

fn stats_columns(d: &[f64], without: &[f64]) -> Tested {
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
    Tested {
        head: row,
        p_upper: test.p_upper,
        tail: vec![float(test.p_upper), boolean(test.significant)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_case_is_ranked_in_the_order_of_the_names() {
        assert_eq!(ranks(&["b", "a", "b", "", "ab"]), [3, 1, 3, 0, 2]);
    }

    /// The bootstrap over ranks is the bootstrap over the names, bit for
    /// bit: clusters are drawn in the same order (names not in input order,
    /// units of a case not adjacent).
    #[test]
    fn ranks_give_the_names_interval() {
        let names = ["q7", "a2", "q7", "m", "a2", "b", "m", "zz", "b", "c9"];
        let deltas = [0.5, -0.25, 1.0, 0.0, 0.75, 0.5, -1.0, 0.25, 0.0, 1.0];
        let by_name = bootstrap::case_bootstrap(&deltas, &names);
        assert!(by_name.is_some());
        assert_eq!(bootstrap::case_bootstrap(&deltas, &ranks(&names)), by_name);
    }
}
