//! One directory's entries as a walk meets them: read in name order, each
//! file stat'ed by its name in the open directory, and the directory itself
//! opened by its name in its parent's open directory where the walk has it.
//!
//! Opened by whole path, a directory has every component of its path looked
//! up again (eight or so in a run tree), and the kernel's name lookups
//! weigh on a warm walk. `find` opens each directory from its parent, and
//! so does this.

use std::ffi::OsString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use rustix::fd::BorrowedFd;
use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags, StatxFlags};

use crate::model::errors::{ErrorKind, IngestErrorRec};

/// Where a directory is opened from.
#[derive(Clone, Copy)]
pub(super) enum OpenAt<'a> {
    /// By its whole path (a root, a run directory listed again).
    Path,
    /// By its name in its parent's open directory.
    Parent(BorrowedFd<'a>),
}

/// What a walk meets in a directory.
pub(super) enum Met {
    /// A regular file: its name, size and modification time.
    File(OsString, u64, i64),
    Dir(std::path::PathBuf),
    /// What liftdb will not open, with the reason.
    Refused(IngestErrorRec),
    /// Anything else (a kind of entry no filesystem here has): passed over.
    Other,
}

/// A directory kept open while its subdirectories are walked, so that they
/// are opened from it (`OpenAt::Parent(open.fd())`).
pub(super) struct OpenDir(Dir);

impl OpenDir {
    pub(super) fn fd(&self) -> BorrowedFd<'_> {
        self.0.fd().expect("an open directory has a descriptor")
    }
}

/// The entries of `dir` in name order, each file stat'ed (`statx` by name
/// in the open directory). All are read before any subdirectory is walked;
/// the directory stays open while the caller walks them, so a walk holds
/// one directory open a level of the tree.
pub(super) fn read_sorted(dir: &Path, at: OpenAt) -> Result<(OpenDir, Vec<Met>), IngestErrorRec> {
    let cannot_list = |err: rustix::io::Errno| {
        IngestErrorRec::new(
            dir.display().to_string(),
            ErrorKind::Unreadable,
            format!("cannot list this directory: {}", std::io::Error::from(err)),
        )
    };
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let fd = match (at, dir.file_name()) {
        // NOFOLLOW: the entry was a directory when listed; a link put in
        // its place since is refused, not followed.
        (OpenAt::Parent(parent), Some(name)) => {
            rustix::fs::openat(parent, name, flags | OFlags::NOFOLLOW, Mode::empty())
        }
        _ => rustix::fs::open(dir, flags, Mode::empty()),
    }
    .map_err(cannot_list)?;
    let mut open = Dir::new(fd).map_err(cannot_list)?;
    let mut named = Vec::new();
    let mut refused = Vec::new();
    while let Some(entry) = open.read() {
        match entry {
            Ok(entry) => {
                let name = entry.file_name().to_bytes();
                if name != b"." && name != b".." {
                    let name = OsString::from(std::ffi::OsStr::from_bytes(name));
                    named.push((name, entry.file_type()));
                }
            }
            Err(err) => refused.push(Met::Refused(IngestErrorRec::new(
                dir.display().to_string(),
                ErrorKind::Unreadable,
                format!(
                    "cannot list an entry of this directory: {}",
                    std::io::Error::from(err)
                ),
            ))),
        }
    }
    named.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let fd = open.fd().map_err(cannot_list)?;
    let mut entries: Vec<Met> = named
        .into_iter()
        .map(|(name, kind)| {
            // A filesystem that does not say an entry's kind in its listing
            // is asked (as std's DirEntry::file_type does).
            let kind = match kind {
                FileType::Unknown => match rustix::fs::statat(fd, &name, AtFlags::SYMLINK_NOFOLLOW)
                {
                    Ok(stat) => FileType::from_raw_mode(stat.st_mode),
                    Err(err) => {
                        let err = std::io::Error::from(err).to_string();
                        return refused_for(&dir.join(&name), ErrorKind::Unreadable, err);
                    }
                },
                known => known,
            };
            classify(dir, name, kind, |name| stat_at(fd, name))
        })
        .collect();
    entries.append(&mut refused);
    Ok((OpenDir(open), entries))
}

