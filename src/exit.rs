//! The exit codes every command uses: what a CI job or a script acts on.
//! One set, so `$?` means the same whichever command set it.

/// The command did what was asked (the gate: every check passed).
pub const SUCCESS: i32 = 0;
/// It ran and found what the caller must act on: a gate check failed, an
/// ingest finished with files it could not read, the store `liftdb check`
/// looked at is damaged.
pub const FAILED: i32 = 1;
/// It could not run: usage, the store, a configuration, a value the store
/// does not hold (and the gate's `--infra-errors error` met a failure).
pub const ERROR: i32 = 2;
/// The gate could not decide a check (`--undecided` maps it).
pub const UNDECIDED: i32 = 3;
