//! `liftdb ingest PATH...`

use liftdb::store::Location;
use std::io::IsTerminal;
use std::path::PathBuf;

use clap::Args;
use liftdb::batch::{self, IngestOptions, IngestSummary};
use liftdb::ingest::formats::Format;

#[derive(Args, Debug)]
pub struct IngestArgs {
    /// Run trees, runs roots, manifests and report files (directories are walked).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Release label for these runs (default: derived — the label these files had before, the
    /// release of the runs a report grades, the skill tree hash, the report date, else "default").
    #[arg(long)]
    pub release: Option<String>,
    /// Read every file as this format: auto (detect), seh, handbook, skill-creator, promptfoo.
    #[arg(long, default_value = "auto")]
    pub format: String,
    /// If another liftdb is writing the store, wait up to this many seconds for it
    /// (default: a file store not at all; a lake 600, naming the holder as it waits).
    #[arg(long)]
    pub wait: Option<u64>,
    /// Remove from the store the runs whose directories (and reports whose files) are gone.
    #[arg(long)]
    pub prune: bool,
    /// Keep secrets found in outputs, traces and metadata (they are redacted by default).
    #[arg(long)]
    pub no_redact: bool,
    /// Parse and report, write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Run the manifest's `script` assertions when grading (as skill-benchmark --allow-scripts;
    /// they run the manifest's commands). Without it they fail, as in the harness.
    #[arg(long)]
    pub allow_scripts: bool,
    /// Grade soft assertions as gates (skill-benchmark --strict).
    #[arg(long)]
    pub strict: bool,
    /// No progress bar and no summary (errors are still printed).
    #[arg(long, short)]
    pub quiet: bool,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// A file larger than this (MiB) is not read whole: an error row, the rest ingested
    /// (large skill-eval-harness reports are streamed and not bound by it).
    #[arg(long, default_value_t = 1024)]
    pub max_file_mb: u64,
    /// A .gz file inflating past this (MiB) is an error row; the inflation stops there.
    #[arg(long, default_value_t = 512)]
    pub max_inflated_mb: u64,
    /// Commit the batch and leave the stored aggregates waiting: for the jobs of a fan-out into
    /// one lake, followed by one `liftdb lake refresh` (else the next reader refills them).
    #[arg(long)]
    pub defer_refill: bool,
    /// Let the reports given define the runs they list that no folder of their release holds,
    /// even where the release holds runs read from folders (a tree trimmed or partly lost). By
    /// default a report beside its runs is a reference, and the runs it lists that the tree
    /// lacks are named in a note; a report alone (archived history) defines its runs.
    #[arg(long)]
    pub define_reported: bool,
    /// This job's part of a release split across jobs (by case, or by repetition with each job
    /// numbering its runs from run-1): part of each run's identity, so shards never collide and
    /// land as one release. Pairs stay within their shard.
    #[arg(long, env = "LIFTDB_SHARD", value_name = "NAME", value_parser = shard_name)]
    pub shard: Option<String>,
}

/// A shard's name: printable, without a slash (it joins a run's identity).
fn shard_name(name: &str) -> Result<String, String> {
    let name = name.trim();
    match name.is_empty() || name.contains('/') || name.chars().any(char::is_control) {
        true => Err(format!(
            "{name:?} cannot name a shard: give a non-empty name without '/', e.g. job-2"
        )),
        false => Ok(name.to_string()),
    }
}

pub fn run(db: &Location, args: &IngestArgs) -> anyhow::Result<i32> {
    let wait = std::time::Duration::from_secs(args.wait.unwrap_or(0));
    let mut store = super::naming_store(
        db,
        "opening",
        liftdb::store::open_write_waiting_at(db, wait),
    )?;
    let format = match args.format.as_str() {
        "auto" => None,
        other => Some(other.parse::<Format>().map_err(anyhow::Error::msg)?),
    };
    let opts = IngestOptions {
        release: args.release.clone(),
        format,
        no_redact: args.no_redact,
        prune: args.prune,
        dry_run: args.dry_run,
        allow_scripts: args.allow_scripts,
        strict: args.strict,
        progress: !args.quiet && !args.json && std::io::stderr().is_terminal(),
        limits: liftdb::json::ReadLimits {
            max_file_bytes: args.max_file_mb.saturating_mul(1 << 20),
            max_inflated_bytes: args.max_inflated_mb.saturating_mul(1 << 20),
        },
        memory_mb: liftdb::store::budget::process_budget(),
        defer_refill: args.defer_refill,
        define_reported: args.define_reported,
        shard: args.shard.clone(),
        host: liftdb::sys::host::host_name(),
    };
    let summary = batch::ingest(&mut store, &args.paths, &opts)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        print_summary(db, &summary, args.quiet);
    }
    Ok(if summary.errors.is_empty() {
        liftdb::exit::SUCCESS
    } else {
        liftdb::exit::FAILED
    })
}

