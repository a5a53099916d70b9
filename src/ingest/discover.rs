//! Walking the given paths and grouping files into units: a run directory
//! (all files of one run), or one loose report/manifest file. A unit is the
//! grain of change detection and of replacement in the store.
//!
//! A million runs are five million files: each is held as its directory
//! (shared by every file found in it) and its name (interned: run
//! directories repeat a handful of names), a few dozen bytes a file instead
//! of a path of its own.

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use walkdir::WalkDir;

use super::errors::{ErrorKind, IngestErrorRec};
use super::kernel::run_files::{marks_run_dir, CONTEXT_FILES};

/// A file found: where it is, its size and its modification time.
#[derive(Debug, Clone)]
pub struct FileInfo {
    dir: Arc<Path>,
    /// The path below `dir`: the file's name, or for a file in an outputs/ or
    /// turn-N/ folder the folder too ("outputs/answer.md"), so that it shares
    /// its run directory's `dir` instead of holding its folder's path, one
    /// per run. Interned: runs repeat these names. A thin pointer
    /// (an `Arc<OsStr>` is two words): 40 bytes a file, not 48.
    name: Arc<OsString>,
    pub size: u64,
    pub mtime_ns: i64,
}

// Five million files at a million runs: each byte here is 5 MB there.
const _: () = assert!(std::mem::size_of::<FileInfo>() == 40);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnitKind {
    RunDir,
    LooseFile,
    /// A variant the manifest requests with no directory under a case or
    /// model folder that has runs: the harness grades it as a missing run.
    Phantom,
}

#[derive(Debug, Clone)]
pub struct Unit {
    pub kind: UnitKind,
    /// The run directory, or the file itself.
    pub path: Arc<Path>,
    pub files: Vec<FileInfo>,
}

#[derive(Debug, Default)]
pub struct Discovery {
    pub units: Vec<Unit>,
    /// Files neither in a run directory nor JSON (READMEs, HTML views, ...).
    pub ignored: Vec<PathBuf>,
    pub errors: Vec<IngestErrorRec>,
    /// The directories given, canonicalized.
    pub dir_roots: Vec<PathBuf>,
}

fn is_json_like(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    name.ends_with(".json") || name.ends_with(".json.gz") || name.ends_with(".jsonl")
}

/// A FIFO, socket or device node.
fn is_special(kind: std::fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    kind.is_fifo() || kind.is_socket() || kind.is_block_device() || kind.is_char_device()
}

