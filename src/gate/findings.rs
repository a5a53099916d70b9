//! `--fail-on`: which findings fail a release, and in which arm. A finding
//! is about one arm (a flaky or critical with_skill run; a critical
//! without_skill run) or about the comparison (`paired`: saturated, no lift,
//! floor). By default only what the skill is answerable for counts: its
//! with_skill findings and the paired ones; `FINDING:any` also counts every
//! control arm's, `FINDING:ARM` one arm's (docs/guide.md, the gate).

use crate::{Error, Result};

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

/// The arm a finding is about when it compares the two arms.
pub const PAIRED: &str = "paired";
const WITH_SKILL: &str = "with_skill";

/// Which arms' findings a selector counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arms {
    /// with_skill and paired findings (the default).
    Skill,
    /// Every arm's.
    Any,
    /// One arm's (and paired findings).
    Named(String),
}

impl Arms {
    pub fn counts(&self, arm: &str) -> bool {
        arm == PAIRED
            || match self {
                Arms::Skill => arm == WITH_SKILL,
                Arms::Any => true,
                Arms::Named(name) => arm == name,
            }
    }

    fn said(&self) -> String {
        match self {
            Arms::Skill => "with_skill".into(),
            Arms::Any => "any arm".into(),
            Arms::Named(name) => name.clone(),
        }
    }
}

/// One finding asked for, with the arms whose findings count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selector {
    pub finding: &'static str,
    pub arms: Arms,
}

/// The selectors `names` asks for (`FINDING[:ARM]` or `PRESET[:ARM]`, ARM
/// one of `any`, `with_skill`, or another arm's name), presets expanded, in
/// FINDINGS order; a finding asked twice keeps the widest arms.
pub fn selectors(names: &[String]) -> Result<Vec<Selector>> {
    let mut asked: Vec<Selector> = Vec::new();
    for name in names {
        let name = name.trim();
        let (what, arms) = match name.split_once(':') {
            None => (name, Arms::Skill),
            Some((what, "any")) => (what, Arms::Any),
            Some((what, "with_skill")) => (what, Arms::Skill),
            Some((what, "")) => return Err(unknown(what, "an empty arm after ':'")),
            Some((what, arm)) => (what, Arms::Named(arm.to_string())),
        };
        let set: Vec<&'static str> =
            if let Some((_, set)) = PRESETS.iter().find(|(p, _)| *p == what) {
                set.to_vec()
            } else if let Some((f, _)) = FINDINGS.iter().find(|(f, _)| *f == what) {
                vec![*f]
            } else {
                return Err(unknown(what, "no such finding"));
            };
        for finding in set {
            match asked.iter_mut().find(|s| s.finding == finding) {
                Some(s) if s.arms != arms => s.arms = Arms::Any,
                Some(_) => {}
                None => asked.push(Selector {
                    finding,
                    arms: arms.clone(),
                }),
            }
        }
    }
    Ok(FINDINGS
        .iter()
        .filter_map(|(f, _)| asked.iter().find(|s| s.finding == *f).cloned())
        .collect())
}

fn unknown(what: &str, problem: &str) -> Error {
    Error::Invalid(format!(
        "--fail-on {what}: {problem}; hint: findings {}; presets {}; each may name the arm it counts: FINDING (with_skill, the default), FINDING:any (every arm), FINDING:ARM (e.g. critical:without_skill)",
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
    ))
}

/// What a gate requires of the findings, in words.
pub fn required(selectors: &[Selector]) -> String {
    let parts: Vec<String> = selectors
        .iter()
        .map(|s| match s.arms {
            Arms::Skill => s.finding.to_string(),
            _ => format!("{} ({})", s.finding, s.arms.said()),
        })
        .collect();
    format!(
        "no case with a finding of: {} (with_skill and paired findings unless an arm is named)",
        parts.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// A bare finding counts with_skill (and paired) findings only; `:any`
    /// every arm; a named arm that arm.
    #[test]
    fn a_selector_names_the_arms_it_counts() {
        let s = selectors(&names(&["critical", "flaky:any", "no-lift:without_skill"])).unwrap();
        let of = |f: &str| s.iter().find(|x| x.finding == f).unwrap().arms.clone();
        assert!(of("critical").counts("with_skill") && !of("critical").counts("without_skill"));
        assert!(of("flaky").counts("without_skill") && of("flaky").counts("ablation:x"));
        assert!(of("no-lift").counts(PAIRED) && of("no-lift").counts("without_skill"));
        assert!(!of("no-lift").counts("with_skill"));
    }

    /// A preset takes the arm given to it; a typo is refused with the names.
    #[test]
    fn presets_take_an_arm_and_typos_are_refused() {
        let s = selectors(&names(&["outcome:any"])).unwrap();
        assert_eq!(s.len(), 4);
        assert!(s.iter().all(|x| x.arms == Arms::Any));
        let e = selectors(&names(&["critcal"])).unwrap_err().to_string();
        assert!(e.contains("critcal") && e.contains("FINDING:any"), "{e}");
    }
}
