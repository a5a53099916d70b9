//! `liftdb release list|rename|drop|move`: the releases a user controls.

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
    /// Give a release its place in the order trends, the HTML page and the
    /// gate's baseline follow: right after another release, or first.
    Move {
        name: String,
        /// The release it should follow.
        #[arg(
            long,
            value_name = "OTHER",
            required_unless_present = "first",
            conflicts_with = "first"
        )]
        after: Option<String>,
        /// Before every other release.
        #[arg(long)]
        first: bool,
    },
}

pub fn run(db: &Location, args: &ReleaseArgs) -> anyhow::Result<i32> {
    match &args.action {
        ReleaseAction::List => {
            let store = super::open_read_after_upkeep(db)?;
            let list = liftdb::sqlfiles::named(liftdb::sqlfiles::RELEASE_QUERIES, "list");
            let rs = liftdb::report::query(&store.conn, list, &Default::default())?;
            let output = super::OutputArgs {
                format: None,
                out: None,
                max_width: None,
            };
            output.emit(&rs)?;
            Ok(liftdb::exit::SUCCESS)
        }
        ReleaseAction::Rename { old, new } => {
            let store = super::naming_store(db, "opening", liftdb::store::open_write_at(db))?;
            let changed = releases::rename(&store.conn, old, new)?;
            eprintln!(
                "renamed release '{old}' to '{new}' ({} runs) in {}",
                changed.runs,
                db.display()
            );
            Ok(liftdb::exit::SUCCESS)
        }
        ReleaseAction::Drop { name, yes } => {
            let store = super::naming_store(db, "opening", liftdb::store::open_write_at(db))?;
            if !yes {
                let runs = releases::runs_of(&store.conn, name)?;
                eprintln!(
                    "would drop release '{name}' and its {runs} runs from {}; nothing changed: add --yes to drop it",
                    db.display()
                );
                return Ok(liftdb::exit::ERROR);
            }
            let changed = releases::drop(&store.conn, name)?;
            eprintln!(
                "dropped release '{name}' ({} runs) from {}; its batches stay in ingest_batch",
                changed.runs,
                db.display()
            );
            Ok(liftdb::exit::SUCCESS)
        }
        ReleaseAction::Move { name, after, first } => {
            let store = super::naming_store(db, "opening", liftdb::store::open_write_at(db))?;
            let place = match (after, first) {
                (Some(other), _) => releases::Place::After(other.clone()),
                (None, _) => releases::Place::First,
            };
            releases::move_to(&store.conn, name, &place)?;
            let said = match &place {
                releases::Place::First => "first".to_string(),
                releases::Place::After(other) => format!("after '{other}'"),
            };
            eprintln!(
                "moved release '{name}' {said} in {}; trends, the HTML page and the gate's baseline follow the new order (liftdb release list)",
                db.display()
            );
            Ok(liftdb::exit::SUCCESS)
        }
    }
}
