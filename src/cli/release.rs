//! `liftdb release list|rename|drop`: the releases a user controls.

use clap::{Args, Subcommand};
use liftdb::store::{releases, Location};

#[derive(Args, Debug)]
pub struct ReleaseArgs {
    #[command(subcommand)]
    pub action: ReleaseAction,
}

#[derive(Subcommand, Debug)]
pub enum ReleaseAction {
    /// Each release in trend order, with how it was named and what it holds.
    List,
    /// Give a release another name (every row of it, in one transaction).
    Rename { old: String, new: String },
    /// Delete a release and everything it holds (its runs, gradings,
    /// traces, cases, trigger observations, report figures); its batches
    /// stay in the ledger and its files are read again by the next ingest
    /// naming them.
    Drop {
        name: String,
        /// Drop it (without: say what would go, change nothing).
        #[arg(long)]
        yes: bool,
    },
}

pub fn run(db: &Location, args: &ReleaseArgs) -> anyhow::Result<i32> {
    match &args.action {
        ReleaseAction::List => {
            let store = super::open_read_after_upkeep(db)?;
            let rs = liftdb::report::query(
                &store.conn,
                "SELECT r.ordinal, r.release_label AS release, r.derived_from AS named_by,
                        (SELECT count(*) FROM run u WHERE u.release_label = r.release_label) AS runs,
                        (SELECT count(*) FROM trigger_observation t
                         WHERE t.release_label = r.release_label) AS trigger_observations,
                        r.first_ingested_at
                 FROM releases r ORDER BY r.ordinal",
                &Default::default(),
            )?;
            let output = super::OutputArgs {
                format: None,
                out: None,
                max_width: None,
            };
            output.emit(&rs)?;
            Ok(0)
        }
        ReleaseAction::Rename { old, new } => {
            let store = super::naming_store(db, "opening", liftdb::store::open_write_at(db))?;
            let changed = releases::rename(&store.conn, old, new)?;
            eprintln!(
                "renamed release '{old}' to '{new}' ({} runs) in {}",
                changed.runs,
                db.display()
            );
            Ok(0)
        }
        ReleaseAction::Drop { name, yes } => {
            let store = super::naming_store(db, "opening", liftdb::store::open_write_at(db))?;
            if !yes {
                let runs = releases::runs_of(&store.conn, name)?;
                eprintln!(
                    "would drop release '{name}' and its {runs} runs from {}; nothing changed: add --yes to drop it",
                    db.display()
                );
                return Ok(2);
            }
            let changed = releases::drop(&store.conn, name)?;
            eprintln!(
                "dropped release '{name}' ({} runs) from {}; its batches stay in ingest_batch",
                changed.runs,
                db.display()
            );
            Ok(0)
        }
    }
}
