//! `liftdb schema`: version, migrations, tables and views with their docs.

use liftdb::store::Location;

use clap::Args;
use liftdb::store;

#[derive(Args, Debug)]
pub struct SchemaArgs {
    /// Cut lines to N columns (0 = whole lines). Default: the terminal's width.
    #[arg(long, value_name = "N")]
    pub max_width: Option<usize>,
}

/// Each line cut to the terminal (the docs of a table can be long).
macro_rules! out {
    ($width:expr, $($arg:tt)*) => {
        println!("{}", liftdb::output::cut(&format!($($arg)*), $width))
    };
}

pub fn run(db: &Location, args: &SchemaArgs) -> anyhow::Result<i32> {
    let st = super::open_read_after_upkeep(db)?;
    let conn = &st.conn;
    let w = args
        .max_width
        .or_else(liftdb::output::terminal_width)
        .unwrap_or(0);
    out!(w, "store:          {}", db.display());
    out!(w, "liftdb:         {}", liftdb::VERSION);
    out!(w, "schema version: {}", store::schema_version(conn)?);
    println!("\nmigrations:");
    for m in store::applied_migrations(conn)? {
        out!(
            w,
            "  {:04}_{:<20} applied {}  by liftdb {}  sha256 {}",
            m.version,
            m.name,
            m.applied_at,
            m.liftdb_version,
            &m.checksum[..12]
        );
    }
    println!("\ntables:");
    let mut stmt = conn.prepare(
        "SELECT table_name, estimated_size, coalesce(comment, '') FROM duckdb_tables()
         WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal AND NOT temporary ORDER BY table_name",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, String>(2)?,
        ))
    })?;
    let tables = rows.collect::<Result<Vec<_>, _>>()?;
    // The longest name sets the column, so the comments line up.
    let width = tables
        .iter()
        .map(|(name, ..)| name.len())
        .max()
        .unwrap_or(0);
    for (name, rows, comment) in tables {
        out!(w, "  {name:<width$} {rows:>9} rows  {comment}");
    }
    println!("\nviews:");
    let mut stmt = conn.prepare(
        "SELECT view_name, coalesce(comment, '') FROM duckdb_views()
         WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal ORDER BY view_name",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    let views = rows.collect::<Result<Vec<_>, _>>()?;
    let width = views.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    for (name, comment) in views {
        out!(w, "  {name:<width$} {comment}");
    }
    Ok(liftdb::exit::SUCCESS)
}
