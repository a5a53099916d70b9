//! Walking the given paths and grouping files into units: a run directory
//! (all files of one run), or one loose report/manifest file. A unit is the
//! grain of change detection and of replacement in the store.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use walkdir::WalkDir;

use super::errors::{ErrorKind, IngestErrorRec};
use super::kernel::run_files::{marks_run_dir, CONTEXT_FILES};

#[derive(Debug, Clone)]
pub struct FileInfo {
    pub path: PathBuf,
    pub size: u64,
    pub mtime_ns: i64,
}

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
    pub path: PathBuf,
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

impl FileInfo {
    pub fn of(path: &Path, meta: &std::fs::Metadata) -> FileInfo {
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_nanos() as i64)
            .unwrap_or(0);
        FileInfo {
            path: path.to_path_buf(),
            size: meta.len(),
            mtime_ns,
        }
    }
}

/// Every file under `root` (or what is wrong with an entry) in the order a
/// sorted walk gives, the subtree of each top-level directory walked on
/// its own core: reading a million run directories' listings is most of a
/// discovery.
fn walk(root: &Path) -> Vec<Result<PathBuf, IngestErrorRec>> {
    let sorted = |p: &Path| WalkDir::new(p).follow_links(false).sort_by_file_name();
    let top: Vec<_> = sorted(root).max_depth(1).into_iter().collect();
    let subtrees: Vec<Vec<_>> = top
        .into_par_iter()
        .map(|entry| match entry {
            // The subtree's walk yields the directory itself first (skipped: not a file).
            Ok(e) if e.depth() == 1 && e.file_type().is_dir() => sorted(e.path())
                .into_iter()
                .filter_map(|e| found(e, root))
                .collect(),
            other => found(other, root).into_iter().collect(),
        })
        .collect();
    subtrees.into_iter().flatten().collect()
}

/// A walked entry: a file's path, an error row for what liftdb will not
/// open, or nothing (a directory).
fn found(
    entry: walkdir::Result<walkdir::DirEntry>,
    root: &Path,
) -> Option<Result<PathBuf, IngestErrorRec>> {
    match entry {
        Ok(e) if e.file_type().is_file() => Some(Ok(e.into_path())),
        Ok(e) if is_special(e.file_type()) => Some(Err(IngestErrorRec::new(
            e.path().display().to_string(),
            ErrorKind::SpecialFile,
            "not a regular file (a FIFO, socket or device): never opened, since reading one can block forever",
        ))),
        Ok(e) if e.path_is_symlink() => Some(Err(IngestErrorRec::new(
            e.path().display().to_string(),
            ErrorKind::SymlinkNotFollowed,
            "symbolic link not followed: liftdb reads only the files inside the paths it is given (link the target's directory in explicitly to ingest it)",
        ))),
        Ok(_) => None,
        Err(err) => Some(Err(IngestErrorRec::new(
            err.path()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| root.display().to_string()),
            ErrorKind::Unreadable,
            err.to_string(),
        ))),
    }
}

pub fn discover(paths: &[PathBuf]) -> Discovery {
    let mut out = Discovery::default();
    // Walk order is sorted by name; a file under two given roots is kept once.
    // The walk only reads directories; the files are stat'ed afterwards on
    // every core (a 100,000-run tree is half a million stat calls).
    let mut found_files: Vec<PathBuf> = Vec::new();
    let mut seen: HashSet<PathBuf> = HashSet::new();
    for root in paths {
        let canonical = match std::fs::canonicalize(root) {
            Ok(p) => p,
            Err(e) => {
                out.errors.push(IngestErrorRec::new(
                    root.display().to_string(),
                    ErrorKind::Unreadable,
                    format!("cannot open: {e}"),
                ));
                continue;
            }
        };
        if canonical.is_dir() {
            out.dir_roots.push(canonical.clone());
        }
        for entry in walk(&canonical) {
            match entry {
                Ok(path) => {
                    if paths.len() == 1 || seen.insert(path.clone()) {
                        found_files.push(path);
                    }
                }
                Err(e) => out.errors.push(e),
            }
        }
    }
    let stats: Vec<Result<FileInfo, IngestErrorRec>> = found_files
        .par_iter()
        .map(|path| {
            std::fs::symlink_metadata(path)
                .map(|m| FileInfo::of(path, &m))
                .map_err(|err| {
                    IngestErrorRec::new(
                        path.display().to_string(),
                        ErrorKind::Unreadable,
                        err.to_string(),
                    )
                })
        })
        .collect();
    let mut files: Vec<FileInfo> = Vec::with_capacity(stats.len());
    for stat in stats {
        match stat {
            Ok(info) => files.push(info),
            Err(e) => out.errors.push(e),
        }
    }

    // Run directories: a directory holding a marker file, except an
    // outputs/ or turn-N/ folder inside another run directory. A marker in
    // outputs/ marks the directory above it: outputs/ is always a part of a
    // run (skill-creator keeps metrics.json there, and a run without
    // timing.json or grading.json has no other marker).
    let mut run_dirs: HashSet<PathBuf> = files
        .iter()
        .map(|f| &f.path)
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| marks_run_dir(&n.to_string_lossy()))
        })
        .filter_map(|p| p.parent())
        .filter_map(|d| match d.file_name().is_some_and(|n| n == "outputs") {
            true => d.parent(),
            false => Some(d),
        })
        .map(Path::to_path_buf)
        .collect();
    let nested: Vec<PathBuf> = run_dirs
        .iter()
        .filter(|d| is_nested_run_part(d) && d.parent().is_some_and(|p| run_dirs.contains(p)))
        .cloned()
        .collect();
    for d in nested {
        run_dirs.remove(&d);
    }

    let mut by_run: HashMap<PathBuf, Vec<FileInfo>> = HashMap::new();
    let mut loose_files: HashMap<PathBuf, FileInfo> = HashMap::new();
    for info in files {
        match owning_run_dir(&info.path, &run_dirs) {
            Some(dir) => by_run.entry(dir).or_default().push(info),
            None if is_json_like(&info.path) => {
                loose_files.insert(info.path.clone(), info.clone());
                out.units.push(Unit {
                    kind: UnitKind::LooseFile,
                    path: info.path.clone(),
                    files: vec![info],
                });
            }
            None => out.ignored.push(info.path),
        }
    }
    let mut run_units: Vec<Unit> = by_run
        .into_iter()
        .map(|(dir, mut files)| {
            files.extend(context_files(&dir, &loose_files, &out.dir_roots));
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

/// The run directory a file belongs to: its own directory, or the run
/// directory above an outputs/ or turn-N/ folder.
fn owning_run_dir(path: &Path, run_dirs: &HashSet<PathBuf>) -> Option<PathBuf> {
    let dir = path.parent()?;
    if run_dirs.contains(dir) {
        return Some(dir.to_path_buf());
    }
    // Walk up through nested outputs/ and turn-N/ folders (outputs/ may nest deeper).
    let mut ancestor = dir.parent();
    while let Some(candidate) = ancestor {
        if run_dirs.contains(candidate) {
            let first_below = dir
                .strip_prefix(candidate)
                .ok()
                .and_then(|rel| rel.components().next())
                .map(|c| candidate.join(c.as_os_str()))?;
            return is_nested_run_part(&first_below).then(|| candidate.to_path_buf());
        }
        ancestor = candidate.parent();
    }
    None
}
