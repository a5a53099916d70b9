//! `liftdb sql "SELECT …"`

use liftdb::store::Location;

use clap::Args;
use liftdb::report::{self, Filters};

use super::OutputArgs;

#[derive(Args, Debug)]
pub struct SqlArgs {
    /// One SQL statement.
    pub statement: String,
    #[command(flatten)]
    pub output: OutputArgs,
}

pub fn run(db: &Location, args: &SqlArgs) -> anyhow::Result<i32> {
    let store = super::open_read_after_upkeep(db)?;
    let result = report::query(&store.conn, &args.statement, &Filters::new());
    let rs = match result {
        Err(e) if liftdb::store::is_write_refusal(&e) => {
            // The statement writes: reopen for writing (which also takes the lock).
            drop(store);
            let store =
                super::naming_store(db, "opening for writing", liftdb::store::open_write_at(db))?;
            report::query(&store.conn, &args.statement, &Filters::new())?
        }
        other => other?,
    };
    args.output.emit(&rs)?;
    Ok(liftdb::exit::SUCCESS)
}
