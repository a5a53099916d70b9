//! Phase timings of one ingest, printed to stderr when `LIFTDB_TIMINGS` is
//! set: where the time goes, for benchmarks and profiling.

use std::time::{Duration, Instant};

pub struct Timings {
    enabled: bool,
    reported: bool,
    last: Instant,
    totals: Vec<(&'static str, Duration)>,
}

impl Timings {
    pub fn from_env() -> Timings {
        Timings {
            enabled: std::env::var_os("LIFTDB_TIMINGS").is_some(),
            reported: false,
            last: Instant::now(),
            totals: Vec::new(),
        }
    }

    /// Charge the time since the previous mark to `phase` (phases repeat per chunk).
    pub fn mark(&mut self, phase: &'static str) {
        let now = Instant::now();
        let spent = now - self.last;
        self.last = now;
        match self.totals.iter_mut().find(|(p, _)| *p == phase) {
            Some((_, total)) => *total += spent,
            None => self.totals.push((phase, spent)),
        }
    }

    pub fn report(&mut self) {
        self.reported = true;
        if self.enabled {
            for (phase, total) in &self.totals {
                eprintln!("timing: {phase:<22} {:>8.3} s", total.as_secs_f64());
            }
        }
    }
}

/// A batch that fails before its report still says where its time went:
/// the phases done, the failing one being the next (a million-run batch
/// that fails after half an hour tells which phase to look at).
impl Drop for Timings {
    fn drop(&mut self) {
        if self.enabled && !self.reported {
            eprintln!("timing: (the batch failed after these phases)");
            self.report();
        }
    }
}
