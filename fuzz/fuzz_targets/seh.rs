//! skill-eval-harness (format C): run directories and every report kind.
#![no_main]
mod split;

use liftdb::ingest::formats::Format;
use libfuzzer_sys::fuzz_target;

const RUN_FILES: &[&str] = &[
    "metadata.json",
    "metrics.json",
    "events.json",
    "trace.jsonl",
    "output.md",
    "environment.json",
    "timing.json",
    "outputs/metrics.json",
];

fuzz_target!(|data: &[u8]| {
    let (mode, bodies) = split::split(data);
    match mode % 4 {
        0 => split::run_dir(
            "/fuzz/eval-runs/case-a/model-x/with_skill/run-1",
            RUN_FILES,
            &bodies,
            Format::Seh,
        ),
        1 => split::run_dir("/fuzz/eval-runs/case-a/without_skill", RUN_FILES, &bodies, Format::Seh),
        2 => bodies.iter().for_each(|b| split::report("/fuzz/benchmark.json", b, Format::Seh)),
        _ => bodies.iter().for_each(|b| split::report("/fuzz/judge-results.jsonl", b, Format::Seh)),
    }
});
