//! The seed "Agent Skills Evaluations" handbook harness (format A).
#![no_main]
mod split;

use liftdb::ingest::formats::Format;
use libfuzzer_sys::fuzz_target;

const RUN_FILES: &[&str] = &["grading.json", "response.json", "timing.json", "output.txt"];

fuzz_target!(|data: &[u8]| {
    let (mode, bodies) = split::split(data);
    match mode % 2 {
        0 => split::run_dir(
            "/fuzz/tmp/skills-eval/20260115T103000Z/core/iteration-1/eval-1/with_skill",
            RUN_FILES,
            &bodies,
            Format::Handbook,
        ),
        _ => bodies.iter().for_each(|b| split::report("/fuzz/benchmark.json", b, Format::Handbook)),
    }
});
