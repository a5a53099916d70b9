//! The units a batch carries between its stages: read, changed and
//! unchanged run directories and loose files.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::ingest::discover::{self, FileInfo, Unit};

/// A unit whose files were read because they may have changed.
pub(crate) struct ReadUnit {
    pub(crate) unit: Unit,
    /// A loose file's files with bytes and sha256. Empty for a run
    /// directory: its files (`unit.files`) are read and hashed chunk by
    /// chunk when parsed, and are not held twice.
    pub(crate) contents: Vec<(FileInfo, Vec<u8>, String)>,
    /// Files of the unit that could not be read, with the reason.
    pub(crate) unreadable: Vec<(FileInfo, crate::model::errors::ReadError)>,
}

/// A changed run directory as the plan holds it until its chunk is parsed.
pub(crate) enum ChangedRun {
    /// Found by the walk: its file list let go after the change check (held
    /// for every run of a first ingest it would grow with the tree), made
    /// again a chunk ahead of its parse (`discover::run_dirs_again`).
    Found {
        path: Arc<Path>,
        /// Bytes of its files, and of the largest one.
        bytes: u64,
        largest: u64,
    },
    /// Listed already: graded again (listed anew), or a phantom (no files).
    Listed(Unit),
}

impl ChangedRun {
    pub(crate) fn path(&self) -> &Arc<Path> {
        match self {
            ChangedRun::Found { path, .. } => path,
            ChangedRun::Listed(unit) => &unit.path,
        }
    }

    /// Its files, listed again if they were let go.
    pub(crate) fn files(&self, roots: &[PathBuf]) -> Vec<FileInfo> {
        match self {
            ChangedRun::Found { path, .. } => {
                let again = discover::run_dirs_again(std::slice::from_ref(path), roots);
                again.into_iter().flat_map(|unit| unit.files).collect()
            }
            ChangedRun::Listed(unit) => unit.files.clone(),
        }
    }

    /// Whether a file of it may be too large to have been read whole.
    pub(crate) fn has_file_of(&self, bytes: u64) -> bool {
        match self {
            ChangedRun::Found { largest, .. } => *largest >= bytes,
            ChangedRun::Listed(unit) => unit.files.iter().any(|f| f.size >= bytes),
        }
    }

    pub(crate) fn bytes(&self) -> u64 {
        match self {
            ChangedRun::Found { bytes, .. } => *bytes,
            ChangedRun::Listed(unit) => unit.files.iter().map(|f| f.size).sum(),
        }
    }
}

impl ChangedRun {
    /// A run directory found by the walk, to be read again: its path and
    /// sizes, its file list let go.
    pub(crate) fn found(unit: &Unit) -> ChangedRun {
        ChangedRun::Found {
            bytes: unit.files.iter().map(|f| f.size).sum(),
            largest: unit.files.iter().map(|f| f.size).max().unwrap_or(0),
            path: unit.path.clone(),
        }
    }
}

impl From<Unit> for ChangedRun {
    /// A changed run directory found by the walk, its files let go.
    fn from(unit: Unit) -> ChangedRun {
        ChangedRun::found(&unit)
    }
}

/// A run directory unchanged on disk: its file list is let go after the
/// change check and made again for the few
/// graded again.
#[derive(Clone)]
pub(crate) struct UnchangedRun {
    pub(crate) path: Arc<Path>,
    /// How many files it was found with.
    pub(crate) files: usize,
}
