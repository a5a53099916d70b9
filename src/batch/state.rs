//! What the store already holds, loaded once per ingest for change
//! detection and identity checks.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use duckdb::arrow::array::{Array, AsArray};
use duckdb::arrow::datatypes::{Int64Type, UInt64Type};
use duckdb::Connection;

use super::batch_sql;
use crate::store::budget::MemoryBudget;
use crate::store::writer::DoomedUnit;
use crate::Result;

/// A stored file as the change check compares it. A re-ingest of a large
/// store loads one per file: the key is interned and the digest binary,
/// instead of two owned strings.
pub struct KnownFile {
    /// Where the file is, as `file_key` gives it under its owner.
    pub key: Arc<str>,
    pub sha256: [u8; 32],
    pub size: i64,
    pub mtime_ns: i64,
}

/// The files one owner (run directory or loose file) was read from, held
/// at their exact count (a growing list keeps spare capacity per owner).
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

/// A file's print: the low 64 bits of md5("size|mtime_ns|path") read
/// little-endian, written into the hash as it goes (not a string per
/// file). Kept in the file's row
/// (`source_file.print`, the SQL macro `liftdb_file_print`), so the store's
/// side of the change check reads prints instead of hashing every file.
pub fn file_print(path: &str, size: i64, mtime_ns: i64) -> u64 {
    use md5::Digest;
    let digest = md5::Md5::new()
        .chain_update(itoa::Buffer::new().format(size))
        .chain_update("|")
        .chain_update(itoa::Buffer::new().format(mtime_ns))
        .chain_update("|")
        .chain_update(path)
        .finalize();
    let mut low = [0u8; 8];
    low.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(low)
}

/// An owner's files as the quick change check compares them: how many, and
/// the XOR of their `file_print`s. The store's side is the stored prints
/// aggregated per owner (`STORED_PRINTS`), so a re-ingest holds 16 bytes an
/// owner instead of 64 a file; the walked
/// side is `add`. Equal prints mean the same paths, sizes and mtimes (size
/// and mtime are digits, so the text parses one way; two different sets of
/// files print alike with odds of about 1 in 1.8e19); any other print goes
/// to the exact check against the owner's stored files (`owner_files`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FilesPrint {
    files: u64,
    xor: u64,
}

impl FilesPrint {
    /// The print of files given as (whole path, size, mtime in ns).
    #[cfg(test)]
    pub fn of(files: impl IntoIterator<Item = (String, i64, i64)>) -> FilesPrint {
        let mut print = FilesPrint::default();
        for (path, size, mtime_ns) in files {
            print.add(&path, size, mtime_ns);
        }
        print
    }

    /// Add one file.
    pub fn add(&mut self, path: &str, size: i64, mtime_ns: i64) {
        self.files += 1;
        self.xor ^= file_print(path, size, mtime_ns);
    }
}

/// Each owner's `FilesPrint` (its files' stored prints) and the release
/// its files were read for, in one pass over its files. A unit is an owner
/// read for one release and shard (#69): a folder re-used for the next
/// release, or read by another shard's job at the same path, holds a group
/// of files for each (a manifest or report, shared by a release's shards,
/// is recorded without one). Of an owner's groups, the one this batch would
/// replace comes first: of the release `--release` names and this batch's
/// shard (`other_release` says when none is), read on this host last (or
/// before hosts were recorded: `here`), else the latest. A group another
/// host read is another tree at the same path, never this one changed in
/// place: it is compared (unchanged, it is already stored) but never
/// replaced; its runs meet the stored ones by identity.
const STORED_PRINTS: &str = "SELECT owner, files, print, release, other_release, here FROM (
         SELECT *, ({release} IS NOT NULL AND release IS DISTINCT FROM {release})
                   OR (NOT loose AND shard IS DISTINCT FROM {shard}) AS other_release
         FROM (SELECT f.owner_key AS owner, f.release_label AS release, f.shard,
                      count(*)::UBIGINT AS files, bit_xor(f.print) AS print, max(f.batch_id) AS last_batch,
                      bool_or(f.path = f.owner_key) AS loose,
                      coalesce(arg_max(b.host, f.batch_id) = {host}, true) OR bool_or(f.path = f.owner_key) AS here
               FROM source_file f LEFT JOIN ingest_batch b USING (batch_id)
               WHERE {scope} AND (f.shard IS NOT DISTINCT FROM {shard} OR f.shard IS NULL)
               GROUP BY f.owner_key, f.release_label, f.shard))
     QUALIFY row_number() OVER (PARTITION BY owner ORDER BY other_release, here DESC, last_batch DESC) = 1";

