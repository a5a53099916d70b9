//! The release label of a batch when `--release` is not given: the label a
//! previous ingest gave the same files (so re-ingests stay consistent), else
//! the release of the run directories a report grades when they are already
//! in the store (a benchmark ingested after its run tree), else
//! the skill tree hash of the with_skill runs, else the report's generation
//! date, else the release of unchanged run directories given in the same
//! call (a manifest ingested after its runs joins their release), else
//! "default".

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use regex::bytes::Regex;
use serde_json::Value;

use super::state::{self, StoredState};
use super::units::{ChangedRun, ReadUnit, UnchangedRun};
use crate::ingest::discover::FileInfo;
use crate::ingest::formats::seh::benchmark_stream::stream_from_bytes;
use crate::json::{parse_lenient, Get};
use duckdb::Connection;

pub const DEFAULT_RELEASE: &str = "default";

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// A file's bytes, or for a large file that was only hashed, its first
/// 256 KB and last 4 MB (where a report's generated_at and run bases are).
fn witness<'a>(info: &FileInfo, bytes: &'a [u8]) -> std::borrow::Cow<'a, [u8]> {
    use std::io::{Read, Seek, SeekFrom};
    if !bytes.is_empty()
        || info.size < stream_from_bytes()
        || info.path().extension().is_some_and(|e| e == "gz")
    {
        return std::borrow::Cow::Borrowed(bytes);
    }
    let mut out = Vec::new();
    if let Ok(mut f) = std::fs::File::open(info.path()) {
        let mut head = vec![0u8; 256 << 10];
        let n = f.read(&mut head).unwrap_or(0);
        out.extend_from_slice(&head[..n]);
        let tail = 4u64 << 20;
        if f.seek(SeekFrom::Start(info.size.saturating_sub(tail)))
            .is_ok()
        {
            let _ = f.take(tail).read_to_end(&mut out);
        }
    }
    std::borrow::Cow::Owned(out)
}

