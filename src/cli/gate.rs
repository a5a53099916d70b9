//! `liftdb gate`: pass or fail a release in CI. Exit 0 when every check
//! passes, 1 when one fails, 2 when one cannot be decided (or the gate
//! cannot run: no such release).

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::{Args, ValueEnum};
use duckdb::arrow::array::{ArrayRef, RecordBatch, StringArray};
use duckdb::arrow::datatypes::{DataType, Field, Schema};
use liftdb::gate::{self, GateSpec, Outcome, Verdict};
use liftdb::output::{self, Format, ResultSet};
use liftdb::store::Location;

#[derive(Args, Debug)]
pub struct GateArgs {
    /// The release gated, its skill and split.
    #[command(flatten)]
    pub scope: super::ReleaseScope,
    /// The release it is compared with (default: the one before it).
    #[arg(long)]
    pub baseline: Option<String>,
    /// Each skill's release lift must be at least D.
    #[arg(long, value_name = "D", allow_negative_numbers = true)]
    pub min_lift: Option<f64>,
    /// --min-lift also needs the lift's sign-flip p at most --alpha.
    #[arg(long)]
    pub significant: bool,
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
    /// Fail when any case has one of these findings (comma-separated):
    /// saturated, forgettable, no-lift, with-skill-failed, flaky, critical,
    /// below-reference-floor, floor; or a preset: measurement, outcome, all.
    #[arg(long, value_name = "FINDINGS", value_delimiter = ',')]
    pub fail_on: Vec<String>,
    /// Significance level (default 0.05).
    #[arg(long)]
    pub alpha: Option<f64>,
    /// A gate file (TOML) holding these settings, e.g. `min-lift = 0.1`;
    /// flags given on the command line win.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// How the verdict is written (default: a table).
    #[arg(long, value_enum)]
    pub format: Option<GateFormat>,
    /// Also write the checks as JUnit XML (one test case per check).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GateFormat {
    Table,
    Markdown,
    Json,
}