/// The group of an owner's stored files a change check compares with: the
/// release they were read for (None: recorded without one), and the shard
/// of the batch (`IngestOptions::shard`).
pub struct FileScope<'a> {
    pub release: Option<&'a str>,
    pub shard: Option<&'a str>,
}

/// Owners per query of `owner_files`: their files are held at once.
const OWNERS_PER_QUERY: usize = 65_536;

/// The stored files of `owners`, for the exact change check of the owners
/// whose print moved (and of loose files, whose parse reads declared files).
/// Owners the store does not hold are absent.
/// `known`: each owner's group (`StoredOwners::release`), `shard` the batch's.
pub fn owner_files(
    conn: &Connection,
    owners: &[String],
    known: &StoredOwners,
    shard: Option<&str>,
) -> Result<HashMap<Arc<str>, OwnerFiles>> {
    let mut files_by_owner = OwnerFilesBuilder::default();
    let (mut owners_held, mut keys) = (Interner::default(), Interner::default());
    for chunk in owners.chunks(OWNERS_PER_QUERY) {
        conn.execute_batch(
            "CREATE OR REPLACE TEMP TABLE change_check_owner (owner VARCHAR, release VARCHAR)",
        )?;
        let mut appender = conn.appender("change_check_owner")?;
        for owner in chunk {
            appender.append_row(duckdb::params![owner, known.release(owner)])?;
        }
        appender.flush()?;
        drop(appender);
        let mut stmt = conn.prepare(
            "SELECT f.path, f.sha256, f.size_bytes::BIGINT, coalesce(f.mtime_ns, 0)::BIGINT, f.owner_key
             FROM source_file f JOIN change_check_owner o
               ON o.owner = f.owner_key AND o.release IS NOT DISTINCT FROM f.release_label
             WHERE f.shard IS NOT DISTINCT FROM ? OR f.shard IS NULL",
        )?;
        for batch in stmt.stream_arrow([shard])? {
            let text = |i: usize| batch.column(i).as_string::<i32>().clone();
            let int = |i: usize| batch.column(i).as_primitive::<Int64Type>().clone();
            let (paths, shas, owners) = (text(0), text(1), text(4));
            let (sizes, mtimes) = (int(2), int(3));
            for i in 0..batch.num_rows() {
                let (path, owner) = (paths.value(i), owners.value(i));
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
    }
    conn.execute_batch("DROP TABLE IF EXISTS temp.change_check_owner")?;
    Ok(files_by_owner.finish())
}

/// Each owner's release: the one its files were last read for.
const OWNER_RELEASES: &str = "SELECT f.owner_key, arg_max(f.release_label, f.batch_id)
     FROM source_file f
     WHERE f.release_label IS NOT NULL";

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

/// The grading keys stored for the graded runs of `release`, one row per
/// case and key: far fewer than the runs. Compared first, so an unchanged
/// manifest never streams the runs.
pub fn graded_case_keys(conn: &Connection, release: &str) -> Result<Vec<(String, Option<String>)>> {
    let mut stmt = conn.prepare(batch_sql("stored_graded_case_keys"))?;
    let rows = stmt.query_map([release], |row| Ok((row.get(0)?, row.get(1)?)))?;
    Ok(rows.collect::<std::result::Result<_, _>>()?)
}

/// Call `each(run_dir, case_id, grading_key)` for every stored run of
/// `release` graded as a skill-eval-harness answer run (the key None when
/// liftdb did not grade it: no manifest case then), streamed. Read once the
/// walk is over, for the unchanged runs only: held through the walk, the
/// rows would add to its peak.
pub fn each_graded_run(
    conn: &Connection,
    release: &str,
    mut each: impl FnMut(&str, &str, Option<&str>),
) -> Result<()> {
    let mut stmt = conn.prepare(batch_sql("stored_graded_runs"))?;
    for batch in stmt.stream_arrow([release])? {
        let text = |i: usize| batch.column(i).as_string::<i32>();
        let (dirs, case_ids, keys) = (text(0), text(1), text(2));
        for i in 0..batch.num_rows() {
            let key = (!keys.is_null(i)).then(|| keys.value(i));
            each(dirs.value(i), case_ids.value(i), key);
        }
    }
    Ok(())
}

/// Text held once however many rows name it (a file's key under its
/// owner, an owner's path).
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

/// The owners (run directories and loose files) the store holds under an
/// ingest's paths, each held as the md5 of its path beside the print of
/// its files and the release that last read it, sorted by that key: 48
/// bytes an owner, where two maps keyed by their paths held about twice that.
#[derive(Default)]
pub struct StoredOwners {
    owners: Vec<StoredOwner>,
    /// Release labels, each held once; `StoredOwner::release` indexes them.
    labels: Vec<Arc<str>>,
}

struct StoredOwner {
    key: u128,
    print: FilesPrint,
    /// Into `labels`; `NO_RELEASE` when no batch that read it had one.
    release: u32,
    /// The group is another release's than the one `--release` names (or
    /// another shard's): a change of it is a new unit of this release,
    /// never a replacement.
    other_release: bool,
    /// Read on this host last (a loose file is one file wherever it is
    /// read): only such a group is replaced in place.
    here: bool,
}

const NO_RELEASE: u32 = u32::MAX;

impl StoredOwners {
    /// An owner's key: the md5 of its path (two paths of a store sharing
    /// one is vanishingly unlikely).
    fn key(owner: &str) -> u128 {
        use md5::Digest;
        u128::from_le_bytes(md5::Md5::digest(owner.as_bytes()).into())
    }

    /// Keys are md5s, spread evenly: a key's place is near its share of the
    /// key space. A window is widened from there until it holds the key's
    /// place, then bisected: a few probes, where a bisection of every owner
    /// makes one per halving, each a cache miss.
    fn find(&self, owner: &str) -> Option<&StoredOwner> {
        let key = Self::key(owner);
        let owners = &self.owners;
        let n = owners.len();
        let guess = (((key >> 64) * n as u128) >> 64) as usize;
        let (mut lo, mut step) = (guess.min(n.saturating_sub(1)), 1);
        while lo > 0 && owners[lo].key > key {
            lo = lo.saturating_sub(step);
            step *= 2;
        }
        let (mut hi, mut step) = ((lo + 1).min(n), 1);
        while hi < n && owners[hi - 1].key < key {
            hi = (hi + step).min(n);
            step *= 2;
        }
        let at = owners[lo..hi].binary_search_by_key(&key, |o| o.key).ok()?;
        owners.get(lo + at)
    }

    /// How many owners the store holds under the ingest's paths.
    pub fn len(&self) -> usize {
        self.owners.len()
    }

    pub fn contains(&self, owner: &str) -> bool {
        self.find(owner).is_some()
    }

    /// The print of the owner's stored files (None: not stored).
    pub fn print(&self, owner: &str) -> Option<FilesPrint> {
        self.find(owner).map(|o| o.print)
    }

    /// The release the owner's stored group was read for.
    pub fn release(&self, owner: &str) -> Option<&str> {
        let release = self.find(owner)?.release;
        self.labels.get(release as usize).map(|l| &**l)
    }

    /// Whether this batch replaces the owner's stored group when it
    /// changed: one of the release `--release` names (any, without it) and
    /// of this batch's shard, read on this host.
    pub fn replaced_by_batch(&self, owner: &str) -> bool {
        self.find(owner).is_some_and(|o| !o.other_release && o.here)
    }

    /// Whether the owner's stored group is another release's (or shard's).
    pub fn of_other_release(&self, owner: &str) -> bool {
        self.find(owner).is_some_and(|o| o.other_release)
    }
}

/// How an owner's chosen group stands to this batch (`STORED_PRINTS`).
#[derive(Clone, Copy)]
struct GroupFlags {
    other_release: bool,
    here: bool,
}

/// `StoredOwners` gathered row by row.
#[derive(Default)]
struct StoredOwnersBuilder {
    owners: StoredOwners,
    label_at: HashMap<Arc<str>, u32>,
}

impl StoredOwnersBuilder {
    fn push(&mut self, owner: &str, print: FilesPrint, release: Option<&str>, flags: GroupFlags) {
        let release = match release {
            None => NO_RELEASE,
            Some(label) => match self.label_at.get(label) {
                Some(at) => *at,
                None => {
                    let label: Arc<str> = Arc::from(label);
                    let at = self.owners.labels.len() as u32;
                    self.owners.labels.push(label.clone());
                    self.label_at.insert(label, at);
                    at
                }
            },
        };
        self.owners.owners.push(StoredOwner {
            key: StoredOwners::key(owner),
            print,
            release,
            other_release: flags.other_release,
            here: flags.here,
        });
    }

    fn finish(mut self) -> StoredOwners {
        let owners = &mut self.owners.owners;
        owners.sort_unstable_by_key(|o| o.key);
        owners.shrink_to_fit();
        self.owners
    }
}

/// A text as a SQL literal, or NULL.
fn literal_or_null(text: Option<&str>) -> String {
    text.map_or_else(|| "NULL".to_string(), crate::store::literal::quoted)
}

/// SQL true when `column` starts with one of `roots` parameters (`?`).
fn starts_with_any(column: &str, roots: usize) -> String {
    let each = vec![format!("starts_with({column}, ?)"); roots].join(" OR ");
    format!("({each})")
}

/// Call `each(owner)` for every owner the store holds under `roots`
/// (canonical directories), streamed: for the owners gone from disk, when
/// fewer were found than `StoredOwners` counts.
pub fn each_owner_under(
    conn: &Connection,
    roots: &[PathBuf],
    mut each: impl FnMut(&str),
) -> Result<()> {
    if roots.is_empty() {
        return Ok(());
    }
    let under = starts_with_any("owner_key", roots.len());
    let roots: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
    let mut stmt = conn.prepare(&format!(
        "SELECT DISTINCT owner_key FROM source_file WHERE {under}"
    ))?;
    for batch in stmt.stream_arrow(duckdb::params_from_iter(&roots))? {
        let owners = batch.column(0).as_string::<i32>();
        for i in 0..batch.num_rows() {
            each(owners.value(i));
        }
    }
    Ok(())
}

pub struct StoredState {
    /// Every owner (run directory or loose file) under the ingest's paths:
    /// the print of its files (own and declared from elsewhere) and the
    /// release of the batch that last read it (a report naming runs
    /// elsewhere asks the store: `first_owner_release`).
    pub owners: StoredOwners,
    /// case_id -> skill_name for the release (any release as a fallback).
    pub case_skills: HashMap<String, String>,
    /// case_pk / suite_id -> the file that defined it.
    pub definition_sources: HashMap<String, String>,
    /// (case id, the case as the manifest wrote it, the manifest's path) of
    /// every stored manifest case, for grading run directories against.
    pub manifest_cases: Vec<(String, String, String)>,
    /// (judge_task_id, the stored judge result row, its file) for merging
    /// judge assertions when grading.
    pub judge_rows: Vec<(String, String, String)>,
    /// The run directories of stored phantom runs (requested variants with
    /// no directory) of the batch's shard and, with `--release`, its release.
    pub phantoms: std::collections::HashSet<String>,
    /// (variants as JSON, manifest path) of every stored manifest's suite.
    pub manifest_variants: Vec<(String, String)>,
    /// manifest path -> the releases its suites are stored under.
    pub manifest_releases: HashMap<String, std::collections::HashSet<String>>,
    /// The store holds the release `--release` names (false without one).
    pub release_named_exists: bool,
}

impl StoredState {
    /// The stored rows a batch replaces of a unit it wrote again, or None
    /// when the store holds none: a unit it does not hold is new, with
    /// nothing to replace. A run folder gives up its stored group's rows
    /// only when that group is of the release its runs are now written
    /// under (`batch`, or a skill-creator iteration's own), of the batch's
    /// shard, read on this host: the folder a harness re-uses for the next
    /// release keeps the runs of the one before, whether the release is
    /// named or derived. A manifest or report (shared by a release's
    /// shards) gives up the rows of the release `--release` names, or of
    /// every release when liftdb derives it (a report's rows may be of
    /// several). A phantom gives up the batch's release's; a unit gone from
    /// disk (`--prune`) its stored group's.
    pub fn replaced(
        &self,
        kind: super::plan::Doomed,
        path: String,
        batch: &super::plan::Release,
        shard: Option<&str>,
    ) -> Option<DoomedUnit> {
        use super::plan::Doomed;
        let shard = shard.map(str::to_string);
        let group_release = || self.owners.release(&path).map(str::to_string);
        let (release, shard) = match kind {
            Doomed::RunDir => {
                // The batch's release, or the iteration-N a skill-creator
                // folder is its own release of (the handbook's layout looks
                // alike: its folders are the batch's).
                let iteration = crate::ingest::formats::skill_creator::folder_release(
                    std::path::Path::new(&path),
                    &batch.label,
                    batch.explicit(),
                );
                let stored = self.owners.release(&path)?;
                let written_as = stored == batch.label || stored == iteration;
                if !(written_as && self.owners.replaced_by_batch(&path)) {
                    return None;
                }
                (Some(stored.to_string()), shard)
            }
            Doomed::Loose => {
                if !self.owners.contains(&path) {
                    return None;
                }
                (batch.explicit().then(|| batch.label.clone()), None)
            }
            Doomed::Phantom => {
                if !self.phantoms.contains(&path) {
                    return None;
                }
                (Some(batch.label.clone()), shard)
            }
            Doomed::Missing => {
                if !self.owners.replaced_by_batch(&path) {
                    return None;
                }
                (group_release(), shard)
            }
        };
        Some(DoomedUnit {
            path,
            release,
            shard,
        })
    }

    /// `scope`: the canonical paths given to the ingest; the stored files
    /// are loaded only for owners under them (None: every owner): adding a
    /// tree beside a large store must not load the store's files.
    /// `budget`: DuckDB lets go of its caches after each large query.
    pub fn load(
        conn: &Connection,
        scope: Option<&[String]>,
        host: &str,
        files: &FileScope,
        budget: &MemoryBudget,
    ) -> Result<Self> {
        // `column` under one of the scope's roots (every row without a scope).
        let under_scope = |column: &str| match scope {
            Some(roots) if !roots.is_empty() => starts_with_any(column, roots.len()),
            _ => "true".to_string(),
        };
        let roots = scope.unwrap_or_default();
        // One row an owner, streamed: the files' own rows stay in DuckDB
        // instead of being held as `KnownFile`s.
        let mut owners = StoredOwnersBuilder::default();
        let mut stmt = conn.prepare(
            &STORED_PRINTS
                .replace("{scope}", &under_scope("f.owner_key"))
                .replace("{host}", &crate::store::literal::quoted(host))
                .replace("{shard}", &literal_or_null(files.shard))
                .replace("{release}", &literal_or_null(files.release)),
        )?;
        for batch in stmt.stream_arrow(duckdb::params_from_iter(roots))? {
            let (paths, releases) = (
                batch.column(0).as_string::<i32>(),
                batch.column(3).as_string::<i32>(),
            );
            let number = |i: usize| batch.column(i).as_primitive::<UInt64Type>().clone();
            let (files, xors) = (number(1), number(2));
            for i in 0..batch.num_rows() {
                let print = FilesPrint {
                    files: files.value(i),
                    // NULL only for a row written outside liftdb: the
                    // owner then goes to the exact check.
                    xor: if xors.is_valid(i) { xors.value(i) } else { 0 },
                };
                let release = (!releases.is_null(i)).then(|| releases.value(i));
                let flags = GroupFlags {
                    other_release: batch.column(4).as_boolean().value(i),
                    here: batch.column(5).as_boolean().value(i),
                };
                owners.push(paths.value(i), print, release, flags);
            }
        }
        drop(stmt);
        let owners = owners.finish();
        budget.let_go(conn)?;

        let mut case_skills = HashMap::new();

        let mut stmt = conn.prepare(batch_sql("stored_case_skills"))?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            case_skills.insert(r.get::<_, String>(0)?, r.get::<_, String>(1)?);
        }
        let mut definition_sources = HashMap::new();
        let mut stmt = conn.prepare(batch_sql("stored_definition_sources"))?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            definition_sources.insert(r.get::<_, String>(0)?, r.get::<_, String>(1)?);
        }
        let mut manifest_cases = Vec::new();
        let mut stmt = conn.prepare(batch_sql("stored_manifest_cases"))?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            manifest_cases.push((r.get(0)?, r.get(1)?, r.get(2)?));
        }
        drop(stmt);
        budget.let_go(conn)?;
        let mut judge_rows = Vec::new();
        let mut stmt = conn.prepare(batch_sql("stored_judge_verdicts"))?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            judge_rows.push((r.get(0)?, r.get(1)?, r.get(2)?));
        }
        let mut phantoms = std::collections::HashSet::new();
        // This batch's: another release's phantom at the same path (a
        // re-used folder) is that release's own.
        let mut stmt = conn.prepare(batch_sql("stored_phantoms"))?;
        let mut rows = stmt.query(duckdb::params![files.release, files.shard])?;
        while let Some(r) = rows.next()? {
            phantoms.insert(r.get::<_, String>(0)?);
        }
        let mut manifest_variants = Vec::new();
        let mut stmt = conn.prepare(batch_sql("stored_manifest_variants"))?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            manifest_variants.push((r.get(0)?, r.get(1)?));
        }
        let mut manifest_releases: HashMap<String, std::collections::HashSet<String>> =
            HashMap::new();
        let mut stmt = conn.prepare(batch_sql("stored_manifest_releases"))?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            manifest_releases
                .entry(r.get(0)?)
                .or_default()
                .insert(r.get(1)?);
        }
        let release_named_exists = match files.release {
            Some(label) => {
                conn.query_row(batch_sql("stored_release_exists"), [label], |r| r.get(0))?
            }
            None => false,
        };
        Ok(StoredState {
            release_named_exists,
            phantoms,
            manifest_variants,
            manifest_releases,
            judge_rows,
            manifest_cases,
            owners,
            case_skills,
            definition_sources,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HERE: GroupFlags = GroupFlags {
        other_release: false,
        here: true,
    };

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

    /// The prints migration 0014 gave stored rows, aggregated as a
    /// re-ingest loads them, are the prints liftdb makes of the files found,
    /// whatever the rows' order: a path with non-ASCII text and a quote, a
    /// missing mtime (stored NULL, found 0), a loose file (its own owner).
    #[test]
    fn the_stored_print_is_the_print_of_the_files_found() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(
            "CREATE TABLE ingest_batch (batch_id BIGINT, release_label VARCHAR, host VARCHAR, shard VARCHAR);
             INSERT INTO ingest_batch VALUES (1, 'v2', NULL, NULL), (2, 'v2', 'here', NULL),
                 (3, 'v2', 'here', NULL), (4, NULL, 'here', NULL);
             CREATE TABLE run (run_dir VARCHAR, release_label VARCHAR);
             -- source_file as migration 0013 left it
             CREATE TABLE source_file (path VARCHAR NOT NULL, sha256 VARCHAR NOT NULL, size_bytes BIGINT NOT NULL, mtime_ns BIGINT, kind VARCHAR NOT NULL, source_format VARCHAR NOT NULL, owner_key VARCHAR NOT NULL, batch_id BIGINT NOT NULL);
             INSERT INTO source_file (path, owner_key, size_bytes, mtime_ns, batch_id, sha256, kind, source_format)
             SELECT *, '', '', '' FROM (VALUES
               ('/t/run-1/outputs/ré''sumé.md', '/t/run-1', 12, 1700000000123456789, 2),
               ('/t/run-1/metadata.json', '/t/run-1', 0, NULL, 1),
               ('/t/case.json', '/t/run-1', 4096, -5, 3),
               ('/t/report.json', '/t/report.json', 7, 3, 4));",
        )
        .unwrap();
        for migration in [
            include_str!("../../sql/migrations/0014_file_prints.sql"),
            include_str!("../../sql/migrations/0027_file_scope.sql"),
        ] {
            conn.execute_batch(migration).unwrap();
        }
        let stored: HashMap<String, (FilesPrint, Option<String>)> = conn
            .prepare(
                &STORED_PRINTS
                    .replace("{scope}", "true")
                    .replace("{host}", "'here'")
                    .replace("{shard}", "NULL")
                    .replace("{release}", "NULL"),
            )
            .unwrap()
            .query_map([], |r| {
                let print = FilesPrint {
                    files: r.get(1)?,
                    xor: r.get(2)?,
                };
                Ok((r.get::<_, String>(0)?, (print, r.get(3)?)))
            })
            .unwrap()
            .collect::<duckdb::Result<_>>()
            .unwrap();
        // The release its files were read for (migration 0027: its batches').
        assert_eq!(stored["/t/run-1"].1.as_deref(), Some("v2"));
        assert_eq!(stored["/t/report.json"].1, None);
        let prints: HashMap<&str, FilesPrint> =
            stored.iter().map(|(o, (p, _))| (o.as_str(), *p)).collect();
        let run = [
            ("/t/case.json", 4096, -5),
            ("/t/run-1/metadata.json", 0, 0),
            ("/t/run-1/outputs/ré'sumé.md", 12, 1700000000123456789),
        ];
        let found = |files: &[(&str, i64, i64)]| {
            FilesPrint::of(files.iter().map(|(p, s, m)| (p.to_string(), *s, *m)))
        };
        assert_eq!(prints["/t/run-1"], found(&run));
        assert_eq!(prints["/t/report.json"], found(&[("/t/report.json", 7, 3)]));
        // Any moved mtime, size or name, and any file more or less, moves it.
        let mut moved = run;
        moved[1].2 = 1;
        assert_ne!(prints["/t/run-1"], found(&moved));
        moved = run;
        moved[0].1 = 4095;
        assert_ne!(prints["/t/run-1"], found(&moved));
        moved = run;
        moved[0].0 = "/t/case2.json";
        assert_ne!(prints["/t/run-1"], found(&moved));
        assert_ne!(prints["/t/run-1"], found(&run[..2]));
    }

    /// Found among many: every owner stored is found with its own print
    /// and none other is, wherever its key falls (the search starts at the
    /// key's share of the key space and widens from there).
    #[test]
    fn each_of_many_owners_is_found_and_no_other() {
        let mut builder = StoredOwnersBuilder::default();
        let owners: Vec<String> = (0..20_000).map(|i| format!("/t/run-{i}")).collect();
        for (i, owner) in owners.iter().enumerate().rev() {
            let print = FilesPrint {
                files: i as u64,
                xor: i as u64,
            };
            builder.push(owner, print, None, HERE);
        }
        let stored = builder.finish();
        assert_eq!(stored.len(), owners.len());
        for (i, owner) in owners.iter().enumerate() {
            assert_eq!(
                stored.print(owner).map(|p| p.files),
                Some(i as u64),
                "{owner}"
            );
        }
        for i in 20_000..40_000 {
            assert!(!stored.contains(&format!("/t/run-{i}")));
        }
    }

    /// Owners are found by their paths, whatever order the store gave
    /// them in; an owner read by no batch with a release has none, and
    /// each label is held once.
    #[test]
    fn a_stored_owner_is_found_by_its_path() {
        let print = |files| FilesPrint { files, xor: !files };
        let mut builder = StoredOwnersBuilder::default();
        let rows = [
            ("/t/run-2", 2, Some("v1")),
            ("/t/report.json", 1, None),
            ("/t/run-1", 5, Some("v2")),
            ("/t/run-3", 3, Some("v1")),
        ];
        for (owner, files, release) in rows {
            builder.push(owner, print(files), release, HERE);
        }
        let owners = builder.finish();
        assert_eq!(owners.len(), 4);
        for (owner, files, release) in rows {
            assert!(owners.contains(owner), "{owner}");
            assert_eq!(owners.print(owner), Some(print(files)), "{owner}");
            assert_eq!(owners.release(owner), release, "{owner}");
        }
        assert_eq!(owners.labels.len(), 2);
        for absent in ["/t/run-4", "/t/run-1/", "", "/t"] {
            assert!(!owners.contains(absent), "{absent}");
            assert_eq!(owners.print(absent), None);
            assert_eq!(owners.release(absent), None);
        }
    }

    #[test]
    fn a_sha256_in_hex_is_held_as_its_bytes() {
        // sha256("") from FIPS 180-2's examples.
        let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        let bytes = sha_bytes(empty);
        assert_eq!(bytes[0], 0xe3);
        assert_eq!(bytes[31], 0x55);
        assert_eq!(crate::sys::hash::sha256_hex(b""), empty);
        assert_eq!(sha_bytes("not a digest"), [0u8; 32]);
        assert_eq!(sha_bytes(&"zz".repeat(32)), [0u8; 32]);
    }
}
