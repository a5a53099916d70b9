//! Each check measured and decided on the numbers its query returns.

use std::collections::BTreeMap;

use duckdb::Connection;

use super::findings::{Selector, PAIRED};
use super::sequential::{self as seq, Changed, Decided, Suites};
use super::{by_skill, Check, Finding, GateSpec, InfraErrors, Outcome, Scope};
use crate::output::Record;
use crate::stats::multiple::benjamini_hochberg;
use crate::stats::{interval, sign_flip};
use crate::Result;

/// The checks decided on one experiment (or the release's pooled).
pub(super) fn experiment_checks(
    conn: &Connection,
    spec: &GateSpec,
    scope: &Scope,
    experiment: Option<&str>,
    skills: &[String],
    selectors: &[Selector],
    notes: &mut Vec<String>,
) -> Result<Vec<Check>> {
    let mut checks = Vec::new();
    let tag = |mut c: Check| {
        c.experiment = experiment.map(str::to_string);
        c
    };
    if let Some(min) = spec.min_lift {
        let lifts = scope.ask(conn, "lift")?;
        let suites = match spec.sequential {
            // The suite's declared cases count when its experiments pool;
            // an experiment decided alone may not have run them all.
            true => Some(Suites::read(
                &scope.ask(conn, "round_pairs")?,
                match experiment {
                    None => Some(scope.ask(conn, "suite_cases")?),
                    Some(_) => None,
                }
                .as_ref(),
                Some(&scope.ask(conn, "changed_runs")?),
            )),
            false => None,
        };
        for skill in skills {
            let row = lifts
                .records()
                .find(|r| r.text("skill").as_deref() == Some(skill));
            let check = match &suites {
                Some(suites) => min_lift_sequential(skill, suites, min, spec),
                None => min_lift(skill, row.as_ref(), min, spec),
            };
            checks.push(tag(check));
        }
    }
    if let Some(max) = spec.max_invalid_rate {
        let arms = scope.ask(conn, "invalid")?;
        let arms = by_skill(arms.records().filter_map(|r| Some((r.text("skill")?, r))));
        for skill in skills {
            let mine = arms.get(skill).map(Vec::as_slice).unwrap_or_default();
            checks.push(tag(invalid_rate(skill, mine, max)));
        }
    }
    if !selectors.is_empty() {
        let rows = scope.ask(conn, "findings")?;
        let rows = by_skill(rows.records().filter_map(|r| Some((r.text("skill")?, r))));
        for skill in skills {
            let mine = rows.get(skill).map(Vec::as_slice).unwrap_or_default();
            checks.push(tag(fail_on(skill, mine, selectors)));
        }
    }
    let policy = spec.infra_errors.unwrap_or(InfraErrors::Ignore);
    let failures = scope.ask(conn, "infra_errors")?;
    let failures = by_skill(
        failures
            .records()
            .filter_map(|r| Some((r.text("skill")?, r))),
    );
    for skill in skills {
        let mine = failures.get(skill).map(Vec::as_slice).unwrap_or_default();
        let check = infra_errors(skill, mine, policy);
        match policy {
            InfraErrors::Ignore if check.outcome != Outcome::Pass => notes.push(format!(
                "{}{}: {} (not decided on; --infra-errors error|fail decides on them)",
                experiment.map_or(String::new(), |e| format!("{e}: ")),
                skill,
                check.measured
            )),
            InfraErrors::Ignore => {}
            _ => checks.push(tag(check)),
        }
    }
    Ok(checks)
}

