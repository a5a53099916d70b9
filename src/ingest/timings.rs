//! Phase timings of one ingest, printed to stderr when `LIFTDB_TIMINGS` is
//! set: where the time goes, for benchmarks and profiling, with the peak RSS
//! at the end of each phase (the phase where it rises is the one to look at).

use std::time::{Duration, Instant};

pub struct Timings {
    enabled: bool,
    reported: bool,
    last: Instant,
    /// Per phase: its time, and the process's peak RSS (MiB) when it last ended.
    totals: Vec<(&'static str, Duration, Option<u64>)>,
}

/// The process's peak resident set so far (VmHWM), in MiB; None off Linux.
fn peak_rss_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024)
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
        if !self.enabled {
            return;
        }
        let now = Instant::now();
        let spent = now - self.last;
        self.last = now;
        let peak = peak_rss_mib();
        match self.totals.iter_mut().find(|(p, ..)| *p == phase) {
            Some((_, total, at_end)) => {
                *total += spent;
                *at_end = peak;
            }
            None => self.totals.push((phase, spent, peak)),
        }
    }

    pub fn report(&mut self) {
        self.reported = true;
        if self.enabled {
            for (phase, total, peak) in &self.totals {
                let peak = peak
                    .map(|mib| format!("  peak RSS {mib:>6} MiB"))
                    .unwrap_or_default();
                eprintln!("timing: {phase:<22} {:>8.3} s{peak}", total.as_secs_f64());
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

#[cfg(test)]
mod tests {
    /// The peak RSS column reads this process's VmHWM: at least the
    /// 16 MiB just touched here (so a parse that misread the unit fails).
    #[cfg(target_os = "linux")]
    #[test]
    fn peak_rss_counts_what_the_process_touched() {
        let touched = vec![1u8; 16 << 20];
        assert!(touched.iter().all(|b| *b == 1));
        let peak = super::peak_rss_mib().expect("VmHWM in /proc/self/status");
        assert!(peak >= 16, "peak {peak} MiB after touching 16 MiB");
    }
}
