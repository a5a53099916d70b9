//! Anthropic skill-creator workspaces (format D).
#![no_main]
mod split;

use liftdb::ingest::formats::Format;
use libfuzzer_sys::fuzz_target;

const RUN_FILES: &[&str] = &["grading.json", "timing.json", "outputs/metrics.json", "outputs/answer.md"];

fuzz_target!(|data: &[u8]| {
    let (mode, bodies) = split::split(data);
    match mode % 2 {
        0 => split::run_dir(
            "/fuzz/demo-workspace/iteration-1/eval-0/with_skill/run-1",
            RUN_FILES,
            &bodies,
            Format::SkillCreator,
        ),
        _ => bodies.iter().for_each(|b| split::report("/fuzz/benchmark.json", b, Format::SkillCreator)),
    }
});
