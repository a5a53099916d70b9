//! `liftdb demo`: ingest the sample runs shipped in the repository into a
//! temporary store, print the main reports, and say how to explore further.

use std::path::PathBuf;

use anyhow::{bail, Context};
use liftdb::ingest::{self, IngestOptions};
use liftdb::output::{self, Format};
use liftdb::report;

/// The bundled samples: the corpora of every supported harness, kept as test fixtures.
fn sample_paths() -> anyhow::Result<Vec<PathBuf>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let paths = vec![
        root.join("skill-eval-harness/runs/eval-runs"),
        root.join("skill-eval-harness/input/evals/shared-benchmark.json"),
        root.join("skill-eval-harness/reference"),
        root.join("seed000-skill-eval/runs"),
        root.join("skill-creator/runs"),
        root.join("promptfoo/runs"),
    ];
    if let Some(missing) = paths.iter().find(|p| !p.exists()) {
        bail!(
            "sample data not found at {} (run the demo from a checkout of the liftdb repository)",
            missing.display()
        );
    }
    Ok(paths)
}

/// A report to print: title, report name, filters.
type Section = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

pub fn run() -> anyhow::Result<i32> {
    let paths = sample_paths()?;
    let dir = tempfile::Builder::new()
        .prefix("liftdb-demo-")
        .tempdir()
        .context("creating a temporary directory")?
        .keep();
    let db = dir.join("demo.duckdb");
    let mut store = liftdb::store::open_write(&db)?;
    let opts = IngestOptions {
        progress: false,
        ..Default::default()
    };
    let summary = ingest::ingest(&mut store, &paths, &opts)?;
    super::ingest::print_summary(&db, &summary, false);

    let mut stdout = std::io::stdout().lock();
    let sections: &[Section] = &[
        (
            "Lift on the tune split, every harness pooled",
            "lift",
            &[("split", "tune")],
        ),
        ("Lift, split holdout", "lift", &[("split", "holdout")]),
        ("Case flags", "flags", &[]),
        ("Cost by arm and model", "cost", &[]),
        ("Runs per harness", "formats", &[]),
    ];
    for (title, name, filters) in sections {
        use std::io::Write;
        writeln!(stdout, "\n== {title} ==")?;
        let filters = filters
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let rs = report::run(&store.conn, &report::find(name)?, &filters)?;
        output::render(&rs, Format::Table, &mut stdout)?;
    }
    drop(store);
    eprintln!("\nThe demo store is {}.", db.display());
    eprintln!("Explore it with, for example:");
    eprintln!(
        "  cargo run --release -- --db {} report lift --split tune --format markdown",
        db.display()
    );
    eprintln!(
        "  cargo run --release -- --db {} sql \"SELECT * FROM case_flags\"",
        db.display()
    );
    eprintln!("or open it with any DuckDB client: the views work there too.");
    Ok(if summary.errors.is_empty() { 0 } else { 1 })
}
