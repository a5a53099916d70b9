//! A store on DuckLake: the catalog in PostgreSQL, the data as Parquet
//! files under a path, driven by the same DuckDB engine, so the same views,
//! macros and reports run on it. DuckLake refuses some of a file store's
//! DDL (keys, column compression, comments on view columns, HUGEINT kept
//! exact); this module gives the lake the same tables in the dialect it
//! accepts, and attaches it for every command.

use duckdb::{Config, Connection};

use super::literal::quoted;
use super::location::Lake;
use super::object_storage;
pub use super::turn::WriterLock;
use crate::sqlfiles::MIGRATIONS;
use crate::{Error, Result};

/// The name the lake is attached under (and made current with `USE`).
pub const ALIAS: &str = "lake";

/// The name the lake's PostgreSQL database is attached under beside it,
/// for the writers' lock and the role's rights (never for data).
const CATALOG_ALIAS: &str = "liftdb_catalog";

/// A connection with the extensions a lake needs loaded from
/// `--extension-dir` (never downloaded), and object storage reachable when
/// the data path given is in it. Nothing is attached yet.
pub fn engine(lake: &Lake) -> Result<Connection> {
    let config = Config::default()
        .with("autoinstall_known_extensions", "false")?
        .with("autoload_known_extensions", "true")?;
    let mut config = config;
    if let Some(dir) = &lake.extension_dir {
        // DuckDB's own layout there also serves what a query autoloads.
        config = config.with("extension_directory", dir.display().to_string())?;
    }
    // Held to the process's budget, spilling into liftdb's cache rather
    // than the working directory (a lake has no file to spill beside).
    let config = super::budget::engine_config(config, Some(&super::budget::spill_directory()))?;
    let conn = Connection::open_in_memory_with_flags(config)?;
    let dir = lake.extension_dir.as_deref();
    super::extensions::load(&conn, dir, &["ducklake", "postgres_scanner"])?;
    // The catalog is a network away: a pooled connection is not checked
    // with a `SELECT 1` each time it is taken (two round trips per DuckDB
    // transaction); a connection that broke fails its statement instead.
    conn.execute_batch("SET pg_pool_health_check_query = '';")?;
    if lake
        .data_path
        .as_deref()
        .is_some_and(object_storage::is_remote)
    {
        object_storage::connect(&conn, dir)?;
    }
    Ok(conn)
}

/// Attach the lake on `conn` and make it current: every unqualified name is
/// the lake's. `snapshot`: read it as it was then (read-only), for a
/// reproducible report or a reader whose refill waits. A lake whose data
/// are in object storage gets its credentials from the environment here
/// when --data-path did not name it (a reader's lake says where its data are).
pub fn attach(conn: &Connection, lake: &Lake, snapshot: Option<i64>) -> Result<()> {
    attach_as(conn, lake, snapshot, false)
}

/// `attach`, read-only: a lake that does not exist is not created (the
/// error says none is there: `NoLakeYet`), and nothing is written.
pub fn attach_read_only(conn: &Connection, lake: &Lake, snapshot: Option<i64>) -> Result<()> {
    attach_as(conn, lake, snapshot, true)
}

fn attach_as(conn: &Connection, lake: &Lake, snapshot: Option<i64>, read_only: bool) -> Result<()> {
    // Rows are never inlined into the catalog: an inlined table is read
    // from PostgreSQL by every scan of it, a round trip each, which
    // doubled what a query costs over a network (a table's Parquet files
    // are listed by the queries every scan makes anyway).
    let mut options = vec!["DATA_INLINING_ROW_LIMIT 0".to_string()];
    if let Some(path) = &lake.data_path {
        options.push(format!("DATA_PATH {}", quoted(path)));
    }
    if let Some(version) = snapshot {
        options.push(format!("SNAPSHOT_VERSION {version}"));
    }
    if read_only {
        options.push("READ_ONLY".into());
    }
    let options = format!(" ({})", options.join(", "));
    conn.execute_batch(&format!(
        "ATTACH {} AS {ALIAS}{options}; USE {ALIAS};",
        quoted(&lake.catalog)
    ))
    .map_err(|e| unreachable_lake(lake, e))?;
    let recorded = data_path(conn)?;
    if let Some(path) = recorded.as_deref().filter(|p| object_storage::is_remote(p)) {
        if !lake
            .data_path
            .as_deref()
            .is_some_and(object_storage::is_remote)
        {
            object_storage::connect(conn, lake.extension_dir.as_deref())?;
        }
        object_storage::probe(conn, path)?;
    }
    Ok(())
}

