//! Phase timings of one ingest, printed to stderr when `LIFTDB_TIMINGS` is
//! set: where the time goes, for benchmarks and profiling, with the peak RSS
//! at the end of each phase (the phase where it rises is the one to look at).

use std::time::{Duration, Instant};

pub struct Timings {
    enabled: bool,
    reported: bool,
    last: Instant,
    /// Per phase: its time, and the process's peak and current RSS (MiB)
    /// and DuckDB's heap (MiB) when it last ended.
    totals: Vec<(&'static str, Duration, Option<Rss>, Option<u64>)>,
}

/// The process's resident set (MiB): its peak so far and what it holds now
/// (what a phase leaves held is what the next phase's peak starts from).
#[derive(Debug, Clone, Copy)]
pub struct Rss {
    pub peak: u64,
    pub now: u64,
}

/// MiB in use on the C library's heap: DuckDB's allocations (liftdb's own
/// go through mimalloc), the part of the RSS that is DuckDB's. None off glibc.
pub fn c_heap_mib() -> Option<u64> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallinfo2 only reads glibc's arena statistics.
        let info = unsafe { libc::mallinfo2() };
        Some((info.uordblks + info.hblkhd) as u64 >> 20)
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    None
}

/// VmHWM and VmRSS from /proc (also the memory budget's reading of what the
/// process holds); None off Linux.
pub fn rss_mib() -> Option<Rss> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<u64> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib / 1024)
    };
    Some(Rss {
        peak: field("VmHWM:")?,
        now: field("VmRSS:")?,
    })
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
        let rss = rss_mib();
        let heap = c_heap_mib();
        match self.totals.iter_mut().find(|(p, ..)| *p == phase) {
            Some((_, total, at_end, heap_at_end)) => {
                *total += spent;
                *at_end = rss;
                *heap_at_end = heap;
            }
            None => self.totals.push((phase, spent, rss, heap)),
        }
    }

    pub fn report(&mut self) {
        self.reported = true;
        if self.enabled {
            for (phase, total, rss, heap) in &self.totals {
                let rss = rss
                    .map(|m| format!("  peak RSS {:>6} MiB, now {:>6} MiB", m.peak, m.now))
                    .unwrap_or_default();
                let heap = heap
                    .map(|mib| format!(" (DuckDB's heap {mib:>5} MiB)"))
                    .unwrap_or_default();
                eprintln!(
                    "timing: {phase:<22} {:>8.3} s{rss}{heap}",
                    total.as_secs_f64()
                );
            }
        }
    }
}

/// A batch that fails before its report still says where its time went:
/// the phases done, the failing one being the next (a long batch that
/// fails tells which phase to look at).
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
    /// The RSS columns read this process's VmHWM and VmRSS: both at least
    /// the 16 MiB held here (so a parse that misread the unit fails).
    #[cfg(target_os = "linux")]
    #[test]
    fn rss_counts_what_the_process_touched() {
        let touched = vec![1u8; 16 << 20];
        assert!(touched.iter().all(|b| *b == 1));
        let rss = super::rss_mib().expect("VmHWM and VmRSS in /proc/self/status");
        assert!(
            rss.peak >= 16,
            "peak {} MiB after touching 16 MiB",
            rss.peak
        );
        assert!(rss.now >= 16, "now {} MiB holding 16 MiB", rss.now);
        assert!(rss.peak >= rss.now);
        drop(touched);
    }
}
