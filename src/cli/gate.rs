//! `liftdb gate`: pass or fail a release in CI. Exit 0 pass, 1 fail, 2 error
//! (usage, store, configuration, or `--infra-errors error` met), 3 undecided
//! (`--undecided` maps it).

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::{Args, ValueEnum};
use duckdb::arrow::array::{ArrayRef, RecordBatch, StringArray};
use duckdb::arrow::datatypes::{DataType, Field, Schema};
use liftdb::gate::{self, GateSpec, InfraErrors, Outcome, UndecidedAs, Verdict};
use liftdb::output::{self, Format, ResultSet};
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
    /// --min-lift also needs the lift's sign-flip p at most --alpha.
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
pub enum GateFormat {
    Table,
    Markdown,
    Csv,
    Json,
    Github,
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
        std::fs::write(path, junit(&verdict)?)
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
            file.write_all(markdown(&verdict)?.as_bytes())?;
        }
    }
    let output = super::OutputArgs {
        format: None,
        out: args.out.clone(),
        max_width: args.max_width,
    };
    let width = output.render_written().fit.max_width;
    output.emit_streamed(|out| {
        match format {
            GateFormat::Json => {
                let mut value = serde_json::to_value(&verdict)?;
                value["exit_code"] = verdict.exit_code().into();
                writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
            }
            GateFormat::Markdown => out.write_all(markdown(&verdict)?.as_bytes())?,
            GateFormat::Csv => {
                output::render_with(&table(&verdict)?, Format::Csv, &Default::default(), out)?
            }
            GateFormat::Github => {
                for line in github(&verdict) {
                    writeln!(out, "{line}")?;
                }
            }
            GateFormat::Table => text(&verdict, width, out)?,
        }
        Ok(verdict.checks.len())
    })?;
    Ok(verdict.exit_code())
}

