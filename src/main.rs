//! liftdb command-line entry point: argument parsing only; each subcommand
//! lives in its own module under src/cli/.

mod cli;

// Ingest parses many small JSON values on every core; mimalloc's per-thread
// heaps make that allocation far cheaper than glibc's arenas.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // A reader that stops early (`| head`) ends the process as it does any
    // Unix tool, instead of a panic in the next println!.
    // SAFETY: called first, before any thread exists; SIG_DFL is a valid handler.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let code = match cli::run() {
        Ok(code) => code,
        Err(e) => {
            // Every error ends here: a password any layer quoted goes.
            let text = format!("{e:#}");
            eprintln!("error: {}", liftdb::model::redact::connection_text(&text));
            liftdb::exit::ERROR
        }
    };
    std::process::exit(code);
}
