//! `liftdb gate`: the checks a CI job passes or fails a release on, each
//! named, measured and decided (its queries: `sql/gate/*.sql`):
//!
//! - `min-lift`: each skill's release lift at least D (and, asked, its
//!   sign-flip p at most α);
//! - `non-inferiority`: the release no worse than its baseline by more than
//!   M: the lower bound of the 95% interval (sign-flip test inversion, as
//!   the lift's) of the mean change over the (case, model) units both
//!   releases hold is at least −M;
//! - `no-significant-regression`: no case whose change over its matched
//!   units is negative with a Benjamini–Hochberg q (across the skill's
//!   cases) at most α;
//! - `max-invalid-rate`: in every arm, the share of runs that do not count
//!   (not_counted_runs) at most R;
//! - `fail-on`: no case with a finding asked for (the harness's case flags,
//!   by name or preset: `FINDINGS`, `PRESETS`).
//!
//! A check that cannot be decided (no such release, no baseline, no paired
//! unit, too few units to bound an interval) is `undecided` with the reason:
//! never a silent pass.

use std::collections::BTreeMap;

use duckdb::Connection;

use crate::report::{query, Filters};
use crate::sqlfiles::GATE_QUERIES;
use crate::stats::multiple::benjamini_hochberg;
use crate::stats::{interval, sign_flip};
use crate::{Error, Result};

/// What a gate checks.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct GateSpec {
    /// The release gated (default: the latest).
    pub release: Option<String>,
    /// The release it is compared with (default: the one before it).
    pub baseline: Option<String>,
    pub skill: Option<String>,
    /// One split (default: every split pooled).
    pub split: Option<String>,
    pub min_lift: Option<f64>,
    /// `min-lift` also needs its sign-flip p at most `alpha`.
    #[serde(default)]
    pub significant: bool,
    pub non_inferiority_margin: Option<f64>,
    #[serde(default)]
    pub no_significant_regression: bool,
    /// The largest share of an arm's runs that may not count.
    pub max_invalid_rate: Option<f64>,
    /// Case findings (or presets of them) that fail the gate when any case
    /// has one (`FINDINGS`, `PRESETS`).
    #[serde(default)]
    pub fail_on: Vec<String>,
    /// Significance level (default 0.05).
    pub alpha: Option<f64>,
}

/// The findings `--fail-on` names, each with the harness label it matches
/// (case_flags: an exact label, or the part before ": "); `floor` is
/// the harness's later "floor: fails in both arms" (0.6.0 has no such
/// label), read from the rates: both arms 0.
pub const FINDINGS: &[(&str, &str)] = &[
    ("saturated", "saturated/non-discriminating"),
    ("forgettable", "structurally-pass-but-forgettable"),
    ("no-lift", "no objective lift"),
    ("with-skill-failed", "with-skill failure"),
    ("flaky", "flaky repeated pass rates"),
    ("critical", "critical-failure"),
    ("below-reference-floor", "below-reference-floor"),
    ("floor", "floor: fails in both arms"),
];

/// Named sets of findings: what measures nothing, what the skill got wrong.
pub const PRESETS: &[(&str, &[&str])] = &[
    ("measurement", &["saturated", "forgettable", "floor"]),
    (
        "outcome",
        &["no-lift", "with-skill-failed", "critical", "flaky"],
    ),
    (
        "all",
        &[
            "saturated",
            "forgettable",
            "no-lift",
            "with-skill-failed",
            "flaky",
            "critical",
            "below-reference-floor",
            "floor",
        ],
    ),
];

