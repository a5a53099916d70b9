//! Subcommands. Data goes to stdout, messages to stderr. Exit codes, one
//! policy for every command: 0 ok (a gate passed); 1 the data says no (an
//! ingest finished with file errors, a gate failed, `check` found damage);
//! 2 the command failed (usage, store, configuration); 3 a gate could not
//! decide (`liftdb::exit` names them).

mod check;
mod demo;
mod gate;
mod ingest;
mod lake;
mod pager;
mod plan;
mod rebuild;
mod release;
mod report;
mod schema;
mod show;
mod sql;

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use liftdb::output::{self, Format, ResultSet};
use liftdb::store::Location;

#[derive(Parser)]
#[command(
    name = "liftdb",
    version,
    about = "Embedded analytics store for AI agent-skill evaluations"
)]
pub struct Cli {
    /// The store: a DuckDB file, or a DuckLake
    /// ('ducklake:postgres:dbname=… host=… port=… user=…') a team shares.
    #[arg(
        long,
        global = true,
        env = "LIFTDB_DB",
        default_value = "liftdb.duckdb"
    )]
    pub db: String,

    /// Where a new lake keeps its Parquet files (a folder or any path DuckDB
    /// writes to); recorded in the lake when it is created.
    #[arg(long, global = true, env = "LIFTDB_DATA_PATH", value_name = "DIR")]
    pub data_path: Option<String>,

    /// DuckDB's extension directory, holding ducklake and postgres_scanner:
    /// a lake's extensions are loaded from it and never downloaded.
    #[arg(long, global = true, env = "LIFTDB_EXTENSION_DIR", value_name = "DIR")]
    pub extension_dir: Option<PathBuf>,

    /// Memory budget (MiB) for the whole process, every command: DuckDB is held to five eighths
    /// of it (past that it spills to disk: beside a store file, in liftdb's cache for a lake).
    /// While an ingest parses runs DuckDB gets what liftdb's own lists leave, at most half.
    /// 0 leaves DuckDB's own limit (80% of RAM). Out of its share, a batch rolls back (store
    /// unchanged) and says so.
    #[arg(
        long,
        global = true,
        env = "LIFTDB_MEMORY_MB",
        default_value_t = liftdb::store::budget::DEFAULT_MEMORY_MB,
        value_name = "MIB"
    )]
    pub memory_mb: u64,

    #[command(flatten)]
    pub repl: ReplArgs,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The shell's options: `liftdb [-c SQL]... [-f FILE] [--format F]`.
#[derive(Args, Debug, Default, Clone)]
pub struct ReplArgs {
    /// Run this SQL (or dot-command) and exit; repeatable.
    #[arg(short = 'c', long = "command")]
    pub commands: Vec<String>,
    /// Run the statements in FILE and exit.
    #[arg(short = 'f', long = "file")]
    pub file: Option<PathBuf>,
    /// Result format (default: table on a terminal, csv otherwise).
    #[arg(long = "format", value_enum)]
    pub format: Option<Format>,
}

impl ReplArgs {
    fn options(&self) -> liftdb::repl::ReplOptions {
        liftdb::repl::ReplOptions {
            commands: self.commands.clone(),
            file: self.file.clone(),
            format: self.format,
        }
    }
}

#[derive(Subcommand)]
pub enum Command {
    /// Ingest run trees and harness reports (one transaction per call).
    Ingest(ingest::IngestArgs),
    /// Run one SQL statement against the store.
    Sql(sql::SqlArgs),
    /// Run a canned report (`--list` to see them).
    Report(report::ReportArgs),
    /// One run whole: identity, rates, each failing assertion with its
    /// evidence, the start of its output.
    Show(show::ShowArgs),
    /// Pass or fail a release in CI: minimum lift, non-inferiority against a
    /// baseline, no significant regression, findings by arm (exit 0 pass,
    /// 1 fail, 2 error, 3 undecided; --sequential when run after every batch).
    Gate(gate::GateArgs),
    /// How many cases and repetitions detect a lift of D at 80% power,
    /// learnt from a release's runs, each option priced from the cost ledger.
    Plan(plan::PlanArgs),
    /// Show the schema version, migrations, tables and views.
    Schema(schema::SchemaArgs),
    /// Ingest the bundled sample runs into a temporary store and print the
    /// main reports (paged on a terminal; --keep keeps the store).
    Demo(demo::DemoArgs),
    /// Print the shell completions of liftdb for SHELL (bash, zsh, fish,
    /// elvish, powershell): `liftdb completions bash > ~/.local/share/bash-completion/completions/liftdb`.
    Completions { shell: clap_complete::Shell },
    /// The SQL shell (the same as `liftdb` with no subcommand).
    Repl(ReplArgs),
    /// Export a view, table, report or SELECT to .csv, .tsv, .parquet, .json or .jsonl.
    Export(ExportArgs),
    /// Verify the store: migrations ledger, every block of every table, every view (exit 0 whole, 1 damaged, 2 some not read within --memory-mb).
    Check,
    /// Ingest every recorded batch again into a new store (--out: a file or
    /// a lake), for a damaged store or to move one between file and lake.
    Rebuild(rebuild::RebuildArgs),
    /// The releases: list them, rename one, drop one (`release drop NAME --yes`).
    Release(release::ReleaseArgs),
    /// Team mode: a DuckLake's upkeep (refill what waits, compact, expire snapshots).
    Lake(lake::LakeArgs),
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// A view or table name, a report name, or a SELECT statement.
    pub what: String,
    /// Output file; the format follows its extension.
    #[arg(long)]
    pub out: PathBuf,
    /// Filters of a canned report (bound as parameters).
    #[command(flatten)]
    pub filters: FilterArgs,
}