pub fn print_summary(db: &Location, s: &IngestSummary, quiet: bool) {
    for e in &s.errors {
        eprintln!("error: {}: {} ({})", e.path, e.reason, e.stage);
        if let Some(hint) = e.hint {
            eprintln!("  hint: {hint}");
        }
    }
    if quiet {
        return;
    }
    let verb = if s.dry_run { "would write" } else { "wrote" };
    if s.units_changed == 0 && s.errors.is_empty() {
        eprintln!(
            "nothing new: {} files unchanged since the last ingest; 0 rows added to {}",
            s.files_unchanged,
            db.display()
        );
    } else {
        let batch = s
            .batch_id
            .map(|b| format!(", batch {b}"))
            .unwrap_or_default();
        let named = format!("release '{}' (from {})", s.release, s.release_source);
        let recorded = s.release_recorded || s.dry_run;
        let release = match (recorded, s.other_releases.is_empty()) {
            (true, true) => format!(" as {named}"),
            (false, true) => {
                " in no release (nothing of one was stored, so none was recorded)".into()
            }
            (_, false) => String::new(),
        };
        eprintln!(
            "{verb} {} runs ({} rows) to {}{release}{batch}",
            s.runs_written,
            s.rows_written,
            db.display(),
        );
        if !s.other_releases.is_empty() {
            eprintln!(
                "  skill-creator iterations written as releases of their own: {} (--release puts them in one)",
                s.other_releases.join(", ")
            );
            if recorded {
                eprintln!("  the rest of the batch as {named}");
            }
        }
        let regraded = match s.units_regraded {
            0 => String::new(),
            n => format!(", {n} regraded (manifest case or grading flags changed)"),
        };
        let already = match s.already_stored {
            0 => String::new(),
            n => format!(", {n} already stored"),
        };
        eprintln!(
            "  {} added, {} replaced{regraded}{already}, {} unchanged, {} failed; {} files parsed, {} unchanged",
            s.units_added,
            s.units_replaced,
            s.units_unchanged,
            s.errors.len(),
            s.files_changed,
            s.files_unchanged
        );
    }
    if s.runs_reported > 0 {
        eprintln!(
            "  {} runs defined by the reports given (the store held no run of their identity): what a report carries of each — its grading, tokens, cost, time — without output, trace or files; their folders, ingested later, replace them (runs.defined_by)",
            s.runs_reported
        );
    }
    if s.runs_reported_not_in_tree > 0 {
        eprintln!(
            "note: the reports given list {} runs no folder of their release holds; the release holds runs read from folders, so the reports are references beside them and define none (a trimmed or partly lost tree: --define-reported defines them)",
            s.runs_reported_not_in_tree
        );
    }
    if s.reported_replaced > 0 {
        eprintln!(
            "  {} runs a report had defined were replaced by their folders",
            s.reported_replaced
        );
    }
    if !s.runs_stored_in.is_empty() {
        let held = s
            .runs_stored_in
            .iter()
            .map(|r| format!("'{r}'"))
            .collect::<Vec<_>>()
            .join(", ");
        let rename = match s.runs_stored_in.as_slice() {
            [one] => format!("liftdb release rename {one} {}", s.release),
            _ => format!("liftdb release rename OLD {}", s.release),
        };
        eprintln!(
            "note: the run folders given are stored, unchanged, in release {held}: release '{}' would hold none of them, so it was not recorded (an empty release would be the latest); to give them that label: {rename}",
            s.release
        );
    }
    if s.already_stored > 0 {
        eprintln!(
            "  {} runs were already stored (batch {}), read from another place with the same content: not stored again",
            s.already_stored,
            join_ids(&s.already_stored_by)
        );
    }
    if !s.stored_meanwhile_by.is_empty() {
        eprintln!(
            "  another job stored this tree's runs while this one ran (batch {}); tried again, this batch found them stored",
            join_ids(&s.stored_meanwhile_by)
        );
    }
    if !s.units_missing.is_empty() {
        let what = if s.pruned {
            "removed from the store (--prune)"
        } else {
            "kept in the store; --prune removes them"
        };
        eprintln!(
            "note: {} previously ingested run directories or files are gone from disk: {what}",
            s.units_missing.len()
        );
        for m in s.units_missing.iter().take(5) {
            eprintln!("  {m}");
        }
    }
    print_grading(&s.grading);
    for r in &s.reports_without_runs {
        let elsewhere = match r.releases_with_runs.as_slice() {
            [] => "the store holds no runs".to_string(),
            releases => format!("releases with runs: {}", releases.join(", ")),
        };
        eprintln!(
            "note: {} grades {} runs the store does not hold in release '{}' ({elsewhere}), and carries too little of them to define them: ingest their run folders with it, under the release it belongs to (--release).",
            r.path, r.results, s.release
        );
    }
    for n in &s.not_counted {
        eprintln!(
            "note: release '{}' of {}: {} of {} runs do not count ({}); their pairs are left out of the lift (liftdb report not-counted)",
            n.release, n.skill, n.not_counted, n.runs, n.reasons
        );
    }
    print_suspects(&s.suspect_measurements);
    if s.trigger_trace_dirs > 0 {
        eprintln!(
            "  {} trigger-run trace folders read as trigger observations (liftdb report triggers); a query no manifest names has no polarity: ingest the manifest with them",
            s.trigger_trace_dirs
        );
    }
    print_layout(&s.layout);
    if !s.skipped_files.is_empty() {
        eprintln!(
            "note: {} files skipped (not a format liftdb reads)",
            s.skipped_files.len()
        );
    }
}

