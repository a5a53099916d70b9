//! One REPL session: the store connection (read-only until a statement needs
//! to write), display settings, where results go, and query interruption.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use duckdb::InterruptHandle;

use crate::output::{self, Format, RenderOptions, ResultSet};
use crate::report::{self, Filters};
use crate::store::{self, Store};
use crate::{Error, Result};

/// The connection of the query currently running, for Ctrl-C.
pub type RunningQuery = Arc<Mutex<Option<Arc<InterruptHandle>>>>;

pub struct Session {
    db: PathBuf,
    /// Always Some outside `reopen_for_writing`.
    store: Option<Store>,
    pub writable: bool,
    pub mode: Format,
    pub render: RenderOptions,
    pub output: Option<PathBuf>,
    pub once: Option<PathBuf>,
    pub timer: bool,
    pub bail: bool,
    pub running: RunningQuery,
}

impl Session {
    pub fn open(db: &Path, mode: Format) -> Result<Self> {
        let store = store::open_read(db)?;
        Ok(Session {
            db: db.to_path_buf(),
            store: Some(store),
            writable: false,
            mode,
            render: RenderOptions::default(),
            output: None,
            once: None,
            timer: false,
            bail: false,
            running: Arc::new(Mutex::new(None)),
        })
    }

    pub fn conn(&self) -> Result<&duckdb::Connection> {
        self.store
            .as_ref()
            .map(|s| &s.conn)
            .ok_or_else(|| Error::Invalid("the store is closed".into()))
    }

    fn query_interruptible(&self, sql: &str, params: &Filters) -> Result<ResultSet> {
        let conn = self.conn()?;
        if let Ok(mut slot) = self.running.lock() {
            *slot = Some(conn.interrupt_handle());
        }
        let result = report::query(conn, sql, params);
        if let Ok(mut slot) = self.running.lock() {
            *slot = None;
        }
        result
    }

    /// Run a statement; a write on the read-only store reopens it for writing once.
    pub fn query(&mut self, sql: &str, params: &Filters) -> Result<ResultSet> {
        match self.query_interruptible(sql, params) {
            Err(e) if !self.writable && store::is_write_refusal(&e) => {
                self.reopen_for_writing()?;
                self.query_interruptible(sql, params)
            }
            other => other,
        }
    }

    /// Close the read-only handle and take the write lock (restoring the
    /// reader if another process holds the store).
    fn reopen_for_writing(&mut self) -> Result<()> {
        drop(self.store.take());
        match store::open_write(&self.db) {
            Ok(w) => {
                self.store = Some(w);
                self.writable = true;
                eprintln!("(store reopened for writing)");
                Ok(())
            }
            Err(e) => {
                self.store = Some(store::open_read(&self.db)?);
                Err(e)
            }
        }
    }

    /// Run one statement and show its result.
    pub fn run_sql(&mut self, sql: &str) -> Result<()> {
        let started = Instant::now();
        let rs = self.query(sql, &Filters::new())?;
        self.show(&rs)?;
        if self.timer {
            eprintln!("Run Time: {:.3} s", started.elapsed().as_secs_f64());
        }
        Ok(())
    }

    /// Write a result where `.output`/`.once` point, else stdout.
    pub fn show(&mut self, rs: &ResultSet) -> Result<()> {
        if rs.schema.fields().is_empty() {
            return Ok(());
        }
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
                output::render_with(rs, self.mode, &self.render, &mut file)
                    .map_err(|e| io(&path, e))?;
            }
            None => {
                let mut out = std::io::stdout().lock();
                output::render_with(rs, self.mode, &self.render, &mut out)
                    .and_then(|_| out.flush())
                    .map_err(|e| io(Path::new("<stdout>"), e))?;
            }
        }
        Ok(())
    }
}
