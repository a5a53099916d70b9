//! The threads that read the tree: the walk's listings and stats, each run
//! directory's files. Past the page cache these wait on the disk far longer
//! than they compute, and one thread per core keeps only two requests in
//! flight: a million-run tree (21 GB beside a 24 GiB machine's page cache)
//! was read at some 28 MB/s that way. More threads than cores keep the disk
//! busy; the work they compute still shares the cores.

use std::sync::OnceLock;

/// Reading threads: requests in flight while the tree is read.
pub const READERS: usize = 16;

/// Run `work` with rayon's parallel iterators on the reading threads (on the
/// global pool if they could not be started).
pub fn install<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    let pool = POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(READERS)
            .thread_name(|i| format!("liftdb-read-{i}"))
            .build()
            .ok()
    });
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}
