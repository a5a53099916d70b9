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
}

pub fn run(db: &Path, args: &RebuildArgs) -> anyhow::Result<i32> {
    if args.out.exists() {
        bail!(
            "{} exists; rebuild writes a new store and overwrites nothing: give another --out",
            args.out.display()
        );
    }
    let batches = {
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
    eprintln!(
        "rebuilt {} batches of {} into {}",
        batches.len(),
        db.display(),
        args.out.display()
    );
    Ok(i32::from(errors > 0))
}