/// The checks against the baseline (the release's experiments pooled).
pub(super) fn baseline_checks(
    conn: &Connection,
    spec: &GateSpec,
    scope: &Scope,
    skills: &[String],
    baseline: Option<&str>,
) -> Result<Vec<Check>> {
    let units = match (baseline, spec.sequential) {
        (Some(_), false) => Some(scope.ask(conn, "matched_units")?),
        _ => None,
    };
    // Sequential: this release's pairs and the baseline's, each dealt into
    // its own rounds.
    let suites = match (baseline, spec.sequential) {
        (Some(b), true) => {
            let here = Suites::read(
                &scope.ask(conn, "round_pairs")?,
                Some(&scope.ask(conn, "suite_cases")?),
                Some(&scope.ask(conn, "changed_runs")?),
            );
            let before = scope.with("release", Some(b));
            Some((
                here,
                Suites::read(&before.ask(conn, "round_pairs")?, None, None),
            ))
        }
        _ => None,
    };
    let mut checks = Vec::new();
    for skill in skills {
        let mine: Vec<Record> = units
            .iter()
            .flat_map(|u| u.records())
            .filter(|u| u.text("skill").as_deref() == Some(skill))
            .collect();
        if let Some(margin) = spec.non_inferiority_margin {
            checks.push(match &suites {
                Some((here, before)) => {
                    non_inferiority_sequential(skill, here, before, margin, baseline, spec.alpha())
                }
                None => non_inferiority(skill, &mine, margin, baseline),
            });
        }
        if spec.no_significant_regression {
            checks.push(match &suites {
                Some((here, before)) => {
                    no_regression_sequential(skill, here, before, spec.alpha(), baseline)
                }
                None => no_regression(skill, &mine, spec.alpha(), baseline),
            });
        }
    }
    Ok(checks)
}

/// How many more runs would decide each undecided check.
pub(super) fn more_runs(
    conn: &Connection,
    spec: &GateSpec,
    release: &str,
    checks: &mut [Check],
) -> Result<()> {
    for c in checks
        .iter_mut()
        .filter(|c| c.outcome == Outcome::Undecided)
    {
        if c.more_runs.is_some() || spec.sequential {
            continue;
        }
        // The difference more runs must resolve: the measured value's
        // distance from what the check decides against.
        if let Some(d) = c.gap.filter(|d| *d > 0.0) {
            c.more_runs = crate::plan::runs_to_detect(
                conn,
                release,
                &c.skill,
                spec.split.as_deref(),
                d,
                spec.alpha(),
            )?;
        }
    }
    Ok(())
}

/// The checks of `name` for `skill`, requiring `required`: each given its
/// outcome and what was measured.
fn checker(
    name: &'static str,
    skill: &str,
    arm: &str,
    required: String,
) -> impl Fn(Outcome, String) -> Check {
    let (skill, arm) = (skill.to_string(), arm.to_string());
    move |outcome, measured| Check {
        check: name.into(),
        skill: skill.clone(),
        experiment: None,
        arm: arm.clone(),
        outcome,
        measured,
        required: required.clone(),
        more_runs: None,
        findings: Vec::new(),
        sequential: None,
        gap: None,
    }
}

const NO_BASELINE: &str = "no baseline release to compare with";

fn signed(x: f64) -> String {
    format!("{x:+.4}")
}

fn min_lift(skill: &str, row: Option<&Record>, min: f64, spec: &GateSpec) -> Check {
    let alpha = spec.alpha();
    let required = match spec.significant {
        true => format!("lift >= {min} and p (its upper bound when sampled) <= {alpha}"),
        false => format!("lift >= {min}"),
    };
    let check = checker("min-lift", skill, PAIRED, required);
    let Some(lift) = row.and_then(|r| r.number("lift")) else {
        return check(Outcome::Undecided, "no eligible pair in the release".into());
    };
    let row = row.expect("a lift comes from a row");
    let p = row.number("p");
    // The p the test decides on (docs/metrics.md §M6): p itself, or a
    // sampled test's upper bound.
    let p_upper = row.number("p_upper");
    let upper = row.number("ci_upper");
    let units = row.count("units").unwrap_or(0);
    let measured = format!(
        "lift {} over {units} units, p {}{}",
        signed(lift),
        match (p, p_upper) {
            (None, _) => "not tested".into(),
            // Sampled: p as the tool prints it, and the bound decided on.
            (Some(p), Some(u)) if (u - p).abs() > 5e-7 => {
                format!("{p} (sampled; allowing for the sampling up to {u:.6})")
            }
            (Some(p), _) => format!("{p}"),
        },
        match (row.number("ci_lower"), upper) {
            (Some(l), Some(u)) => format!(", 95% interval {} to {}", signed(l), signed(u)),
            _ => String::new(),
        }
    );
    let enough = lift >= min - 1e-12;
    let outcome = match (spec.significant, enough, p_upper) {
        (false, true, _) => Outcome::Pass,
        (false, false, _) => Outcome::Fail,
        (true, true, Some(p)) if p <= alpha => Outcome::Pass,
        // Shown missed only when the whole interval lies below D.
        (true, _, _) if upper.is_some_and(|u| u < min - 1e-12) => Outcome::Fail,
        (true, _, _) => Outcome::Undecided,
    };
    let mut c = check(outcome, measured);
    // Shown above 0 (the test's question) when at least D; shown clear of
    // D when below it.
    c.gap = Some(match enough {
        true => lift,
        false => min - lift,
    });
    c
}

