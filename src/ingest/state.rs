//! What the store already holds, loaded once per ingest for change
//! detection and identity checks.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use duckdb::arrow::array::{Array, AsArray};
use duckdb::arrow::datatypes::Int64Type;
use duckdb::Connection;

use crate::Result;

/// A stored file as the change check compares it. A re-ingest of a
/// million runs loads five million of these: the key is interned and the
/// digest binary, some 70 bytes a file instead of two owned strings.
pub struct KnownFile {
    /// Where the file is, as `file_key` gives it under its owner.
    pub key: Arc<str>,
    pub sha256: [u8; 32],
    pub size: i64,
    pub mtime_ns: i64,
}

/// The files one owner (run directory or loose file) was read from, held
/// at their exact count (a growing list kept a third more at a million runs).
#[derive(Default)]
pub struct OwnerFiles(Box<[KnownFile]>);

impl OwnerFiles {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The stored file at `key` (`file_key`).
    pub fn get(&self, key: &str) -> Option<&KnownFile> {
        self.0.iter().find(|f| &*f.key == key)
    }

    /// Every stored file's whole path.
    pub fn paths<'a>(&'a self, owner: &'a Path) -> impl Iterator<Item = PathBuf> + 'a {
        self.0.iter().map(move |f| file_at(owner, &f.key))
    }
}

/// A file's key under its owner: the path below a run directory (`""` for
/// a loose file itself), `../name` for a file in a directory above it (a
/// run's `../case.json`), else the whole path: the change check's key and a
/// run directory's `RunFiles` key. Short keys repeat across
/// units, so they are held once.
pub fn file_key(owner: &Path, file: &Path) -> String {
    if let Ok(below) = file.strip_prefix(owner) {
        return below.to_string_lossy().into_owned();
    }
    let (Some(parent), Some(name)) = (file.parent(), file.file_name()) else {
        return file.to_string_lossy().into_owned();
    };
    match owner.ancestors().skip(1).position(|a| a == parent) {
        Some(i) => format!("{}{}", "../".repeat(i + 1), name.to_string_lossy()),
        None => file.to_string_lossy().into_owned(),
    }
}

/// The whole path of the file at `key` under `owner` (`file_key` undone).
pub fn file_at(owner: &Path, key: &str) -> PathBuf {
    let ups = key.matches("../").count();
    let rest = key.trim_start_matches("../");
    match owner.ancestors().nth(ups) {
        Some(base) if ups > 0 || !Path::new(key).is_absolute() => match rest.is_empty() {
            true => base.to_path_buf(),
            false => base.join(rest),
        },
        _ => PathBuf::from(key),
    }
}

/// A sha256 in hex as its 32 bytes (all zero if it is not one: never equal
/// to a digest liftdb computes).
pub fn sha_bytes(hex: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    if hex.len() != 64 {
        return out;
    }
    for (i, byte) in out.iter_mut().enumerate() {
        match u8::from_str_radix(hex.get(2 * i..2 * i + 2).unwrap_or(""), 16) {
            Ok(b) => *byte = b,
            Err(_) => return [0u8; 32],
        }
    }
    out
}

/// Each owner's release: that of the last batch that read it.
const OWNER_RELEASES: &str = "SELECT f.owner_key, arg_max(b.release_label, f.batch_id)
     FROM source_file f JOIN ingest_batch b USING (batch_id)
     WHERE b.release_label IS NOT NULL";

/// The release of the first of `owners` the store holds, in their order.
pub fn first_owner_release(conn: &Connection, owners: &[String]) -> Result<Option<String>> {
    if owners.is_empty() {
        return Ok(None);
    }
    let marks = vec!["?"; owners.len()].join(", ");
    let mut stmt = conn.prepare(&format!(
        "{OWNER_RELEASES} AND f.owner_key IN ({marks}) GROUP BY f.owner_key"
    ))?;
    let mut found = HashMap::new();
    let mut rows = stmt.query(duckdb::params_from_iter(owners))?;
    while let Some(r) = rows.next()? {
        found.insert(r.get::<_, String>(0)?, r.get::<_, String>(1)?);
    }
    Ok(owners.iter().find_map(|o| found.remove(o)))
}

/// Call `each(owner, release)` for every stored owner ending in `suffix`
/// (every owner without one), streamed: nothing held per owner.
pub fn each_owner_release(
    conn: &Connection,
    suffix: Option<&str>,
    mut each: impl FnMut(&str, &str),
) -> Result<()> {
    let filter = match suffix {
        Some(_) => "AND ends_with(f.owner_key, ?)",
        None => "",
    };
    let mut stmt = conn.prepare(&format!("{OWNER_RELEASES} {filter} GROUP BY f.owner_key"))?;
    for batch in stmt.stream_arrow(duckdb::params_from_iter(suffix))? {
        let batch = batch?;
        let (owners, releases) = (
            batch.column(0).as_string::<i32>(),
            batch.column(1).as_string::<i32>(),
        );
        for i in 0..batch.num_rows() {
            each(owners.value(i), releases.value(i));
        }
    }
    Ok(())
}