fn streamed_generated_at(head: &[u8]) -> Option<String> {
    static AT: OnceLock<Regex> = OnceLock::new();
    let at = AT
        .get_or_init(|| Regex::new(r#""generated_at"\s*:\s*([0-9.eE+]+)"#).expect("valid pattern"));
    let epoch: f64 = std::str::from_utf8(at.captures(head)?.get(1)?.as_bytes())
        .ok()?
        .parse()
        .ok()?;
    date_of(&serde_json::json!({ "generated_at": epoch }))
}

fn date_of(doc: &Value) -> Option<String> {
    if let Some(epoch) = doc.f64_at("generated_at") {
        let (y, m, d) = civil_from_days((epoch / 86_400.0).floor() as i64);
        return Some(format!("{y:04}-{m:02}-{d:02}"));
    }
    let iso = doc
        .get("metadata")
        .and_then(|m| m.str_at("timestamp"))
        .or_else(|| doc.get("results").and_then(|r| r.str_at("timestamp")))?;
    iso.get(..10).map(str::to_string)
}

/// The release of the first run a harness report grades (`"run_base"`), when
/// that run directory is in the store. The path is tried as written, against
/// the report's folder and its parents (harnesses write it relative to where
/// they ran), and against the working directory.
fn graded_runs_release(report: &Path, bytes: &[u8], conn: &Connection) -> Option<String> {
    static RUN_BASE: OnceLock<Regex> = OnceLock::new();
    let pattern = RUN_BASE.get_or_init(|| {
        Regex::new(r#""run_base"\s*:\s*"([^"\\]+)""#).expect("valid run_base pattern")
    });
    let run_base = std::str::from_utf8(pattern.captures(bytes)?.get(1)?.as_bytes()).ok()?;
    let run_base = Path::new(run_base);
    let mut bases: Vec<PathBuf> = report
        .ancestors()
        .skip(1)
        .map(|dir| dir.join(run_base))
        .collect();
    bases.push(run_base.to_path_buf());
    if let Ok(cwd) = std::env::current_dir() {
        bases.push(cwd.join(run_base));
    }
    let bases: Vec<String> = bases.iter().map(|b| b.display().to_string()).collect();
    // A failed lookup finds no release: the next rule decides.
    state::first_owner_release(conn, &bases)
        .ok()
        .flatten()
        .or_else(|| release_by_path_suffix(run_base, conn).ok().flatten())
}

/// A report written on another machine names run directories under another
/// root: match the stored run directory sharing the longest tail of the path
/// (at least case/arm/run), when that tail names one release only. Only the
/// owners ending in the path's last three components are read.
fn release_by_path_suffix(run_base: &Path, conn: &Connection) -> crate::Result<Option<String>> {
    let wanted: Vec<_> = run_base.components().rev().collect();
    if wanted.len() < 3 {
        return Ok(None);
    }
    let tail: Option<Vec<&str>> = wanted[..3]
        .iter()
        .rev()
        .map(|c| match c {
            std::path::Component::Normal(part) => part.to_str(),
            _ => None,
        })
        .collect();
    let suffix = tail.map(|parts| format!("/{}", parts.join("/")));
    let mut best: Option<(usize, String)> = None;
    let mut tied = false;
    state::each_owner_release(conn, suffix.as_deref(), |owner, release| {
        let shared = Path::new(owner)
            .components()
            .rev()
            .zip(&wanted)
            .take_while(|(a, b)| a == *b)
            .count();
        if shared < 3 {
            return;
        }
        match &best {
            Some((len, r)) if *len == shared && r != release => tied = true,
            Some((len, _)) if *len >= shared => {}
            _ => {
                best = Some((shared, release.to_string()));
                tied = false;
            }
        }
    })?;
    Ok(best.filter(|_| !tied).map(|(_, r)| r))
}

/// A changed unit: a loose file with the bytes the change check kept, or
/// a run directory (read when parsed, no bytes kept).
#[derive(Clone, Copy)]
enum Changed<'a> {
    Loose(&'a ReadUnit),
    Run(&'a ChangedRun),
}

impl<'a> Changed<'a> {
    fn path(self) -> &'a Path {
        match self {
            Changed::Loose(read) => &read.unit.path,
            Changed::Run(run) => run.path(),
        }
    }

    /// Its files, each with the bytes kept (none for a run directory, whose
    /// files are listed again if they were let go).
    fn listed(self, roots: &[PathBuf]) -> Vec<(FileInfo, &'a [u8])> {
        match self {
            Changed::Loose(read) if !read.contents.is_empty() => read
                .contents
                .iter()
                .map(|(f, b, _)| (f.clone(), b.as_slice()))
                .collect(),
            Changed::Loose(read) => read
                .unit
                .files
                .iter()
                .map(|f| (f.clone(), &[][..]))
                .collect(),
            Changed::Run(run) => run.files(roots).into_iter().map(|f| (f, &[][..])).collect(),
        }
    }

    /// Whether a file of it can tell a release by its bytes alone (its
    /// run_base or generated_at): a run directory's files are not kept, so
    /// only one too large to have been read whole is read here (`witness`).
    fn may_witness(self) -> bool {
        match self {
            Changed::Loose(_) => true,
            Changed::Run(run) => run.has_file_of(stream_from_bytes()),
        }
    }
}

/// What a batch without --release derives its release from.
pub struct Given<'a> {
    pub loose: &'a [ReadUnit],
    pub runs: &'a [ChangedRun],
    pub unchanged_runs: &'a [UnchangedRun],
    /// The directories walked.
    pub roots: &'a [PathBuf],
}

/// The release of a batch without --release: the first rule that finds
/// one, over the changed units in plan order (loose files, then run
/// directories).
pub fn derive(given: &Given, known: &StoredState, conn: &Connection) -> (String, &'static str) {
    let roots = given.roots;
    let changed = || {
        given
            .loose
            .iter()
            .map(Changed::Loose)
            .chain(given.runs.iter().map(Changed::Run))
    };
    for unit in changed() {
        let owner = unit.path().display().to_string();
        if let Some(release) = known.owners.release(&owner) {
            return (release.to_string(), "previous ingest");
        }
    }
    for unit in changed().filter(|u| u.may_witness()) {
        for (info, bytes) in unit.listed(roots) {
            let bytes = witness(&info, bytes);
            if let Some(release) = graded_runs_release(&info.path(), &bytes, conn) {
                return (release, "graded runs");
            }
        }
    }
    for unit in changed() {
        let in_treatment = unit
            .path()
            .components()
            .any(|c| c.as_os_str() == "with_skill");
        if !in_treatment {
            continue;
        }
        for (info, _) in unit.listed(roots) {
            if info.name() == "metadata.json" {
                // Run directory bytes are not kept after the change check.
                let Ok(bytes) = std::fs::read(info.path()) else {
                    continue;
                };
                if let Some(hash) = parse_lenient(&bytes)
                    .ok()
                    .and_then(|m| m.str_at("skill_tree_hash").map(str::to_string))
                {
                    return (
                        format!("skill-{}", &hash[..hash.len().min(12)]),
                        "skill_tree_hash",
                    );
                }
            }
        }
    }
    for unit in changed().filter(|u| u.may_witness()) {
        for (info, bytes) in unit.listed(roots) {
            let name = info.name().to_string_lossy();
            if !(name.ends_with(".json") || name.ends_with(".json.gz")) {
                continue;
            }
            let date = match bytes.is_empty() {
                false => parse_lenient(bytes).ok().as_ref().and_then(date_of),
                // A report too large to hold: its generated_at from the head.
                true => streamed_generated_at(&witness(&info, bytes)),
            };
            if let Some(date) = date {
                return (format!("run-{date}"), "generated_at");
            }
        }
    }
    let given_runs_release = given
        .unchanged_runs
        .iter()
        .find_map(|u| known.owners.release(&u.path.display().to_string()));
    if let Some(release) = given_runs_release {
        return (release.to_string(), "runs given with it");
    }
    (DEFAULT_RELEASE.to_string(), "default")
}

#[cfg(test)]
mod tests {
    use super::civil_from_days;

    #[test]
    fn epoch_days_to_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        // 1795979518 s (a benchmark's generated_at) is 2026-11-29.
        assert_eq!(civil_from_days(1_795_979_518 / 86_400), (2026, 11, 29));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }
}
