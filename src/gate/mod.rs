//! `liftdb gate`: the checks a CI job passes or fails a release on, each
//! named, measured and decided on numbers (its queries: `sql/gate/*.sql`):
//!
//! - `min-lift`: each skill's lift at least D (asked, shown significant at
//!   α; or, `--sequential`, shown above D by an anytime-valid test);
//! - `non-inferiority`: the release no worse than its baseline by more than M;
//! - `no-significant-regression`: no case significantly worse than in the
//!   baseline;
//! - `max-invalid-rate`: in every arm, the share of runs that do not count
//!   at most R;
//! - `fail-on`: no case with a finding asked for, in the arms asked for
//!   (`findings`);
//! - `infra-errors`: runs the agent's infrastructure failed, and tool runs
//!   that ended before their report.
//!
//! A check passes when the data shows the requirement met, fails only when
//! it shows it missed, and is `undecided` otherwise (an interval straddling
//! the threshold, too few units to reach α), saying how many more runs
//! would decide. A release of several experiments that do not pool is
//! decided per experiment (`--experiment NAME|all` chooses).

pub mod findings;
mod measure;
pub mod present;
pub mod rounds;
pub mod sequential;

use std::collections::BTreeMap;

use duckdb::Connection;

use crate::output::ResultSet;
use crate::report::{query, Filters};
use crate::sqlfiles::GATE_QUERIES;
use crate::{Error, Result};

pub use findings::{FINDINGS, PRESETS};

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
    /// One experiment, or `all` (each decided on its own). Default: the
    /// experiments pooled where they pool, else each on its own.
    pub experiment: Option<String>,
    pub min_lift: Option<f64>,
    /// `min-lift` also needs its sign-flip p at most `alpha`.
    #[serde(default)]
    pub significant: bool,
    /// Decide min-lift, non-inferiority and regression by anytime-valid
    /// tests: valid however often the gate is run as runs accumulate.
    #[serde(default)]
    pub sequential: bool,
    pub non_inferiority_margin: Option<f64>,
    #[serde(default)]
    pub no_significant_regression: bool,
    /// The largest share of an arm's runs that may not count.
    pub max_invalid_rate: Option<f64>,
    /// Case findings (or presets of them), each with the arms it counts
    /// (`findings::selectors`).
    #[serde(default)]
    pub fail_on: Vec<String>,
    /// Significance level (default 0.05), for each skill's checks.
    pub alpha: Option<f64>,
    /// With several skills gated, α covers them all (each skill at α/K).
    #[serde(default)]
    pub family_wise: bool,
    /// What an undecided check makes the exit code (default: undecided, 3).
    pub undecided: Option<UndecidedAs>,
    /// What infrastructure failures do (default: ignore, noted).
    pub infra_errors: Option<InfraErrors>,
}

/// The exit an undecided check gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum UndecidedAs {
    Pass,
    Fail,
    Error,
}

/// What infrastructure failures (runs the agent's runner failed, tool
/// runs that ended before their report) do to the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InfraErrors {
    /// The gate exits 2, as the handbook harness does on an adapter crash.
    Error,
    /// A failed check.
    Fail,
    /// Not decided on; noted.
    Ignore,
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
            || matches!(
                self.infra_errors,
                Some(InfraErrors::Error | InfraErrors::Fail)
            )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Pass,
    Fail,
    Undecided,
    /// The check found what the gate was told to treat as an error
    /// (`--infra-errors error`).
    Error,
}

impl Outcome {
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "FAIL",
            Outcome::Undecided => "undecided",
            Outcome::Error => "ERROR",
        }
    }
}

/// One finding of one case, with the arm it is about and whether the gate
/// counts it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Finding {
    pub case: String,
    /// liftdb's name (`FINDINGS`).
    pub finding: String,
    /// The harness's label.
    pub label: String,
    /// with_skill, without_skill, an ablation arm, or `paired`.
    pub arm: String,
    /// The experiments it was found in.
    pub experiments: Vec<String>,
    /// The gate counts it (its arm was asked for).
    pub counted: bool,
}

