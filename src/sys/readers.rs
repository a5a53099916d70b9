//! The threads that read the tree: the walk's listings and stats, and the
//! run directories' files a chunk ahead of their parse. Past the page cache
//! these wait on the disk far longer than they compute, and one thread per
//! core keeps only two requests in flight. The parse itself stays on one
//! thread per core: more threads than cores there only take turns
//! (BENCHMARKS.md has the measurements).

use std::sync::OnceLock;

/// Reading threads: requests in flight while the tree is read.
pub const READERS: usize = 16;

/// The reading threads, started by the first read (None inside if they
/// could not be).
static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();

/// The reading threads (None if they could not be started).
fn pool() -> Option<&'static rayon::ThreadPool> {
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(READERS)
            .thread_name(|i| format!("liftdb-read-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// Run `work` with rayon's parallel iterators on the reading threads (on the
/// global pool if they could not be started).
pub fn install<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    match pool() {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// Run `op` on each reading thread: once every one has run it (`wait`),
/// or as each is free, without waiting (a thread may be reading ahead).
/// Nothing when no read has started them.
pub fn on_each_reader(op: fn(), wait: bool) {
    match (POOL.get().and_then(Option::as_ref), wait) {
        (Some(pool), true) => {
            pool.broadcast(|_| op());
        }
        (Some(pool), false) => pool.spawn_broadcast(move |_| op()),
        (None, _) => {}
    }
}

/// Files larger than this are not read ahead: their parse may read only a
/// part (a capped output), and a few of them would evict what is ahead.
#[cfg(feature = "store")]
const PREFETCH_MAX_BYTES: u64 = 4 << 20;

/// Ask for `files` to be read into the page cache, from the reading threads
/// (a file that cannot be opened is the parse's to report). Only regular
/// files are opened, as the parse opens them: one replaced by a FIFO since
/// the walk would block its reader forever. (Only the store's ingest parses.)
#[cfg(feature = "store")]
pub fn prefetch(files: &[(std::path::PathBuf, u64)]) {
    use rayon::prelude::*;
    install(|| {
        files
            .par_iter()
            .filter(|(_, size)| *size <= PREFETCH_MAX_BYTES)
            .filter(|(path, _)| std::fs::metadata(path).is_ok_and(|m| m.is_file()))
            .for_each(|(path, _)| {
                if let Ok(file) = std::fs::File::open(path) {
                    read_ahead(&file);
                }
            })
    })
}

/// The kernel reads the file into the page cache without copying it out:
/// reading it through a buffer instead cost a quarter of a warm ingest's CPU
/// (pages already cached copied for nothing). The advice only schedules
/// reads; its failure changes nothing.
#[cfg(all(feature = "store", any(target_os = "linux", target_os = "android")))]
fn read_ahead(file: &std::fs::File) {
    let _ = rustix::fs::fadvise(file, 0, None, rustix::fs::Advice::WillNeed);
}

#[cfg(all(
    feature = "store",
    not(any(target_os = "linux", target_os = "android"))
))]
fn read_ahead(mut file: &std::fs::File) {
    let _ = std::io::copy(&mut file, &mut std::io::sink());
}
