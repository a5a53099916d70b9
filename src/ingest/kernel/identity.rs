//! Identity keys shared by every adapter: the same parts always give the
//! same key, so a run read from its directory and the same run read from a
//! report row meet in one row.

use crate::model::records::key;

/// What identifies a run: (release, native batch, shard, skill, case, model,
/// arm, repetition).
pub struct RunIdentity<'a> {
    pub release: &'a str,
    /// The tool's own batch: the runs-root directory name for skill-eval-harness.
    pub native_batch: Option<&'a str>,
    /// The shard of a release split across jobs (`ingest --shard`): each
    /// job may number its repetitions from 1. None: not sharded (the key
    /// is then what it always was).
    pub shard: Option<&'a str>,
    pub skill: &'a str,
    pub case_id: &'a str,
    pub model: Option<&'a str>,
    pub arm: &'a str,
    pub repetition: i64,
}

/// The run identity key shared by run directories and report rows.
pub fn run_key(id: &RunIdentity) -> String {
    let rep = id.repetition.to_string();
    if let Some(shard) = id.shard {
        return key(&[
            Some("run"),
            Some(id.release),
            id.native_batch,
            Some("shard"),
            Some(shard),
            Some(id.skill),
            Some(id.case_id),
            id.model,
            Some(id.arm),
            Some(&rep),
        ]);
    }
    key(&[
        Some("run"),
        Some(id.release),
        id.native_batch,
        Some(id.skill),
        Some(id.case_id),
        id.model,
        Some(id.arm),
        Some(&rep),
    ])
}

/// A skill under test in a release.
pub fn suite_id(release: &str, skill: &str) -> String {
    key(&[Some("suite"), Some(release), Some(skill)])
}

/// An eval case of a skill in a release.
pub fn case_pk(release: &str, skill: &str, case_id: &str) -> String {
    key(&[Some("case"), Some(release), Some(skill), Some(case_id)])
}