/// Detach the lake (to attach it again at another snapshot).
pub fn detach(conn: &Connection) -> Result<()> {
    conn.execute_batch(&format!("USE memory; DETACH {ALIAS};"))?;
    Ok(())
}

/// The attach failed: a data path that is not the lake's, or the server.
fn unreachable_lake(lake: &Lake, e: duckdb::Error) -> Error {
    let detail = crate::error::duckdb_text(&e);
    if detail.contains("creating a new DuckLake is explicitly disabled") {
        return no_lake_yet(lake);
    }
    if detail.contains("does not match existing data path") {
        return Error::Invalid(format!(
            "lake {}: --data-path {} is not where this lake keeps its data ({}); leave --data-path out (the lake records its own) or give the recorded one",
            lake.shown,
            lake.data_path.as_deref().unwrap_or_default(),
            detail.lines().next().unwrap_or_default()
        ));
    }
    Error::LakeUnreachable {
        lake: lake.shown.clone(),
        detail: crate::model::redact::connection_text(&detail).into_owned(),
    }
}

/// A reader met a PostgreSQL database without a lake in it.
pub fn no_lake_yet(lake: &Lake) -> Error {
    Error::Invalid(format!(
        "no lake at {} yet: its PostgreSQL database holds no DuckLake catalog; a writer creates it (`liftdb lake init --data-path DIR`, or its first ingest)",
        lake.shown
    ))
}

/// Where the attached lake keeps its data files, as its catalog records it.
pub fn data_path(conn: &Connection) -> Result<Option<String>> {
    Ok(conn
        .query_row(
            &format!(
                "SELECT any_value(value) FROM __ducklake_metadata_{ALIAS}.ducklake_metadata WHERE key = 'data_path'"
            ),
            [],
            |r| r.get::<_, Option<String>>(0),
        )
        .unwrap_or(None))
}

/// A lake's catalog database in PostgreSQL, attached beside the lake: where
/// writers take turns to create the lake and to commit (`turn`), and where a
/// role's rights are read.
pub struct Catalog<'c> {
    conn: &'c Connection,
    /// How messages name the lake (its settings without the password).
    shown: String,
}

