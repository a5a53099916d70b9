//! Library error type. The CLI wraps these with `anyhow` context.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// DuckDB's own text, once (its error also carries it as a source and
    /// a code, which printing the chain would repeat).
    #[error("{}", db_error_text(.0))]
    Db(duckdb::Error),

    /// A statement the reader stopped (Ctrl-C): nothing else to say.
    #[error("cancelled")]
    Cancelled,

    #[error("{path} cannot be a store: {reason}; name the store file with .duckdb (e.g. --db liftdb.duckdb)")]
    NotAStorePath { path: String, reason: String },

    #[error("{path} is not a liftdb store: it exists and is not a DuckDB database file (DuckDB: {detail}); liftdb never writes into other files: give a new path, e.g. --db liftdb.duckdb")]
    NotAStore { path: String, detail: String },

    #[error("store {path} was written by a liftdb built on a newer DuckDB, whose storage format this liftdb's DuckDB cannot read (DuckDB: {detail}); it is left untouched. Rebuild it from its run trees: with the liftdb that wrote it, liftdb --db {path} export \"SELECT * FROM ingest_batch WHERE finished_at IS NOT NULL ORDER BY batch_id\" --out batches.jsonl; then with this one, liftdb rebuild --batches batches.jsonl --out NEW.duckdb")]
    NewerStorage { path: String, detail: String },

    #[error("lake {lake} could not be attached (DuckDB: {detail}); check that its PostgreSQL server is reachable with those settings, and give --data-path DIR when the lake is new")]
    LakeUnreachable { lake: String, detail: String },

    #[error("the DuckDB extension {name} ({version}) could not be loaded from {dir}{detail}; liftdb never downloads extensions: `pip download {}=={} --no-deps -d DIR` fetches it, and --extension-dir DIR (LIFTDB_EXTENSION_DIR) takes the wheels as they are, the wheels unzipped, or DuckDB's own layout (see docs/guide.md, team mode)", extension_package(.name), .version.trim_start_matches('v'))]
    LakeExtensions {
        name: String,
        version: String,
        dir: String,
        detail: String,
    },

    #[error("object storage{}: {}{}; nothing is stored", at_url(.url), .problem.said(), storage_says(.detail))]
    ObjectStorage {
        url: String,
        problem: StorageProblem,
        detail: String,
    },

    /// Another writer committed this batch's runs while it ran (two jobs
    /// storing one tree at once): the batch is tried again, and then finds
    /// them stored.
    #[error("batch{} stored the same runs while this one ran; this batch was not committed", plural_batches(.batches))]
    StoredMeanwhile { batches: Vec<i64> },

    /// Another writer committed a file of this batch's release (its path,
    /// owner and shard) with other content while it ran (two jobs whose
    /// manifests differ): the batch is tried again, and then replaces it.
    #[error("batch{} read {path} with other content while this one ran; this batch was not committed", plural_batches(.batches))]
    FileReadMeanwhile { batches: Vec<i64>, path: String },

    #[error("release '{release}' already holds {count} of these runs' identities with other content, read from another tree (e.g. {dir} has the identity of {other}); nothing is stored. A release split across jobs that number their runs alike: ingest each job's tree with --shard NAME (LIFTDB_SHARD); another experiment: give it its own --release")]
    IdentityHeld {
        release: String,
        count: usize,
        dir: String,
        other: String,
    },

    #[error("lake {lake}: the PostgreSQL role {role} may read this lake but not write it, and this command writes (ingest, rebuild, release rename/drop, lake init/refresh/maintain); run it as a writer role (docs/guide.md, team mode: the roles)")]
    LakeReadOnly { lake: String, role: String },

    #[error("lake {lake}: gave up waiting for the writers' turn after {waited_s} s: it is held by {holder}; nothing of this command is written. A holder that is stalled or gone frees the turn when PostgreSQL ends its session (docs/ci.md: idle_in_transaction_session_timeout, TCP keepalives); wait longer with --wait SECONDS")]
    WritersTurnTimeout {
        lake: String,
        waited_s: u64,
        holder: String,
    },

    #[error("gave up after {tries} tries: every try conflicted with another writer's commit to the lake ({detail}); nothing of this batch is stored; run it again when the other writers are done")]
    LakeConflict { tries: u32, detail: String },

    #[error("store {path}: the disk is full ({detail}); nothing was written and the store is as it was; {}", disk_full_advice(*.free_bytes, *.batch_bytes))]
    DiskFull {
        path: String,
        detail: String,
        /// Free on the store's filesystem once DuckDB gave up (None: not measurable).
        free_bytes: Option<u64>,
        /// The changed source files of the batch that failed, when it was an ingest.
        batch_bytes: Option<u64>,
    },

    #[error("store {path}: DuckDB ran out of the memory it was given ({detail}); nothing was written and the store is as it was; give the ingest a larger budget: --memory-mb N (LIFTDB_MEMORY_MB), 0 for DuckDB's own limit (80% of RAM)")]
    OutOfMemory { path: String, detail: String },

    /// The batch committed; the refill after it did not finish (refill.rs).
    #[error("batch {batch_id} is stored (all its runs are in the store), but refilling the aggregates reports read failed ({detail}); {} wait{} for that refill: {remedy}", waiting_releases(.releases), if .releases.len() == 1 { "s" } else { "" })]
    AggregatesWaiting {
        batch_id: i64,
        /// The releases whose aggregates wait.
        releases: Vec<String>,
        detail: String,
        /// The command that finishes it (`budget::refill_remedy`).
        remedy: String,
    },

    /// An open found the stored aggregates waiting (a batch's refill or a
    /// views change's not done) and could not refill them (refill.rs).
    #[error("store {path}: the stored aggregates of {} wait for a refill, and refilling them failed ({detail}); its runs are kept: {remedy}; until then reports answer from the aggregates as last stored, which may lack what waits", waiting_or_every(.releases))]
    AggregatesNotRefilled {
        path: String,
        /// The releases that wait (none: every release, after a views change).
        releases: Vec<String>,
        detail: String,
        remedy: String,
    },

    /// A refill step that ran out of memory every way it was tried (refill.rs).
    #[error("its step {step} ran out of memory on one thread under DuckDB's share of {}: {detail}", .budget_mib.map_or("DuckDB's own limit".to_string(), |mb| format!("--memory-mb {mb}")))]
    RefillOutOfMemory {
        step: String,
        budget_mib: Option<u64>,
        detail: String,
    },

    #[error("store {path} is damaged (DuckDB: {detail}); `liftdb check` says what is affected, and the run trees it was ingested from can rebuild it: liftdb --db {path} rebuild --out NEW.duckdb")]
    Corrupt { path: String, detail: String },

    /// The I/O error is in the message, not a source (printing the chain
    /// would say it twice).
    #[error("{}: {error}", path.display())]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },

    #[error("store {path} was written by a newer liftdb (schema version {found}, this binary knows up to {known}); upgrade liftdb to open it")]
    StoreTooNew {
        path: String,
        found: i64,
        known: i64,
    },

    #[error("store {path}: migration {version} ({name}) was applied with checksum {applied} but this binary has {expected}; the store or the binary was modified, refusing to open it")]
    ChecksumMismatch {
        path: String,
        version: i64,
        name: String,
        applied: String,
        expected: String,
    },

    #[error("store {path} is being {activity} by another process ({holder}); {hint}")]
    Locked {
        path: String,
        holder: String,
        /// "written", or "read" (a shell or query holds it open read-only).
        activity: &'static str,
        hint: &'static str,
    },

    #[error("view {name} failed its probe after being created: {detail}")]
    ViewProbe { name: String, detail: String },

    #[error("unknown report '{name}'{}; see `liftdb report --list`", nearest.as_ref().map(|n| format!(" (did you mean '{n}'?)")).unwrap_or_default())]
    UnknownReport {
        name: String,
        /// The report name nearest to it, when one is near.
        nearest: Option<String>,
    },

    #[error("--release {release}: this release waits for the refill of the aggregates reports read (its batches were stored with --defer-refill, or their refill gave up), and this role may only read, so the answer is the lake's last refilled snapshot {snapshot}, which holds none of it yet; a writer's `liftdb lake refresh` brings it in")]
    ReleaseWaiting { release: String, snapshot: String },

    #[error("--{filter} {value} matches nothing in the store (filters compare whole values); {filter} values there: {existing}")]
    NoSuchFilterValue {
        filter: String,
        value: String,
        existing: String,
    },

    #[error("report '{report}' does not take the filter --{filter} (it takes: {accepted})")]
    UnsupportedFilter {
        report: String,
        filter: String,
        accepted: String,
    },

    #[error("no run in the store is named '{run}' (a run id, a prefix of one of at least 6 characters, or the run's folder); hint: `liftdb report runs` lists runs with their ids, `liftdb report failures` the failing ones")]
    NoSuchRun { run: String },

    #[error(
        "'{run}' names {count} runs: {candidates}; hint: give more of the run id or of the folder"
    )]
    AmbiguousRun {
        run: String,
        count: String,
        candidates: String,
    },

    #[error("no release '{label}' in the store (releases there: {existing}); hint: liftdb report formats lists each release's runs")]
    NoSuchRelease { label: String, existing: String },

    #[error("release '{label}' exists already; hint: rename it first, or drop it (liftdb release drop {label} --yes)")]
    ReleaseExists { label: String },

    #[error("{0}")]
    Invalid(String),

    #[error("{path} could not be read again while its rows were appended ({detail}); nothing was written — ingest it again")]
    ReportChanged { path: String, detail: String },

    /// A key the batch wrote that another row holds too (the check that
    /// stands in for the primary-key index run and grading no longer have).
    #[error("{table} {key} would be held twice, by {holders}; nothing was written — two sources describe one {table}: ingest one of them under another --release, or leave it out")]
    DuplicateKey {
        table: &'static str,
        key: String,
        holders: String,
    },
}

