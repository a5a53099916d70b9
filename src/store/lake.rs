//! A store on DuckLake: the catalog in PostgreSQL, the data as Parquet
//! files under a path, driven by the same DuckDB engine, so the same views,
//! macros and reports run on it. DuckLake refuses some of a file store's
//! DDL (keys, column compression, comments on view columns, HUGEINT kept
//! exact); this module gives the lake the same tables in the dialect it
//! accepts, and attaches it for every command.

use duckdb::{Config, Connection};

use super::location::Lake;
use crate::sqlfiles::MIGRATIONS;
use crate::{Error, Result};

/// The name the lake is attached under (and made current with `USE`).
pub const ALIAS: &str = "lake";

/// A connection with the lake attached and current: every unqualified name
/// is the lake's. `snapshot`: read the lake as it was at that snapshot
/// (read-only), for a reproducible report.
pub fn attach(lake: &Lake, snapshot: Option<i64>) -> Result<Connection> {
    let mut config = Config::default()
        .with("autoinstall_known_extensions", "false")?
        .with("autoload_known_extensions", "true")?;
    if let Some(dir) = &lake.extension_dir {
        config = config.with("extension_directory", dir.display().to_string())?;
    }
    let conn = Connection::open_in_memory_with_flags(config)?;
    conn.execute_batch("LOAD ducklake; LOAD postgres_scanner;")
        .map_err(|e| missing_extensions(lake, e))?;
    let mut options = Vec::new();
    if let Some(path) = &lake.data_path {
        options.push(format!("DATA_PATH {}", quoted(path)));
    }
    if let Some(version) = snapshot {
        options.push(format!("SNAPSHOT_VERSION {version}"));
    }
    let options = match options.is_empty() {
        true => String::new(),
        false => format!(" ({})", options.join(", ")),
    };
    conn.execute_batch(&format!(
        "ATTACH {} AS {ALIAS}{options}; USE {ALIAS};",
        quoted(&lake.catalog)
    ))
    .map_err(|e| Error::LakeUnreachable {
        lake: lake.catalog.clone(),
        detail: crate::error::duckdb_text(&e),
    })?;
    Ok(conn)
}

/// The extensions could not be loaded: said with where liftdb looked.
fn missing_extensions(lake: &Lake, e: duckdb::Error) -> Error {
    Error::LakeExtensions {
        dir: lake
            .extension_dir
            .as_ref()
            .map_or("DuckDB's default (~/.duckdb/extensions)".into(), |d| {
                d.display().to_string()
            }),
        detail: crate::error::duckdb_text(&e),
    }
}

/// How many times a step that meets another writer's commit is tried.
pub const TRIES: u32 = 12;

/// `work` tried again, after a growing random wait, while its commit
/// conflicts with another writer's (DuckLake does not retry those itself);
/// after `TRIES` tries the conflict is its own error.
pub fn retrying<T>(work: impl FnMut() -> Result<T>) -> Result<T> {
    retrying_unless(|| Ok(false), work).map(|done| done.expect("never settled otherwise"))
}

/// `retrying`, asking `settled` after each conflict whether another
/// writer's commit has done the work meanwhile: then None, not tried again.
pub fn retrying_unless<T>(
    settled: impl Fn() -> Result<bool>,
    mut work: impl FnMut() -> Result<T>,
) -> Result<Option<T>> {
    let mut tried = 0;
    loop {
        tried += 1;
        match work() {
            Err(e) if e.is_transaction_conflict() => {
                if settled()? {
                    return Ok(None);
                }
                if tried >= TRIES {
                    return Err(Error::LakeConflict {
                        tries: tried,
                        detail: e.to_string(),
                    });
                }
                std::thread::sleep(backoff(tried));
            }
            other => return other.map(Some),
        }
    }
}

/// The wait before try `tried + 1`: doubling from 50 ms up to 3.2 s, each
/// drawn at random below it, so writers that met do not meet again.
pub fn backoff(tried: u32) -> std::time::Duration {
    let ceiling_ms = 50u64 << tried.min(6);
    std::time::Duration::from_millis(ceiling_ms / 2 + super::ids::random() % (ceiling_ms / 2))
}

