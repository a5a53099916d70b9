//! Ingest errors: a file that could not be used, what kind of failure it
//! was, and the hint that goes with that kind. The kind is chosen where the
//! error is raised; the stage and the hint follow from it.

/// Every way a file can fail to be ingested.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The file or directory cannot be opened or read.
    Unreadable,
    /// A `.gz` file whose bytes are not gzip data.
    NotGzip,
    /// A symbolic link inside a walked tree (never followed).
    SymlinkNotFollowed,
    /// A FIFO, socket or device: never opened (reading one can block forever).
    SpecialFile,
    /// A file over the size liftdb reads whole, or a `.gz` inflating past its cap.
    TooLarge,
    /// A file given by name that no adapter recognises.
    Unrecognized,
    /// A directory in which no adapter found anything.
    NothingFound,
    /// A promptfoo CSV export with no JSON beside it.
    CsvOnly,
    /// `--format` names an adapter that cannot read this unit.
    WrongFormat,
    /// A JSON Lines file with a line that is not JSON.
    InvalidJsonLines,
    /// Not complete UTF-8 JSON.
    InvalidJson,
    /// JSON, but not the object the harness writes there.
    NotAnObject,
    /// The tool's shape except for one field (a list that is not, a wrong type).
    WrongShape,
    /// A manifest defining one case id twice.
    DuplicateCaseId,
    /// A case or report row without its case id.
    MissingId,
    /// A judge results file listing one task twice.
    DuplicateJudgeTask,
    /// A report listing one run twice.
    DuplicateRow,
    /// Two run directories claiming one (case, model, arm, repetition).
    IdentityClash,
    /// A directory that is not where its harness puts runs.
    NotARunLayout,
}

impl ErrorKind {
    /// `ingest_error.stage`: where in the ingest the failure happened.
    pub fn stage(self) -> &'static str {
        use ErrorKind::*;
        match self {
            Unreadable | NotGzip | SymlinkNotFollowed | SpecialFile | TooLarge => "read",
            Unrecognized | NothingFound | CsvOnly | WrongFormat => "detect",
            InvalidJsonLines | InvalidJson | NotAnObject | WrongShape | DuplicateCaseId
            | MissingId | DuplicateJudgeTask => "parse",
            DuplicateRow | IdentityClash | NotARunLayout => "identity",
        }
    }

    /// What the user can do about it.
    pub fn hint(self) -> &'static str {
        use ErrorKind::*;
        match self {
            Unreadable => "check that the file exists and is readable by this user",
            NotGzip => "the .gz file is not gzip data; re-compress or rename it",
            SpecialFile => "liftdb reads regular files only; copy the data into a file and ingest that",
            TooLarge => "raise the cap if the file is genuine: ingest --max-file-mb N (files read whole) or --max-inflated-mb N (.gz inflated)",
            SymlinkNotFollowed => {
                "pass the link's target to liftdb ingest as a path of its own to ingest it"
            }
            Unrecognized | WrongFormat => {
                "pass --format to say which harness wrote it, or leave the file out"
            }
            NothingFound => {
                "point liftdb at a runs root, a manifest or a harness's report files, or pass --format"
            }
            CsvOnly => "run promptfoo eval -o results.json (or .jsonl) and ingest that file instead",
            InvalidJsonLines => {
                "one line of the file is not JSON (often the last, cut short by a killed process); fix or drop that line and ingest again"
            }
            InvalidJson => {
                "the file is not complete UTF-8 JSON (cut short by a killed run, or saved in another encoding); re-run the harness step that writes it and ingest again — the rest of the run was kept"
            }
            NotAnObject => {
                "the harness writes a JSON object here; the file was replaced or edited by hand"
            }
            WrongShape => {
                "the file has the tool's shape except for this field (another tool version, or edited by hand); regenerate it with the harness and ingest again"
            }
            DuplicateCaseId => {
                "give each case a unique id in the manifest; rows of the first one are kept"
            }
            MissingId => "every case and report row needs its case id; the row was skipped",
            DuplicateJudgeTask => {
                "the judge results list one task twice; the first verdict is kept — re-run the judge step to get one verdict per task"
            }
            DuplicateRow => "the report lists one run twice; the first row is kept",
            IdentityClash => {
                "two directories claim one (case, model, arm, repetition), which would pair the wrong runs; remove one, or ingest the other tree with its own --release"
            }
            NotARunLayout => {
                "name arm folders with_skill, without_skill, old_skill or ablation:<id>, and ingest the harness's whole output folder (the layout gives each run its identity), or pass --format"
            }
        }
    }
}

/// A file that could not be read or understood; the rest of the batch goes on.
#[derive(Debug, Clone)]
pub struct IngestErrorRec {
    pub path: String,
    pub kind: ErrorKind,
    pub reason: String,
}

impl IngestErrorRec {
    pub fn new(path: impl Into<String>, kind: ErrorKind, reason: impl Into<String>) -> Self {
        IngestErrorRec {
            path: path.into(),
            kind,
            reason: reason.into(),
        }
    }

    /// A file that could not be read, with the kind its failure calls for.
    pub fn unreadable(path: impl Into<String>, err: &ReadError) -> Self {
        let kind = match err {
            ReadError::Io(_) => ErrorKind::Unreadable,
            ReadError::NotGzip(_) => ErrorKind::NotGzip,
            ReadError::NotAFile => ErrorKind::SpecialFile,
            ReadError::TooLarge { .. } | ReadError::InflatesPastCap { .. } => ErrorKind::TooLarge,
        };
        Self::new(path, kind, format!("cannot read: {err}"))
    }
}

/// Why a file's bytes could not be had.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    NotGzip(std::io::Error),
    #[error("not a regular file (a FIFO, socket or device), never read")]
    NotAFile,
    #[error("{size} bytes, over the {cap}-byte cap on a file read whole")]
    TooLarge { size: u64, cap: u64 },
    #[error("inflates past the {cap}-byte cap on a decompressed file (stopped there)")]
    InflatesPastCap { cap: u64 },
}
