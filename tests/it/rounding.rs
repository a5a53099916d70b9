//! Values print as the tools print them: Python's `round` of the binary
//! double (round half to even on its exact value), computed here by Python
//! itself at test time.

use std::process::Command;

use crate::common::{new_store, scalar};

/// `(value, places)`: binary ties (0.78125, 0.40625), values just off a tie
/// in binary (2.675 is below it), signs, whole places, and values past the
/// first scale's range (rounded with the second, then as round_even).
const CASES: &[(&str, i32)] = &[
    ("0.78125", 4),
    ("0.40625", 4),
    ("-0.78125", 4),
    ("0.03125", 4),
    ("0.96875", 4),
    ("2.675", 2),
    ("1.005", 2),
    ("0.5", 0),
    ("1.5", 0),
    ("2.5", 0),
    ("0.1234565", 6),
    ("0.3333333333", 4),
    ("-0.0", 4),
    ("13421.77285", 4),
    ("123456789.125", 2),
    ("987654.3215", 3),
    ("1e17", 3),
    ("3e-20", 6),
];

fn python_round(value: &str, places: i32) -> f64 {
    let out = Command::new("python3")
        .args([
            "-c",
            &format!("print(repr(round(float('{value}'), {places})))"),
        ])
        .output()
        .expect("python3 runs");
    assert!(out.status.success());
    String::from_utf8(out.stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn liftdb_pyround_equals_pythons_round() {
    let ts = new_store();
    for (value, places) in CASES {
        let ours = scalar(
            &ts.store,
            &format!("SELECT liftdb_pyround(CAST('{value}' AS DOUBLE), {places})"),
        )
        .as_f64()
        .unwrap();
        let python = python_round(value, *places);
        assert!(
            ours.to_bits() == python.to_bits() || (ours == 0.0 && python == 0.0),
            "round({value}, {places}): liftdb {ours:?}, Python {python:?}"
        );
    }
    assert!(scalar(&ts.store, "SELECT liftdb_pyround(NULL::DOUBLE, 4)").is_null());
}

/// The fast path (x * 10^d rounded in floating point where it is clear of a
/// half) against Python's round on thousands of values: spread rates and
/// deltas, multiples of 1/64 (binary ties at 4 and 6 places), and values a
/// hair on either side of a decimal half, whose product may round onto the
/// half (the exact path takes those).
#[test]
fn liftdb_pyround_equals_pythons_round_on_thousands_of_values() {
    let mut values: Vec<f64> = (0..2000).map(|i| i as f64 * 0.000_617_3 - 0.61).collect();
    values.extend((-300..300).map(|i| i as f64 / 64.0));
    for places in [2, 4, 6] {
        let unit = 10f64.powi(-places);
        values.extend((0..300).map(|k| (k as f64 + 0.5) * unit));
        values.extend((0..300).map(|k| (k as f64 + 0.5) * unit * (1.0 + 1e-15)));
        values.extend((0..300).map(|k| -(k as f64 + 0.5) * unit * (1.0 - 1e-14)));
    }
    // As text both ways: a SQL list of number literals would be read as
    // DECIMALs of one common scale, not as these doubles.
    let listed = values
        .iter()
        .map(|v| format!("'{v:?}'"))
        .collect::<Vec<_>>()
        .join(",");
    let ts = new_store();
    for places in [0, 2, 4, 6] {
        let ours = scalar(
            &ts.store,
            &format!(
                "SELECT list(liftdb_pyround(CAST(x AS DOUBLE), {places}) ORDER BY i)
                 FROM unnest([{listed}]) WITH ORDINALITY t(x, i)"
            ),
        );
        let ours: Vec<f64> = ours
            .as_array()
            .expect("a list")
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let out = Command::new("python3")
            .args([
                "-c",
                &format!("print(','.join(repr(round(float(x), {places})) for x in [{listed}]))"),
            ])
            .output()
            .expect("python3 runs");
        assert!(out.status.success());
        let python: Vec<f64> = String::from_utf8(out.stdout)
            .unwrap()
            .trim()
            .split(',')
            .map(|v| v.parse().unwrap())
            .collect();
        assert_eq!(ours.len(), python.len());
        for ((value, ours), python) in values.iter().zip(&ours).zip(&python) {
            assert!(
                ours.to_bits() == python.to_bits() || (*ours == 0.0 && *python == 0.0),
                "round({value:?}, {places}): liftdb {ours:?}, Python {python:?}"
            );
        }
    }
}