/// Whether `conn`'s current database is a lake.
pub fn on_lake(conn: &Connection) -> Result<bool> {
    Ok(conn.query_row(
        "SELECT coalesce(any_value(type = 'ducklake'), false) FROM duckdb_databases()
         WHERE database_name = current_database()",
        [],
        |r| r.get(0),
    )?)
}

/// `text` as a SQL string literal.
pub fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// Set on a new lake: Parquet written with zstd (DuckLake's default is snappy).
pub fn configure(conn: &Connection) -> Result<()> {
    conn.execute_batch(&format!(
        "CALL {ALIAS}.set_option('parquet_compression', 'zstd');"
    ))?;
    Ok(())
}

/// The snapshot a connection reads now: the lake's latest, or the one it
/// was attached at.
pub fn current_snapshot(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row(
        &format!("SELECT max(snapshot_id) FROM ducklake_snapshots('{ALIAS}')"),
        [],
        |r| r.get(0),
    )?)
}

/// The schema every migration leaves, as DDL a DuckLake accepts: each table
/// of the migrated schema with its columns, types, NOT NULL and comments;
/// no keys, no compression, HUGEINT as DECIMAL(38,0) (DuckLake writes a
/// HUGEINT to Parquet as a DOUBLE, which loses exact sums). Worked out from
/// the migrations themselves in a scratch database, so a lake and a file
/// store have the same tables by construction.
pub fn schema_ddl() -> Result<String> {
    let scratch = Connection::open_in_memory()?;
    for m in MIGRATIONS {
        scratch.execute_batch(m.sql)?;
    }
    let mut ddl = String::new();
    let tables: Vec<(String, Option<String>)> = scratch
        .prepare(
            "SELECT table_name, comment FROM duckdb_tables()
             WHERE database_name = current_database() AND schema_name = 'main'
             ORDER BY table_name",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<std::result::Result<_, _>>()?;
    let mut columns = scratch.prepare(
        "SELECT column_name, data_type, is_nullable, comment FROM duckdb_columns()
         WHERE database_name = current_database() AND schema_name = 'main' AND table_name = ?
         ORDER BY column_index",
    )?;
    for (table, comment) in &tables {
        let cols: Vec<(String, String, bool, Option<String>)> = columns
            .query_map([table], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
            })?
            .collect::<std::result::Result<_, _>>()?;
        let defs: Vec<String> = cols
            .iter()
            .map(|(name, ty, nullable, _)| {
                let not_null = if *nullable { "" } else { " NOT NULL" };
                format!("    \"{name}\" {}{not_null}", lake_type(ty))
            })
            .collect();
        ddl.push_str(&format!(
            "CREATE TABLE IF NOT EXISTS {table} (\n{}\n);\n",
            defs.join(",\n")
        ));
        if let Some(comment) = comment {
            ddl.push_str(&format!(
                "COMMENT ON TABLE {table} IS {};\n",
                quoted(comment)
            ));
        }
        for (name, _, _, comment) in &cols {
            if let Some(comment) = comment {
                ddl.push_str(&format!(
                    "COMMENT ON COLUMN {table}.\"{name}\" IS {};\n",
                    quoted(comment)
                ));
            }
        }
        ddl.push_str(&seed_rows(&scratch, table, cols.len())?);
    }
    Ok(ddl)
}