impl<'c> Catalog<'c> {
    /// The catalog of `lake` when it is in PostgreSQL (`ducklake:postgres:…`),
    /// attached on `conn`; None for another catalog (one process writes it).
    pub fn attach(conn: &'c Connection, lake: &Lake) -> Result<Option<Catalog<'c>>> {
        let Some(settings) = lake.catalog.strip_prefix("ducklake:postgres:") else {
            return Ok(None);
        };
        if Catalog::attached(conn)?.is_none() {
            conn.execute_batch(&format!(
                "ATTACH {} AS {CATALOG_ALIAS} (TYPE postgres);",
                quoted(settings)
            ))
            .map_err(|e| unreachable_lake(lake, e))?;
        }
        Ok(Some(Catalog {
            conn,
            shown: lake.shown.clone(),
        }))
    }

    /// The catalog attached on `conn` by a writer's open, if any.
    pub fn attached(conn: &'c Connection) -> Result<Option<Catalog<'c>>> {
        let settings: Option<String> = conn.query_row(
            "SELECT any_value(path) FROM duckdb_databases() WHERE database_name = ?",
            [CATALOG_ALIAS],
            |r| r.get(0),
        )?;
        Ok(settings.map(|settings| Catalog {
            conn,
            shown: crate::model::redact::connection_text(&format!("ducklake:postgres:{settings}"))
                .into_owned(),
        }))
    }

    /// One value PostgreSQL computes, as text.
    fn ask(&self, sql: &str) -> Result<Option<String>> {
        Ok(self.conn.query_row(
            &format!(
                "SELECT * FROM postgres_query('{CATALOG_ALIAS}', {})",
                quoted(sql)
            ),
            [],
            |r| r.get::<_, Option<String>>(0),
        )?)
    }

    /// Whether DuckLake's catalog tables exist in the database.
    pub fn lake_exists(&self) -> Result<bool> {
        Ok(self
            .ask("SELECT (to_regclass('ducklake_snapshot') IS NOT NULL)::text")?
            .as_deref()
            == Some("true"))
    }

    /// The role this connection logs in as.
    pub fn role(&self) -> Result<String> {
        Ok(self.ask("SELECT current_user::text")?.unwrap_or_default())
    }

    /// Whether the role may write the lake: add snapshots to an existing
    /// one, or create the catalog's tables of a new one.
    pub fn role_can_write(&self) -> Result<bool> {
        let sql = "SELECT (CASE WHEN to_regclass('ducklake_snapshot') IS NULL
                         THEN has_schema_privilege(current_schema(), 'CREATE')
                         ELSE has_table_privilege('ducklake_snapshot', 'INSERT') END)::text";
        Ok(self.ask(sql)?.as_deref() == Some("true"))
    }

    /// Take the writers' turn (for `batch`, when committing one): until the
    /// returned guard is dropped no other liftdb creates, migrates or
    /// commits to this lake. Waits the process's bounded wait, naming the
    /// holder (`turn::take`); a holder that dies releases it with its session.
    pub fn lock_writers(&self, batch: Option<i64>) -> Result<WriterLock> {
        super::turn::take(self.conn, CATALOG_ALIAS, &self.shown, batch)
    }
}

/// The batches committed so far (read when a batch plans: those committed
/// later are another job's, met at the commit by `guard_commit`).
pub fn committed_batches(conn: &Connection) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare("SELECT batch_id FROM ingest_batch ORDER BY batch_id")?;
    let ids = stmt.query_map([], |r| r.get::<_, i64>(0))?;
    Ok(ids.collect::<std::result::Result<_, _>>()?)
}

