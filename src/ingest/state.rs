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
    /// (skill, case) pairs defined by a stored manifest or report in this release.
    pub manifest_cases: HashSet<(String, String)>,
    pub suite_ids: HashSet<String>,
}

impl StoredState {
    pub fn load(conn: &Connection, release: &str) -> Result<Self> {
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
        let mut manifest_cases = HashSet::new();
        // This release's definitions last, so they win over other releases'.
        let mut stmt = conn.prepare(
            "SELECT case_id, skill_name, release_label = ? AS this_release FROM case_def ORDER BY this_release",
        )?;
        let mut rows = stmt.query([release])?;
        while let Some(r) = rows.next()? {
            let case_id: String = r.get(0)?;
            let skill: String = r.get(1)?;
            if r.get::<_, bool>(2)? {
                manifest_cases.insert((skill.clone(), case_id.clone()));
            }
            case_skills.insert(case_id, skill);
        }
        let mut suite_ids = HashSet::new();
        let mut stmt = conn.prepare("SELECT suite_id FROM suite")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            suite_ids.insert(r.get::<_, String>(0)?);
        }
        Ok(StoredState {
            files,
            files_by_owner,
            run_dirs,
            case_skills,
            manifest_cases,
            suite_ids,
        })
    }
}
