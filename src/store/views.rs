//! Views are re-created on every write-open (they are not dependency-checked
//! by DuckDB), then each is probed so a broken view fails loudly here.

use duckdb::Connection;

use crate::sqlfiles::VIEWS;
use crate::{Error, Result};

pub fn recreate_views(conn: &Connection) -> Result<()> {
    for (name, sql) in VIEWS {
        conn.execute_batch(sql).map_err(|e| Error::ViewProbe {
            name: (*name).to_string(),
            detail: e.to_string(),
        })?;
    }
    probe_views(conn)
}

pub fn probe_views(conn: &Connection) -> Result<()> {
    let mut stmt = conn.prepare(
        "SELECT view_name FROM duckdb_views() WHERE NOT internal AND schema_name = 'main' ORDER BY view_name",
    )?;
    let names: Vec<String> = stmt
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    for name in names {
        let probe = format!("SELECT * FROM \"{}\" LIMIT 0", name.replace('"', "\"\""));
        conn.execute_batch(&probe).map_err(|e| Error::ViewProbe {
            name: name.clone(),
            detail: e.to_string(),
        })?;
    }
    Ok(())
}
