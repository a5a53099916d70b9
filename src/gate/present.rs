//! The gate's verdict as a reader or a CI system takes it, one path for
//! `liftdb gate` and the shell's `.gate`: each check on its own lines for
//! a terminal, the checks as rows (CSV, Markdown, through the shared
//! renderer), the verdict as JSON, GitHub workflow annotations, JUnit XML.

use std::io::Write;
use std::sync::Arc;

use duckdb::arrow::array::{ArrayRef, RecordBatch, StringArray};
use duckdb::arrow::datatypes::{DataType, Field, Schema};

use super::{Check, Finding, Outcome, UndecidedAs, Verdict};
use crate::exit;
use crate::output::{self, Format, ResultSet};

/// How a verdict is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GateFormat {
    Table,
    Markdown,
    Csv,
    Json,
    Github,
}

/// The verdict in `format`, tables fitted to `width` (0: not fitted).
pub fn write(
    verdict: &Verdict,
    format: GateFormat,
    width: usize,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    match format {
        GateFormat::Json => {
            let mut value = serde_json::to_value(verdict)?;
            value["exit_code"] = verdict.exit_code().into();
            writeln!(out, "{}", serde_json::to_string_pretty(&value)?)
        }
        GateFormat::Markdown => out.write_all(markdown(verdict)?.as_bytes()),
        GateFormat::Csv => {
            output::render_with(&table(verdict)?, Format::Csv, &Default::default(), out)
        }
        GateFormat::Github => {
            for line in github(verdict) {
                writeln!(out, "{line}")?;
            }
            Ok(())
        }
        GateFormat::Table => text(verdict, width, out),
    }
}

/// Each check on its own lines, its figures whole (a table would cut them
/// to fit), each finding with its arm.
pub fn text(verdict: &Verdict, width: usize, out: &mut dyn Write) -> std::io::Result<()> {
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
fn name(c: &Check) -> String {
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
        exit::SUCCESS if undecided > 0 => format!(
            "passed: {pass} of {n} checks passed, {undecided} undecided counted as passing (--undecided pass); exit 0"
        ),
        exit::SUCCESS => format!("passed: {pass} of {n} checks; exit 0"),
        exit::FAILED => format!(
            "FAILED: {} of {n} checks failed ({undecided} undecided{}); exit 1",
            fail + if fail == 0 { undecided } else { 0 },
            if fail == 0 { ", counted as failing: --undecided fail" } else { "" }
        ),
        exit::ERROR => format!(
            "ERROR: {error} of {n} checks met an error ({fail} failed, {undecided} undecided); exit {code}"
        ),
        _ => format!(
            "undecided: {undecided} of {n} checks could not be decided ({pass} passed); exit {code}"
        ),
    }
}

/// The checks as a result (check, skill, experiment, arm, outcome, measured,
/// required, to_decide): one presenter for CSV and Markdown.
pub fn table(v: &Verdict) -> std::io::Result<ResultSet> {
    let column = |f: &dyn Fn(&Check) -> String| -> Vec<String> { v.checks.iter().map(f).collect() };
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
fn text_columns(columns: Vec<(&str, Vec<String>)>) -> std::io::Result<ResultSet> {
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
    let batch = RecordBatch::try_new(schema.clone(), arrays).map_err(std::io::Error::other)?;
    Ok(ResultSet {
        schema,
        batches: vec![batch],
    })
}

/// The findings of every fail-on check as a result (skill, experiments,
/// case, finding, arm, counted, label).
fn findings_table(v: &Verdict) -> std::io::Result<Option<ResultSet>> {
    let rows: Vec<(&Check, &Finding)> = v
        .checks
        .iter()
        .flat_map(|c| c.findings.iter().map(move |f| (c, f)))
        .collect();
    if rows.is_empty() {
        return Ok(None);
    }
    let column = |f: &dyn Fn(&Check, &Finding) -> String| -> Vec<String> {
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
pub fn markdown(v: &Verdict) -> std::io::Result<String> {
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
    String::from_utf8(out).map_err(std::io::Error::other)
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
pub fn github(v: &Verdict) -> Vec<String> {
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
            exit::SUCCESS => "notice",
            exit::UNDECIDED => "warning",
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
pub fn junit(v: &Verdict) -> std::io::Result<String> {
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
    report.to_string().map_err(std::io::Error::other)
}
