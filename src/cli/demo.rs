//! `liftdb demo`: ingest the sample runs shipped in the repository into a
//! temporary store, print the main reports, and say how to explore further.

use std::path::PathBuf;

use anyhow::{bail, Context};
use liftdb::batch::{self, IngestOptions};
use liftdb::output::{self, Format};
use liftdb::report;
use liftdb::store::Location;

/// The bundled samples: the corpora of every supported harness, kept as
/// test fixtures, ingested as two releases: an early single-iteration
/// handbook run, then everything else.
fn sample_batches() -> anyhow::Result<Vec<(&'static str, Vec<PathBuf>)>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let seed = root.join("seed000-skill-eval/runs/tmp/skills-eval");
    let batches = vec![
        (
            "2026.10",
            vec![seed.join("corpus-claude-sonnet-4-5-single")],
        ),
        (
            "2026.11",
            vec![
                root.join("skill-eval-harness/runs/eval-runs"),
                root.join("skill-eval-harness/input/evals/shared-benchmark.json"),
                root.join("skill-eval-harness/reference"),
                seed.join("corpus-claude-sonnet-4-5"),
                seed.join("corpus-claude-haiku-4-5"),
                root.join("skill-creator/runs"),
                root.join("promptfoo/runs"),
            ],
        ),
    ];
    if let Some(missing) = batches.iter().flat_map(|(_, p)| p).find(|p| !p.exists()) {
        bail!(
            "sample data not found at {} (run the demo from a checkout of the liftdb repository)",
            missing.display()
        );
    }
    Ok(batches)
}

/// A report to print: title, report name, filters.
type Section = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

#[derive(clap::Args, Debug)]
pub struct DemoArgs {
    /// Keep the demo store (it is removed when the demo ends) and say how
    /// to open it.
    #[arg(long)]
    pub keep: bool,
}

pub fn run(args: &DemoArgs) -> anyhow::Result<i32> {
    let batches = sample_batches()?;
    let dir = tempfile::Builder::new()
        .prefix("liftdb-demo-")
        .tempdir()
        .context("creating a temporary directory")?;
    let db = dir.path().join("demo.duckdb");
    let mut store = liftdb::store::open_write(&db)?;
    let mut errors = 0;
    for (release, paths) in &batches {
        let opts = IngestOptions {
            release: Some(release.to_string()),
            host: liftdb::sys::host::host_name(),
            ..Default::default()
        };
        let summary = batch::ingest(&mut store, paths, &opts)?;
        super::ingest::print_summary(&Location::from(db.as_path()), &summary, false);
        errors += summary.errors.len();
    }

    // The reports, paged on a terminal (as git pages), the lift's sentences
    // first; whole when piped.
    let mut stdout: Vec<u8> = Vec::new();
    // Read on a terminal, fitted to it; piped, fitted as to a 100-column one.
    let how = report::Presentation {
        format: Format::Table,
        render: output::RenderOptions::for_terminal(output::terminal_width().unwrap_or(100)),
        all_columns: false,
    };
    let sections: &[Section] = &[
        (
            "Lift, split tune: the release (each case and model once), then each experiment",
            "lift",
            &[("split", "tune")],
        ),
        ("Lift, split holdout", "lift", &[("split", "holdout")]),
        ("Case flags", "flags", &[]),
        ("Cost by arm and model", "cost-by-arm", &[]),
        ("Cost per unit of lift", "cost-per-lift", &[]),
        ("Runs per harness", "formats", &[]),
        ("Trend across releases", "trend", &[]),
    ];
    for (title, name, filters) in sections {
        use std::io::Write;
        writeln!(stdout, "\n== {title} ==")?;
        let filters = filters
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let rep = report::find(name)?;
        let shown = report::run_shown(&rep, &filters, &how, |sql, named| {
            report::query(&store.conn, sql, named)
        })?;
        shown.write(&rep, &how, &mut stdout)?;
    }
    drop(store);
    super::pager::show(&stdout)?;
    if !args.keep {
        drop(dir);
        eprintln!("\nThe demo store was temporary and is removed: `liftdb demo --keep` keeps it to open with the SQL shell or any DuckDB client.");
        return Ok(if errors == 0 {
            liftdb::exit::SUCCESS
        } else {
            liftdb::exit::FAILED
        });
    }
    let _kept = dir.keep();
    eprintln!("\nThe demo store is {}.", db.display());
    eprintln!(
        "Open the SQL shell on it:  cargo run --release -- --db {}",
        db.display()
    );
    eprintln!("Or, for example:");
    eprintln!(
        "  cargo run --release -- --db {} report lift --split tune --format markdown",
        db.display()
    );
    eprintln!(
        "  cargo run --release -- --db {} sql \"SELECT * FROM case_flags\"",
        db.display()
    );
    eprintln!("or open it with any DuckDB client: the views work there too.");
    Ok(if errors == 0 {
        liftdb::exit::SUCCESS
    } else {
        liftdb::exit::FAILED
    })
}