/// Why a sequential check cannot be tested validly as the release is
/// stored, if it cannot: runs changed after they were stored, or the suite
/// grew after it had a complete round.
fn refused(changed: Option<&Changed>, joined_late: &[String]) -> Option<String> {
    const WHY: &str = "a sequential test needs a release that grows by new runs only, its suite fixed before its first look (docs/metrics.md §M14)";
    const OTHERWISE: &str =
        "or gate this release with the fixed-sample test (without --sequential)";
    if let Some(c) = changed.filter(|c| c.replaced + c.deleted > 0) {
        return Some(format!(
            "not tested: {} of the release's runs were stored again after they were first stored and {} were deleted by a later batch (cases {}), so rounds a gate run bet on may have changed; {WHY}. Hint: write each batch's runs as new repetitions (new run-N folders or report rows, or --shard NAME per batch), {OTHERWISE}",
            c.replaced, c.deleted, c.cases
        ));
    }
    (!joined_late.is_empty()).then(|| {
        format!(
            "not tested: cases {} were first stored after the suite had a complete round without them, so a gate run between then bet on part of the suite; {WHY}. Hint: declare every case before the first gate (a manifest listing them, ingested with the first batch), {OTHERWISE}",
            joined_late.join(", ")
        )
    })
}

/// A sequential check decided: its outcome, what it measured (with what
/// its rounds leave out), and what more runs would do; refused (an error)
/// when the release as stored cannot be tested validly.
fn sequential_check(
    check: impl Fn(Outcome, String) -> Check,
    mut d: Decided,
    said: String,
    changed: Option<&Changed>,
) -> Check {
    if let Some(c) = changed {
        (d.check.replaced, d.check.deleted) = (c.replaced, c.deleted);
    }
    if let Some(why) = refused(changed, &d.check.joined_late) {
        let mut out = check(Outcome::Error, why);
        out.sequential = Some(d.check);
        return out;
    }
    let c = &d.check;
    let level = c.level;
    let mut measured = format!(
        "{said} over {} rounds of {} units ({} pairs); anytime-valid bounds {} to {} (each side at {level}); wealth above {:.2}, below {:.2} of the {:.0} that decides",
        c.test.rounds,
        c.units,
        d.rounds.pairs(),
        c.lower.map_or("-1 (none yet)".into(), signed),
        c.upper.map_or("+1 (none yet)".into(), signed),
        c.test.wealth_above,
        c.test.wealth_below,
        c.test.target
    );
    if let (Some(l), Some(u)) = (c.lower, c.upper) {
        if l > u {
            measured.push_str("; the bounds cross: no one mean fits every round (what the runs measure changed across batches), and a side decided stays decided");
        }
    }
    for note in seq::rounds_said(c) {
        measured.push_str("; ");
        measured.push_str(&note);
    }
    let outcome = match (c.test.above, c.test.below) {
        (true, false) => Outcome::Pass,
        (false, true) => Outcome::Fail,
        _ => Outcome::Undecided,
    };
    let mut out = check(outcome, measured);
    out.more_runs = seq::more_rounds(c, &d.rounds);
    out.sequential = Some(d.check);
    out
}

fn min_lift_sequential(skill: &str, suites: &Suites, min: f64, spec: &GateSpec) -> Check {
    let alpha = spec.alpha();
    let check = checker(
        "min-lift",
        skill,
        PAIRED,
        format!("lift > {min}, shown by an anytime-valid test at {alpha} (sequential)"),
    );
    let (pairs, declared) = suites.of(skill);
    if pairs.is_empty() {
        return check(Outcome::Undecided, "no pair in the release".into());
    }
    let d = seq::min_lift(pairs, declared, min, alpha);
    let said = format!("mean {}", d.check.test.mean.map_or("-".into(), signed));
    sequential_check(check, d, said, suites.changed.get(skill))
}