/// The rows a migration itself writes into a new store (refill_turn's one
/// row), as INSERTs: a new lake starts with them as a new file does.
fn seed_rows(scratch: &Connection, table: &str, columns: usize) -> Result<String> {
    use duckdb::types::Value;
    let mut inserts = String::new();
    let mut stmt = scratch.prepare(&format!("SELECT * FROM {table}"))?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let values = (0..columns)
            .map(|i| {
                Ok(match row.get::<_, Value>(i)? {
                    Value::Null => "NULL".to_string(),
                    Value::Boolean(b) => b.to_string(),
                    Value::Int(n) => n.to_string(),
                    Value::BigInt(n) => n.to_string(),
                    Value::Text(t) => quoted(&t),
                    other => unreachable!(
                        "a migration seeds {table} with {other:?}: give seed_rows its literal"
                    ),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        inserts.push_str(&format!(
            "INSERT INTO {table} VALUES ({});\n",
            values.join(", ")
        ));
    }
    Ok(inserts)
}

/// A column type as the lake keeps it exactly.
fn lake_type(ty: &str) -> String {
    match ty {
        "HUGEINT" | "UHUGEINT" => "DECIMAL(38,0)".into(),
        other => other.into(),
    }
}

/// A view file's SQL as the lake accepts it: DuckLake refuses comments on a
/// view's columns (the view files write each on a line of its own).
pub fn view_sql(sql: &str) -> String {
    sql.lines()
        .filter(|line| !line.starts_with("COMMENT ON COLUMN "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The column comments a view file gives its views: the lake keeps them
/// for the stored tables that hold a view's rows.
pub fn view_column_comments(sql: &str) -> Vec<(&str, &str, String)> {
    sql.lines()
        .filter_map(|line| line.strip_prefix("COMMENT ON COLUMN "))
        .filter_map(|rest| {
            let (target, comment) = rest.split_once(" IS '")?;
            let (view, column) = target.split_once('.')?;
            let comment = comment.strip_suffix("';")?.replace("''", "'");
            Some((view, column.trim_matches('"'), comment))
        })
        .collect()
}

/// Lake maintenance: small files merged, snapshots older than `grace`
/// expired and the files only they held deleted. Readers of an expired
/// snapshot (`--snapshot N`) can no longer read it.
pub fn maintain(conn: &Connection, grace: &str) -> Result<()> {
    conn.execute_batch(&format!(
        "CALL ducklake_merge_adjacent_files('{ALIAS}');
         CALL ducklake_expire_snapshots('{ALIAS}', older_than => (now()::TIMESTAMP - INTERVAL {grace})::TIMESTAMPTZ);
         CALL ducklake_cleanup_old_files('{ALIAS}', older_than => (now()::TIMESTAMP - INTERVAL {grace})::TIMESTAMPTZ);",
        grace = quoted(grace)
    ))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lake's tables are the migrated schema's, each column with its
    /// type (HUGEINT kept exact as DECIMAL), and no key or compression.
    #[test]
    fn the_lake_schema_is_the_migrated_one_without_keys() {
        let ddl = schema_ddl().unwrap();
        assert!(!ddl.contains("PRIMARY KEY") && !ddl.contains("UNIQUE"));
        assert!(!ddl.contains("COMPRESSION") && !ddl.contains("HUGEINT"));
        let lake = Connection::open_in_memory().unwrap();
        lake.execute_batch(&ddl).unwrap();
        let file = Connection::open_in_memory().unwrap();
        for m in MIGRATIONS {
            file.execute_batch(m.sql).unwrap();
        }
        let columns = |conn: &Connection| -> Vec<(String, String, String)> {
            conn.prepare(
                "SELECT table_name, column_name, data_type FROM duckdb_columns()
                 WHERE schema_name = 'main' ORDER BY table_name, column_index",
            )
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<std::result::Result<_, _>>()
            .unwrap()
        };
        let want: Vec<_> = columns(&file)
            .into_iter()
            .map(|(t, c, ty)| (t, c, lake_type(&ty)))
            .collect();
        assert_eq!(columns(&lake), want);
    }

    #[test]
    fn view_column_comments_are_kept_aside_for_the_lake() {
        let sql = "CREATE VIEW v AS SELECT 1 AS a;\nCOMMENT ON VIEW v IS 'x';\nCOMMENT ON COLUMN v.a IS 'the ''a''';";
        assert_eq!(
            view_sql(sql),
            "CREATE VIEW v AS SELECT 1 AS a;\nCOMMENT ON VIEW v IS 'x';"
        );
        assert_eq!(
            view_column_comments(sql),
            [("v", "a", "the 'a'".to_string())]
        );
    }
}