/// Before a batch commits to a lake whose catalog is in PostgreSQL: the
/// writers' lock taken (held by the returned guard until the commit is
/// done), then the batch's runs and files compared with those of every
/// batch another writer committed since this one planned (`planned`: the
/// batches committed then, sorted). DuckLake lets two
/// transactions insert the same rows (it has no keys), so two jobs storing
/// the same runs at once would both commit them; the second is refused here
/// (`Error::StoredMeanwhile`) and tried again, when it finds them stored.
/// Files overlap only by their whole key (path, owner, release, shard) with
/// other content: jobs at one checkout path reading other shards or
/// releases never do, and a file both read alike is kept once (dropped from
/// `staged_files`, the batch's files not yet in `source_file`).
/// None: not a PostgreSQL lake (one writer at a time).
pub fn guard_commit(
    tx: &Connection,
    batch_id: i64,
    planned: &[i64],
    staged_files: &str,
) -> Result<Option<WriterLock>> {
    let Some(catalog) = Catalog::attached(tx)? else {
        return Ok(None);
    };
    let lock = catalog.lock_writers(Some(batch_id))?;
    let ids = |conn: &Connection, sql: &str| -> Result<Vec<i64>> {
        let mut stmt = conn.prepare(sql)?;
        let ids = stmt.query_map([], |r| r.get::<_, i64>(0))?;
        Ok(ids.collect::<std::result::Result<_, _>>()?)
    };
    // A connection of its own reads the lake as committed now (this
    // transaction reads it as it was when the batch began).
    let now = tx.try_clone()?;
    now.execute_batch(&format!("USE {ALIAS};"))?;
    let meanwhile: Vec<i64> = ids(
        &now,
        "SELECT batch_id FROM ingest_batch WHERE finished_at IS NOT NULL",
    )?
    .into_iter()
    .filter(|id| *id != batch_id && planned.binary_search(id).is_err())
    .collect();
    if meanwhile.is_empty() {
        return Ok(Some(lock));
    }
    let list = meanwhile
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    tx.execute_batch(
        "CREATE OR REPLACE TEMP TABLE liftdb_meanwhile_runs (batch_id BIGINT, run_id VARCHAR);
         CREATE OR REPLACE TEMP TABLE liftdb_meanwhile_files (batch_id BIGINT, path VARCHAR, owner_key VARCHAR, release_label VARCHAR, shard VARCHAR, sha256 VARCHAR);",
    )?;
    for (table, sql) in [
        (
            "liftdb_meanwhile_runs",
            format!("SELECT batch_id, run_id FROM run WHERE batch_id IN ({list})"),
        ),
        (
            "liftdb_meanwhile_files",
            format!("SELECT batch_id, path, owner_key, release_label, shard, sha256 FROM source_file WHERE batch_id IN ({list})"),
        ),
    ] {
        let mut stmt = now.prepare(&sql)?;
        let mut appender = tx.appender(table)?;
        for batch in stmt.query_arrow([])? {
            appender.append_record_batch(batch)?;
        }
        appender.flush()?;
    }
    let overlapping = |sql: &str| -> Result<Vec<(i64, String)>> {
        let mut stmt = tx.prepare(sql)?;
        let found = stmt.query_map([batch_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(found.collect::<std::result::Result<Vec<_>, _>>()?)
    };
    let runs_met = overlapping(
        "SELECT DISTINCT m.batch_id, m.run_id FROM liftdb_meanwhile_runs m
           JOIN run r ON r.run_id = m.run_id AND r.batch_id = $1
         ORDER BY 1, 2",
    )?;
    let files_met = overlapping(&format!(
        "SELECT DISTINCT m.batch_id, m.path FROM liftdb_meanwhile_files m
           JOIN {staged_files} f ON f.path = m.path AND f.owner_key = m.owner_key AND f.batch_id = $1
            AND f.release_label IS NOT DISTINCT FROM m.release_label
            AND f.shard IS NOT DISTINCT FROM m.shard AND f.sha256 <> m.sha256
         ORDER BY 1, 2"
    ))?;
    // A file both read alike (the manifest every job of a release names)
    // is no overlap: its row is kept once, the other writer's.
    if runs_met.is_empty() && files_met.is_empty() {
        tx.execute(
            &format!(
                "DELETE FROM {staged_files} f WHERE EXISTS (
                     SELECT 1 FROM liftdb_meanwhile_files m
                     WHERE m.path = f.path AND m.owner_key = f.owner_key
                       AND m.release_label IS NOT DISTINCT FROM f.release_label
                       AND m.shard IS NOT DISTINCT FROM f.shard AND m.sha256 = f.sha256)"
            ),
            [],
        )?;
    }
    tx.execute_batch(
        "DROP TABLE IF EXISTS temp.liftdb_meanwhile_runs; DROP TABLE IF EXISTS temp.liftdb_meanwhile_files;",
    )?;
    let batches = |met: &[(i64, String)]| {
        let mut ids: Vec<i64> = met.iter().map(|(b, _)| *b).collect();
        ids.dedup();
        ids
    };
    match (runs_met.first(), files_met.first()) {
        (None, None) => Ok(Some(lock)),
        (Some(_), _) => Err(Error::StoredMeanwhile {
            batches: batches(&runs_met),
        }),
        (None, Some((_, path))) => Err(Error::FileReadMeanwhile {
            batches: batches(&files_met),
            path: path.clone(),
        }),
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

/// Set on a new lake: Parquet written with zstd (DuckLake's default is snappy).
pub fn configure(conn: &Connection) -> Result<()> {
    conn.execute_batch(&format!(
        "CALL {ALIAS}.set_option('parquet_compression', 'zstd');"
    ))?;
    Ok(())
}

/// The snapshot a connection reads now: the lake's latest (its
/// transaction's, inside one), or the one it was attached at.
pub fn current_snapshot(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row(
        &format!("SELECT * FROM ducklake_current_snapshot('{ALIAS}')"),
        [],
        |r| r.get(0),
    )?)
}

/// The latest snapshot at which nothing waited for a refill (None: none
/// is kept), as `sql/lake/last_refilled.sql` finds it.
pub fn last_refilled_snapshot(conn: &Connection) -> Result<Option<i64>> {
    let sql = crate::sqlfiles::named(crate::sqlfiles::LAKE_QUERIES, "last_refilled");
    Ok(conn.query_row(sql, [], |r| r.get::<_, Option<i64>>(0))?)
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
