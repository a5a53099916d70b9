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

use seh::run_dir::{RunContext, RunFiles, RunOutcome};

/// Parse one run directory with the adapter whose layout it follows.
pub fn parse_run_dir(dir: &Path, files: &RunFiles, ctx: &RunContext) -> RunOutcome {
    let adapted = if seed::is_run_dir(dir, files) {
        seed::parse_run(dir, files, ctx.release)
    } else if skill_creator::is_run_dir(files) {
        skill_creator::parse_run(dir, files, ctx.release)
    } else {
        return seh::run_dir::parse(dir, files, ctx);
    };
    match adapted {
        Ok((run_id, records)) => RunOutcome::Answer { run_id, records },
        Err(records) => RunOutcome::Rejected(records),
    }
}