/// One check of one skill: what was measured against what was required.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Check {
    pub check: String,
    pub skill: String,
    /// The experiment decided on (None: the release's experiments pooled).
    pub experiment: Option<String>,
    /// The arm the check is about: `paired` for a comparison of the arms,
    /// an arm's name, or the arms of the findings counted.
    pub arm: String,
    pub outcome: Outcome,
    /// The figures measured, in words.
    pub measured: String,
    /// What the check requires.
    pub required: String,
    /// When the check could not decide: how many more runs would.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub more_runs: Option<String>,
    /// fail-on: every finding of the cases, counted or not.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<Finding>,
    /// A sequential check's test: the rounds it has seen, its bets' wealth.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sequential: Option<sequential::SequentialCheck>,
    /// How far the measured value lies from the threshold the check
    /// decides against: what more runs must resolve (`more_runs`).
    #[serde(skip)]
    pub gap: Option<f64>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Verdict {
    pub release: String,
    pub baseline: Option<String>,
    pub split: String,
    /// What was decided on: `pooled`, one experiment, or `each experiment`.
    pub experiments: String,
    pub sequential: bool,
    pub checks: Vec<Check>,
    /// What the gate noticed and did not decide on (infrastructure failures
    /// under `--infra-errors ignore`, experiments that do not pool).
    pub notes: Vec<String>,
    /// What an undecided check makes the exit code.
    #[serde(skip)]
    pub undecided_as: Option<UndecidedAs>,
}

use crate::exit;

impl Verdict {
    fn any(&self, o: Outcome) -> bool {
        self.checks.iter().any(|c| c.outcome == o)
    }

    /// 2 when a check is an error, else 1 when one failed, else 3 when one
    /// could not be decided (or what `--undecided` maps that to), else 0.
    pub fn exit_code(&self) -> i32 {
        let undecided = match self.undecided_as {
            None => exit::UNDECIDED,
            Some(UndecidedAs::Pass) => exit::SUCCESS,
            Some(UndecidedAs::Fail) => exit::FAILED,
            Some(UndecidedAs::Error) => exit::ERROR,
        };
        let codes = [
            (self.any(Outcome::Error), exit::ERROR),
            (
                self.any(Outcome::Undecided) && undecided == exit::ERROR,
                exit::ERROR,
            ),
            (self.any(Outcome::Fail), exit::FAILED),
            (self.any(Outcome::Undecided), undecided),
        ];
        codes
            .into_iter()
            .find(|(holds, _)| *holds)
            .map_or(exit::SUCCESS, |(_, code)| code)
    }

    pub fn count(&self, o: Outcome) -> usize {
        self.checks.iter().filter(|c| c.outcome == o).count()
    }
}

fn sql(name: &str) -> &'static str {
    crate::sqlfiles::named(GATE_QUERIES, name)
}

/// The parameters every gate query takes.
#[derive(Clone)]
struct Scope {
    params: Filters,
}

impl Scope {
    fn with(&self, key: &str, value: Option<&str>) -> Scope {
        let mut params = self.params.clone();
        match value {
            Some(v) => params.insert(key.into(), v.into()),
            None => params.remove(key),
        };
        Scope { params }
    }

    fn ask(&self, conn: &Connection, name: &str) -> Result<ResultSet> {
        query(conn, sql(name), &self.params)
    }
}

