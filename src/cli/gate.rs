//! `liftdb gate`: pass or fail a release in CI. Exit 0 pass, 1 fail, 2 error
//! (usage, store, configuration, or `--infra-errors error` met), 3 undecided
//! (`--undecided` maps it).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, ValueEnum};
use liftdb::gate::present::{self, GateFormat};
use liftdb::gate::{self, GateSpec, InfraErrors, UndecidedAs};
use liftdb::store::Location;

#[derive(Args, Debug)]
pub struct GateArgs {
    /// The release gated, its skill and split.
    #[command(flatten)]
    pub scope: super::ReleaseScope,
    /// One experiment (a handbook run id, a seh runs root …), or `all`:
    /// each decided on its own. Default: pooled where the experiments pool.
    #[arg(long, value_name = "NAME|all")]
    pub experiment: Option<String>,
    /// The release it is compared with (default: the one before it).
    #[arg(long)]
    pub baseline: Option<String>,
    /// Each skill's release lift must be at least D.
    #[arg(long, value_name = "D", allow_negative_numbers = true)]
    pub min_lift: Option<f64>,
    /// --min-lift also needs the lift significant: its sign-flip p (for a
    /// sampled test, past 14 units, its upper bound) at most --alpha.
    #[arg(long)]
    pub significant: bool,
    /// Decide min-lift, non-inferiority and regression by anytime-valid
    /// tests: honest however often the gate runs as runs accumulate.
    #[arg(long)]
    pub sequential: bool,
    /// The release may be worse than its baseline by at most M: the lower
    /// 95% bound of the change over matched (case, model) units >= -M.
    #[arg(long, value_name = "M")]
    pub non_inferiority_margin: Option<f64>,
    /// No case may regress significantly against the baseline
    /// (Benjamini–Hochberg across the cases).
    #[arg(long)]
    pub no_significant_regression: bool,
    /// In every arm, the share of runs that do not count (not scorable:
    /// no output, or not executed validly) may be at most R.
    #[arg(long, value_name = "R")]
    pub max_invalid_rate: Option<f64>,
    /// Fail when a case has one of these findings (comma-separated):
    /// saturated, forgettable, no-lift, with-skill-failed, flaky, critical,
    /// below-reference-floor, floor; or a preset: measurement, outcome, all.
    /// Each counts with_skill (and paired) findings; FINDING:any counts
    /// every arm's, FINDING:ARM one arm's.
    #[arg(long, value_name = "FINDINGS", value_delimiter = ',')]
    pub fail_on: Vec<String>,
    /// What runs failed by their infrastructure, and tool runs that ended
    /// before their report, do: error (exit 2), fail, ignore (noted).
    #[arg(long, value_enum, value_name = "POLICY")]
    pub infra_errors: Option<InfraPolicy>,
    /// What an undecided check exits with (default: 3).
    #[arg(long, value_enum, value_name = "AS")]
    pub undecided: Option<UndecidedPolicy>,
    /// Significance level (default 0.05), for each skill's checks.
    #[arg(long)]
    pub alpha: Option<f64>,
    /// With several skills gated, α covers them all: each skill's checks at
    /// α divided by the number of skills (Bonferroni).
    #[arg(long)]
    pub family_wise: bool,
    /// A gate file (TOML) holding these settings, e.g. `min-lift = 0.1`;
    /// flags given on the command line win.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// How the verdict is written: table (default), markdown, csv, json, or
    /// github (workflow annotations; the markdown also goes to
    /// $GITHUB_STEP_SUMMARY when it is set).
    #[arg(long, value_enum)]
    pub format: Option<GateFormat>,
    /// Write the verdict to this file instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Wrap the table's text to N columns (0 = no wrapping). Default: the
    /// terminal's width.
    #[arg(long, value_name = "N")]
    pub max_width: Option<usize>,
    /// Also write the checks as JUnit XML (one test case per check and per
    /// finding, each with its arm).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InfraPolicy {
    Error,
    Fail,
    Ignore,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UndecidedPolicy {
    Pass,
    Fail,
    Error,
}

const GATE_FILE_KEYS: &str = "release, baseline, skill, split, experiment, min-lift, significant, sequential, non-inferiority-margin, no-significant-regression, max-invalid-rate, fail-on, alpha, family-wise, undecided, infra-errors";

/// The gate file's settings, the command line's over them.
fn spec(args: &GateArgs) -> anyhow::Result<GateSpec> {
    let mut spec: GateSpec = match &args.config {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            toml::from_str(&text).with_context(|| {
                format!(
                    "{}: not a gate file (keys: {GATE_FILE_KEYS})",
                    path.display()
                )
            })?
        }
        None => GateSpec::default(),
    };
    let over = |flag: &Option<String>, field: &mut Option<String>| {
        if flag.is_some() {
            field.clone_from(flag);
        }
    };
    over(&args.scope.release, &mut spec.release);
    over(&args.baseline, &mut spec.baseline);
    over(&args.scope.skill, &mut spec.skill);
    over(&args.scope.split, &mut spec.split);
    over(&args.experiment, &mut spec.experiment);
    spec.min_lift = args.min_lift.or(spec.min_lift);
    spec.non_inferiority_margin = args.non_inferiority_margin.or(spec.non_inferiority_margin);
    spec.alpha = args.alpha.or(spec.alpha);
    spec.max_invalid_rate = args.max_invalid_rate.or(spec.max_invalid_rate);
    spec.significant |= args.significant;
    spec.sequential |= args.sequential;
    spec.family_wise |= args.family_wise;
    spec.no_significant_regression |= args.no_significant_regression;
    if !args.fail_on.is_empty() {
        spec.fail_on.clone_from(&args.fail_on);
    }
    if let Some(p) = args.infra_errors {
        spec.infra_errors = Some(match p {
            InfraPolicy::Error => InfraErrors::Error,
            InfraPolicy::Fail => InfraErrors::Fail,
            InfraPolicy::Ignore => InfraErrors::Ignore,
        });
    }
    if let Some(u) = args.undecided {
        spec.undecided = Some(match u {
            UndecidedPolicy::Pass => UndecidedAs::Pass,
            UndecidedPolicy::Fail => UndecidedAs::Fail,
            UndecidedPolicy::Error => UndecidedAs::Error,
        });
    }
    Ok(spec)
}

pub fn run(db: &Location, args: &GateArgs) -> anyhow::Result<i32> {
    let spec = spec(args)?;
    let store = super::open_read_after_upkeep(db)?;
    let verdict = gate::evaluate(&store.conn, &spec)?;
    if let Some(path) = &args.junit {
        std::fs::write(path, present::junit(&verdict)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let format = args.format.unwrap_or(GateFormat::Table);
    if format == GateFormat::Github {
        if let Some(summary) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|s| !s.is_empty()) {
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&summary)
                .with_context(|| {
                    format!(
                        "appending to $GITHUB_STEP_SUMMARY ({})",
                        PathBuf::from(&summary).display()
                    )
                })?;
            file.write_all(present::markdown(&verdict)?.as_bytes())?;
        }
    }
    let output = super::OutputArgs {
        format: None,
        out: args.out.clone(),
        max_width: args.max_width,
    };
    let width = output.render_written().fit.max_width;
    output.emit_streamed(|out| {
        present::write(&verdict, format, width, out)?;
        Ok(verdict.checks.len())
    })?;
    Ok(verdict.exit_code())
}
