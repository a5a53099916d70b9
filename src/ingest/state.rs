//! What the store already holds, loaded once per ingest for change
//! detection and identity checks.

use std::collections::{HashMap, HashSet};

use duckdb::Connection;

use crate::Result;

pub struct KnownFile {
    pub sha256: String,
    pub size: i64,
    pub mtime_ns: i64,
}

pub struct StoredState {
    pub files: HashMap<String, KnownFile>,
    pub files_by_owner: HashMap<String, HashSet<String>>,
    /// run_id -> run_dir, to refuse two trees claiming one identity.
    pub run_dirs: HashMap<String, String>,
    /// case_id -> skill_name for the release (any release as a fallback).
    pub case_skills: HashMap<String, String>,
    /// case_pk / suite_id -> the file that defined it.
    pub definition_sources: HashMap<String, String>,
    /// file path -> release label of the batch that last read it.
    pub file_releases: HashMap<String, String>,
}

impl StoredState {
    pub fn load(conn: &Connection) -> Result<Self> {
        let mut files = HashMap::new();
        let mut files_by_owner: HashMap<String, HashSet<String>> = HashMap::new();
        let mut stmt = conn.prepare(
            "SELECT path, sha256, size_bytes, coalesce(mtime_ns, 0), owner_key FROM source_file",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let path: String = r.get(0)?;
            let owner: Option<String> = r.get(4)?;
            if let Some(owner) = owner {
                files_by_owner
                    .entry(owner)
                    .or_default()
                    .insert(path.clone());
            }
            files.insert(
                path,
                KnownFile {
                    sha256: r.get(1)?,
                    size: r.get(2)?,
                    mtime_ns: r.get(3)?,
                },
            );
        }

        let mut run_dirs = HashMap::new();
        let mut stmt = conn.prepare("SELECT run_id, run_dir FROM run")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            run_dirs.insert(r.get::<_, String>(0)?, r.get::<_, String>(1)?);
        }

        let mut case_skills = HashMap::new();

        let mut stmt = conn.prepare("SELECT case_id, skill_name FROM case_def")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            case_skills.insert(r.get::<_, String>(0)?, r.get::<_, String>(1)?);
        }
        let mut definition_sources = HashMap::new();
        let mut stmt = conn.prepare(
            "SELECT case_pk, coalesce(source_path, '') FROM case_def
             UNION ALL SELECT suite_id, coalesce(manifest_path, '') FROM suite",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            definition_sources.insert(r.get::<_, String>(0)?, r.get::<_, String>(1)?);
        }
        let mut file_releases = HashMap::new();
        let mut stmt = conn.prepare(
            "SELECT f.path, b.release_label FROM source_file f JOIN ingest_batch b USING (batch_id)",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            file_releases.insert(r.get::<_, String>(0)?, r.get::<_, String>(1)?);
        }
        Ok(StoredState {
            files,
            files_by_owner,
            run_dirs,
            case_skills,
            definition_sources,
            file_releases,
        })
    }
}
