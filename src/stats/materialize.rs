//! Fill `lift_stats` from the `lift` view: one row of test, interval and
//! noise check per lift row. Runs inside the ingest transaction.

use duckdb::arrow::array::{Array, AsArray};
use duckdb::arrow::datatypes::Float64Type;
use duckdb::{appender_params_from_iter, Connection};
use rayon::prelude::*;

use crate::ingest::records::{boolean, float, int, text, Row};
use crate::Result;

use super::{interval, noise_check, py_round, sign_flip};

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

pub fn refresh(conn: &Connection) -> Result<u64> {
    conn.execute_batch("DELETE FROM lift_stats")?;
    let mut stmt = conn.prepare(
        "SELECT release_label, skill_name, control_arm, channel, split, scope, model, case_id,
                deltas, unit_without_rates
         FROM lift",
    )?;
    let batches: Vec<_> = stmt.query_arrow([])?.collect();
    // Read every lift row first, then test them in parallel: interval
    // inversion runs the test ~120 times per row.
    let mut inputs = Vec::new();
    for batch in &batches {
        for i in 0..batch.num_rows() {
            let col = |k: usize| batch.column(k).as_ref();
            let keys: Vec<Option<String>> = (0..8).map(|k| strings(col(k), i)).collect();
            inputs.push((keys, doubles(col(8), i), doubles(col(9), i)));
        }
    }
    let rows: Vec<Row> = inputs
        .into_par_iter()
        .map(|(keys, d, without)| stats_row(keys, d, &without))
        .collect();
    let mut appender = conn.appender("lift_stats")?;
    let mut written = 0;
    for row in rows {
        appender.append_row(appender_params_from_iter(row))?;
        written += 1;
    }
    appender.flush()?;
    Ok(written)
}

/// One `lift_stats` row: the lift row's keys, then test, interval and noise check.
fn stats_row(keys: Vec<Option<String>>, mut d: Vec<f64>, without: &[f64]) -> Row {
    if keys[3].as_deref() == Some("pass_at_1") {
        // The harness tests the per-unit delta pass@1 after rounding it to 6 places.
        d = d.into_iter().map(|v| py_round(v, 6)).collect();
    }
    let mean = (!d.is_empty()).then(|| d.iter().sum::<f64>() / d.len() as f64);
    let test = sign_flip(&d);
    let iv = interval(&d);
    let noise = noise_check(&d, without, &iv, None);
    let mut row: Row = keys.into_iter().map(text).collect();
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
    row
}
