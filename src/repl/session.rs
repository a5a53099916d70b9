//! One REPL session: the store connection, display settings, where results
//! go, and query interruption.
//!
//! The store is held only while a statement runs: an idle shell never keeps
//! an ingest out, and each statement sees the batches committed since the
//! last. Settings (`SET`, `PRAGMA`, `USE`, `LOAD`) are replayed on each open;
//! what only lives in one connection (temp objects, an open transaction,
//! an `ATTACH`) pins it until `.release`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use duckdb::InterruptHandle;

use crate::output::{self, Format, RenderOptions, ResultSet};
use crate::report::{self, Filters};
use crate::store::{self, Location, Store};
use crate::{Error, Result};

/// The connection of the query currently running, for Ctrl-C.
pub type RunningQuery = Arc<Mutex<Option<Arc<InterruptHandle>>>>;

pub struct Session {
    db: Location,
    /// Open while a statement runs, or while pinned.
    store: Option<Store>,
    /// Whether the open store is the writable one.
    pub writable: bool,
    /// Why the connection is kept between statements, if it is.
    pinned: Option<&'static str>,
    /// Session settings, replayed on each open.
    replay: Vec<String>,
    pub mode: Format,
    pub render: RenderOptions,
    /// Tables fitted to this width; None: the terminal's, read at each result.
    pub max_width: Option<usize>,
    pub output: Option<PathBuf>,
    pub once: Option<PathBuf>,
    pub timer: bool,
    pub bail: bool,
    pub running: RunningQuery,
    /// The exit code of the last `.gate`: a script's own (`-c`, `-f`).
    pub gate_exit: Option<i32>,
}

impl Session {
    /// A session on `db`; the store is opened here once to say at start
    /// whether it can be read, then released.
    pub fn open(db: &Location, mode: Format) -> Result<Self> {
        let store = store::open_read_at(db, None)?;
        Ok(Session {
            db: db.clone(),
            store: Some(store),
            writable: false,
            pinned: None,
            replay: Vec::new(),
            mode,
            render: match std::io::IsTerminal::is_terminal(&std::io::stdout()) {
                true => RenderOptions::for_terminal(0),
                false => RenderOptions::default(),
            },
            max_width: None,
            output: None,
            once: None,
            timer: false,
            bail: false,
            running: Arc::new(Mutex::new(None)),
            gate_exit: None,
        })
    }

    /// The store's connection, opened read-only (with the session's
    /// settings replayed) if no statement holds it.
    pub fn conn(&mut self) -> Result<&duckdb::Connection> {
        if self.store.is_none() {
            let store = store::open_read_at(&self.db, None)?;
            self.writable = false;
            self.replay_settings(&store)?;
            self.store = Some(store);
        }
        match &self.store {
            Some(s) => Ok(&s.conn),
            None => Err(Error::Invalid("the store is closed".into())),
        }
    }

    fn replay_settings(&self, store: &Store) -> Result<()> {
        for setting in &self.replay {
            store.conn.execute_batch(setting)?;
        }
        Ok(())
    }

    /// Let writers in between statements, unless the session pinned the
    /// connection (temp objects, a transaction).
    pub fn idle(&mut self) {
        if self.pinned.is_none() {
            self.store = None;
            self.writable = false;
        }
    }