/// The findings `names` asks for, presets expanded, in FINDINGS order.
pub fn findings_asked(names: &[String]) -> Result<Vec<&'static str>> {
    let mut asked = Vec::new();
    for name in names {
        let name = name.trim();
        if let Some((_, set)) = PRESETS.iter().find(|(p, _)| *p == name) {
            asked.extend(set.iter().copied());
        } else if let Some((f, _)) = FINDINGS.iter().find(|(f, _)| *f == name) {
            asked.push(*f);
        } else {
            return Err(Error::Invalid(format!(
                "--fail-on {name}: no such finding; hint: findings {}; presets {}",
                FINDINGS
                    .iter()
                    .map(|(f, _)| *f)
                    .collect::<Vec<_>>()
                    .join(", "),
                PRESETS
                    .iter()
                    .map(|(p, set)| format!("{p} ({})", set.join(", ")))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    Ok(FINDINGS
        .iter()
        .map(|(f, _)| *f)
        .filter(|f| asked.contains(f))
        .collect())
}

impl GateSpec {
    pub fn alpha(&self) -> f64 {
        self.alpha.unwrap_or(0.05)
    }

    fn checks_asked(&self) -> bool {
        self.min_lift.is_some()
            || self.non_inferiority_margin.is_some()
            || self.no_significant_regression
            || self.max_invalid_rate.is_some()
            || !self.fail_on.is_empty()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Pass,
    Fail,
    Undecided,
}

impl Outcome {
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "FAIL",
            Outcome::Undecided => "undecided",
        }
    }
}

/// One check of one skill: what was measured against what was required.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Check {
    pub check: String,
    pub skill: String,
    pub outcome: Outcome,
    /// The figures measured, in words.
    pub measured: String,
    /// What the check requires.
    pub required: String,
    /// When the check could not decide (or missed significance only): how
    /// many runs would give it 80% power, from `liftdb plan`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub more_runs: Option<String>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Verdict {
    pub release: String,
    pub baseline: Option<String>,
    pub split: String,
    pub checks: Vec<Check>,
}

impl Verdict {
    /// 1 when a check failed, else 2 when one could not be decided, else 0.
    pub fn exit_code(&self) -> i32 {
        let any = |o: Outcome| self.checks.iter().any(|c| c.outcome == o);
        match (any(Outcome::Fail), any(Outcome::Undecided)) {
            (true, _) => 1,
            (false, true) => 2,
            _ => 0,
        }
    }
}

fn sql(name: &str) -> &'static str {
    crate::sqlfiles::named(GATE_QUERIES, name)
}

fn number(row: &BTreeMap<String, Option<String>>, key: &str) -> Option<f64> {
    row.get(key)?.as_deref()?.parse().ok()
}

fn text<'a>(row: &'a BTreeMap<String, Option<String>>, key: &str) -> &'a str {
    row.get(key).and_then(|v| v.as_deref()).unwrap_or("")
}

/// Decide every check `spec` asks for.
pub fn evaluate(conn: &Connection, spec: &GateSpec) -> Result<Verdict> {
    if !spec.checks_asked() {
        return Err(Error::Invalid(
            "the gate checks nothing; hint: give --min-lift D, --non-inferiority-margin M, --no-significant-regression, --max-invalid-rate R or --fail-on FINDINGS (or a --config file with them)".into(),
        ));
    }
    let mut params = Filters::new();
    for (key, value) in [
        ("release", &spec.release),
        ("baseline", &spec.baseline),
        ("skill", &spec.skill),
        ("split", &spec.split),
    ] {
        if let Some(v) = value {
            params.insert(key.into(), v.clone());
        }
    }
    let found = query(conn, sql("releases"), &params)?.text_records();
    let found = found.first().cloned().unwrap_or_default();
    if text(&found, "release_held") != "true" {
        return Err(Error::NoSuchRelease {
            label: spec.release.clone().unwrap_or_default(),
            existing: match text(&found, "releases") {
                "" => "none".into(),
                r => r.into(),
            },
        });
    }
    let release = text(&found, "release").to_string();
    let baseline = found
        .get("baseline")
        .cloned()
        .flatten()
        .filter(|_| text(&found, "baseline_held") == "true");
    if let (Some(asked), None) = (&spec.baseline, &baseline) {
        return Err(Error::NoSuchRelease {
            label: asked.clone(),
            existing: text(&found, "releases").into(),
        });
    }
    params.insert("release".into(), release.clone());
    if let Some(b) = &baseline {
        params.insert("baseline".into(), b.clone());
    }
    let lifts = query(conn, sql("lift"), &params)?.text_records();
    let skills: Vec<String> = match &spec.skill {
        Some(s) => vec![s.clone()],
        None => lifts.iter().map(|r| text(r, "skill").to_string()).collect(),
    };
    let mut checks = Vec::new();
    if let Some(min) = spec.min_lift {
        for skill in &skills {
            let row = lifts.iter().find(|r| text(r, "skill") == skill);
            checks.push(min_lift(skill, row, min, spec));
        }
    }
    if spec.non_inferiority_margin.is_some() || spec.no_significant_regression {
        let units = match &baseline {
            Some(_) => query(conn, sql("matched_units"), &params)?.text_records(),
            None => Vec::new(),
        };
        for skill in &skills {
            let mine: Vec<_> = units.iter().filter(|u| text(u, "skill") == skill).collect();
            if let Some(margin) = spec.non_inferiority_margin {
                checks.push(non_inferiority(skill, &mine, margin, baseline.as_deref()));
            }
            if spec.no_significant_regression {
                checks.push(no_regression(
                    skill,
                    &mine,
                    spec.alpha(),
                    baseline.as_deref(),
                ));
            }
        }
    }
    if let Some(max) = spec.max_invalid_rate {
        let arms = query(conn, sql("invalid"), &params)?.text_records();
        for skill in &skills {
            let mine: Vec<_> = arms.iter().filter(|a| text(a, "skill") == skill).collect();
            checks.push(invalid_rate(skill, &mine, max));
        }
    }
    if !spec.fail_on.is_empty() {
        let asked = findings_asked(&spec.fail_on)?;
        let cases = query(conn, sql("findings"), &params)?.text_records();
        for skill in &skills {
            let mine: Vec<_> = cases.iter().filter(|c| text(c, "skill") == skill).collect();
            checks.push(findings(skill, &mine, &asked));
        }
    }
    if checks.is_empty() {
        checks.push(Check {
            check: "lift".into(),
            skill: spec.skill.clone().unwrap_or_else(|| "(any)".into()),
            outcome: Outcome::Undecided,
            measured: format!("no paired with/without runs in release {release}"),
            required: "a skill with eligible pairs".into(),
            more_runs: None,
        });
    }
    for c in &mut checks {
        // The lift a check needs to see: min-lift's D, non-inferiority's M
        // (a release as good as its baseline must bound the change above −M).
        let lift = match (c.check.as_str(), c.outcome) {
            ("min-lift", Outcome::Undecided) => spec.min_lift,
            ("min-lift", Outcome::Fail) if spec.significant && c.measured.contains("over") => {
                spec.min_lift
            }
            ("non-inferiority", Outcome::Undecided) => spec.non_inferiority_margin,
            _ => None,
        };
        if let Some(d) = lift.filter(|d| *d > 0.0) {
            c.more_runs = crate::plan::runs_to_detect(
                conn,
                &release,
                &c.skill,
                spec.split.as_deref(),
                d,
                spec.alpha(),
            )?;
        }
    }
    Ok(Verdict {
        release,
        baseline,
        split: spec.split.clone().unwrap_or_else(|| "all".into()),
        checks,
    })
}

