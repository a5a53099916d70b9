//! `read-tree`: read every byte of every file under a folder, as lean as a
//! reader can: the folders walked in parallel, each file opened once and
//! read whole into one reused buffer, nothing parsed or kept. The physical
//! floor `benches/compare.py` holds an ingest to (step f'): `cat` through
//! `xargs`, the other floor, pays a process per 512 files and a stat and a
//! copy per file that no ingest has to.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Context, Result};
use clap::Parser;

#[derive(Parser, Debug)]
#[command(
    name = "read-tree",
    about = "Read every byte of every file under a folder (a benchmark's floor)"
)]
struct Args {
    /// The folder to read.
    root: PathBuf,
    /// Files read at a time (liftdb's reading threads: readers.rs).
    #[arg(long, default_value_t = 16)]
    threads: usize,
}

/// What was read, and what could not be.
#[derive(Default)]
struct Totals {
    files: AtomicU64,
    bytes: AtomicU64,
    failures: AtomicU64,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()
        .context("starting the reading threads")?;
    let totals = Totals::default();
    pool.scope(|scope| visit(scope, args.root.clone(), &totals));
    println!(
        "{} files, {} bytes, {} unreadable",
        totals.files.load(Ordering::Relaxed),
        totals.bytes.load(Ordering::Relaxed),
        totals.failures.load(Ordering::Relaxed)
    );
    Ok(())
}

/// Read the files of `dir`; each folder in it is visited as a task of its own.
fn visit<'s>(scope: &rayon::Scope<'s>, dir: PathBuf, totals: &'s Totals) {
    let Ok(entries) = std::fs::read_dir(&dir) else {
        totals.failures.fetch_add(1, Ordering::Relaxed);
        return;
    };
    for entry in entries.flatten() {
        // The entry's own type (no stat): what a walk gets from getdents.
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => {
                let sub = entry.path();
                scope.spawn(move |scope| visit(scope, sub, totals));
            }
            Ok(kind) if kind.is_file() => match read_whole(&entry.path()) {
                Ok(n) => {
                    totals.files.fetch_add(1, Ordering::Relaxed);
                    totals.bytes.fetch_add(n, Ordering::Relaxed);
                }
                Err(_) => {
                    totals.failures.fetch_add(1, Ordering::Relaxed);
                }
            },
            _ => {}
        }
    }
}

thread_local! {
    /// One buffer per thread, reused: the floor allocates nothing per file.
    static BUFFER: std::cell::RefCell<Vec<u8>> = std::cell::RefCell::new(vec![0; 1 << 20]);
}

/// Every byte of the file read, none kept: its length.
fn read_whole(path: &Path) -> std::io::Result<u64> {
    let mut file = std::fs::File::open(path)?;
    BUFFER.with(|buffer| {
        let mut buffer = buffer.borrow_mut();
        let mut total = 0u64;
        loop {
            match file.read(&mut buffer)? {
                0 => return Ok(total),
                n => total += n as u64,
            }
        }
    })
}