/// A file's size and modification time, by its name in the open directory.
fn stat_at(dir: BorrowedFd, name: &std::ffi::OsStr) -> std::io::Result<(u64, i64)> {
    let stat = rustix::fs::statx(
        dir,
        name,
        AtFlags::SYMLINK_NOFOLLOW,
        StatxFlags::SIZE | StatxFlags::MTIME,
    )?;
    let mtime = stat.stx_mtime;
    Ok((
        stat.stx_size,
        nanos_since_epoch(mtime.tv_sec, mtime.tv_nsec),
    ))
}

/// A modification time in ns since the epoch, as `FileInfo::of` makes it
/// from std's `Metadata` (0 before the epoch): the change check compares the
/// two.
fn nanos_since_epoch(secs: i64, nanos: u32) -> i64 {
    match u64::try_from(secs) {
        Ok(secs) => (secs as u128 * 1_000_000_000 + nanos as u128) as i64,
        Err(_) => 0,
    }
}

/// An entry `name` of `dir` by its kind: a file stat'ed (`stat`), a
/// directory to walk, or the error row of what liftdb will not open. The
/// entry's whole path is made only for the last two (not once per file).
pub(super) fn classify(
    dir: &Path,
    name: OsString,
    kind: FileType,
    stat: impl FnOnce(&std::ffi::OsStr) -> std::io::Result<(u64, i64)>,
) -> Met {
    let path = || dir.join(&name);
    match kind {
        FileType::RegularFile => match stat(&name) {
            Ok((size, mtime_ns)) => Met::File(name, size, mtime_ns),
            Err(err) => refused_for(&path(), ErrorKind::Unreadable, err.to_string()),
        },
        FileType::Directory => Met::Dir(path()),
        FileType::Fifo | FileType::Socket | FileType::BlockDevice | FileType::CharacterDevice => {
            refused_for(
                &path(),
                ErrorKind::SpecialFile,
                "not a regular file (a FIFO, socket or device): never opened, since reading one can block forever",
            )
        }
        FileType::Symlink => refused_for(
            &path(),
            ErrorKind::SymlinkNotFollowed,
            "symbolic link not followed: liftdb reads only the files inside the paths it is given (link the target's directory in explicitly to ingest it)",
        ),
        FileType::Unknown => Met::Other,
    }
}

fn refused_for(path: &Path, kind: ErrorKind, reason: impl Into<String>) -> Met {
    Met::Refused(IngestErrorRec::new(
        path.display().to_string(),
        kind,
        reason,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The modification time read here is the one std's metadata gives
    /// (`FileInfo::of`, the context files above a run): the change check
    /// compares them, and a difference would make every run "changed".
    #[test]
    fn a_files_size_and_mtime_are_what_std_metadata_says() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("metadata.json");
        std::fs::write(&file, b"{\"a\": 1}").unwrap();
        let (_, entries) = read_sorted(dir.path(), OpenAt::Path).unwrap();
        let meta = std::fs::symlink_metadata(&file).unwrap();
        let since = meta
            .modified()
            .unwrap()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap();
        match &entries[..] {
            [Met::File(name, size, mtime)] => {
                assert_eq!(name, "metadata.json");
                assert_eq!(*size, meta.len());
                assert_eq!(*mtime, since.as_nanos() as i64);
            }
            _ => panic!("one file expected"),
        }
        assert_eq!(nanos_since_epoch(-5, 7), 0);
    }

    /// A subdirectory opened from its parent is listed as by its path; one
    /// replaced by a link is refused, not followed.
    #[test]
    fn a_subdirectory_opened_from_its_parent_is_not_followed_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("run/outputs")).unwrap();
        std::fs::write(dir.path().join("run/outputs/answer.md"), b"x").unwrap();
        let (parent, _) = read_sorted(dir.path(), OpenAt::Path).unwrap();
        let run = dir.path().join("run");
        let (_, entries) = read_sorted(&run, OpenAt::Parent(parent.fd())).unwrap();
        assert!(matches!(&entries[..], [Met::Dir(p)] if p.ends_with("run/outputs")));

        std::fs::rename(&run, dir.path().join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), &run).unwrap();
        let err = read_sorted(&run, OpenAt::Parent(parent.fd()))
            .err()
            .expect("a link is not opened as a directory");
        assert!(
            err.reason.contains("cannot list this directory"),
            "{}",
            err.reason
        );
    }
}
