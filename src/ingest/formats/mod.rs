//! One adapter per harness format (formats.md A-E). Each maps its files into
//! the common `records` model; nothing format-specific passes this layer.

pub mod promptfoo;
pub mod seed;
pub mod seh;
pub mod skill_creator;

/// `ingest_batch`/`run.source_format` codes (formats.md "Normalized model").
pub const SEED_HANDBOOK: &str = "A_handbook";
pub const SKILL_EVALS: &str = "B_skill_evals";
pub const SEH: &str = "C_seh";
pub const SKILL_CREATOR: &str = "D_skill_creator";
pub const PROMPTFOO: &str = "E_promptfoo";

use std::path::Path;
use std::str::FromStr;

use seh::run_dir::{RunContext, RunFiles, RunOutcome};

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

/// Parse one run directory with the adapter whose layout it follows.
pub fn parse_run_dir(dir: &Path, files: &RunFiles, ctx: &RunContext) -> RunOutcome {
    let forced = ctx.forced;
    if forced == Some(Format::Promptfoo) {
        let mut records = crate::ingest::records::Records::default();
        records.error(
            &dir.display().to_string(),
            "detect",
            "a run directory is not a promptfoo results file",
        );
        RunOutcome::Rejected(records)
    } else if forced == Some(Format::Handbook) || (forced.is_none() && seed::is_run_dir(dir, files))
    {
        seed::parse_run(dir, files, ctx.release)
    } else if forced == Some(Format::SkillCreator)
        || (forced.is_none() && skill_creator::is_run_dir(files))
    {
        skill_creator::parse_run(dir, files, ctx.release)
    } else {
        seh::run_dir::parse(dir, files, ctx)
    }
}