/// What measures nothing, one line per kind (the view lists them all): the
/// one found, or how many and the first.
fn print_suspects(suspects: &[liftdb::batch::Suspect]) {
    let mut kinds: Vec<&str> = suspects.iter().map(|m| m.kind.as_str()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    for kind in kinds {
        let of_kind: Vec<&liftdb::batch::Suspect> =
            suspects.iter().filter(|m| m.kind == kind).collect();
        let first = of_kind[0];
        let what = match kind {
            "never_triggered" => "a query that should trigger the skill never did",
            _ => "measures nothing here",
        };
        let list =
            format!("liftdb sql \"SELECT * FROM suspect_measurements WHERE kind = '{kind}'\"");
        match of_kind.len() {
            1 => eprintln!(
                "note: release '{}' of {}: {what}: {kind} ({}): {} ({list})",
                first.release, first.skill, first.subject, first.detail
            ),
            n => {
                let mut releases: Vec<&str> = of_kind.iter().map(|m| m.release.as_str()).collect();
                releases.sort_unstable();
                releases.dedup();
                // The first three named (a query cut to 60 characters).
                let named: Vec<String> = of_kind
                    .iter()
                    .take(3)
                    .map(|m| liftdb::output::cut(&m.subject, 60))
                    .collect();
                let more = if n > 3 { ", …" } else { "" };
                eprintln!(
                    "note: {n} × {kind} in release {} ({what}): {}{more}; e.g. {}; all of them: {list}",
                    releases.join(", "),
                    named.join(", "),
                    first.detail
                );
            }
        }
    }
}

/// Which reading ingest chose where no metadata or manifest told case from model.
fn print_layout(l: &liftdb::batch::LayoutCounts) {
    if l.from_runs_root > 0 {
        eprintln!(
            "note: {} runs name no case in metadata.json and no manifest was given: read as <folder given>/<case>/[<model>/]<variant>, as skill-benchmark --runs reads that folder",
            l.from_runs_root
        );
    }
    if l.guessed > 0 {
        eprintln!(
            "note: {} runs: nothing tells <case>/<variant> from <case>/<model>/<variant> (metadata.json names neither the case folder nor the model folder, no manifest, not directly below a folder given): read as <case>/<variant>, one model. Ingest the runs root itself or the manifest with them to settle it; which: liftdb sql \"SELECT run_dir FROM run WHERE layout_reading = 'guessed'\"",
            l.guessed
        );
    }
}

/// What liftdb could grade, and the command that grades the rest.
fn print_grading(g: &liftdb::batch::GradingCounts) {
    let total = g.graded + g.no_manifest + g.scripts_not_run + g.unavailable;
    if total == 0 {
        return;
    }
    eprintln!(
        "  graded by liftdb: {} of {total} skill-eval-harness answer runs",
        g.graded
    );
    let notes = [
        (g.no_manifest, "runs have no manifest case to grade against; ingest the manifest with them: liftdb ingest RUNS evals/shared-benchmark.json"),
        (g.scripts_not_run, "runs have script assertions that failed unrun (as skill-benchmark without --allow-scripts); to run them: liftdb ingest RUNS MANIFEST --allow-scripts"),
        (g.unavailable, "runs have a verdict liftdb cannot give exactly; their rates are NULL unless a skill-benchmark report is ingested for them. Which and why: liftdb sql \"SELECT r.run_dir, a.name, a.evidence FROM assertion_result a JOIN run r USING (run_id) WHERE a.availability = 'unavailable'\""),
        (g.judge_deferred, "runs have judge assertions without stored verdicts (no row, as in the harness); ingest the judge results with them to merge their verdicts"),
        (g.phantoms, "requested variants have no run directory: recorded as missing runs (unscorable), as skill-benchmark counts them"),
    ];
    for (n, what) in notes.into_iter().filter(|(n, _)| *n > 0) {
        eprintln!("note: {n} {what}");
    }
}

fn join_ids(ids: &[i64]) -> String {
    ids.iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
