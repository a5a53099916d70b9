//! liftdb command-line entry point: argument parsing only; each subcommand
//! lives in its own module under src/cli/.

mod cli;

fn main() {
    let code = match cli::run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            2
        }
    };
    std::process::exit(code);
}