/// Every arm's share of runs that do not count at most `max`; the worst
/// arm is named.
fn invalid_rate(skill: &str, arms: &[Record], max: f64) -> Check {
    let shares: Vec<(String, f64, String)> = arms
        .iter()
        .filter_map(|a| {
            let (arm, runs, invalid) = (a.text("arm")?, a.count("runs")?, a.count("invalid")?);
            let reasons = a
                .text("reasons")
                .map(|r| format!(": {r}"))
                .unwrap_or_default();
            let said = format!("{arm}: {invalid} of {runs} runs do not count{reasons}");
            Some((arm, invalid as f64 / runs.max(1) as f64, said))
        })
        .collect();
    let worst = shares
        .iter()
        .max_by(|a, b| a.1.total_cmp(&b.1).then_with(|| b.0.cmp(&a.0)));
    let check = checker(
        "max-invalid-rate",
        skill,
        worst.map_or("-", |w| w.0.as_str()),
        format!("in every arm, runs that do not count <= {max} of its runs"),
    );
    let Some(worst) = worst else {
        return check(Outcome::Undecided, "no runs in the release".into());
    };
    let outcome = match worst.1 <= max + 1e-12 {
        true => Outcome::Pass,
        false => Outcome::Fail,
    };
    check(outcome, format!("worst arm {} ({:.4})", worst.2, worst.1))
}

/// No case with a finding asked for in an arm asked for; each case counted
/// once, whatever the experiments it was run in.
fn fail_on(skill: &str, rows: &[Record], selectors: &[Selector]) -> Check {
    let cases: std::collections::BTreeSet<String> =
        rows.iter().filter_map(|r| r.text("case")).collect();
    // (case, finding, label, arm) -> experiments
    let mut found: BTreeMap<(String, String, String, String), Vec<String>> = BTreeMap::new();
    for r in rows {
        let (Some(case), Some(finding), Some(label), Some(arm)) = (
            r.text("case"),
            r.text("finding"),
            r.text("label"),
            r.text("arm"),
        ) else {
            continue;
        };
        if !selectors.iter().any(|s| s.finding == finding) {
            continue;
        }
        let experiments = found.entry((case, finding, label, arm)).or_default();
        if let Some(e) = r.text("experiment") {
            if !experiments.contains(&e) {
                experiments.push(e);
            }
        }
    }
    let findings: Vec<Finding> = found
        .into_iter()
        .map(|((case, finding, label, arm), experiments)| {
            let counted = selectors
                .iter()
                .any(|s| s.finding == finding && s.arms.counts(&arm));
            Finding {
                case,
                finding,
                label,
                arm,
                experiments,
                counted,
            }
        })
        .collect();
    let counted: std::collections::BTreeSet<&str> = findings
        .iter()
        .filter(|f| f.counted)
        .map(|f| f.case.as_str())
        .collect();
    let mut arms: Vec<&str> = findings
        .iter()
        .filter(|f| f.counted)
        .map(|f| f.arm.as_str())
        .collect();
    arms.sort_unstable();
    arms.dedup();
    let check = checker(
        "fail-on",
        skill,
        &match arms.is_empty() {
            true => "with_skill".to_string(),
            false => arms.join(", "),
        },
        super::findings::required(selectors),
    );
    if cases.is_empty() {
        return check(
            Outcome::Undecided,
            "no case with an eligible pair in the release".into(),
        );
    }
    // Each case once, its findings (arm: label) inside.
    let said = |counted: bool| -> Vec<String> {
        let mut by_case: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for f in findings.iter().filter(|f| f.counted == counted) {
            by_case
                .entry(&f.case)
                .or_default()
                .push(format!("{}: {}", f.arm, f.label));
        }
        by_case
            .into_iter()
            .map(|(case, found)| format!("{case} ({})", found.join("; ")))
            .collect()
    };
    let uncounted = said(false);
    let not_counted = match uncounted.is_empty() {
        true => String::new(),
        false => format!(
            "; not counted (an arm not asked for): {}",
            uncounted.join(", ")
        ),
    };
    let mut c = match counted.is_empty() {
        true => check(
            Outcome::Pass,
            format!(
                "{} cases, none with such a finding{not_counted}",
                cases.len()
            ),
        ),
        false => check(
            Outcome::Fail,
            format!(
                "{} of {} cases: {}{not_counted}",
                counted.len(),
                cases.len(),
                said(true).join(", ")
            ),
        ),
    };
    c.findings = findings;
    c
}