/// The checks of `name` for `skill`, requiring `required`: each given its
/// outcome and what was measured.
fn checker(name: &'static str, skill: &str, required: String) -> impl Fn(Outcome, String) -> Check {
    let skill = skill.to_string();
    move |outcome, measured| Check {
        check: name.into(),
        skill: skill.clone(),
        outcome,
        measured,
        required: required.clone(),
        more_runs: None,
    }
}

const NO_BASELINE: &str = "no baseline release to compare with";

fn min_lift(
    skill: &str,
    row: Option<&BTreeMap<String, Option<String>>>,
    min: f64,
    spec: &GateSpec,
) -> Check {
    let alpha = spec.alpha();
    let required = match spec.significant {
        true => format!("lift >= {min} and p <= {alpha}"),
        false => format!("lift >= {min}"),
    };
    let check = checker("min-lift", skill, required);
    let Some(row) = row else {
        return check(Outcome::Undecided, "no eligible pair in the release".into());
    };
    let Some(lift) = number(row, "lift") else {
        return check(Outcome::Undecided, "no lift: no eligible pair".into());
    };
    let p = number(row, "p");
    let units = text(row, "units");
    let measured = format!(
        "lift {lift:+.4} over {units} units, p {}",
        p.map_or("not tested".into(), |p| format!("{p}"))
    );
    let enough = lift >= min - 1e-12;
    let outcome = match (enough, spec.significant, p) {
        (false, _, _) => Outcome::Fail,
        (true, false, _) => Outcome::Pass,
        (true, true, Some(p)) if p <= alpha => Outcome::Pass,
        (true, true, Some(_)) => Outcome::Fail,
        (true, true, None) => Outcome::Undecided,
    };
    check(outcome, measured)
}