/// Decide every check `spec` asks for.
pub fn evaluate(conn: &Connection, spec: &GateSpec) -> Result<Verdict> {
    if !spec.checks_asked() {
        return Err(Error::Invalid(
            "the gate checks nothing; hint: give --min-lift D, --non-inferiority-margin M, --no-significant-regression, --max-invalid-rate R, --fail-on FINDINGS or --infra-errors error|fail (or a --config file with them)".into(),
        ));
    }
    let selectors = findings::selectors(&spec.fail_on)?;
    let resolved = crate::report::scope::resolve(
        conn,
        spec.release.as_deref(),
        spec.baseline.as_deref(),
        spec.skill.as_deref(),
        spec.split.as_deref(),
    )?;
    let (release, baseline) = (resolved.release, resolved.baseline);
    let scope = Scope {
        params: resolved.params,
    };
    let experiments = scope.ask(conn, "experiments")?;
    let mut held: Vec<Option<String>> = Vec::new();
    let mut skills_of: BTreeMap<Option<String>, Vec<String>> = BTreeMap::new();
    for r in experiments.records() {
        let experiment = r.text("experiment");
        if !held.contains(&experiment) {
            held.push(experiment.clone());
        }
        skills_of
            .entry(experiment)
            .or_default()
            .extend(r.text("skill"));
    }
    let pooled = experiments
        .records()
        .any(|r| r.flag("pooled") == Some(true));
    let mut notes = Vec::new();
    let (decided, each): (String, Vec<Option<String>>) = match spec.experiment.as_deref() {
        Some("all") => ("each experiment".into(), held.clone()),
        Some(name) => {
            if !held.iter().flatten().any(|e| e == name) {
                return Err(Error::NoSuchFilterValue {
                    filter: "experiment".into(),
                    value: name.into(),
                    existing: listed(&held),
                });
            }
            (format!("experiment {name}"), vec![Some(name.to_string())])
        }
        None if held.len() > 1 && !pooled => {
            notes.push(format!(
                "the release's {} experiments do not pool (their runs name no model, so a case of two may be two models): each is decided on its own (--experiment NAME gates one)",
                held.len()
            ));
            ("each experiment".into(), held.clone())
        }
        None => ("pooled".into(), vec![None]),
    };
    let skills = |experiment: &Option<String>| -> Vec<String> {
        let mut skills: Vec<String> = match experiment {
            Some(_) => skills_of.get(experiment).cloned().unwrap_or_default(),
            None => skills_of.values().flatten().cloned().collect(),
        };
        skills.sort();
        skills.dedup();
        skills
    };
    let gated = skills(&None);
    let family = gated.len();
    if family > 1 {
        notes.push(match spec.family_wise {
            true => format!(
                "α {} covers the {family} skills gated together (--family-wise): each skill's checks at {:.4}",
                spec.alpha(),
                spec.alpha() / family as f64
            ),
            false => format!(
                "α {} covers each of the {family} skills' checks, not the family (--family-wise: all of them)",
                spec.alpha()
            ),
        });
    }
    let family_spec;
    let spec = match spec.family_wise && family > 1 {
        true => {
            family_spec = GateSpec {
                alpha: Some(spec.alpha() / family as f64),
                ..spec.clone()
            };
            &family_spec
        }
        false => spec,
    };
    let mut checks = Vec::new();
    for experiment in &each {
        let scope = scope.with("experiment", experiment.as_deref());
        checks.extend(measure::experiment_checks(
            conn,
            spec,
            &scope,
            experiment.as_deref(),
            &skills(experiment),
            &selectors,
            &mut notes,
        )?);
    }
    if spec.non_inferiority_margin.is_some() || spec.no_significant_regression {
        let scope = scope.with("experiment", None);
        checks.extend(measure::baseline_checks(
            conn,
            spec,
            &scope,
            &skills(&None),
            baseline.as_deref(),
        )?);
    }
    if checks.is_empty() {
        checks.push(Check {
            check: "lift".into(),
            skill: spec.skill.clone().unwrap_or_else(|| "(any)".into()),
            experiment: None,
            arm: findings::PAIRED.into(),
            outcome: Outcome::Undecided,
            measured: format!("no paired with/without runs in release {release}"),
            required: "a skill with eligible pairs".into(),
            more_runs: None,
            findings: Vec::new(),
            sequential: None,
            gap: None,
        });
    }
    measure::more_runs(conn, spec, &release, &mut checks)?;
    Ok(Verdict {
        release,
        baseline,
        split: spec.split.clone().unwrap_or_else(|| "all".into()),
        experiments: decided,
        sequential: spec.sequential,
        checks,
        notes,
        undecided_as: spec.undecided,
    })
}

fn listed(held: &[Option<String>]) -> String {
    let names: Vec<&str> = held.iter().flatten().map(String::as_str).collect();
    match names.is_empty() {
        true => "none".into(),
        false => names.join(", "),
    }
}

/// Rows of a gate query by skill.
fn by_skill<T>(rows: impl Iterator<Item = (String, T)>) -> BTreeMap<String, Vec<T>> {
    let mut map: BTreeMap<String, Vec<T>> = BTreeMap::new();
    for (skill, row) in rows {
        map.entry(skill).or_default().push(row);
    }
    map
}