/// Runs the agent's infrastructure failed, and tool runs that ended before
/// their report.
fn infra_errors(skill: &str, rows: &[Record], policy: InfraErrors) -> Check {
    let check = checker(
        "infra-errors",
        skill,
        "any",
        "no run failed by its infrastructure, every tool run finished".into(),
    );
    let mut said = Vec::new();
    for r in rows {
        let at = r
            .text("experiment")
            .map(|e| format!("{e}: "))
            .unwrap_or_default();
        if r.flag("unfinished") == Some(true) {
            said.push(format!(
                "{at}the tool's run ended before its report (the handbook harness writes benchmark.json last, when every adapter call succeeded)"
            ));
        }
        let failed = r.count("failed_runs").unwrap_or(0);
        if failed > 0 {
            said.push(format!(
                "{at}{failed} runs failed by their infrastructure ({})",
                r.text("reasons").unwrap_or_default()
            ));
        }
    }
    match said.is_empty() {
        true => check(Outcome::Pass, "none".into()),
        false => check(
            match policy {
                InfraErrors::Error => Outcome::Error,
                _ => Outcome::Fail,
            },
            said.join("; "),
        ),
    }
}

/// Each unit's change from the baseline: (case, change).
fn changes(units: &[Record]) -> Vec<(String, f64)> {
    units
        .iter()
        .filter_map(|u| Some((u.text("case")?, u.number("change")?)))
        .collect()
}

fn non_inferiority(skill: &str, units: &[Record], margin: f64, baseline: Option<&str>) -> Check {
    let check = checker(
        "non-inferiority",
        skill,
        PAIRED,
        format!("lower 95% bound of the change in lift >= -{margin}"),
    );
    let Some(baseline) = baseline else {
        return check(Outcome::Undecided, NO_BASELINE.into());
    };
    let d: Vec<f64> = changes(units).into_iter().map(|(_, c)| c).collect();
    if d.is_empty() {
        return check(
            Outcome::Undecided,
            format!("no (case, model) unit paired in both this release and {baseline}"),
        );
    }
    let mean = d.iter().sum::<f64>() / d.len() as f64;
    let bound = interval(&d);
    match (bound.lower.filter(|_| bound.bounded), bound.upper) {
        (Some(lower), Some(upper)) => {
            let outcome = if lower >= -margin - 1e-12 {
                Outcome::Pass
            } else if upper < -margin - 1e-12 {
                Outcome::Fail
            } else {
                Outcome::Undecided
            };
            let mut c = check(
                outcome,
                format!(
                    "change {} (95% interval {} to {}) over {} matched units against {baseline}",
                    signed(mean),
                    signed(lower),
                    signed(upper),
                    d.len()
                ),
            );
            c.gap = Some((mean + margin).abs());
            c
        }
        _ => check(
            Outcome::Undecided,
            format!(
                "change {} over {} matched units against {baseline}: too few to bound an interval ({})",
                signed(mean),
                d.len(),
                bound.reason.unwrap_or("unbounded")
            ),
        ),
    }
}

fn non_inferiority_sequential(
    skill: &str,
    here: &Suites,
    before: &Suites,
    margin: f64,
    baseline: Option<&str>,
    alpha: f64,
) -> Check {
    let check = checker(
        "non-inferiority",
        skill,
        PAIRED,
        format!(
            "change in lift > -{margin}, shown by an anytime-valid test at {alpha} (sequential; α/2 on the baseline's bound, α/2 on this release)"
        ),
    );
    let Some(baseline) = baseline else {
        return check(Outcome::Undecided, NO_BASELINE.into());
    };
    let (pairs, declared) = here.of(skill);
    let (theirs, _) = before.of(skill);
    let d = seq::change(pairs, declared, theirs, -margin, alpha);
    if d.rounds.units == 0 {
        return check(
            Outcome::Undecided,
            format!("no (case, model) unit paired in both this release and {baseline}"),
        );
    }
    let said = format!(
        "change {} against {baseline} ({} rounds of it)",
        d.check.test.mean.map_or("-".into(), signed),
        d.check.baseline_rounds.unwrap_or(0)
    );
    sequential_check(check, d, said, here.changed.get(skill))
}