impl Error {
    /// Did a commit to a lake meet another writer's (a batch or a refill
    /// step is then tried again)?
    pub fn is_transaction_conflict(&self) -> bool {
        let text = match self {
            Error::Db(db) => duckdb_text(db),
            Error::StoredMeanwhile { .. } | Error::FileReadMeanwhile { .. } => return true,
            _ => return false,
        };
        // Only what another writer's commit causes: a refusal (a role
        // without the right, a full disk) fails the same way every try.
        [
            "Transaction conflict",
            "deadlock detected",
            "could not serialize access",
            "ducklake_snapshot_pkey",
            "maximum retry count",
        ]
        .iter()
        .any(|m| text.contains(m))
            && !text.contains("permission denied")
    }

    /// Did DuckDB run out of the memory it was given? (A refill step is then
    /// tried again on fewer threads.)
    pub fn is_out_of_memory(&self) -> bool {
        matches!(self, Error::Db(db) if duckdb_text(db).contains("Out of Memory Error"))
    }

    /// A full disk during an ingest is told with the batch's size.
    pub fn with_batch_bytes(self, bytes: Option<u64>) -> Self {
        match self {
            Error::DiskFull {
                path,
                detail,
                free_bytes,
                batch_bytes: None,
            } => Error::DiskFull {
                path,
                detail,
                free_bytes,
                batch_bytes: bytes,
            },
            other => other,
        }
    }
}