/// Each check on its own lines, its figures whole (a table would cut them
/// to fit), each finding with its arm.
fn text(verdict: &Verdict, width: usize, out: &mut dyn Write) -> anyhow::Result<()> {
    writeln!(out, "{}", heading(verdict))?;
    for c in &verdict.checks {
        let head = format!("{:<9}  {}", c.outcome.word(), name(c));
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
    for note in &verdict.notes {
        for line in output::wrap(&format!("note: {note}"), width, 0) {
            writeln!(out, "{line}")?;
        }
    }
    writeln!(out, "{}", summary(verdict))?;
    Ok(())
}

/// A check's name: what, of which skill, in which experiment.
fn name(c: &gate::Check) -> String {
    match &c.experiment {
        Some(e) => format!("{} ({}, experiment {e})", c.check, c.skill),
        None => format!("{} ({})", c.check, c.skill),
    }
}

fn heading(v: &Verdict) -> String {
    let against = v
        .baseline
        .as_deref()
        .map(|b| format!(" against {b}"))
        .unwrap_or_default();
    let sequential = if v.sequential { ", sequential" } else { "" };
    format!(
        "release {}{against}, split {}, {}{sequential}",
        v.release, v.split, v.experiments
    )
}

fn summary(v: &Verdict) -> String {
    let (pass, fail, undecided, error) = (
        v.count(Outcome::Pass),
        v.count(Outcome::Fail),
        v.count(Outcome::Undecided),
        v.count(Outcome::Error),
    );
    let n = v.checks.len();
    let code = v.exit_code();
    match v.exit_code() {
        gate::exit::PASS if undecided > 0 => format!(
            "passed: {pass} of {n} checks passed, {undecided} undecided counted as passing (--undecided pass); exit 0"
        ),
        gate::exit::PASS => format!("passed: {pass} of {n} checks; exit 0"),
        gate::exit::FAIL => format!(
            "FAILED: {} of {n} checks failed ({undecided} undecided{}); exit 1",
            fail + if fail == 0 { undecided } else { 0 },
            if fail == 0 { ", counted as failing: --undecided fail" } else { "" }
        ),
        gate::exit::ERROR => format!(
            "ERROR: {error} of {n} checks met an error ({fail} failed, {undecided} undecided); exit {code}"
        ),
        _ => format!(
            "undecided: {undecided} of {n} checks could not be decided ({pass} passed); exit {code}"
        ),
    }
}

/// The checks as a result (check, skill, experiment, arm, outcome, measured,
/// required, to_decide): one presenter for CSV and Markdown.
fn table(v: &Verdict) -> anyhow::Result<ResultSet> {
    let column =
        |f: &dyn Fn(&gate::Check) -> String| -> Vec<String> { v.checks.iter().map(f).collect() };
    let columns: [(&str, Vec<String>); 8] = [
        ("check", column(&|c| c.check.clone())),
        ("skill", column(&|c| c.skill.clone())),
        (
            "experiment",
            column(&|c| c.experiment.clone().unwrap_or_default()),
        ),
        ("arm", column(&|c| c.arm.clone())),
        ("outcome", column(&|c| c.outcome.word().to_string())),
        ("measured", column(&|c| c.measured.clone())),
        ("required", column(&|c| c.required.clone())),
        (
            "to_decide",
            column(&|c| c.more_runs.clone().unwrap_or_default()),
        ),
    ];
    text_columns(columns.into())
}

/// Columns of text as a result, in order.
fn text_columns(columns: Vec<(&str, Vec<String>)>) -> anyhow::Result<ResultSet> {
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

/// The findings of every fail-on check as a result (skill, experiments,
/// case, finding, arm, counted, label).
fn findings_table(v: &Verdict) -> anyhow::Result<Option<ResultSet>> {
    let rows: Vec<(&gate::Check, &gate::Finding)> = v
        .checks
        .iter()
        .flat_map(|c| c.findings.iter().map(move |f| (c, f)))
        .collect();
    if rows.is_empty() {
        return Ok(None);
    }
    let column = |f: &dyn Fn(&gate::Check, &gate::Finding) -> String| -> Vec<String> {
        rows.iter().map(|(c, x)| f(c, x)).collect()
    };
    let columns: [(&str, Vec<String>); 7] = [
        ("skill", column(&|c, _| c.skill.clone())),
        ("experiments", column(&|_, f| f.experiments.join(", "))),
        ("case", column(&|_, f| f.case.clone())),
        ("finding", column(&|_, f| f.finding.clone())),
        ("arm", column(&|_, f| f.arm.clone())),
        (
            "counted",
            column(&|_, f| {
                if f.counted {
                    "yes".into()
                } else {
                    "no (arm not asked for)".into()
                }
            }),
        ),
        ("label", column(&|_, f| f.label.clone())),
    ];
    text_columns(columns.into()).map(Some)
}

/// The verdict in Markdown: its summary, the checks, the findings, the notes.
fn markdown(v: &Verdict) -> anyhow::Result<String> {
    let mut out = Vec::new();
    writeln!(out, "### liftdb gate: {}\n\n{}\n", summary(v), heading(v))?;
    output::render_with(&table(v)?, Format::Markdown, &Default::default(), &mut out)?;
    if let Some(findings) = findings_table(v)? {
        writeln!(out, "\nFindings, each with its arm:\n")?;
        output::render_with(&findings, Format::Markdown, &Default::default(), &mut out)?;
    }
    for note in &v.notes {
        writeln!(out, "\nNote: {note}")?;
    }
    writeln!(out)?;
    Ok(String::from_utf8(out)?)
}

/// GitHub's workflow-command escaping: of a message (`%`, CR, LF), and of a
/// property value (also `:` and `,`).
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One workflow annotation per check and per finding: `::error` for a
/// failure or an error, `::warning` for an undecided check, `::notice` for a
/// pass and a finding not counted.
fn github(v: &Verdict) -> Vec<String> {
    let annotation = |level: &str, title: &str, message: &str| {
        format!(
            "::{level} title={}::{}",
            escape_property(title),
            escape_data(message)
        )
    };
    let mut lines = Vec::new();
    for c in &v.checks {
        let level = match c.outcome {
            Outcome::Fail | Outcome::Error => "error",
            Outcome::Undecided => "warning",
            Outcome::Pass => "notice",
        };
        let to_decide = c
            .more_runs
            .as_ref()
            .map(|m| format!("; to decide: {m}"))
            .unwrap_or_default();
        lines.push(annotation(
            level,
            &format!("liftdb gate {} {}", c.outcome.word(), name(c)),
            &format!(
                "[arm: {}] measured: {}; required: {}{to_decide}",
                c.arm, c.measured, c.required
            ),
        ));
        for f in &c.findings {
            let level = match (f.counted, c.outcome) {
                (true, Outcome::Fail) => "error",
                _ => "notice",
            };
            lines.push(annotation(
                level,
                &format!(
                    "liftdb gate finding {} ({}) case {}",
                    f.finding, c.skill, f.case
                ),
                &format!(
                    "[arm: {}] {}{}{}",
                    f.arm,
                    f.label,
                    match f.experiments.is_empty() {
                        true => String::new(),
                        false => format!(" (in {})", f.experiments.join(", ")),
                    },
                    if f.counted {
                        ""
                    } else {
                        " (not counted: an arm the gate was not asked to count)"
                    }
                ),
            ));
        }
    }
    for note in &v.notes {
        lines.push(annotation("notice", "liftdb gate note", note));
    }
    lines.push(annotation(
        match v.exit_code() {
            gate::exit::PASS => "notice",
            gate::exit::UNDECIDED => "warning",
            _ => "error",
        },
        "liftdb gate",
        &format!("{}: {}", heading(v), summary(v)),
    ));
    lines
}

/// One test suite for the release, one test case per check and per finding
/// of a fail-on check: a failed check (or a counted finding of one) is a
/// failure, and so is an undecided check under `--undecided fail`; an
/// undecided check otherwise, or an erroring one, is an error (passed under
/// `--undecided pass`); each carries its arm (a property, and in its
/// message).
fn junit(v: &Verdict) -> anyhow::Result<String> {
    use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
    let mut report = Report::new("liftdb gate");
    let mut suite = TestSuite::new(heading(v));
    for c in &v.checks {
        let mut status = match c.outcome {
            Outcome::Pass => TestCaseStatus::success(),
            Outcome::Fail => TestCaseStatus::non_success(NonSuccessKind::Failure),
            Outcome::Undecided => match v.undecided_as {
                Some(UndecidedAs::Fail) => TestCaseStatus::non_success(NonSuccessKind::Failure),
                Some(UndecidedAs::Pass) => TestCaseStatus::success(),
                _ => TestCaseStatus::non_success(NonSuccessKind::Error),
            },
            Outcome::Error => TestCaseStatus::non_success(NonSuccessKind::Error),
        };
        if c.outcome != Outcome::Pass {
            status.set_message(format!(
                "{} [arm: {}]: {}",
                c.outcome.word(),
                c.arm,
                c.measured
            ));
            status.set_description(match &c.more_runs {
                Some(m) => format!("required: {}; to decide: {m}", c.required),
                None => format!("required: {}", c.required),
            });
        }
        let mut case = TestCase::new(name(c), status);
        case.set_classname(format!("liftdb.gate.{}", c.check));
        case.add_property(Property::new("arm", c.arm.clone()));
        case.set_system_out(format!(
            "arm: {}\nmeasured: {}\nrequired: {}",
            c.arm, c.measured, c.required
        ));
        suite.add_test_case(case);
        for f in &c.findings {
            let mut status = match (f.counted, c.outcome) {
                (true, Outcome::Fail) => {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    s.set_message(format!("{} [arm: {}]: {}", f.finding, f.arm, f.label));
                    s
                }
                _ => TestCaseStatus::success(),
            };
            if !f.counted {
                status = TestCaseStatus::success();
            }
            let mut case = TestCase::new(
                format!(
                    "{} ({}) case {} [arm: {}]",
                    f.finding, c.skill, f.case, f.arm
                ),
                status,
            );
            case.set_classname("liftdb.gate.finding");
            case.add_property(Property::new("arm", f.arm.clone()));
            case.add_property(Property::new("counted", f.counted.to_string()));
            case.set_system_out(format!(
                "arm: {}\nlabel: {}\nexperiments: {}\ncounted: {}",
                f.arm,
                f.label,
                f.experiments.join(", "),
                f.counted
            ));
            suite.add_test_case(case);
        }
    }
    report.add_test_suite(suite);
    Ok(report.to_string()?)
}
