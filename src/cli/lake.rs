//! `liftdb lake refresh|maintain|snapshots`: a DuckLake's upkeep.

use clap::{Args, Subcommand};
use liftdb::store::{self, Location};

#[derive(Args, Debug)]
pub struct LakeArgs {
    #[command(subcommand)]
    pub action: LakeAction,
}

#[derive(Subcommand, Debug)]
pub enum LakeAction {
    /// Refill the stored aggregates that wait (after a fan-out of writers,
    /// one whose refill gave up leaves its releases waiting).
    Refresh,
    /// Merge small files, expire snapshots older than the grace period and
    /// delete the files only they held.
    Maintain {
        /// Snapshots younger than this stay readable (`--snapshot N`), e.g.
        /// "7 days", "12 hours".
        #[arg(long, default_value = "7 days")]
        grace: String,
    },
    /// List the lake's snapshots (what `report --snapshot N` reads).
    Snapshots,
}

pub fn run(db: &Location, args: &LakeArgs) -> anyhow::Result<i32> {
    if db.file().is_some() {
        anyhow::bail!(
            "{} is a file store; `liftdb lake` works on a DuckLake: --db 'ducklake:postgres:dbname=… host=…'",
            db.display()
        );
    }
    match &args.action {
        LakeAction::Refresh => {
            // Opening to read refills whatever waits (a writer leaves it to its batch).
            let opened = store::open_read_at(db, None);
            let store = super::naming_store(db, "refreshing", opened)?;
            eprintln!(
                "{}: the stored aggregates are current (snapshot {})",
                db.display(),
                store.snapshot()?.unwrap_or_default()
            );
        }
        LakeAction::Maintain { grace } => {
            let store = super::naming_store(db, "opening", store::open_write_at(db))?;
            liftdb::store::lake::maintain(&store.conn, grace)?;
            eprintln!(
                "{}: files merged, snapshots older than {grace} expired and their files deleted",
                db.display()
            );
        }
        LakeAction::Snapshots => {
            let store = super::open_read_after_upkeep(db)?;
            let rs = liftdb::report::query(
                &store.conn,
                "SELECT snapshot_id, snapshot_time, changes FROM ducklake_snapshots('lake') ORDER BY snapshot_id",
                &liftdb::report::Filters::new(),
            )?;
            liftdb::output::render_with(
                &rs,
                liftdb::output::Format::Csv,
                &liftdb::output::RenderOptions::default(),
                &mut std::io::stdout().lock(),
            )?;
        }
    }
    Ok(0)
}