fn is_nested_run_part(dir: &Path) -> bool {
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    name == "outputs"
        || name
            .strip_prefix("turn-")
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

fn mtime_ns(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

impl FileInfo {
    /// A file found outside a walk (a context file above a run directory
    /// given by name, a file a report declares).
    pub fn of(path: &Path, meta: &std::fs::Metadata) -> FileInfo {
        FileInfo {
            dir: Arc::from(path.parent().unwrap_or(Path::new(""))),
            name: Arc::new(path.file_name().unwrap_or(path.as_os_str()).to_os_string()),
            size: meta.len(),
            mtime_ns: mtime_ns(meta),
        }
    }

    /// The file's whole path.
    pub fn path(&self) -> PathBuf {
        self.dir.join(self.name.as_os_str())
    }

    /// The file's name (its last component).
    pub fn name(&self) -> &OsStr {
        Path::new(self.name.as_os_str())
            .file_name()
            .unwrap_or(self.name.as_os_str())
    }

    /// Whether this is the file at `path`.
    pub fn is(&self, path: &Path) -> bool {
        path.strip_prefix(&self.dir)
            .is_ok_and(|below| below == Path::new(self.name.as_os_str()))
    }

    /// The same file, held under `owner` (its run directory): the path of
    /// its own folder, or a second copy of the run directory's (a run's files
    /// listed after its outputs/ folder), is then no longer kept for it.
    fn under(self, owner: &Arc<Path>, names: &mut Interner) -> FileInfo {
        if Arc::ptr_eq(&self.dir, owner) {
            return self;
        }
        let Ok(below) = self.dir.strip_prefix(owner) else {
            return self;
        };
        let name = match below.as_os_str().is_empty() {
            true => self.name,
            false => names.name(below.join(self.name.as_os_str()).as_os_str()),
        };
        FileInfo {
            dir: owner.clone(),
            name,
            ..self
        }
    }
}

/// The files of one directory that a walk met in a row (a directory's
/// files may come in two runs, before and after a subdirectory).
struct Listing {
    dir: Arc<Path>,
    files: Vec<FileInfo>,
}

/// What one walk thread found: listings in walk order and the entries it
/// would not open.
#[derive(Default)]
struct Walked {
    listings: Vec<Listing>,
    errors: Vec<IngestErrorRec>,
}

impl Walked {
    fn append(&mut self, mut other: Walked) {
        self.listings.append(&mut other.listings);
        self.errors.append(&mut other.errors);
    }
}

/// Every file under `root` in the order a sorted walk gives, stat'ed as it
/// is met. The entries of the two top levels are walked on the reading
/// threads (`readers.rs`): reading a million run directories' listings and
/// stat'ing their files is most of a discovery, and mostly waiting on the disk.
fn walk(root: &Path) -> Walked {
    super::readers::install(|| split_walk(root, 2))
}

fn sorted(p: &Path) -> WalkDir {
    WalkDir::new(p).follow_links(false).sort_by_file_name()
}

/// `root`'s own entry, then each entry below it: a directory `levels` deep
/// or less is split again, each part walked on its own core, in name order.
fn split_walk(root: &Path, levels: usize) -> Walked {
    if levels == 0 {
        return walk_one(root);
    }
    let top: Vec<_> = sorted(root).max_depth(1).into_iter().collect();
    let parts: Vec<Walked> = top
        .into_par_iter()
        .map(|entry| match entry {
            // A split directory yields itself first: skipped there (not a file).
            Ok(e) if e.depth() == 1 && e.file_type().is_dir() => split_walk(e.path(), levels - 1),
            other => {
                let mut one = Walked::default();
                Interner::default().add(&mut one, other, root);
                one
            }
        })
        .collect();
    let mut all = Walked::default();
    for part in parts {
        all.append(part);
    }
    all
}

fn walk_one(root: &Path) -> Walked {
    let mut out = Walked::default();
    let mut names = Interner::default();
    for entry in sorted(root) {
        names.add(&mut out, entry, root);
    }
    out
}

/// One name held once however many directories repeat it.
#[derive(Default)]
struct Interner {
    names: HashMap<OsString, Arc<OsString>>,
}

impl Interner {
    fn name(&mut self, name: &OsStr) -> Arc<OsString> {
        if let Some(held) = self.names.get(name) {
            return held.clone();
        }
        let held = Arc::new(name.to_os_string());
        self.names.insert(name.to_os_string(), held.clone());
        held
    }

    /// Add a walked entry: a file to its directory's listing (stat'ed), an
    /// error row for what liftdb will not open, nothing for a directory.
    fn add(&mut self, out: &mut Walked, entry: walkdir::Result<walkdir::DirEntry>, root: &Path) {
        let e = match entry {
            Ok(e) => e,
            Err(err) => {
                let path = err.path().unwrap_or(root).display().to_string();
                out.errors.push(IngestErrorRec::new(
                    path,
                    ErrorKind::Unreadable,
                    err.to_string(),
                ));
                return;
            }
        };
        let kind = e.file_type();
        if kind.is_file() {
            let meta = match std::fs::symlink_metadata(e.path()) {
                Ok(meta) => meta,
                Err(err) => {
                    out.errors.push(IngestErrorRec::new(
                        e.path().display().to_string(),
                        ErrorKind::Unreadable,
                        err.to_string(),
                    ));
                    return;
                }
            };
            let dir = e.path().parent().unwrap_or(Path::new(""));
            let info = |dir: Arc<Path>, name| FileInfo {
                dir,
                name,
                size: meta.len(),
                mtime_ns: mtime_ns(&meta),
            };
            let name = self.name(e.file_name());
            match out.listings.last_mut() {
                Some(last) if &*last.dir == dir => {
                    let file = info(last.dir.clone(), name);
                    last.files.push(file);
                }
                _ => {
                    // The directory before is listed whole: grown by pushes, its
                    // list holds up to twice its files (a million of them held
                    // to the end of the discovery).
                    if let Some(done) = out.listings.last_mut() {
                        done.files.shrink_to_fit();
                    }
                    let dir: Arc<Path> = Arc::from(dir);
                    out.listings.push(Listing {
                        files: vec![info(dir.clone(), name)],
                        dir,
                    });
                }
            }
        } else if is_special(kind) {
            out.errors.push(IngestErrorRec::new(
                e.path().display().to_string(),
                ErrorKind::SpecialFile,
                "not a regular file (a FIFO, socket or device): never opened, since reading one can block forever",
            ));
        } else if e.path_is_symlink() {
            out.errors.push(IngestErrorRec::new(
                e.path().display().to_string(),
                ErrorKind::SymlinkNotFollowed,
                "symbolic link not followed: liftdb reads only the files inside the paths it is given (link the target's directory in explicitly to ingest it)",
            ));
        }
    }
}

/// The canonical roots to walk, each once: a root inside another given
/// directory is walked with it (its files found once).
fn roots_to_walk(paths: &[PathBuf], out: &mut Discovery) -> Vec<PathBuf> {
    let mut canonical = Vec::new();
    for root in paths {
        match std::fs::canonicalize(root) {
            Ok(p) => {
                if p.is_dir() {
                    out.dir_roots.push(p.clone());
                }
                canonical.push(p);
            }
            Err(e) => out.errors.push(IngestErrorRec::new(
                root.display().to_string(),
                ErrorKind::Unreadable,
                format!("cannot open: {e}"),
            )),
        }
    }
    // Given twice: walked the first time. Inside another directory given: walked with it.
    let covered = |i: usize, p: &PathBuf| {
        canonical
            .iter()
            .enumerate()
            .any(|(j, other)| match p == other {
                true => j < i,
                false => other.is_dir() && p.starts_with(other),
            })
    };
    canonical
        .iter()
        .enumerate()
        .filter(|(i, p)| !covered(*i, p))
        .map(|(_, p)| p.clone())
        .collect()
}

pub fn discover(paths: &[PathBuf]) -> Discovery {
    let mut out = Discovery::default();
    let mut walked = Walked::default();
    for root in roots_to_walk(paths, &mut out) {
        walked.append(walk(&root));
    }
    out.errors.append(&mut walked.errors);
    let listings = walked.listings;

    // Run directories: a directory holding a marker file, except an
    // outputs/ or turn-N/ folder inside another run directory. A marker in
    // outputs/ marks the directory above it: outputs/ is always a part of a
    // run (skill-creator keeps metrics.json there, and a run without
    // timing.json or grading.json has no other marker).
    let mut run_dirs: HashSet<Arc<Path>> = listings
        .iter()
        .filter(|l| {
            l.files
                .iter()
                .any(|f| marks_run_dir(&f.name.to_string_lossy()))
        })
        .filter_map(
            |l| match l.dir.file_name().is_some_and(|n| n == "outputs") {
                true => l.dir.parent().map(Arc::from),
                false => Some(l.dir.clone()),
            },
        )
        .collect();
    let nested: Vec<Arc<Path>> = run_dirs
        .iter()
        .filter(|d| is_nested_run_part(d) && d.parent().is_some_and(|p| run_dirs.contains(p)))
        .cloned()
        .collect();
    for d in nested {
        run_dirs.remove(&d);
    }

    let mut by_run: HashMap<Arc<Path>, Vec<FileInfo>> = HashMap::new();
    let mut loose_files: HashMap<PathBuf, FileInfo> = HashMap::new();
    let mut nested_names = Interner::default();
    for listing in listings {
        if let Some(dir) = owning_run_dir(&listing.dir, &run_dirs) {
            let files = by_run.entry(dir.clone()).or_default();
            match files.is_empty() && Arc::ptr_eq(&listing.dir, &dir) {
                true => *files = listing.files,
                false => files.extend(
                    listing
                        .files
                        .into_iter()
                        .map(|f| f.under(&dir, &mut nested_names)),
                ),
            }
            continue;
        }
        for info in listing.files {
            let path = info.path();
            match is_json_like(&path) {
                true => {
                    loose_files.insert(path.clone(), info.clone());
                    out.units.push(Unit {
                        kind: UnitKind::LooseFile,
                        path: Arc::from(path),
                        files: vec![info],
                    });
                }
                false => out.ignored.push(path),
            }
        }
    }
    let mut run_units: Vec<Unit> = by_run
        .into_iter()
        .map(|(dir, mut files)| {
            files.extend(context_files(&dir, &loose_files, &out.dir_roots));
            // A listing grown by pushes holds up to twice its files: a
            // million units keep only what they list.
            files.shrink_to_fit();
            Unit {
                kind: UnitKind::RunDir,
                path: dir,
                files,
            }
        })
        .collect();
    // Hash order is arbitrary: keep units in path order, as the walk found them.
    run_units.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    out.units.extend(run_units);
    out
}

/// A run directory found before, listed again (its file list was let go):
/// its files as a walk of the tree finds them, those above it its adapter
/// reads included. None if it is no longer a run directory.
pub fn run_dir_again(dir: &Path) -> Option<Unit> {
    discover(&[dir.to_path_buf()])
        .units
        .into_iter()
        .find(|unit| unit.kind == UnitKind::RunDir && *unit.path == *dir)
}

/// The files above a run directory that its adapter reads with it
/// (`formats::CONTEXT_FILES`): found by the walk, or stat'ed when they lie
/// outside every walked directory (a single run directory given by name).
fn context_files(
    dir: &Path,
    walked: &HashMap<PathBuf, FileInfo>,
    roots: &[PathBuf],
) -> Vec<FileInfo> {
    CONTEXT_FILES
        .iter()
        .filter_map(|rel| {
            let ups = rel.matches("../").count();
            let name = rel.trim_start_matches("../");
            let path = dir.ancestors().nth(ups)?.join(name);
            if let Some(info) = walked.get(&path) {
                return Some(info.clone());
            }
            if roots.iter().any(|r| path.starts_with(r)) {
                return None; // walked, and not there
            }
            let meta = std::fs::metadata(&path).ok().filter(|m| m.is_file())?;
            Some(FileInfo::of(&path, &meta))
        })
        .collect()
}

/// The run directory the files of `dir` belong to: `dir` itself, or the run
/// directory above an outputs/ or turn-N/ folder.
fn owning_run_dir(dir: &Path, run_dirs: &HashSet<Arc<Path>>) -> Option<Arc<Path>> {
    if let Some(own) = run_dirs.get(dir) {
        return Some(own.clone());
    }
    // Walk up through nested outputs/ and turn-N/ folders (outputs/ may nest deeper).
    let mut ancestor = dir.parent();
    while let Some(candidate) = ancestor {
        if let Some(owner) = run_dirs.get(candidate) {
            let first_below = dir
                .strip_prefix(candidate)
                .ok()
                .and_then(|rel| rel.components().next())
                .map(|c| candidate.join(c.as_os_str()))?;
            return is_nested_run_part(&first_below).then(|| owner.clone());
        }
        ancestor = candidate.parent();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run directory with a file before its outputs/ folder, two files in
    /// it and one after it (a sorted walk lists the run directory twice).
    fn run_tree() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let run = tmp.path().join("case-1").join("with_skill").join("run-1");
        std::fs::create_dir_all(run.join("outputs")).unwrap();
        for (rel, text) in [
            ("grading.json", "{}"),
            ("outputs/answer.md", "hello"),
            ("outputs/metrics.json", "{}"),
            ("timing.json", "{}"),
        ] {
            std::fs::write(run.join(rel), text).unwrap();
        }
        let run = std::fs::canonicalize(run).unwrap();
        (tmp, run)
    }

    #[test]
    fn a_runs_files_share_its_directory_and_keep_their_own_paths() {
        let (tmp, run) = run_tree();
        let found = discover(&[tmp.path().to_path_buf()]);
        assert!(found.errors.is_empty(), "{:?}", found.errors);
        let [unit] = &found.units[..] else {
            panic!("one unit expected, found {:?}", found.units)
        };
        assert_eq!(unit.kind, UnitKind::RunDir);
        assert_eq!(&*unit.path, run.as_path());
        // Paths and names as on disk, in walk order.
        let paths: Vec<PathBuf> = unit.files.iter().map(FileInfo::path).collect();
        let rels = [
            "grading.json",
            "outputs/answer.md",
            "outputs/metrics.json",
            "timing.json",
        ];
        assert_eq!(paths, rels.map(|r| run.join(r)).to_vec());
        let names: Vec<&OsStr> = unit.files.iter().map(FileInfo::name).collect();
        assert_eq!(
            names,
            ["grading.json", "answer.md", "metrics.json", "timing.json"]
        );
        assert_eq!(unit.files[1].size, 5);
        for (file, path) in unit.files.iter().zip(&paths) {
            assert!(file.is(path), "{path:?}");
            assert!(!file.is(&run.join("other").join(file.name())));
            // No path held per folder: every file points at the unit's own.
            assert!(Arc::ptr_eq(&file.dir, &unit.path), "{path:?}");
        }
    }
}
