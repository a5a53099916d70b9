//! `liftdb schema`: version, migrations, tables and views with their docs.

use std::path::Path;

use liftdb::store;

pub fn run(db: &Path) -> anyhow::Result<i32> {
    let st = super::open_read(db)?;
    let conn = &st.conn;
    println!("store:          {}", db.display());
    println!("liftdb:         {}", liftdb::VERSION);
    println!("schema version: {}", store::schema_version(conn)?);
    println!("\nmigrations:");
    for m in store::applied_migrations(conn)? {
        println!(
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
         WHERE schema_name = 'main' AND NOT internal AND NOT temporary ORDER BY table_name",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, String>(2)?,
        ))
    })?;
    for row in rows {
        let (name, rows, comment) = row?;
        println!("  {name:<20} {rows:>9} rows  {comment}");
    }
    println!("\nviews:");
    let mut stmt = conn.prepare(
        "SELECT view_name, coalesce(comment, '') FROM duckdb_views()
         WHERE schema_name = 'main' AND NOT internal ORDER BY view_name",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
    for row in rows {
        let (name, comment) = row?;
        println!("  {name:<20} {comment}");
    }
    Ok(0)
}