fn no_regression(skill: &str, units: &[Record], alpha: f64, baseline: Option<&str>) -> Check {
    let check = checker(
        "no-significant-regression",
        skill,
        PAIRED,
        format!("no case with a negative change at Benjamini-Hochberg q <= {alpha}"),
    );
    let Some(baseline) = baseline else {
        return check(Outcome::Undecided, NO_BASELINE.into());
    };
    let mut by_case: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (case, change) in changes(units) {
        by_case.entry(case).or_default().push(change);
    }
    if by_case.is_empty() {
        return check(
            Outcome::Undecided,
            format!("no case paired in both this release and {baseline}"),
        );
    }
    let tested: Vec<(&str, f64, f64, usize)> = by_case
        .iter()
        .map(|(case, d)| {
            let mean = d.iter().sum::<f64>() / d.len() as f64;
            // BH over the p each case's test decides on (p_upper: p, or a
            // sampled test's upper bound; docs/metrics.md §M6).
            let p = sign_flip(d).p_upper.unwrap_or(1.0);
            (case.as_str(), mean, p, d.len())
        })
        .collect();
    let qs = benjamini_hochberg(&tested.iter().map(|t| t.2).collect::<Vec<_>>());
    let regressed: Vec<String> = tested
        .iter()
        .zip(&qs)
        .filter(|((_, mean, _, _), q)| *mean < 0.0 && **q <= alpha)
        .map(|((case, mean, _, _), q)| format!("{case} ({}, q {q:.4})", signed(*mean)))
        .collect();
    if !regressed.is_empty() {
        return check(
            Outcome::Fail,
            format!("regressed against {baseline}: {}", regressed.join(", ")),
        );
    }
    // A case whose test cannot give a p at or below α (2/2^n for n exact
    // units; past 14 units the sampled test's allowance) could never be
    // shown regressed.
    let could = tested
        .iter()
        .any(|t| crate::stats::interval::smallest_decision_p(t.3) <= alpha);
    let most = tested.iter().map(|t| t.3).max().unwrap_or(0);
    match could {
        true => check(
            Outcome::Pass,
            format!(
                "{} cases compared with {baseline}, none regressed significantly",
                tested.len()
            ),
        ),
        false => check(
            Outcome::Undecided,
            format!(
                "{} cases compared with {baseline}, none regressed significantly, but none could: no case's test can give a p (its upper bound when sampled) at or below {alpha} (the most matched units of a case: {most})",
                tested.len()
            ),
        ),
    }
}

fn no_regression_sequential(
    skill: &str,
    here: &Suites,
    before: &Suites,
    alpha: f64,
    baseline: Option<&str>,
) -> Check {
    let check = checker(
        "no-significant-regression",
        skill,
        PAIRED,
        format!("no case whose change is shown below 0 by an anytime-valid test at {alpha} (Bonferroni across cases, each α/2 on the baseline's bound and α/2 on this release; sequential)"),
    );
    let Some(baseline) = baseline else {
        return check(Outcome::Undecided, NO_BASELINE.into());
    };
    let (pairs, declared) = here.of(skill);
    let (theirs, _) = before.of(skill);
    let r = seq::regression(pairs, declared, theirs, alpha);
    // The case nearest to being shown worse speaks for the check's numbers.
    let nearest = r
        .cases
        .iter()
        .max_by(|a, b| {
            a.1.check
                .test
                .wealth_below
                .total_cmp(&b.1.check.test.wealth_below)
        })
        .map(|(_, d)| d.check.clone());
    let attach = |mut c: Check| {
        c.sequential = nearest.clone();
        c
    };
    if let Some(why) = refused(here.changed.get(skill), &r.joined_late) {
        return attach(check(Outcome::Error, why));
    }
    if r.cases.is_empty() {
        return check(
            Outcome::Undecided,
            format!("no case paired in both this release and {baseline}"),
        );
    }
    let regressed: Vec<String> = r
        .cases
        .iter()
        .filter(|(_, d)| d.check.test.below)
        .map(|(case, d)| {
            format!(
                "{case} ({}, upper bound {})",
                d.check.test.mean.map_or("-".into(), signed),
                d.check.upper.map_or("-".into(), signed)
            )
        })
        .collect();
    let each = alpha / r.tested as f64;
    attach(match (regressed.is_empty(), r.could) {
        (false, _) => check(
            Outcome::Fail,
            format!("regressed against {baseline}: {}", regressed.join(", ")),
        ),
        (true, true) => check(
            Outcome::Pass,
            format!(
                "{} cases compared with {baseline} (α divided among {}), none shown to regress",
                r.cases.len(),
                r.tested
            ),
        ),
        (true, false) => check(
            Outcome::Undecided,
            format!(
                "{} cases compared with {baseline}: too few rounds for any case to be shown worse at {each:.4}",
                r.cases.len()
            ),
        ),
    })
}