/// Text held once however many rows name it (a release label, a case id,
/// an owner's path shared by the maps keyed by it).
#[derive(Default)]
struct Interner(std::collections::HashSet<Arc<str>>);

impl Interner {
    fn get(&mut self, text: &str) -> Arc<str> {
        if let Some(held) = self.0.get(text) {
            return held.clone();
        }
        let held: Arc<str> = Arc::from(text);
        self.0.insert(held.clone());
        held
    }
}

/// The files of each owner as the scan gives them, an owner's rows mostly
/// together (insertion order): each owner's list is closed at its exact
/// size when the next owner begins, and one met again is merged.
#[derive(Default)]
struct OwnerFilesBuilder {
    done: HashMap<Arc<str>, OwnerFiles>,
    open: Option<(Arc<str>, Vec<KnownFile>)>,
}

impl OwnerFilesBuilder {
    fn push(&mut self, owner: &str, owners: &mut Interner, file: KnownFile) {
        if !matches!(&self.open, Some((o, _)) if &**o == owner) {
            self.close();
            let owner = owners.get(owner);
            let files = self.done.remove(&owner).map(|f| f.0.into_vec());
            self.open = Some((owner, files.unwrap_or_default()));
        }
        if let Some((_, files)) = self.open.as_mut() {
            // A key stored twice under one owner: the later row stands.
            files.retain(|f| f.key != file.key);
            files.push(file);
        }
    }

    fn close(&mut self) {
        if let Some((owner, files)) = self.open.take() {
            self.done
                .insert(owner, OwnerFiles(files.into_boxed_slice()));
        }
    }

    fn finish(mut self) -> HashMap<Arc<str>, OwnerFiles> {
        self.close();
        self.done
    }
}

pub struct StoredState {
    /// owner (run directory or loose file) -> its files: own and declared
    /// from elsewhere; only owners under the ingest's paths.
    pub files_by_owner: HashMap<Arc<str>, OwnerFiles>,
    /// case_id -> skill_name for the release (any release as a fallback).
    pub case_skills: HashMap<String, String>,
    /// case_pk / suite_id -> the file that defined it.
    pub definition_sources: HashMap<String, String>,
    /// owner (run directory or loose file) -> release label of the batch
    /// that last read it; only owners under the ingest's paths (a report
    /// naming runs elsewhere asks the store: `first_owner_release`).
    pub owner_releases: HashMap<Arc<str>, Arc<str>>,
    /// (case id, the case as the manifest wrote it, the manifest's path) of
    /// every stored manifest case, for grading run directories against.
    pub manifest_cases: Vec<(String, String, String)>,
    /// run directory -> what its skill-eval-harness answer run was graded
    /// against, so a re-ingest regrades the runs whose grading key moved.
    pub seh_gradings: HashMap<Arc<str>, StoredGrading>,
    /// (judge_task_id, the stored judge result row, its file) for merging
    /// judge assertions when grading.
    pub judge_rows: Vec<(String, String, String)>,
    /// The run directories of stored phantom runs (requested variants with no directory).
    pub phantoms: std::collections::HashSet<String>,
    /// (variants as JSON, manifest path) of every stored manifest's suite.
    pub manifest_variants: Vec<(String, String)>,
    /// manifest path -> the releases its suites are stored under.
    pub manifest_releases: HashMap<String, std::collections::HashSet<String>>,
}

pub struct StoredGrading {
    pub case_id: Arc<str>,
    pub release_label: Arc<str>,
    /// None when liftdb did not grade the run (no manifest case then).
    pub grading_key: Option<Box<str>>,
}

