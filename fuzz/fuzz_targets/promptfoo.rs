//! promptfoo results and Agent Skill Evals rows (formats E and B).
#![no_main]
mod split;

use liftdb::ingest::formats::Format;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (mode, bodies) = split::split(data);
    let path = if mode % 2 == 0 { "/fuzz/results.json" } else { "/fuzz/results.jsonl" };
    bodies.iter().for_each(|b| split::report(path, b, Format::Promptfoo));
});
