//! Turn one fuzz input into what an adapter reads: a mode byte, then file
//! bodies separated by 0xFF (a byte no UTF-8 text or JSON contains).
#![allow(dead_code)] // each target uses the helpers it needs

use std::collections::{HashMap, HashSet};
use std::path::Path;

use liftdb::ingest::kernel::{RunContext, RunFiles, RunOutcome};
use liftdb::ingest::formats::{self, Format};
use liftdb::ingest::loose;

/// (mode, bodies): the first byte picks what to exercise.
pub fn split(data: &[u8]) -> (u8, Vec<&[u8]>) {
    match data.split_first() {
        Some((mode, rest)) => (*mode, rest.split(|b| *b == 0xff).collect()),
        None => (0, Vec::new()),
    }
}

/// Parse the bodies as the named files of one run directory.
pub fn run_dir(dir: &str, names: &[&str], bodies: &[&[u8]], forced: Format) {
    let files: RunFiles = names
        .iter()
        .zip(bodies)
        .map(|(name, body)| (name.to_string(), body.to_vec()))
        .collect();
    let known_cases = HashMap::new();
    let declared_arms = HashSet::new();
    let ctx = RunContext {
        release: "fuzz",
        forced: Some(forced),
        known_cases: &known_cases,
        declared_arms: &declared_arms,
        grading: &Default::default(),
    };
    match formats::parse_run_dir(Path::new(dir), &files, &ctx) {
        RunOutcome::Answer { records, .. } | RunOutcome::Rejected(records) => {
            std::hint::black_box(records);
        }
        RunOutcome::TriggerTrace => {}
    }
}

/// Parse one body as a loose report file at `path`.
pub fn report(path: &str, body: &[u8], forced: Format) {
    std::hint::black_box(loose::parse(path, body, "0".repeat(64).as_str(), "fuzz", Some(forced)));
}
