//! Where a store lives: one DuckDB file, or a DuckLake whose catalog is a
//! PostgreSQL database and whose data are Parquet files under a path. Both
//! hold the same tables, views and reports; `--db` says which.

use std::fmt;
use std::path::{Path, PathBuf};

/// The prefix of a `--db` naming a DuckLake.
const LAKE_PREFIX: &str = "ducklake:";

/// A store's place, as `--db` (and `--data-path`, `--extension-dir`) give it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    File(PathBuf),
    Lake(Lake),
}

/// A DuckLake: `ducklake:postgres:dbname=… host=… port=… user=…`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lake {
    /// What DuckDB attaches (`ducklake:postgres:…`), as given: a password
    /// in it is never printed (messages name the lake by `shown`).
    pub catalog: String,
    /// The catalog string as every message names it: without its password.
    pub shown: String,
    /// Where its Parquet files go (a folder or any path DuckDB writes to);
    /// needed when the lake is created, recorded in its catalog after.
    pub data_path: Option<String>,
    /// DuckDB's extension directory (`ducklake`, `postgres_scanner`), for
    /// machines with no network: extensions are loaded from it, never
    /// downloaded.
    pub extension_dir: Option<PathBuf>,
}

impl Location {
    /// `db` as `--db` gives it: a lake when it starts with `ducklake:`,
    /// else a file path.
    pub fn parse(db: &str, data_path: Option<&str>, extension_dir: Option<&Path>) -> Location {
        match db.starts_with(LAKE_PREFIX) {
            true => Location::Lake(Lake {
                catalog: db.to_string(),
                shown: crate::model::redact::connection_text(db).into_owned(),
                data_path: data_path.map(str::to_string),
                extension_dir: extension_dir.map(Path::to_path_buf),
            }),
            false => Location::File(PathBuf::from(db)),
        }
    }

    /// The file, for a one-file store.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Location::File(path) => Some(path),
            Location::Lake(_) => None,
        }
    }

    /// Itself, as `Path::display` gives a path (messages name it so).
    pub fn display(&self) -> &Self {
        self
    }

    /// How messages name it (a path, or the lake's catalog string without
    /// its password).
    pub fn display_path(&self) -> PathBuf {
        PathBuf::from(self.to_string())
    }
}

impl From<&Path> for Location {
    fn from(path: &Path) -> Location {
        Location::File(path.to_path_buf())
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Location::File(path) => write!(f, "{}", path.display()),
            Location::Lake(lake) => f.write_str(&lake.shown),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ducklake_string_is_a_lake_and_anything_else_a_file() {
        let lake = Location::parse(
            "ducklake:postgres:dbname=lake host=127.0.0.1",
            Some("/data/lake/"),
            None,
        );
        assert!(
            matches!(&lake, Location::Lake(l) if l.data_path.as_deref() == Some("/data/lake/"))
        );
        assert_eq!(
            lake.to_string(),
            "ducklake:postgres:dbname=lake host=127.0.0.1"
        );
        let secret = Location::parse("ducklake:postgres:dbname=lake password=hunter2", None, None);
        assert_eq!(
            secret.to_string(),
            "ducklake:postgres:dbname=lake password=***"
        );
        let file = Location::parse("runs.duckdb", Some("/ignored"), None);
        assert_eq!(file.file(), Some(Path::new("runs.duckdb")));
    }
}
