//! `liftdb rebuild --out NEW`: ingest again, into a new store beside the old
//! one, every batch the old store records (its paths and release, in order).
//! Nothing is overwritten: the new path must not exist.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::Args;
use liftdb::batch::{self, IngestOptions};

#[derive(Args, Debug)]
pub struct RebuildArgs {
    /// The new store (must not exist).
    #[arg(long)]
    pub out: PathBuf,
    /// Grade as `ingest --allow-scripts` did, if the batches were ingested so.
    #[arg(long)]
    pub allow_scripts: bool,
    /// Read the batches from FILE instead of the store: the JSON Lines another
    /// liftdb exported from a store this one cannot open (each line a
    /// `release_label` and its `paths`).
    #[arg(long, value_name = "FILE")]
    pub batches: Option<PathBuf>,
}

/// The batches another liftdb exported, in the order given:
/// `liftdb export "SELECT release_label, paths FROM ingest_batch ..." --out FILE.jsonl`.
fn batches_from_file(file: &Path) -> anyhow::Result<Vec<(String, Vec<String>)>> {
    let text = std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let mut batches = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let bad = || format!("{} line {}: not an object with release_label and paths", file.display(), n + 1);
        let row: serde_json::Value = serde_json::from_str(line).with_context(bad)?;
        let release = row["release_label"].as_str().with_context(bad)?.to_string();
        // DuckDB writes a JSON column as the array itself, a VARCHAR as its text.
        let paths = match &row["paths"] {
            serde_json::Value::String(text) => serde_json::from_str(text).with_context(bad)?,
            other => serde_json::from_value(other.clone()).with_context(bad)?,
        };
        batches.push((release, paths));
    }
    Ok(batches)
}

pub fn run(db: &Path, args: &RebuildArgs) -> anyhow::Result<i32> {
    if args.out.exists() {
        bail!(
            "{} exists; rebuild writes a new store and overwrites nothing: give another --out",
            args.out.display()
        );
    }
    let batches = if let Some(file) = &args.batches {
        batches_from_file(file)?
    } else {
        let old = super::open_read_after_upkeep(db)?;
        liftdb::store::check::recorded_batches(&old.conn).with_context(|| {
            format!(
                "{} does not say what it was ingested from; ingest the run trees into a new store by hand",
                db.display()
            )
        })?
    };
    let mut store = liftdb::store::open_write(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let mut errors = 0;
    for (release, paths) in &batches {
        let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
        let opts = IngestOptions {
            release: Some(release.clone()),
            allow_scripts: args.allow_scripts,
            ..Default::default()
        };
        let summary = batch::ingest(&mut store, &paths, &opts)?;
        super::ingest::print_summary(&args.out, &summary, false);
        errors += summary.errors.len();
    }
    let source = match &args.batches {
        Some(file) => file.display().to_string(),
        None => db.display().to_string(),
    };
    eprintln!(
        "rebuilt {} batches of {source} into {}",
        batches.len(),
        args.out.display()
    );
    Ok(i32::from(errors > 0))
}