/// The release, skill and split a decision is about (`gate`, `plan`).
#[derive(Args, Debug, Default, Clone)]
pub struct ReleaseScope {
    /// The release (default: the latest).
    #[arg(long)]
    pub release: Option<String>,
    /// One skill (default: each skill of the release).
    #[arg(long)]
    pub skill: Option<String>,
    /// One split (default: every split pooled).
    #[arg(long)]
    pub split: Option<String>,
}

/// Filters shared by reports; bound as SQL parameters.
#[derive(Args, Debug, Default, Clone)]
pub struct FilterArgs {
    #[arg(long)]
    pub release: Option<String>,
    #[arg(long)]
    pub skill: Option<String>,
    #[arg(long)]
    pub split: Option<String>,
    #[arg(long)]
    pub model: Option<String>,
    #[arg(long = "case")]
    pub case_id: Option<String>,
    #[arg(long)]
    pub arm: Option<String>,
    /// One repetition (a run's number within its case, model and arm).
    #[arg(long)]
    pub rep: Option<String>,
    /// One experiment (runs.experiment): a seh runs root, a handbook run id,
    /// a skill-creator iteration, a promptfoo eval id, a trigger report.
    #[arg(long)]
    pub experiment: Option<String>,
}

impl FilterArgs {
    pub fn to_filters(&self) -> liftdb::report::Filters {
        [
            ("release", &self.release),
            ("skill", &self.skill),
            ("split", &self.split),
            ("model", &self.model),
            ("case", &self.case_id),
            ("arm", &self.arm),
            ("rep", &self.rep),
            ("experiment", &self.experiment),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.clone().map(|v| (k.to_string(), v)))
        .collect()
    }
}

/// Where and how a result is written.
#[derive(Args, Debug, Clone)]
pub struct OutputArgs {
    /// Output format (default: table on a terminal, csv otherwise).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Write to this file instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Fit tables to N columns as on a terminal (middle columns elided,
    /// long cells cut; 0 = no limit). Default: the terminal's width.
    #[arg(long, value_name = "N")]
    pub max_width: Option<usize>,
}

impl OutputArgs {
    /// On a terminal (or with --max-width) tables are fitted; piped, whole.
    pub fn render_options(&self) -> output::RenderOptions {
        match self.max_width.or_else(output::terminal_width) {
            Some(0) => output::RenderOptions::default(),
            Some(width) => output::RenderOptions::for_terminal(width),
            None => output::RenderOptions::default(),
        }
    }

    /// The format written: --format, else a table on a terminal and CSV
    /// to a file or a pipe.
    pub fn format_written(&self) -> Format {
        use std::io::IsTerminal;
        self.format.unwrap_or(match &self.out {
            None if std::io::stdout().is_terminal() => Format::Table,
            _ => Format::Csv,
        })
    }

    /// Rows written by `produce` (as they come, or a held result) to --out
    /// or stdout; `produce` says how many it wrote. A reader that stops
    /// early (`| head`) is not an error.
    pub fn emit_streamed(
        &self,
        produce: impl FnOnce(&mut dyn Write) -> anyhow::Result<usize>,
    ) -> anyhow::Result<()> {
        match &self.out {
            Some(path) => {
                let mut file = std::io::BufWriter::new(
                    std::fs::File::create(path)
                        .with_context(|| format!("creating {}", path.display()))?,
                );
                let rows = produce(&mut file)?;
                file.flush()?;
                eprintln!("wrote {rows} rows to {}", path.display());
                Ok(())
            }
            None => {
                let stdout = std::io::stdout();
                let mut lock = std::io::BufWriter::new(stdout.lock());
                let written = produce(&mut lock).and_then(|_| Ok(lock.flush()?));
                match written {
                    Err(e)
                        if e.downcast_ref::<std::io::Error>()
                            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
                    {
                        Ok(())
                    }
                    other => other,
                }
            }
        }
    }