    /// `.release`: drop a pinned connection (and what lives only in it).
    pub fn release(&mut self) -> Option<&'static str> {
        let was = self.pinned.take();
        self.idle();
        was
    }

    fn query_interruptible(&mut self, sql: &str, params: &Filters) -> Result<ResultSet> {
        let handle = self.conn()?.interrupt_handle();
        if let Ok(mut slot) = self.running.lock() {
            *slot = Some(handle);
        }
        let result = report::query(self.conn()?, sql, params);
        if let Ok(mut slot) = self.running.lock() {
            *slot = None;
        }
        // Ctrl-C interrupted it: "cancelled", not DuckDB's INTERRUPT text.
        result.map_err(|e| match &e {
            crate::Error::Db(db) if crate::error::duckdb_text(db).starts_with("INTERRUPT") => {
                crate::Error::Cancelled
            }
            _ => e,
        })
    }

    /// Run a statement; a write on the read-only store reopens it for
    /// writing (the lock is held for that statement only, unless pinned).
    pub fn query(&mut self, sql: &str, params: &Filters) -> Result<ResultSet> {
        let result = match self.query_interruptible(sql, params) {
            Err(e) if !self.writable && store::is_write_refusal(&e) => {
                self.reopen_for_writing()?;
                self.query_interruptible(sql, params)
            }
            other => other,
        };
        if result.is_ok() {
            self.note_effect(sql);
        }
        result
    }

    /// What a statement leaves in the session: a setting to replay, or
    /// state that only its connection holds.
    fn note_effect(&mut self, sql: &str) {
        let words: Vec<String> = sql
            .split_whitespace()
            .take(4)
            .map(|w| w.trim_end_matches(';').to_ascii_uppercase())
            .collect();
        let word = |i: usize| words.get(i).map(String::as_str).unwrap_or("");
        let temp = |w: &str| w == "TEMP" || w == "TEMPORARY";
        match word(0) {
            "SET" | "RESET" | "PRAGMA" | "USE" | "LOAD" => self.replay.push(sql.to_string()),
            "BEGIN" | "START" => self.pin("an open transaction"),
            "COMMIT" | "END" | "ROLLBACK" | "ABORT"
                if self.pinned == Some("an open transaction") =>
            {
                self.pinned = None
            }
            "ATTACH" => self.pin("an attached database"),
            "CREATE" if temp(word(1)) || (word(1) == "OR" && temp(word(3))) => {
                self.pin("a temp object")
            }
            _ => {}
        }
    }

    fn pin(&mut self, why: &'static str) {
        if self.pinned.is_none() {
            eprintln!(
                "(the shell keeps the store open for {why}: ingests wait until `.release` or the end of the session)"
            );
        }
        self.pinned = Some(why);
    }

    /// Close the read-only handle and take the write lock (restoring the
    /// reader if another process holds the store).
    fn reopen_for_writing(&mut self) -> Result<()> {
        drop(self.store.take());
        match store::open_write_at(&self.db) {
            Ok(w) => {
                self.replay_settings(&w)?;
                self.store = Some(w);
                self.writable = true;
                eprintln!("(store reopened for writing, for this statement)");
                Ok(())
            }
            Err(e) => {
                self.conn()?;
                Err(e)
            }
        }
    }

    /// Run one statement and show its result.
    pub fn run_sql(&mut self, sql: &str) -> Result<()> {
        let started = Instant::now();
        let rs = self.query(sql, &Filters::new());
        self.idle();
        self.show(&rs?)?;
        if self.timer {
            eprintln!("Run Time: {:.3} s", started.elapsed().as_secs_f64());
        }
        Ok(())
    }

    /// A result goes to the terminal as a fitted table (not a file, not a
    /// pipe's CSV).
    pub fn shows_on_terminal(&self) -> bool {
        self.once.is_none()
            && self.output.is_none()
            && matches!(self.mode, output::Format::Table | output::Format::Box)
    }

    /// The width results are fitted to (0: no limit).
    pub fn width(&self) -> usize {
        self.max_width
            .unwrap_or_else(|| output::terminal_width().unwrap_or(0))
    }

    /// Write a result where `.output`/`.once` point, else stdout.
    pub fn show(&mut self, rs: &ResultSet) -> Result<()> {
        if rs.schema.fields().is_empty() {
            return Ok(());
        }
        let mode = self.mode;
        self.write(|out, render| output::render_with(rs, mode, render, out))
    }

    /// How a report is shown where the next result goes: fitted to the
    /// terminal, whole in a file.
    pub fn presentation(&self, all_columns: bool) -> report::Presentation {
        let mut render = self.render.clone();
        match self.once.is_some() || self.output.is_some() {
            true => render.fit = output::Fit::NONE,
            false => render.fit.max_width = self.width(),
        }
        report::Presentation {
            format: self.mode,
            render,
            all_columns,
        }
    }

    /// Write with `draw` where `.output`/`.once` point (appended), else to
    /// stdout fitted to the terminal; `draw` is given the display settings.
    pub fn write(
        &mut self,
        draw: impl FnOnce(&mut dyn Write, &RenderOptions) -> std::io::Result<()>,
    ) -> Result<()> {
        let target = self.once.take().or_else(|| self.output.clone());
        let io = |path: &Path, e: std::io::Error| Error::Io {
            path: path.to_path_buf(),
            error: e,
        };
        match target {
            Some(path) => {
                let mut file = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&path)
                    .map_err(|e| io(&path, e))?;
                draw(&mut file, &self.render).map_err(|e| io(&path, e))?;
            }
            None => {
                let mut render = self.render.clone();
                render.fit.max_width = self.width();
                let mut out = std::io::stdout().lock();
                draw(&mut out, &render)
                    .and_then(|_| out.flush())
                    .map_err(|e| io(Path::new("<stdout>"), e))?;
            }
        }
        Ok(())
    }
}
