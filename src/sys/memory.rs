//! Freed memory handed back to the system, for the memory budget and the
//! peak RSS of a large ingest.
//!
//! liftdb allocates through mimalloc, which takes back a block freed by
//! another thread only when the thread that allocated it next looks at its
//! page. The walk's file lists are made on the reading threads, which then
//! only read ahead and allocate nothing: the lists the writer dropped chunk
//! by chunk stayed resident to the end of the batch. The statistics' rows
//! are made on rayon's threads and
//! dropped on the writer's in the same way.

/// mimalloc frees the empty pages of this thread's heap, blocks other
/// threads freed in it included, and returns the free pages of every heap
/// to the system. Forced: an unforced collect passes full pages by, and
/// leaves pages freed within the last second resident.
pub fn collect_this_threads_heap() {
    // SAFETY: mi_collect walks the calling thread's own heap and mimalloc's
    // shared arenas under their own locks (a heap of its own even where
    // mimalloc is not the global allocator, as in the library's tests).
    unsafe { libmimalloc_sys::mi_collect(true) }
}

/// Each reading thread collects once it is free, without waiting for it:
/// while runs are parsed, the walk's lists of the runs written are freed.
pub fn give_back_from_readers() {
    crate::sys::readers::on_each_reader(collect_this_threads_heap, false);
}

/// Every thread liftdb allocates on collects (the reading threads, rayon's
/// and this one), waiting for all: for when none is at work (between the
/// closing steps of a batch, between the statistics' families).
pub fn give_back_now() {
    crate::sys::readers::on_each_reader(collect_this_threads_heap, true);
    rayon::broadcast(|_| collect_this_threads_heap());
    collect_this_threads_heap();
}

/// Held by a test that reads a change of this process's RSS or makes a
/// large one: such tests take turns (the library's tests share a process).
#[cfg(test)]
pub(crate) fn measuring_rss() -> std::sync::MutexGuard<'static, ()> {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use rayon::prelude::*;

    /// This process's resident memory (MiB).
    fn resident() -> u64 {
        crate::sys::timings::rss_mib().expect("VmRSS").now
    }

    /// Small blocks made on the reading threads (as the walk's file lists
    /// are) and freed on another thread are returned to the system once
    /// `give_back` has run; without it most of them stay resident.
    /// Blocks through mimalloc itself: the library's tests run on the
    /// system allocator.
    fn blocks_freed_off_the_readers_are_returned_by(give_back: impl FnOnce()) {
        let _alone = super::measuring_rss();
        const BLOCK: usize = 128;
        const TOTAL_MIB: u64 = 256;
        // SAFETY: each block is allocated once here, written, and freed once below.
        let blocks: Vec<usize> = crate::sys::readers::install(|| {
            (0..(TOTAL_MIB << 20) as usize / BLOCK)
                .into_par_iter()
                .map(|_| unsafe {
                    let block = libmimalloc_sys::mi_malloc(BLOCK) as *mut u8;
                    block.write_bytes(1, BLOCK);
                    block as usize
                })
                .collect()
        });
        let held = resident();
        for block in blocks {
            unsafe { libmimalloc_sys::mi_free(block as *mut std::ffi::c_void) };
        }
        give_back();
        // A collection not waited for is done within moments.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let mut now = resident();
        while now + TOTAL_MIB / 2 > held && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(50));
            now = resident();
        }
        // Half of it at least: other tests run beside this one.
        assert!(
            now + TOTAL_MIB / 2 <= held,
            "{held} MiB resident with {TOTAL_MIB} MiB of blocks, {now} MiB once they were freed and given back"
        );
    }

    /// Between a batch's closing steps: at once.
    #[cfg(target_os = "linux")]
    #[test]
    fn memory_freed_off_the_reading_threads_is_given_back_at_once() {
        blocks_freed_off_the_readers_are_returned_by(super::give_back_now);
    }

    /// While runs are parsed: without waiting for the reading threads.
    #[cfg(target_os = "linux")]
    #[test]
    fn memory_freed_off_the_reading_threads_is_given_back_while_they_read() {
        blocks_freed_off_the_readers_are_returned_by(super::give_back_from_readers);
    }
}