/// Every arm's share of runs that do not count at most `max`; the worst
/// arm is named.
fn invalid_rate(skill: &str, arms: &[&BTreeMap<String, Option<String>>], max: f64) -> Check {
    let check = checker(
        "max-invalid-rate",
        skill,
        format!("in every arm, runs that do not count <= {max} of its runs"),
    );
    let shares: Vec<(String, f64, String)> = arms
        .iter()
        .filter_map(|a| {
            let (runs, invalid) = (number(a, "runs")?, number(a, "invalid")?);
            let reasons = match text(a, "reasons") {
                "" => String::new(),
                r => format!(": {r}"),
            };
            let said = format!(
                "{}: {invalid} of {runs} runs do not count{reasons}",
                text(a, "arm")
            );
            Some((text(a, "arm").to_string(), invalid / runs, said))
        })
        .collect();
    let Some(worst) = shares
        .iter()
        .max_by(|a, b| a.1.total_cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
    else {
        return check(Outcome::Undecided, "no runs in the release".into());
    };
    let outcome = match worst.1 <= max + 1e-12 {
        true => Outcome::Pass,
        false => Outcome::Fail,
    };
    check(outcome, format!("worst arm {} ({:.4})", worst.2, worst.1))
}

/// No case with a finding asked for; the cases that have one are named
/// with theirs (the harness's labels).
fn findings(skill: &str, cases: &[&BTreeMap<String, Option<String>>], asked: &[&str]) -> Check {
    let check = checker(
        "fail-on",
        skill,
        format!("no case with a finding of: {}", asked.join(", ")),
    );
    if cases.is_empty() {
        return check(
            Outcome::Undecided,
            "no case with an eligible pair in the release".into(),
        );
    }
    let mut found = Vec::new();
    for c in cases {
        let labels: Vec<&str> = text(c, "flags")
            .split(" | ")
            .filter(|l| !l.is_empty())
            .collect();
        let both_zero =
            number(c, "with_skill") == Some(0.0) && number(c, "without_skill") == Some(0.0);
        let hits: Vec<&str> = FINDINGS
            .iter()
            .filter(|(name, _)| asked.contains(name))
            .filter(|(name, label)| {
                let labelled = labels
                    .iter()
                    .any(|l| l == label || l.split(": ").next() == Some(*label));
                labelled || (*name == "floor" && both_zero)
            })
            .map(|(_, label)| *label)
            .collect();
        if !hits.is_empty() {
            found.push(format!("{} ({})", text(c, "case"), hits.join("; ")));
        }
    }
    match found.is_empty() {
        true => check(
            Outcome::Pass,
            format!("{} cases, none with such a finding", cases.len()),
        ),
        false => check(
            Outcome::Fail,
            format!(
                "{} of {} cases: {}",
                found.len(),
                cases.len(),
                found.join(", ")
            ),
        ),
    }
}

fn changes(units: &[&BTreeMap<String, Option<String>>]) -> Vec<f64> {
    units.iter().filter_map(|u| number(u, "change")).collect()
}

fn non_inferiority(
    skill: &str,
    units: &[&BTreeMap<String, Option<String>>],
    margin: f64,
    baseline: Option<&str>,
) -> Check {
    let check = checker(
        "non-inferiority",
        skill,
        format!("lower 95% bound of the change in lift >= -{margin}"),
    );
    let Some(baseline) = baseline else {
        return check(Outcome::Undecided, NO_BASELINE.into());
    };
    let d = changes(units);
    if d.is_empty() {
        return check(
            Outcome::Undecided,
            format!("no (case, model) unit paired in both this release and {baseline}"),
        );
    }
    let mean = d.iter().sum::<f64>() / d.len() as f64;
    let bound = interval(&d);
    match bound.lower.filter(|_| bound.bounded) {
        None => check(
            Outcome::Undecided,
            format!(
                "change {mean:+.4} over {} matched units against {baseline}: too few to bound an interval ({})",
                d.len(),
                bound.reason.unwrap_or("unbounded")
            ),
        ),
        Some(lower) => check(
            if lower >= -margin - 1e-12 { Outcome::Pass } else { Outcome::Fail },
            format!(
                "change {mean:+.4} (95% interval {lower:+.4} to {}) over {} matched units against {baseline}",
                bound.upper.map_or("?".into(), |u| format!("{u:+.4}")),
                d.len()
            ),
        ),
    }
}

fn no_regression(
    skill: &str,
    units: &[&BTreeMap<String, Option<String>>],
    alpha: f64,
    baseline: Option<&str>,
) -> Check {
    let check = checker(
        "no-significant-regression",
        skill,
        format!("no case with a negative change at Benjamini-Hochberg q <= {alpha}"),
    );
    let Some(baseline) = baseline else {
        return check(Outcome::Undecided, NO_BASELINE.into());
    };
    let mut by_case: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for u in units {
        if let Some(c) = number(u, "change") {
            by_case.entry(text(u, "case")).or_default().push(c);
        }
    }
    if by_case.is_empty() {
        return check(
            Outcome::Undecided,
            format!("no case paired in both this release and {baseline}"),
        );
    }
    let tested: Vec<(&str, f64, f64)> = by_case
        .iter()
        .map(|(case, d)| {
            let mean = d.iter().sum::<f64>() / d.len() as f64;
            let p = sign_flip(d).p_exact.unwrap_or(1.0);
            (*case, mean, p)
        })
        .collect();
    let qs = benjamini_hochberg(&tested.iter().map(|t| t.2).collect::<Vec<_>>());
    let regressed: Vec<String> = tested
        .iter()
        .zip(&qs)
        .filter(|((_, mean, _), q)| *mean < 0.0 && **q <= alpha)
        .map(|((case, mean, _), q)| format!("{case} ({mean:+.4}, q {q:.4})"))
        .collect();
    match regressed.is_empty() {
        true => check(
            Outcome::Pass,
            format!(
                "{} cases compared with {baseline}, none regressed significantly",
                tested.len()
            ),
        ),
        false => check(
            Outcome::Fail,
            format!("regressed against {baseline}: {}", regressed.join(", ")),
        ),
    }
}
