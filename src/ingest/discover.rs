//! Walking the given paths and grouping files into units: a run directory
//! (all files of one run), or one loose report/manifest file. A unit is the
//! grain of change detection and of replacement in the store.
//!
//! A large tree is millions of files: each is held as its directory
//! (shared by every file found in it) and its name (interned: run
//! directories repeat a handful of names), not as a path of its own.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use rustix::fs::FileType;

use super::dir_entries::{classify, read_sorted, Met, OpenAt};
use crate::model::errors::{ErrorKind, IngestErrorRec};
use crate::model::run_files::{marks_run_dir, CONTEXT_FILES};

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

// One per file found: every byte here is multiplied by millions.
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

    /// The file's whole path as text, written into `out`: as `path()`
    /// displays it, without making the path (the change check prints one
    /// per file).
    pub fn write_path(&self, out: &mut String) {
        match (self.dir.to_str(), self.name.to_str()) {
            (Some(dir), Some(name)) if !dir.is_empty() && !name.starts_with('/') => {
                out.push_str(dir);
                if !dir.ends_with('/') {
                    out.push('/');
                }
                out.push_str(name);
            }
            _ => {
                use std::fmt::Write;
                let _ = write!(out, "{}", self.path().display());
            }
        }
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
/// threads (`readers.rs`): reading the run directories' listings and
/// stat'ing their files is most of a discovery, and mostly waiting on the disk.
fn walk(root: &Path) -> Walked {
    let mut out = Walked::default();
    match std::fs::symlink_metadata(root) {
        Ok(meta) if meta.is_dir() => {
            return crate::sys::readers::install(|| split_walk(root, OpenAt::Path, 2))
        }
        // A file given by name.
        Ok(meta) => {
            let parent: Arc<Path> = Arc::from(root.parent().unwrap_or(Path::new("")));
            let name = root.file_name().unwrap_or(root.as_os_str()).to_os_string();
            let stat = |_: &OsStr| Ok((meta.len(), mtime_ns(&meta)));
            let kind = FileType::from_raw_mode(std::os::unix::fs::MetadataExt::mode(&meta));
            let met = classify(&parent, name, kind, stat);
            Interner::default().take(&mut out, &parent, met);
        }
        Err(err) => out.errors.push(IngestErrorRec::new(
            root.display().to_string(),
            ErrorKind::Unreadable,
            format!("cannot open: {err}"),
        )),
    }
    out
}

/// The files under `dir` in name order: a directory `levels` deep or less
/// has its entries walked in parallel, each part in name order.
fn split_walk(dir: &Path, at: OpenAt, levels: usize) -> Walked {
    let mut out = Walked::default();
    if levels == 0 {
        walk_into(dir, at, &mut out, &mut Interner::default());
        return out;
    }
    let (open, entries) = match read_sorted(dir, at) {
        Ok(listed) => listed,
        Err(err) => {
            out.errors.push(err);
            return out;
        }
    };
    let fd = open.fd();
    let here: Arc<Path> = Arc::from(dir);
    let parts: Vec<Walked> = entries
        .into_par_iter()
        .map(|met| match met {
            Met::Dir(sub) => split_walk(&sub, OpenAt::Parent(fd), levels - 1),
            other => {
                let mut one = Walked::default();
                Interner::default().take(&mut one, &here, other);
                one
            }
        })
        .collect();
    for part in parts {
        out.append(part);
    }
    out
}

/// The files under `dir` in name order, on this thread.
fn walk_into(dir: &Path, at: OpenAt, out: &mut Walked, names: &mut Interner) {
    let (open, entries) = match read_sorted(dir, at) {
        Ok(listed) => listed,
        Err(err) => return out.errors.push(err),
    };
    let here: Arc<Path> = Arc::from(dir);
    for met in entries {
        match met {
            Met::Dir(sub) => walk_into(&sub, OpenAt::Parent(open.fd()), out, names),
            other => names.take(out, &here, other),
        }
    }
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

    /// Take what the walk met in `dir`: a file into its directory's
    /// listing, an error row for what liftdb will not open.
    fn take(&mut self, out: &mut Walked, dir: &Arc<Path>, met: Met) {
        let (name, size, mtime_ns) = match met {
            Met::File(name, size, mtime_ns) => (name, size, mtime_ns),
            Met::Refused(err) => return out.errors.push(err),
            Met::Dir(_) | Met::Other => return,
        };
        let file = FileInfo {
            dir: dir.clone(),
            name: self.name(&name),
            size,
            mtime_ns,
        };
        match out.listings.last_mut() {
            Some(last) if Arc::ptr_eq(&last.dir, dir) => last.files.push(file),
            last => {
                // The directory before is listed whole: grown by pushes, its
                // list holds up to twice its files (every one of them held
                // to the end of the discovery).
                if let Some(done) = last {
                    done.files.shrink_to_fit();
                }
                out.listings.push(Listing {
                    dir: dir.clone(),
                    files: vec![file],
                });
            }
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

/// Hash maps keyed by the walk's paths: every run directory is looked up
/// several times, and std's SipHash weighed on grouping them (foldhash:
/// hashbrown's own hasher; no adversary picks these keys).
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// One walk of the whole tree: what the sliced walk is held to.
#[cfg(test)]
fn discover(paths: &[PathBuf]) -> Discovery {
    let mut out = Discovery::default();
    let mut walked = Walked::default();
    for root in roots_to_walk(paths, &mut out) {
        walked.append(walk(&root));
    }
    out.errors.append(&mut walked.errors);
    let roots = out.dir_roots.clone();
    group(walked.listings, &FastMap::default(), &roots, &mut out);
    out
}

/// The walk's listings as units, added to `out`: loose files in walk order,
/// then run directories in path order. `above`: loose files found before
/// these listings, above them (a run directory's adapter may read them);
/// `roots`: the directories walked (a file in them not found is not there).
fn group(
    listings: Vec<Listing>,
    above: &FastMap<PathBuf, FileInfo>,
    roots: &[PathBuf],
    out: &mut Discovery,
) {
    let mut runs = RunDirs::of(&listings);
    let mut loose_files: FastMap<PathBuf, FileInfo> = FastMap::default();
    let mut nested_names = Interner::default();
    for listing in listings {
        if let Some(run) = runs.owning(&listing.dir) {
            let (dir, files) = &mut runs.found[run];
            match files.is_empty() && Arc::ptr_eq(&listing.dir, dir) {
                true => *files = listing.files,
                false => files.extend(
                    listing
                        .files
                        .into_iter()
                        .map(|f| f.under(dir, &mut nested_names)),
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
    let mut context = ContextFiles {
        walked: &loose_files,
        above,
        roots,
        last: None,
    };
    let mut run_units: Vec<Unit> = runs
        .found
        .into_iter()
        .zip(runs.alive)
        .filter(|(_, alive)| *alive)
        .map(|((dir, mut files), _)| {
            files.extend(context.of(&dir));
            // A listing grown by pushes holds up to twice its files: the
            // units keep only what they list.
            files.shrink_to_fit();
            Unit {
                kind: UnitKind::RunDir,
                path: dir,
                files,
            }
        })
        .collect();
    // Units in path order. Found in walk order, which is path order but for
    // a run directory inside another and roots given out of order: the sort
    // is one pass over a sorted list.
    run_units.sort_unstable_by(|a, b| a.path.cmp(&b.path));
    out.units.extend(run_units);
}

/// How a walk is cut into slices.
#[derive(Clone, Copy)]
struct SliceSizes {
    /// The files a slice aims at: the walk's lists of one slice are held at
    /// once, its units only until their change check.
    files: usize,
    /// A directory this deep or less with fewer subdirectories than this is
    /// sliced into them one by one; others have their subdirectories
    /// walked a share at a time, each whole.
    depth: usize,
    few_subdirs: usize,
}

const SLICES: SliceSizes = SliceSizes {
    files: 1 << 18,
    depth: 3,
    few_subdirs: 16,
};

/// One slice of a discovery: units found under one directory given
/// (`root`, its place among the roots walked), with the errors of its walk.
pub struct Slice {
    pub root: usize,
    pub found: Discovery,
}

/// The directories given and their errors (those that cannot be opened),
/// after every slice was handed on.
pub struct SlicedRoots {
    pub dir_roots: Vec<PathBuf>,
    pub errors: Vec<IngestErrorRec>,
}

/// `discover`, a slice at a time: each slice is grouped into units and
/// handed to `each` before the next is walked, so that what the walk holds
/// is bounded by a slice, not the tree. The units are those `discover`
/// finds: a slice is a whole subtree, cut only at directories that cannot
/// be (or lie inside) a run directory: no marker among their files and no
/// outputs/ folder. Their own files are loose, and looked up as the context
/// files of the runs below them.
/// `each` may fail with an error of its own: the walk then stops with it.
pub fn discover_in_slices<E>(
    paths: &[PathBuf],
    each: &mut dyn FnMut(Slice) -> Result<(), E>,
) -> Result<SlicedRoots, E> {
    sliced(paths, SLICES, each)
}

fn sliced<E>(
    paths: &[PathBuf],
    sizes: SliceSizes,
    each: &mut dyn FnMut(Slice) -> Result<(), E>,
) -> Result<SlicedRoots, E> {
    let mut head = Discovery::default();
    let roots = roots_to_walk(paths, &mut head);
    let mut slicer = Slicer {
        dir_roots: head.dir_roots.clone(),
        above: FastMap::default(),
        files_per_dir: 256.0,
        sizes,
        root: 0,
        each,
    };
    for (at, root) in roots.iter().enumerate() {
        slicer.root = at;
        match std::fs::symlink_metadata(root) {
            Ok(meta) if meta.is_dir() => slicer.slice(root, OpenAt::Path, 0)?,
            _ => slicer.emit(walk(root))?,
        }
    }
    Ok(SlicedRoots {
        dir_roots: head.dir_roots,
        errors: head.errors,
    })
}

struct Slicer<'e, E> {
    dir_roots: Vec<PathBuf>,
    /// The loose JSON files of the directories sliced so far: the context
    /// files of the runs below them.
    above: FastMap<PathBuf, FileInfo>,
    /// Files a subdirectory held in the last share walked: how many to walk next.
    files_per_dir: f64,
    sizes: SliceSizes,
    root: usize,
    each: &'e mut dyn FnMut(Slice) -> Result<(), E>,
}

impl<E> Slicer<'_, E> {
    fn slice(&mut self, dir: &Path, at: OpenAt, depth: usize) -> Result<(), E> {
        let (open, entries) = match read_sorted(dir, at) {
            Ok(listed) => listed,
            Err(err) => {
                return self.emit(Walked {
                    listings: Vec::new(),
                    errors: vec![err],
                })
            }
        };
        let may_be_run = entries.iter().any(|met| match met {
            Met::File(name, ..) => marks_run_dir(&name.to_string_lossy()),
            Met::Dir(sub) => sub.file_name().is_some_and(|n| n == "outputs"),
            _ => false,
        });
        if may_be_run {
            // Its files and folders may all belong to it: walked whole.
            return self.emit(crate::sys::readers::install(|| split_walk(dir, at, 2)));
        }
        let here: Arc<Path> = Arc::from(dir);
        let mut own = Walked::default();
        let mut names = Interner::default();
        let mut subdirs = Vec::new();
        for met in entries {
            match met {
                Met::Dir(sub) => subdirs.push(sub),
                other => names.take(&mut own, &here, other),
            }
        }
        for file in own.listings.iter().flat_map(|l| &l.files) {
            let path = file.path();
            if is_json_like(&path) {
                self.above.insert(path, file.clone());
            }
        }
        self.emit(own)?;
        if depth < self.sizes.depth && subdirs.len() < self.sizes.few_subdirs {
            for sub in &subdirs {
                self.slice(sub, OpenAt::Parent(open.fd()), depth + 1)?;
            }
            return Ok(());
        }
        let fd = open.fd();
        let mut rest = &subdirs[..];
        while !rest.is_empty() {
            let wanted = (self.sizes.files as f64 / self.files_per_dir).ceil() as usize;
            let (share, after) = rest.split_at(wanted.clamp(1, rest.len()));
            let parts: Vec<Walked> = crate::sys::readers::install(|| {
                share
                    .par_iter()
                    .map(|sub| split_walk(sub, OpenAt::Parent(fd), 1))
                    .collect()
            });
            let mut walked = Walked::default();
            for part in parts {
                walked.append(part);
            }
            let files: usize = walked.listings.iter().map(|l| l.files.len()).sum();
            self.files_per_dir = (files as f64 / share.len() as f64).max(1.0);
            self.emit(walked)?;
            rest = after;
        }
        Ok(())
    }

    /// Group what a slice's walk found and hand it on (nothing for an empty one).
    fn emit(&mut self, walked: Walked) -> Result<(), E> {
        if walked.listings.is_empty() && walked.errors.is_empty() {
            return Ok(());
        }
        let mut found = Discovery {
            dir_roots: self.dir_roots.clone(),
            errors: walked.errors,
            ..Discovery::default()
        };
        group(walked.listings, &self.above, &self.dir_roots, &mut found);
        (self.each)(Slice {
            root: self.root,
            found,
        })
    }
}

/// The run directories of a walk, in the order it met them: a directory
/// holding a marker file, except an outputs/ or turn-N/ folder inside
/// another run directory. A marker in outputs/ marks the directory above
/// it: outputs/ is always a part of a run (skill-creator keeps metrics.json
/// there, and a run without timing.json or grading.json has no other marker).
struct RunDirs {
    /// Each run directory with the files found for it so far.
    found: Vec<(Arc<Path>, Vec<FileInfo>)>,
    /// False for a nested part found first as a run directory of its own.
    alive: Vec<bool>,
    index: FastMap<Arc<Path>, usize>,
}

impl RunDirs {
    fn of(listings: &[Listing]) -> RunDirs {
        let mut runs = RunDirs {
            found: Vec::new(),
            alive: Vec::new(),
            index: FastMap::default(),
        };
        let marked = listings.iter().filter(|l| {
            l.files
                .iter()
                .any(|f| marks_run_dir(&f.name.to_string_lossy()))
        });
        for listing in marked {
            let dir = match listing.dir.file_name().is_some_and(|n| n == "outputs") {
                true => match listing.dir.parent() {
                    Some(parent) => Arc::from(parent),
                    None => continue,
                },
                false => listing.dir.clone(),
            };
            if let Entry::Vacant(slot) = runs.index.entry(dir) {
                runs.found.push((slot.key().clone(), Vec::new()));
                runs.alive.push(true);
                slot.insert(runs.found.len() - 1);
            }
        }
        for (i, (dir, _)) in runs.found.iter().enumerate() {
            let in_run = || dir.parent().is_some_and(|p| runs.index.contains_key(p));
            if is_nested_run_part(dir) && in_run() {
                runs.alive[i] = false;
            }
        }
        runs
    }

    /// The run directory the files of `dir` belong to: `dir` itself, or the
    /// run directory above an outputs/ or turn-N/ folder.
    fn owning(&self, dir: &Path) -> Option<usize> {
        let alive = |i: &usize| self.alive[*i];
        if let Some(own) = self.index.get(dir).filter(|i| alive(i)) {
            return Some(*own);
        }
        // Walk up through nested outputs/ and turn-N/ folders (outputs/ may nest deeper).
        let mut ancestor = dir.parent();
        while let Some(candidate) = ancestor {
            if let Some(owner) = self.index.get(candidate).filter(|i| alive(i)) {
                let first_below = dir
                    .strip_prefix(candidate)
                    .ok()
                    .and_then(|rel| rel.components().next())
                    .map(|c| candidate.join(c.as_os_str()))?;
                return is_nested_run_part(&first_below).then_some(*owner);
            }
            ancestor = candidate.parent();
        }
        None
    }
}

/// Run directories a walk of `roots` found, whose file lists were let go
/// after their change check, listed again on the reading threads, in the
/// order given: each as that walk found it, with the files above it its
/// adapter reads (what the walk refused is not said again). One gone since,
/// or no longer a run directory, comes back with no files.
pub fn run_dirs_again(dirs: &[Arc<Path>], roots: &[PathBuf]) -> Vec<Unit> {
    let walked: Vec<Walked> = crate::sys::readers::install(|| {
        dirs.par_iter()
            .map(|dir| {
                let mut walked = Walked::default();
                walk_into(dir, OpenAt::Path, &mut walked, &mut Interner::default());
                walked
            })
            .collect()
    });
    // The files above them, stat'ed once per parent (runs of one parent are
    // given one after another) as the walk met them: a link or a FIFO is
    // not a file there.
    let mut above: FastMap<PathBuf, FileInfo> = FastMap::default();
    let mut last_parent = None;
    for dir in dirs {
        if dir.parent() == last_parent {
            continue;
        }
        last_parent = dir.parent();
        for path in context_paths(dir) {
            let walked_there = roots.iter().any(|r| path.starts_with(r));
            if !walked_there || above.contains_key(&path) {
                continue;
            }
            if let Ok(meta) = std::fs::symlink_metadata(&path) {
                if meta.is_file() {
                    above.insert(path.clone(), FileInfo::of(&path, &meta));
                }
            }
        }
    }
    dirs.iter()
        .zip(walked)
        .map(|(dir, walked)| {
            let mut found = Discovery::default();
            group(walked.listings, &above, roots, &mut found);
            let unit = found
                .units
                .into_iter()
                .find(|u| u.kind == UnitKind::RunDir && u.path == *dir);
            unit.unwrap_or_else(|| Unit {
                kind: UnitKind::RunDir,
                path: dir.clone(),
                files: Vec::new(),
            })
        })
        .collect()
}

/// Where the files above a run directory that its adapter reads would be
/// (`CONTEXT_FILES`).
fn context_paths(dir: &Path) -> impl Iterator<Item = PathBuf> + '_ {
    CONTEXT_FILES.iter().filter_map(|rel| {
        let ups = rel.matches("../").count();
        Some(
            dir.ancestors()
                .nth(ups)?
                .join(rel.trim_start_matches("../")),
        )
    })
}

/// The files above run directories that their adapter reads with them
/// (`formats::CONTEXT_FILES`): found by the walk, or stat'ed when they lie
/// outside every walked directory (a single run directory given by name).
/// All lie above the run directory, so runs of one parent share them: looked
/// up once per parent, not once per run.
struct ContextFiles<'a> {
    walked: &'a FastMap<PathBuf, FileInfo>,
    /// Loose files of directories walked before, above these runs.
    above: &'a FastMap<PathBuf, FileInfo>,
    roots: &'a [PathBuf],
    /// The last parent looked up, with its files.
    last: Option<(PathBuf, Vec<FileInfo>)>,
}

impl ContextFiles<'_> {
    fn of(&mut self, dir: &Path) -> Vec<FileInfo> {
        let parent = dir.parent().unwrap_or(dir);
        match &self.last {
            Some((last, files)) if last == parent => files.clone(),
            _ => {
                let files = self.look_up(dir);
                self.last = Some((parent.to_path_buf(), files.clone()));
                files
            }
        }
    }

    fn look_up(&self, dir: &Path) -> Vec<FileInfo> {
        context_paths(dir)
            .filter_map(|path| {
                if let Some(info) = self.walked.get(&path).or_else(|| self.above.get(&path)) {
                    return Some(info.clone());
                }
                if self.roots.iter().any(|r| path.starts_with(r)) {
                    return None; // walked, and not there
                }
                let meta = std::fs::metadata(&path).ok().filter(|m| m.is_file())?;
                Some(FileInfo::of(&path, &meta))
            })
            .collect()
    }
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

    /// Every file a walk lists, by whole path with its size, in order.
    fn walked_files(walked: &Walked) -> Vec<(PathBuf, u64)> {
        let files = walked.listings.iter().flat_map(|l| &l.files);
        files.map(|f| (f.path(), f.size)).collect()
    }

    #[test]
    fn the_walk_lists_what_a_sorted_walkdir_lists_and_refuses_links_and_fifos() {
        // Files above, between and below the levels split among threads,
        // a directory's files on both sides of a subdirectory, names that
        // sort differently by byte than by case, a link and a FIFO.
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        for (i, rel) in [
            "top.json",
            "B/x.json",
            "a/a.json",
            "a/m/n/o/deep.txt",
            "a/m/n/o/p/deeper.txt",
            "a/m/n/z.txt",
            "a/m/n/A.txt",
            "a/z.json",
            "a/n/run-1/outputs/answer.md",
            "a/n/run-1/timing.json",
            "a/n/run-1/grading.json",
        ]
        .iter()
        .enumerate()
        {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "x".repeat(i)).unwrap();
        }
        std::fs::create_dir_all(root.join("a/empty")).unwrap();
        std::os::unix::fs::symlink(root.join("a"), root.join("a/m/link")).unwrap();
        let fifo = root.join("a/n/run-1/trace.jsonl");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success(), "mkfifo");

        // The reference: walkdir's sorted walk, each file stat'ed by path.
        let reference: Vec<(PathBuf, u64)> = walkdir::WalkDir::new(&root)
            .sort_by_file_name()
            .into_iter()
            .map(Result::unwrap)
            .filter(|e| e.file_type().is_file())
            .map(|e| (e.path().to_path_buf(), e.metadata().unwrap().len()))
            .collect();
        assert_eq!(reference.len(), 11);

        let walked = walk(&root);
        assert_eq!(walked_files(&walked), reference);
        let mut refused: Vec<(String, ErrorKind)> = walked
            .errors
            .iter()
            .map(|e| (e.path.clone(), e.kind))
            .collect();
        refused.sort_by(|a, b| a.0.cmp(&b.0));
        let expected = [
            (root.join("a/m/link"), ErrorKind::SymlinkNotFollowed),
            (fifo.clone(), ErrorKind::SpecialFile),
        ];
        assert_eq!(refused, expected.map(|(p, k)| (p.display().to_string(), k)));

        // A file given by name is walked as itself.
        let one = walk(&root.join("a/z.json"));
        assert_eq!(walked_files(&one), vec![(root.join("a/z.json"), 7)]);
        assert!(one.errors.is_empty());
        let special = walk(&fifo);
        assert_eq!(special.errors[0].kind, ErrorKind::SpecialFile);
    }

    /// A unit as compared: kind, path, and each file's path, size and mtime.
    fn described(unit: &Unit) -> (UnitKind, PathBuf, Vec<(PathBuf, u64, i64)>) {
        let files = unit.files.iter();
        let files = files.map(|f| (f.path(), f.size, f.mtime_ns)).collect();
        (unit.kind, unit.path.to_path_buf(), files)
    }

    /// A tree with runs at every depth, marked by their own files or by
    /// outputs/, turn-N folders inside a run and alone, a run inside a run,
    /// context files above runs (in a slice and above it), loose files and
    /// others between, a link and a FIFO, many subdirectories; and beside it
    /// a root that is a run directory, a file given by name and a path that
    /// is not there. (The tree, the paths given, the first root.)
    fn mixed_tree() -> (tempfile::TempDir, [PathBuf; 4], PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap().join("tree");
        let mut rels = vec![
            "top.json",
            "README.md",
            "eval_metadata.json",
            "x/run-1/timing.json",
            "a/eval_metadata.json",
            "a/with_skill/case.json",
            "a/with_skill/run-1/output.md",
            "a/with_skill/run-1/trace.jsonl",
            "a/with_skill/run-2/outputs/metrics.json",
            "a/with_skill/run-2/outputs/answer.md",
            "a/with_skill/run-2/zz.txt",
            "a/zz-report.json",
            "b/deep/deeper/deepest/run-1/outputs/metrics.json",
            "b/deep/deeper/deepest/run-1/grading.json",
            "b/deep/deeper/deepest/case.json",
            "b/deep/deeper/notes.txt",
            "f/run-3/timing.json",
            "f/run-3/turn-1/timing.json",
            "f/run-3/turn-1/output.md",
            "g/turn-1/timing.json",
            "h/run-4/timing.json",
            "h/run-4/sub/timing.json",
            "h/run-4/sub/output.md",
        ];
        let many: Vec<String> = (0..9)
            .flat_map(|i| {
                [
                    format!("many/s{i}/with_skill/run-1/metadata.json"),
                    format!("many/s{i}/with_skill/run-1/output.md"),
                    format!("many/s{i}/case.json"),
                    format!("many/s{i}/with_skill/case.json"),
                ]
            })
            .collect();
        rels.extend(many.iter().map(String::as_str));
        let run_root = std::fs::canonicalize(tmp.path()).unwrap().join("run-9");
        let mut paths: Vec<PathBuf> = rels.iter().map(|rel| root.join(rel)).collect();
        paths.extend(
            ["timing.json", "outputs/answer.md", "turn-2/output.md"].map(|r| run_root.join(r)),
        );
        let by_name = std::fs::canonicalize(tmp.path())
            .unwrap()
            .join("given.json");
        paths.push(by_name.clone());
        for (i, path) in paths.iter().enumerate() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x".repeat(i)).unwrap();
        }
        std::os::unix::fs::symlink(root.join("a"), root.join("a/with_skill/link")).unwrap();
        std::os::unix::fs::symlink(root.join("top.json"), root.join("link.json")).unwrap();
        let fifo = root.join("many/s3/with_skill/run-1/trace.jsonl");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.unwrap().success(), "mkfifo");
        let given = [root.clone(), run_root, by_name, tmp.path().join("gone")];
        (tmp, given, root)
    }

    #[test]
    fn a_walk_in_slices_finds_what_one_walk_of_the_whole_tree_finds() {
        let (_tmp, given, root) = mixed_tree();
        let run_root = given[1].clone();
        let whole = discover(&given);
        // Slices of one file (a share is one subdirectory): the root's seven
        // folders sliced one by one, many/'s nine a share at a time.
        let sizes = SliceSizes {
            files: 1,
            depth: 2,
            few_subdirs: 8,
        };
        let mut slices = 0;
        let mut loose = Vec::new();
        let mut runs = Vec::new();
        let mut ignored = Vec::new();
        let mut errors = Vec::new();
        let head = sliced::<()>(&given, sizes, &mut |slice| {
            slices += 1;
            assert_eq!(slice.found.dir_roots, whole.dir_roots);
            for unit in &slice.found.units {
                match unit.kind {
                    UnitKind::LooseFile => loose.push((slice.root, described(unit))),
                    _ => runs.push(described(unit)),
                }
            }
            ignored.extend(slice.found.ignored.into_iter().map(|p| (slice.root, p)));
            let walked = slice.found.errors.into_iter();
            errors.extend(walked.map(|e| (slice.root, PathBuf::from(&e.path), e.kind)));
            Ok(())
        })
        .unwrap();
        assert!(slices > 12, "{slices} slices");
        assert_eq!(head.dir_roots, whole.dir_roots);
        // In the order one walk gives: by root, then path (runs by path).
        loose.sort_by(|a, b| (a.0, &a.1 .1).cmp(&(b.0, &b.1 .1)));
        ignored.sort();
        runs.sort_by(|a, b| a.1.cmp(&b.1));
        errors.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        let mut sliced_units: Vec<_> = loose.into_iter().map(|(_, u)| u).collect();
        sliced_units.extend(runs);
        let whole_units: Vec<_> = whole.units.iter().map(described).collect();
        assert_eq!(sliced_units, whole_units);
        let ignored: Vec<PathBuf> = ignored.into_iter().map(|(_, p)| p).collect();
        assert_eq!(ignored, whole.ignored);
        let mut sliced_errors: Vec<(PathBuf, ErrorKind)> = head
            .errors
            .iter()
            .map(|e| (PathBuf::from(&e.path), e.kind))
            .collect();
        sliced_errors.extend(errors.into_iter().map(|(_, p, k)| (p, k)));
        let whole_errors: Vec<(PathBuf, ErrorKind)> = whole
            .errors
            .iter()
            .map(|e| (PathBuf::from(&e.path), e.kind))
            .collect();
        assert_eq!(sliced_errors, whole_errors);

        // What the tree holds, so the comparison above compares something:
        // the runs (nested parts inside theirs, a run inside a run, a lone
        // turn-1), their context files, the errors.
        let run_paths: Vec<&Path> = whole
            .units
            .iter()
            .filter(|u| u.kind == UnitKind::RunDir)
            .map(|u| &*u.path)
            .collect();
        assert_eq!(run_paths.len(), 9 + 9, "{run_paths:?}");
        for run in ["g/turn-1", "h/run-4", "h/run-4/sub", "x/run-1", "f/run-3"] {
            assert!(run_paths.contains(&root.join(run).as_path()), "{run}");
        }
        assert!(run_paths.contains(&run_root.as_path()));
        assert!(!run_paths.contains(&root.join("f/run-3/turn-1").as_path()));
        let x_run = whole
            .units
            .iter()
            .find(|u| *u.path == *root.join("x/run-1"))
            .unwrap();
        let context: Vec<PathBuf> = x_run.files.iter().map(FileInfo::path).collect();
        assert_eq!(
            context,
            [
                root.join("x/run-1/timing.json"),
                root.join("eval_metadata.json")
            ]
        );
        let kinds: Vec<ErrorKind> = whole.errors.iter().map(|e| e.kind).collect();
        assert_eq!(kinds.len(), 4, "{:?}", whole.errors);
        assert!(kinds.contains(&ErrorKind::SpecialFile));
    }

    #[test]
    fn run_directories_listed_again_are_the_units_the_walk_found() {
        let (tmp, given, root) = mixed_tree();
        let whole = discover(&given);
        let runs: Vec<&Unit> = whole
            .units
            .iter()
            .filter(|u| u.kind == UnitKind::RunDir)
            .collect();
        let mut dirs: Vec<Arc<Path>> = runs.iter().map(|u| u.path.clone()).collect();
        let gone: Arc<Path> = Arc::from(tmp.path().join("tree/x/run-gone"));
        dirs.push(gone.clone());
        let again = run_dirs_again(&dirs, &whole.dir_roots);
        assert_eq!(again.len(), runs.len() + 1);
        for (unit, found) in again.iter().zip(&runs) {
            assert_eq!(described(unit), described(found));
        }
        // Context files came from above (x/run-1 reads the root's own).
        let x_run = again
            .iter()
            .find(|u| *u.path == *root.join("x/run-1"))
            .unwrap();
        assert_eq!(x_run.files.len(), 2);
        let last = again.last().unwrap();
        assert_eq!(
            (last.kind, &last.path, last.files.len()),
            (UnitKind::RunDir, &gone, 0)
        );
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
            let mut text = String::new();
            file.write_path(&mut text);
            assert_eq!(text, path.display().to_string());
            assert!(!file.is(&run.join("other").join(file.name())));
            // No path held per folder: every file points at the unit's own.
            assert!(Arc::ptr_eq(&file.dir, &unit.path), "{path:?}");
        }
    }
}
