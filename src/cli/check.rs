//! `liftdb check`: verify the store (migrations ledger, every block of every
//! table, every view, the unindexed keys, each stored aggregate against its view, each listed
//! table's order); exit 0 when whole, 1 when something is damaged, 2 when
//! nothing read was damaged but some could not be read within the budget.

use liftdb::store::Location;

pub fn run(db: &Location) -> anyhow::Result<i32> {
    // Opening verifies the migrations ledger against this binary.
    let store = super::open_read_after_upkeep(db)?;
    let found = liftdb::store::check::check(&store.conn)?;
    let damaged: Vec<_> = found.iter().filter(|c| c.damaged()).collect();
    let unread: Vec<_> = found.iter().filter(|c| c.out_of_memory).collect();
    for c in &found {
        match (&c.problem, c.rows) {
            (Some(problem), _) if c.out_of_memory => println!(
                "UNREAD   {:<7} {:<22} {}",
                c.kind,
                c.name,
                problem.lines().next().unwrap_or_default()
            ),
            (None, _) if c.kind == "key" => {
                println!("ok       {:<7} {:<22} unique", c.kind, c.name)
            }
            (None, _) if c.kind == "derived" => {
                println!("ok       {:<7} {:<22} equal", c.kind, c.name)
            }
            (None, _) if c.kind == "order" => {
                println!(
                    "ok       {:<7} {:<22} in its reports' order",
                    c.kind, c.name
                )
            }
            (None, Some(rows)) => println!("ok       {:<7} {:<22} {rows} rows", c.kind, c.name),
            (problem, _) => println!(
                "DAMAGED  {:<7} {:<22} {}",
                c.kind,
                c.name,
                problem.as_deref().unwrap_or_default()
            ),
        }
    }
    if damaged.is_empty() && !unread.is_empty() {
        // Nothing found damaged, but not everything read: no verdict.
        eprintln!(
            "{}: {} of {} tables, views and keys could not be read within the memory budget (nothing read was damaged); {}",
            db.display(),
            unread.len(),
            found.len(),
            liftdb::store::budget::larger_budget("check")
        );
        return Ok(liftdb::exit::ERROR);
    }
    if damaged.is_empty() {
        eprintln!(
            "{}: whole (migrations ledger, {} tables, views and keys read in full)",
            db.display(),
            found.len()
        );
        Ok(liftdb::exit::SUCCESS)
    } else {
        eprintln!(
            "{}: {} of {} tables, views and keys are damaged; the run trees it was ingested from can rebuild it: liftdb --db {} rebuild --out NEW.duckdb",
            db.display(),
            damaged.len(),
            found.len(),
            db.display()
        );
        Ok(liftdb::exit::FAILED)
    }
}
