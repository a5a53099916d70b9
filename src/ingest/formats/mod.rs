//! One adapter per harness format. Each maps its files into the common
//! `records` model through the neutral kernel; nothing format-specific passes
//! this layer, and no adapter imports another.

pub mod promptfoo;
pub mod seed;
pub mod seh;
pub mod skill_creator;

use std::path::Path;

pub use crate::ingest::kernel::format::{
    allows, Format, PROMPTFOO, SEED_HANDBOOK, SEH, SKILL_CREATOR, SKILL_EVALS,
};
pub use crate::ingest::kernel::{RunContext, RunFiles, RunOutcome};
use crate::model::records::{ErrorKind, Records};

/// A run-directory adapter: the format it reads, whether it claims a
/// directory when nothing is forced, and its parser.
struct RunAdapter {
    format: Format,
    claims: fn(&Path, &RunFiles) -> bool,
    parse: fn(&Path, &RunFiles, &RunContext) -> RunOutcome,
}

/// In detection order. The handbook and skill-creator layouts are told by
/// their own grading files (`checks`, or expectations without a
/// `metadata.json`); skill-eval-harness comes last because it claims every
/// directory: its layout reader is the one that can say a directory is not
/// an arm, which is the right error for anything left over.
const RUN_ADAPTERS: &[RunAdapter] = &[
    RunAdapter {
        format: Format::Handbook,
        claims: seed::is_run_dir,
        parse: |dir, files, ctx| seed::parse_run(dir, files, ctx.release, ctx.shard),
    },
    RunAdapter {
        format: Format::SkillCreator,
        claims: skill_creator::is_run_dir,
        parse: |dir, files, ctx| skill_creator::parse_run(dir, files, ctx),
    },
    RunAdapter {
        format: Format::Seh,
        claims: |_, _| true,
        parse: seh::run_dir::parse,
    },
];

/// Parse one run directory with the adapter whose layout it follows.
pub fn parse_run_dir(dir: &Path, files: &RunFiles, ctx: &RunContext) -> RunOutcome {
    let adapter = RUN_ADAPTERS.iter().find(|a| match ctx.forced {
        Some(forced) => forced == a.format,
        None => (a.claims)(dir, files),
    });
    match adapter {
        Some(a) => (a.parse)(dir, files, ctx),
        None => {
            let mut records = Records::default();
            records.error(
                &dir.display().to_string(),
                ErrorKind::WrongFormat,
                "a run directory is not a promptfoo results file",
            );
            RunOutcome::Rejected(records)
        }
    }
}
