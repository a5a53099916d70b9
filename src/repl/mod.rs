//! The interactive shell: `liftdb` with no subcommand (or `liftdb repl`).
//! SQL statements end with `;` and may span lines; dot-commands are one line.
//! Also runs `-c SQL`, `-f FILE` and statements piped on stdin.

mod complete;
mod dot;
mod session;
pub mod split;

use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use rustyline::{Config, Editor};

use crate::output::Format;
use crate::{report, Result};
use dot::Flow;
use session::{RunningQuery, Session};

#[derive(Debug, Clone, Default)]
pub struct ReplOptions {
    /// `-c SQL`, run in order.
    pub commands: Vec<String>,
    /// `-f FILE`
    pub file: Option<PathBuf>,
    /// Result format; default table on a terminal, CSV otherwise.
    pub format: Option<Format>,
}

/// Outcome of running a piece of text: keep going, or stop (quit / bail).
enum Step {
    Continue,
    Stop,
}

struct Runner {
    had_error: bool,
}

impl Runner {
    /// A script's exit code: 1 after an error, else the last `.gate`'s
    /// (a CI job may gate through the shell), else 0.
    fn exit(&self, session: &Session) -> i32 {
        match self.had_error {
            true => crate::exit::FAILED,
            false => session.gate_exit.unwrap_or(crate::exit::SUCCESS),
        }
    }

    fn report(&mut self, session: &Session, e: &crate::Error) -> Step {
        match e {
            crate::Error::Cancelled => eprintln!("cancelled"),
            e => eprintln!("Error: {e}"),
        }
        self.had_error = true;
        if session.bail {
            Step::Stop
        } else {
            Step::Continue
        }
    }

    /// Run SQL text and dot-command lines, as from a file or stdin.
    fn run_text(&mut self, session: &mut Session, text: &str) -> Step {
        let mut buffer = String::new();
        for line in text.lines() {
            if buffer.trim().is_empty() && line.trim_start().starts_with('.') {
                if let Step::Stop = self.run_dot(session, line.trim()) {
                    return Step::Stop;
                }
                continue;
            }
            buffer.push_str(line);
            buffer.push('\n');
            let (statements, rest) = split::split(&buffer);
            for stmt in statements {
                if let Err(e) = session.run_sql(&stmt) {
                    if let Step::Stop = self.report(session, &e) {
                        return Step::Stop;
                    }
                }
            }
            buffer = rest;
        }
        let rest = buffer.trim();
        if !rest.is_empty() {
            if let Err(e) = session.run_sql(rest) {
                return self.report(session, &e);
            }
        }
        Step::Continue
    }

    fn run_dot(&mut self, session: &mut Session, line: &str) -> Step {
        let mut read_file = |s: &mut Session, file: &str| -> Result<()> {
            let text = std::fs::read_to_string(file).map_err(|error| crate::Error::Io {
                path: PathBuf::from(file),
                error,
            })?;
            let mut inner = Runner { had_error: false };
            let step = inner.run_text(s, &text);
            if inner.had_error || matches!(step, Step::Stop) {
                return Err(crate::Error::Invalid(format!(
                    "{file}: stopped at an error"
                )));
            }
            Ok(())
        };
        let flow = dot::run(session, line, &mut read_file);
        session.idle();
        match flow {
            Ok(Flow::Continue) => Step::Continue,
            Ok(Flow::Quit) => Step::Stop,
            Err(e) => self.report(session, &e),
        }
    }
}

fn history_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))?;
    let dir = base.join("liftdb");
    std::fs::create_dir_all(&dir).ok()?;
    Some(dir.join("history"))
}

/// Ctrl-C interrupts the running query; outside a query it ends a
/// non-interactive run (interactive line editing sees Ctrl-C itself).
fn install_ctrl_c(running: RunningQuery, interactive: bool) {
    let _ = ctrlc::set_handler(move || {
        let handle = running.lock().ok().and_then(|slot| slot.clone());
        match handle {
            Some(h) => h.interrupt(),
            None if !interactive => std::process::exit(130),
            None => {}
        }
    });
}

pub fn run(db: &crate::store::Location, opts: &ReplOptions) -> Result<i32> {
    let scripted = !opts.commands.is_empty() || opts.file.is_some();
    let interactive = !scripted && std::io::stdin().is_terminal();
    let default_mode = if std::io::stdout().is_terminal() {
        Format::Table
    } else {
        Format::Csv
    };
    let mut session = Session::open(db, opts.format.unwrap_or(default_mode))?;
    install_ctrl_c(session.running.clone(), interactive);
    let mut runner = Runner { had_error: false };

    if scripted {
        for c in &opts.commands {
            if let Step::Stop = runner.run_text(&mut session, c) {
                return Ok(runner.exit(&session));
            }
        }
        if let Some(file) = &opts.file {
            let text = std::fs::read_to_string(file).map_err(|error| crate::Error::Io {
                path: file.clone(),
                error,
            })?;
            runner.run_text(&mut session, &text);
        }
        return Ok(runner.exit(&session));
    }
    if !interactive {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|error| crate::Error::Io {
                path: PathBuf::from("<stdin>"),
                error,
            })?;
        runner.run_text(&mut session, &text);
        return Ok(runner.exit(&session));
    }
    interactive_loop(&mut session, &mut runner, db)?;
    Ok(0)
}

fn interactive_loop(
    session: &mut Session,
    runner: &mut Runner,
    db: &crate::store::Location,
) -> Result<()> {
    let config = Config::builder().auto_add_history(false).build();
    let mut editor: Editor<complete::LiftdbHelper, FileHistory> =
        Editor::with_config(config).map_err(|e| crate::Error::Invalid(e.to_string()))?;
    let reports = report::all()
        .into_iter()
        .map(|r| (r.name, r.params))
        .collect();
    editor.set_helper(Some(complete::LiftdbHelper::new(
        complete::catalog(session.conn()?),
        reports,
    )));
    session.idle();
    let history = history_path();
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    eprintln!(
        "liftdb {} on {} (held only while a statement runs: ingests go ahead). End SQL with ';'. .help for commands, Ctrl-D to leave.",
        crate::VERSION,
        db.display(),
    );
    let mut buffer = String::new();
    loop {
        let prompt = if buffer.is_empty() {
            "liftdb> "
        } else {
            "   ...> "
        };
        match editor.readline(prompt) {
            Ok(line) => {
                if buffer.is_empty() && line.trim_start().starts_with('.') {
                    let _ = editor.add_history_entry(line.trim());
                    if let Step::Stop = runner.run_dot(session, line.trim()) {
                        if line.trim() == ".quit" || line.trim() == ".exit" {
                            break;
                        }
                    }
                    continue;
                }
                buffer.push_str(&line);
                buffer.push('\n');
                let (statements, rest) = split::split(&buffer);
                if !statements.is_empty() {
                    let entry = buffer.trim().to_string();
                    let _ = editor.add_history_entry(entry);
                    for stmt in statements {
                        if let Err(e) = session.run_sql(&stmt) {
                            runner.report(session, &e);
                        }
                    }
                    buffer = rest;
                }
            }
            Err(ReadlineError::Interrupted) => {
                buffer.clear();
            }
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                eprintln!("Error: {e}");
                break;
            }
        }
    }
    if let Some(h) = &history {
        let _ = editor.save_history(h);
    }
    Ok(())
}
