//! Which harness wrote a file: the `source_format` codes stored with every
//! run and file, and the `--format` choice that skips detection.

use std::str::FromStr;

/// `ingest_batch`/`run.source_format` codes (docs/architecture.md lists the harnesses).
pub const SEED_HANDBOOK: &str = "A_handbook";
pub const SKILL_EVALS: &str = "B_skill_evals";
pub const SEH: &str = "C_seh";
pub const SKILL_CREATOR: &str = "D_skill_creator";
pub const PROMPTFOO: &str = "E_promptfoo";

/// `liftdb ingest --format`: skip detection and read everything as one format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Seh,
    Handbook,
    SkillCreator,
    Promptfoo,
}

impl Format {
    pub const NAMES: &'static [&'static str] = &["seh", "handbook", "skill-creator", "promptfoo"];
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "seh" | "skill-eval-harness" | "C" => Ok(Format::Seh),
            "handbook" | "seed" | "A" => Ok(Format::Handbook),
            "skill-creator" | "D" => Ok(Format::SkillCreator),
            "promptfoo" | "agent-skill-evals" | "B" | "E" => Ok(Format::Promptfoo),
            other => Err(format!(
                "unknown format '{other}' (expected auto, {})",
                Format::NAMES.join(", ")
            )),
        }
    }
}

/// True when no format is forced or `candidate` is the forced one.
pub fn allows(forced: Option<Format>, candidate: Format) -> bool {
    forced.is_none_or(|f| f == candidate)
}
