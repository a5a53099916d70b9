//! `liftdb rebuild --out NEW`: ingest again, into a new store beside the old
//! one, every batch the old store records (its paths and release, in order).
//! Nothing is overwritten: the new path must not exist.

use liftdb::store::Location;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use clap::Args;
use liftdb::batch::{self, IngestOptions};
use liftdb::store::check::RecordedBatch;
use liftdb::store::releases;

#[derive(Args, Debug)]
pub struct RebuildArgs {
    /// The new store: a file that must not exist, or an empty lake
    /// ('ducklake:postgres:…', with --data-path for its files).
    #[arg(long)]
    pub out: String,
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
/// `liftdb export "SELECT * FROM ingest_batch ..." --out FILE.jsonl`
/// (a batch without release_source is taken as named by --release).
fn batches_from_file(file: &Path) -> anyhow::Result<Vec<RecordedBatch>> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let mut batches = Vec::new();
    for (n, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let bad = || {
            format!(
                "{} line {}: not an object with release_label and paths",
                file.display(),
                n + 1
            )
        };
        let row: serde_json::Value = serde_json::from_str(line).with_context(bad)?;
        let release = row["release_label"].as_str().with_context(bad)?.to_string();
        // DuckDB writes a JSON column as the array itself, a VARCHAR as its text.
        let paths = match &row["paths"] {
            serde_json::Value::String(text) => serde_json::from_str(text).with_context(bad)?,
            other => serde_json::from_value(other.clone()).with_context(bad)?,
        };
        let named = row["release_source"]
            .as_str()
            .is_none_or(|source| source == "--release");
        batches.push(RecordedBatch {
            release,
            named,
            paths,
            finished_us: 0,
            shard: row["shard"].as_str().map(str::to_string),
        });
    }
    Ok(batches)
}

/// A rename, drop or move the old store recorded, made again (and said).
fn replay(store: &liftdb::store::Store, change: &releases::Change) -> anyhow::Result<()> {
    if releases::replay(&store.conn, change)? {
        match change {
            releases::Change::Rename { old, new } => {
                eprintln!("renamed release '{old}' to '{new}'")
            }
            releases::Change::Drop { label } => eprintln!("dropped release '{label}'"),
            releases::Change::Move { label, place } => match place {
                releases::Place::First => eprintln!("moved release '{label}' first"),
                releases::Place::After(other) => {
                    eprintln!("moved release '{label}' after '{other}'")
                }
            },
        }
    }
    Ok(())
}

/// `data_path`, `extension_dir`: the global flags as given, for the new
/// store (a file `--db` keeps neither).
pub fn run(
    db: &Location,
    args: &RebuildArgs,
    data_path: Option<&str>,
    extension_dir: Option<&Path>,
) -> anyhow::Result<i32> {
    let out = Location::parse(&args.out, data_path, extension_dir);
    if out.file().is_some_and(Path::exists) {
        bail!(
            "{} exists; rebuild writes a new store and overwrites nothing: give another --out",
            out.display()
        );
    }
    let (batches, changes) = if let Some(file) = &args.batches {
        (batches_from_file(file)?, Vec::new())
    } else {
        let old = super::open_read_after_upkeep(db)?;
        let batches = liftdb::store::check::recorded_batches(&old.conn).with_context(|| {
            format!(
                "{} does not say what it was ingested from; ingest the run trees into a new store by hand",
                db.display()
            )
        })?;
        (batches, releases::recorded_changes(&old.conn)?)
    };
    let mut store = liftdb::store::open_write_at(&out)
        .with_context(|| format!("creating {}", out.display()))?;
    let held: i64 = store
        .conn
        .query_row("SELECT count(*) FROM ingest_batch", [], |r| r.get(0))?;
    if held > 0 {
        bail!(
            "{} already holds {held} batches; rebuild writes into an empty store: give another --out",
            out.display()
        );
    }
    let mut errors = 0;
    let mut changes = changes.into_iter().peekable();
    for batch in &batches {
        // The renames and drops made before this batch, in their order.
        while let Some((_, change)) = changes.next_if(|(at, _)| *at < batch.finished_us) {
            replay(&store, &change)?;
        }
        let paths: Vec<PathBuf> = batch.paths.iter().map(PathBuf::from).collect();
        // A derived release is derived again (skill-creator iterations stay
        // releases of their own); a named one holds the batch again.
        let opts = IngestOptions {
            release: batch.named.then(|| batch.release.clone()),
            allow_scripts: args.allow_scripts,
            shard: batch.shard.clone(),
            host: liftdb::sys::host::host_name(),
            ..Default::default()
        };
        let summary = batch::ingest(&mut store, &paths, &opts)?;
        super::ingest::print_summary(&out, &summary, false);
        errors += summary.errors.len();
    }
    for (_, change) in changes {
        replay(&store, &change)?;
    }
    let source = match &args.batches {
        Some(file) => file.display().to_string(),
        None => db.display().to_string(),
    };
    eprintln!(
        "rebuilt {} batches of {source} into {}",
        batches.len(),
        out.display()
    );
    Ok(if errors > 0 {
        liftdb::exit::FAILED
    } else {
        liftdb::exit::SUCCESS
    })
}