/// What to free. A batch's rows are written twice (the write-ahead log,
/// then the store's new blocks at checkpoint, while the old ones still
/// exist), and uncompressed rows can outweigh their JSON sources: 2.5× the
/// sources is the room to ask for.
fn disk_full_advice(free: Option<u64>, batch: Option<u64>) -> String {
    let mb = |b: u64| b.div_ceil(1 << 20);
    let free_now = free.map(|f| format!("{} MB are free there now; ", mb(f)));
    let free_now = free_now.unwrap_or_default();
    match batch {
        Some(batch) => {
            let room = batch.saturating_mul(5) / 2;
            format!(
                "{free_now}this batch's new source files are {} MB and writing them needs up to {} MB: free {} MB more and run the command again",
                mb(batch),
                mb(room),
                mb(room.saturating_sub(free.unwrap_or(0))).max(1)
            )
        }
        None => format!("{free_now}free space beside the store and run the command again"),
    }
}

/// DuckDB's error in liftdb's words: running out of the share of the
/// budget it was given is said so, with the flag that raises it, instead of
/// DuckDB's own list of settings to change.
fn db_error_text(db: &duckdb::Error) -> String {
    let text = duckdb_text(db);
    match text.contains("Out of Memory Error") {
        true => {
            let detail = text.split("\n\nPossible solutions").next().unwrap_or(&text);
            format!(
                "DuckDB ran out of the memory it was given ({}); hint: {}",
                detail.trim(),
                crate::store::budget::larger_budget_hint()
            )
        }
        false => format!("database error: {text}"),
    }
}

