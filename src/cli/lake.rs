//! `liftdb lake init|refresh|maintain|snapshots`: a DuckLake's upkeep.

use clap::{Args, Subcommand};
use liftdb::store::{self, Location};

use super::OutputArgs;

#[derive(Args, Debug)]
pub struct LakeArgs {
    #[command(subcommand)]
    pub action: LakeAction,
}

#[derive(Subcommand, Debug)]
pub enum LakeAction {
    /// Create the lake on purpose (DuckLake's catalog in the PostgreSQL
    /// database, liftdb's tables and views), with --data-path for its files;
    /// a lake that exists is left as it is. Any number of jobs may run it at once.
    Init,
    /// Refill the stored aggregates that wait (after a fan-out of writers
    /// with --defer-refill, or one whose refill gave up).
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
    Snapshots {
        #[command(flatten)]
        output: OutputArgs,
    },
}

pub fn run(db: &Location, args: &LakeArgs) -> anyhow::Result<i32> {
    let Location::Lake(lake) = db else {
        anyhow::bail!(
            "{} is a file store; `liftdb lake` works on a DuckLake: --db 'ducklake:postgres:dbname=… host=…'",
            db.display()
        );
    };
    match &args.action {
        LakeAction::Init => {
            let existed = super::naming_store(db, "opening", store::lake_exists(lake))?;
            let store = super::naming_store(db, "creating", store::open_write_at(db))?;
            let data = store::lake::data_path(&store.conn)?.unwrap_or_default();
            let version = store::schema_version(&store.conn)?;
            match existed {
                true => eprintln!(
                    "{}: the lake exists (data at {data}, schema version {version}); nothing to do",
                    db.display()
                ),
                false => eprintln!(
                    "{}: created the lake: DuckLake's catalog in the PostgreSQL database, liftdb's tables and views (schema version {version}), data at {data}",
                    db.display()
                ),
            }
        }
        LakeAction::Refresh => {
            // A writer's open refills nothing; a reader's refills what waits.
            let writable = store::open_write_at(db);
            drop(super::naming_store(db, "refreshing", writable)?);
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
        LakeAction::Snapshots { output } => {
            let store = super::open_read_after_upkeep(db)?;
            let sql = liftdb::sqlfiles::named(liftdb::sqlfiles::LAKE_QUERIES, "snapshots");
            let rs = liftdb::report::query(&store.conn, sql, &liftdb::report::Filters::new())?;
            output.emit(&rs)?;
        }
    }
    Ok(liftdb::exit::SUCCESS)
}