impl StoredState {
    /// `scope`: the canonical paths given to the ingest; the stored files
    /// are loaded only for owners under them (None: every owner). A million
    /// runs hold 5.3M files: adding a tree beside them must not load them.
    pub fn load(conn: &Connection, scope: Option<&[String]>) -> Result<Self> {
        let mut files_by_owner = OwnerFilesBuilder::default();
        // Owners' paths, file keys, release labels and case ids, each held once.
        let (mut owners_held, mut keys, mut labels) = (
            Interner::default(),
            Interner::default(),
            Interner::default(),
        );
        // `column` under one of the scope's roots (every row without a scope).
        let under_scope = |column: &str| match scope {
            Some(roots) if !roots.is_empty() => {
                let each = vec![format!("starts_with({column}, ?)"); roots.len()].join(" OR ");
                format!("({each})")
            }
            _ => "true".to_string(),
        };
        let mut stmt = conn.prepare(&format!(
            "SELECT f.path, f.sha256, f.size_bytes::BIGINT, coalesce(f.mtime_ns, 0)::BIGINT, f.owner_key
             FROM source_file f WHERE {}",
            under_scope("f.owner_key")
        ))?;
        let roots = scope.unwrap_or_default();
        // Whole columns at a time (Arrow), streamed: this table is the largest
        // the state reads (5.3M rows at a million runs), and a materialized
        // result held all of them, some 3 GB, outside DuckDB's memory limit.
        for batch in stmt.stream_arrow(duckdb::params_from_iter(roots))? {
            let batch = batch?;
            let text = |i: usize| batch.column(i).as_string::<i32>().clone();
            let int = |i: usize| batch.column(i).as_primitive::<Int64Type>().clone();
            let (paths, shas, owners) = (text(0), text(1), text(4));
            let (sizes, mtimes) = (int(2), int(3));
            for i in 0..batch.num_rows() {
                let path = paths.value(i);
                let owner = match owners.is_null(i) {
                    true => path,
                    false => owners.value(i),
                };
                let key = keys.get(&file_key(Path::new(owner), Path::new(path)));
                let file = KnownFile {
                    key,
                    sha256: sha_bytes(shas.value(i)),
                    size: sizes.value(i),
                    mtime_ns: mtimes.value(i),
                };
                files_by_owner.push(owner, &mut owners_held, file);
            }
        }
        let files_by_owner = files_by_owner.finish();
        // The release of every owner under the scope (a run directory's, a
        // report's): one row per unit, not per file.
        let mut owner_releases = HashMap::new();
        let mut stmt = conn.prepare(&format!(
            "{OWNER_RELEASES} AND {} GROUP BY f.owner_key",
            under_scope("f.owner_key")
        ))?;
        for batch in stmt.stream_arrow(duckdb::params_from_iter(roots))? {
            let batch = batch?;
            let (owners, releases) = (
                batch.column(0).as_string::<i32>(),
                batch.column(1).as_string::<i32>(),
            );
            for i in 0..batch.num_rows() {
                owner_releases.insert(
                    owners_held.get(owners.value(i)),
                    labels.get(releases.value(i)),
                );
            }
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
        let mut manifest_cases = Vec::new();
        let mut stmt = conn.prepare(
            "SELECT c.case_id, c.raw, c.source_path FROM case_def c
             JOIN source_file f ON f.path = c.source_path AND f.owner_key = c.source_path
             WHERE f.kind = 'manifest' AND c.raw IS NOT NULL ORDER BY c.source_path, c.case_id",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            manifest_cases.push((r.get(0)?, r.get(1)?, r.get(2)?));
        }
        let mut seh_gradings = HashMap::new();
        // Read for the unchanged run directories under the paths given only.
        let mut stmt = conn.prepare(&format!(
            "SELECT r.run_dir, r.case_id, r.release_label, g.grading_key
             FROM run r LEFT JOIN grading g ON g.run_id = r.run_id AND g.origin = 'liftdb'
             WHERE {} AND (r.source_format = 'C_seh' OR g.grading_id IS NOT NULL)
               AND coalesce(r.population, '') <> 'trigger'",
            under_scope("r.run_dir")
        ))?;
        let mut cases = Interner::default();
        // Streamed too: a row per graded run.
        for batch in stmt.stream_arrow(duckdb::params_from_iter(roots))? {
            let batch = batch?;
            let text = |i: usize| batch.column(i).as_string::<i32>();
            let (dirs, case_ids, releases, keys) = (text(0), text(1), text(2), text(3));
            for i in 0..batch.num_rows() {
                let grading = StoredGrading {
                    case_id: cases.get(case_ids.value(i)),
                    release_label: labels.get(releases.value(i)),
                    grading_key: (!keys.is_null(i)).then(|| Box::from(keys.value(i))),
                };
                seh_gradings.insert(owners_held.get(dirs.value(i)), grading);
            }
        }
        drop(owners_held);
        let mut judge_rows = Vec::new();
        let mut stmt = conn.prepare(
            "SELECT judge_task_id, raw, source_path FROM judge_verdict WHERE raw IS NOT NULL
             ORDER BY source_path, judge_task_id",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            judge_rows.push((r.get(0)?, r.get(1)?, r.get(2)?));
        }
        let mut phantoms = std::collections::HashSet::new();
        let mut stmt =
            conn.prepare("SELECT run_dir FROM run WHERE repetition_source = 'phantom'")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            phantoms.insert(r.get::<_, String>(0)?);
        }
        let mut manifest_variants = Vec::new();
        let mut stmt = conn.prepare(
            "SELECT s.variants, s.manifest_path FROM suite s
             JOIN source_file f ON f.path = s.manifest_path AND f.owner_key = s.manifest_path
             WHERE f.kind = 'manifest' AND s.variants IS NOT NULL ORDER BY s.manifest_path",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            manifest_variants.push((r.get(0)?, r.get(1)?));
        }
        let mut manifest_releases: HashMap<String, std::collections::HashSet<String>> =
            HashMap::new();
        let mut stmt = conn.prepare(
            "SELECT DISTINCT s.manifest_path, s.release_label FROM suite s
             JOIN source_file f ON f.path = s.manifest_path AND f.owner_key = s.manifest_path
             WHERE f.kind = 'manifest'",
        )?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            manifest_releases
                .entry(r.get(0)?)
                .or_default()
                .insert(r.get(1)?);
        }
        Ok(StoredState {
            phantoms,
            manifest_variants,
            manifest_releases,
            judge_rows,
            manifest_cases,
            seh_gradings,
            files_by_owner,
            case_skills,
            definition_sources,
            owner_releases,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_key_finds_its_file_again() {
        let run = Path::new("/t/eval-runs/case-a/with_skill/run-1");
        let loose = Path::new("/t/reports/results.json");
        let cases = [
            (
                run,
                "/t/eval-runs/case-a/with_skill/run-1/metadata.json",
                "metadata.json",
            ),
            (
                run,
                "/t/eval-runs/case-a/with_skill/run-1/outputs/a.md",
                "outputs/a.md",
            ),
            (
                run,
                "/t/eval-runs/case-a/with_skill/case.json",
                "../case.json",
            ),
            (
                run,
                "/t/eval-runs/case-a/eval_metadata.json",
                "../../eval_metadata.json",
            ),
            (loose, "/t/reports/results.json", ""),
            (loose, "/t/reports/evidence.json", "../evidence.json"),
            (
                loose,
                "/elsewhere/evidence/e1.json",
                "/elsewhere/evidence/e1.json",
            ),
            (
                loose,
                "/t/reports/evidence/e1.json",
                "/t/reports/evidence/e1.json",
            ),
        ];
        for (owner, file, key) in cases {
            assert_eq!(
                file_key(owner, Path::new(file)),
                key,
                "{file} under {owner:?}"
            );
            assert_eq!(
                file_at(owner, key),
                Path::new(file),
                "{key} under {owner:?}"
            );
        }
    }

    /// An owner's rows come mostly together: each list is closed at its
    /// exact size, one met again later is merged, and a key stored twice
    /// keeps its later row.
    #[test]
    fn each_owners_files_are_gathered_however_the_scan_interleaves_them() {
        let mut keys = Interner::default();
        let mut owners = Interner::default();
        let mut builder = OwnerFilesBuilder::default();
        let rows = [
            ("/t/run-1", "metadata.json", 1),
            ("/t/run-1", "output.md", 2),
            ("/t/run-2", "metadata.json", 3),
            ("/t/run-1", "events.json", 4),
            ("/t/run-1", "output.md", 5),
        ];
        for (owner, key, size) in rows {
            let file = KnownFile {
                key: keys.get(key),
                sha256: [0; 32],
                size,
                mtime_ns: 0,
            };
            builder.push(owner, &mut owners, file);
        }
        let files = builder.finish();
        assert_eq!(files.len(), 2);
        let run1 = &files["/t/run-1"];
        assert_eq!(run1.len(), 3, "output.md once");
        assert_eq!(
            run1.get("output.md").map(|f| f.size),
            Some(5),
            "the later row"
        );
        assert_eq!(run1.get("metadata.json").map(|f| f.size), Some(1));
        assert_eq!(run1.get("events.json").map(|f| f.size), Some(4));
        assert_eq!(
            files["/t/run-2"].get("metadata.json").map(|f| f.size),
            Some(3)
        );
        // Keys are held once however many owners name them.
        let a = &files["/t/run-1"].get("metadata.json").unwrap().key;
        let b = &files["/t/run-2"].get("metadata.json").unwrap().key;
        assert!(Arc::ptr_eq(a, b));
    }

    #[test]
    fn a_sha256_in_hex_is_held_as_its_bytes() {
        // sha256("") from FIPS 180-2's examples.
        let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        let bytes = sha_bytes(empty);
        assert_eq!(bytes[0], 0xe3);
        assert_eq!(bytes[31], 0x55);
        assert_eq!(crate::ingest::json::sha256_hex(b""), empty);
        assert_eq!(sha_bytes("not a digest"), [0u8; 32]);
        assert_eq!(sha_bytes(&"zz".repeat(32)), [0u8; 32]);
    }
}