impl From<duckdb::Error> for Error {
    fn from(e: duckdb::Error) -> Self {
        Error::Db(e)
    }
}

/// DuckDB's message without the code text the bindings append
/// ("Error code 1: Unknown error code") or a repeat of itself.
/// DuckDB's text of an error, without any password it quotes (the
/// postgres extension repeats a failed connection string whole).
pub fn duckdb_text(e: &duckdb::Error) -> String {
    let text = match e {
        duckdb::Error::DuckDBFailure(_, Some(msg)) => msg.clone(),
        other => other.to_string(),
    };
    crate::model::redact::connection_text(&text).into_owned()
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// " s3://…" when the failure is of a known URL.
fn at_url(url: &str) -> String {
    match url.is_empty() {
        true => String::new(),
        false => format!(" {url}"),
    }
}

/// The storage's own words, when it gave some.
fn storage_says(detail: &str) -> String {
    match detail.is_empty() {
        true => String::new(),
        false => format!(" (the storage said: {detail})"),
    }
}

/// " 123" or "es 123, 456" after "batch".
fn plural_batches(batches: &[i64]) -> String {
    let list = batches
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    match batches.len() {
        1 => format!(" {list}"),
        _ => format!("es {list}"),
    }
}

/// `waiting_releases`, where none named means every release.
fn waiting_or_every(releases: &[String]) -> String {
    match releases.is_empty() {
        true => "every release".into(),
        false => waiting_releases(releases),
    }
}

/// "release 'v1'", "releases 'v1', 'v2'".
fn waiting_releases(releases: &[String]) -> String {
    let quoted: Vec<String> = releases.iter().map(|r| format!("'{r}'")).collect();
    match quoted.len() {
        0 => "its releases".into(),
        1 => format!("release {}", quoted[0]),
        _ => format!("releases {}", quoted.join(", ")),
    }
}

/// What went wrong reaching object storage, as the user can act on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorageProblem {
    NoCredentials,
    Credentials,
    Bucket,
    Endpoint,
    Other,
}

impl StorageProblem {
    /// The problem and what to do about it, for the error's text.
    pub fn said(self) -> &'static str {
        match self {
            StorageProblem::NoCredentials => "no credentials are set: export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary ones) where liftdb runs",
            StorageProblem::Credentials => "the credentials were refused (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN): check that the key exists, its secret is the one issued with it, and it may list and write the bucket",
            StorageProblem::Bucket => "the bucket does not exist: create it, or fix the bucket name in --data-path",
            StorageProblem::Endpoint => "the endpoint could not be reached: check AWS_ENDPOINT_URL (and that the server is running)",
            StorageProblem::Other => "the storage refused the request",
        }
    }
}

/// The PyPI package that carries a DuckDB extension (`postgres_scanner` →
/// `duckdb-extension-postgres-scanner`).
fn extension_package(name: &str) -> String {
    format!("duckdb-extension-{}", name.replace('_', "-"))
}