    /// How a result is drawn where it is written: fitted on a terminal,
    /// whole in a file.
    pub fn render_written(&self) -> output::RenderOptions {
        match self.out {
            Some(_) => output::RenderOptions::default(),
            None => self.render_options(),
        }
    }

    /// A held result, written as `format_written` says (fitted on a terminal).
    pub fn emit(&self, rs: &ResultSet) -> anyhow::Result<()> {
        let options = self.render_written();
        self.emit_streamed(|out| {
            output::render_with(rs, self.format_written(), &options, out)?;
            Ok(rs.row_count())
        })
    }
}

pub fn open_read_after_upkeep(db: &Location) -> anyhow::Result<liftdb::store::Store> {
    naming_store(db, "opening", liftdb::store::open_read_at(db, None))
}

/// A store failure, said once: "opening PATH: " only when the error does
/// not name the store itself (most do, and the path twice reads as two errors).
pub fn naming_store<T>(db: &Location, doing: &str, r: liftdb::Result<T>) -> anyhow::Result<T> {
    r.map_err(|e| {
        let path = db.display().to_string();
        match e.to_string().contains(&path) {
            true => anyhow::Error::new(e),
            false => anyhow::Error::new(e).context(format!("{doing} {path}")),
        }
    })
}

pub fn run() -> anyhow::Result<i32> {
    use clap::{CommandFactory, FromArgMatches};
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    take_turns(&matches, &cli);
    liftdb::store::budget::hold_process_to((cli.memory_mb > 0).then_some(cli.memory_mb));
    let shell = &cli.repl;
    if cli.command.is_some() && (!shell.commands.is_empty() || shell.file.is_some()) {
        anyhow::bail!(
            "-c and -f run the SQL shell, not a subcommand; drop the subcommand (liftdb -c SQL) or use `liftdb sql SQL`"
        );
    }
    let db = &Location::parse(
        &cli.db,
        cli.data_path.as_deref(),
        cli.extension_dir.as_deref(),
    );
    match cli.command {
        Some(Command::Ingest(args)) => ingest::run(db, &args),
        // `liftdb --format json report X` means what `report X --format json` does.
        Some(Command::Sql(mut args)) => {
            args.output.format = args.output.format.or(shell.format);
            sql::run(db, &args)
        }
        Some(Command::Report(mut args)) => {
            args.output.format = args.output.format.or(shell.format);
            report::run(db, &args)
        }
        Some(Command::Show(args)) => show::run(db, &args),
        Some(Command::Gate(args)) => gate::run(db, &args),
        Some(Command::Plan(args)) => plan::run(db, &args),
        Some(Command::Release(args)) => release::run(db, &args),
        Some(Command::Schema(args)) => schema::run(db, &args),
        Some(Command::Demo(args)) => demo::run(&args),
        Some(Command::Completions { shell }) => {
            use clap::CommandFactory;
            clap_complete::generate(shell, &mut Cli::command(), "liftdb", &mut std::io::stdout());
            Ok(liftdb::exit::SUCCESS)
        }
        Some(Command::Repl(args)) => repl(db, &args),
        Some(Command::Export(args)) => {
            let store = open_read_after_upkeep(db)?;
            let exported = liftdb::export::export(
                &store.conn,
                &args.what,
                &args.out,
                &args.filters.to_filters(),
            )?;
            if let Some(note) = &exported.note {
                eprintln!("note: {note}");
            }
            eprintln!("wrote {} rows to {}", exported.rows, args.out.display());
            Ok(liftdb::exit::SUCCESS)
        }
        Some(Command::Check) => check::run(db),
        Some(Command::Rebuild(args)) => rebuild::run(
            db,
            &args,
            cli.data_path.as_deref(),
            cli.extension_dir.as_deref(),
        ),
        Some(Command::Lake(args)) => lake::run(db, &args),
        None => repl(db, &cli.repl),
    }
}

/// How this process takes the writers' turn on a lake: named by its
/// command (`ingest`, `lake refresh`), waiting ingest's --wait or the default.
fn take_turns(matches: &clap::ArgMatches, cli: &Cli) {
    let command = match matches.subcommand() {
        Some((name, sub)) => match sub.subcommand_name() {
            Some(inner) => format!("{name} {inner}"),
            None => name.to_string(),
        },
        None => "shell".to_string(),
    };
    let wait = match &cli.command {
        Some(Command::Ingest(args)) => args.wait.map(std::time::Duration::from_secs),
        _ => None,
    };
    liftdb::store::turn::take_turns_as(&command, wait);
}

fn repl(db: &Location, args: &ReplArgs) -> anyhow::Result<i32> {
    naming_store(db, "opening", liftdb::repl::run(db, &args.options()))
}