/// The gate file's settings, the command line's over them.
fn spec(args: &GateArgs) -> anyhow::Result<GateSpec> {
    let mut spec: GateSpec = match &args.config {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            toml::from_str(&text).with_context(|| {
                format!(
                    "{}: not a gate file (keys: release, baseline, skill, split, min-lift, significant, non-inferiority-margin, no-significant-regression, max-invalid-rate, fail-on, alpha)",
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
    spec.min_lift = args.min_lift.or(spec.min_lift);
    spec.non_inferiority_margin = args.non_inferiority_margin.or(spec.non_inferiority_margin);
    spec.alpha = args.alpha.or(spec.alpha);
    spec.max_invalid_rate = args.max_invalid_rate.or(spec.max_invalid_rate);
    spec.significant |= args.significant;
    spec.no_significant_regression |= args.no_significant_regression;
    if !args.fail_on.is_empty() {
        spec.fail_on.clone_from(&args.fail_on);
    }
    Ok(spec)
}

pub fn run(db: &Location, args: &GateArgs) -> anyhow::Result<i32> {
    let spec = spec(args)?;
    let store = super::open_read_after_upkeep(db)?;
    let verdict = gate::evaluate(&store.conn, &spec)?;
    if let Some(path) = &args.junit {
        std::fs::write(path, junit(&verdict)?)
            .with_context(|| format!("writing {}", path.display()))?;
    }
    let mut out = std::io::stdout().lock();
    use std::io::Write;
    match args.format.unwrap_or(GateFormat::Table) {
        GateFormat::Json => {
            let mut value = serde_json::to_value(&verdict)?;
            value["exit_code"] = verdict.exit_code().into();
            writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
        }
        GateFormat::Markdown => {
            writeln!(
                out,
                "### liftdb gate: {}\n\n{}\n",
                summary(&verdict),
                heading(&verdict)
            )?;
            output::render_with(
                &table(&verdict)?,
                Format::Markdown,
                &Default::default(),
                &mut out,
            )?;
        }
        GateFormat::Table => {
            // Each check on its own lines, its figures whole (a table would
            // cut them to fit).
            let width = output::terminal_width().unwrap_or(0);
            writeln!(out, "{}", heading(&verdict))?;
            for c in &verdict.checks {
                let head = format!("{:<9}  {} ({})", c.outcome.word(), c.check, c.skill);
                writeln!(out, "  {head}")?;
                let to_decide = c.more_runs.iter().map(|m| format!("to decide: {m}"));
                for part in [
                    format!("measured: {}", c.measured),
                    format!("required: {}", c.required),
                ]
                .into_iter()
                .chain(to_decide)
                {
                    for line in output::wrap(&part, width.saturating_sub(13), 0) {
                        writeln!(out, "             {line}")?;
                    }
                }
            }
            writeln!(out, "{}", summary(&verdict))?;
        }
    }
    Ok(verdict.exit_code())
}

fn heading(v: &Verdict) -> String {
    let against = v
        .baseline
        .as_deref()
        .map(|b| format!(" against {b}"))
        .unwrap_or_default();
    format!("release {}{against}, split {}", v.release, v.split)
}

fn summary(v: &Verdict) -> String {
    let count = |o: Outcome| v.checks.iter().filter(|c| c.outcome == o).count();
    let (pass, fail, undecided) = (
        count(Outcome::Pass),
        count(Outcome::Fail),
        count(Outcome::Undecided),
    );
    match v.exit_code() {
        0 => format!("passed: {pass} of {} checks", v.checks.len()),
        1 => format!(
            "FAILED: {fail} of {} checks failed ({undecided} undecided)",
            v.checks.len()
        ),
        _ => format!(
            "undecided: {undecided} of {} checks could not be decided ({pass} passed)",
            v.checks.len()
        ),
    }
}

/// The checks as a result (check, skill, outcome, measured, required,
/// to_decide).
fn table(v: &Verdict) -> anyhow::Result<ResultSet> {
    let columns: [(&str, Vec<String>); 6] = [
        ("check", v.checks.iter().map(|c| c.check.clone()).collect()),
        ("skill", v.checks.iter().map(|c| c.skill.clone()).collect()),
        (
            "outcome",
            v.checks
                .iter()
                .map(|c| c.outcome.word().to_string())
                .collect(),
        ),
        (
            "measured",
            v.checks.iter().map(|c| c.measured.clone()).collect(),
        ),
        (
            "required",
            v.checks.iter().map(|c| c.required.clone()).collect(),
        ),
        (
            "to_decide",
            v.checks
                .iter()
                .map(|c| c.more_runs.clone().unwrap_or_default())
                .collect(),
        ),
    ];
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(name, _)| Field::new(*name, DataType::Utf8, false))
            .collect::<Vec<_>>(),
    ));
    let arrays: Vec<ArrayRef> = columns
        .into_iter()
        .map(|(_, values)| Arc::new(StringArray::from(values)) as ArrayRef)
        .collect();
    let batch = RecordBatch::try_new(schema.clone(), arrays)?;
    Ok(ResultSet {
        schema,
        batches: vec![batch],
    })
}

/// One test suite for the release, one test case per check: a failed
/// check is a failure, an undecided one an error, each with its figures.
fn junit(v: &Verdict) -> anyhow::Result<String> {
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
    let mut report = Report::new("liftdb gate");
    let mut suite = TestSuite::new(heading(v));
    for c in &v.checks {
        let mut status = match c.outcome {
            Outcome::Pass => TestCaseStatus::success(),
            Outcome::Fail => TestCaseStatus::non_success(NonSuccessKind::Failure),
            Outcome::Undecided => TestCaseStatus::non_success(NonSuccessKind::Error),
        };
        if c.outcome != Outcome::Pass {
            status.set_message(format!("{}: {}", c.outcome.word(), c.measured));
            status.set_description(match &c.more_runs {
                Some(m) => format!("required: {}; to decide: {m}", c.required),
                None => format!("required: {}", c.required),
            });
        }
        let mut case = TestCase::new(format!("{} ({})", c.check, c.skill), status);
        case.set_classname(format!("liftdb.gate.{}", c.check));
        case.set_system_out(format!(
            "measured: {}\nrequired: {}",
            c.measured, c.required
        ));
        suite.add_test_case(case);
    }
    report.add_test_suite(suite);
    Ok(report.to_string()?)
}
