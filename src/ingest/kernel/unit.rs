//! What an adapter receives for one run directory and what it gives back.

use std::collections::{HashMap, HashSet};

use super::Format;
use crate::model::records::Records;

pub use crate::model::run_files::RunFiles;

/// What every run directory of one ingest shares.
pub struct RunContext<'a> {
    pub release: &'a str,
    /// The release was named (--release): skill-creator iterations do not
    /// become releases of their own.
    pub release_explicit: bool,
    /// `ingest --shard NAME`: part of each run's identity, so shards that
    /// number their repetitions alike never collide.
    pub shard: Option<&'a str>,
    /// The directories given to ingest (a skill-eval-harness layout is read
    /// from the one holding its case folders).
    pub roots: &'a [std::path::PathBuf],
    pub forced: Option<Format>,
    /// case id -> skill, from the manifests and reports of this ingest and the store.
    pub known_cases: &'a HashMap<String, String>,
    /// Arm names manifests declare beyond the standard ones.
    pub declared_arms: &'a HashSet<String>,
    /// The manifest cases liftdb grades skill-eval-harness runs against.
    pub grading: &'a GradingContext,
}

/// What liftdb's grader needs besides the run: each manifest case and where
/// its manifest lives (references and scripts are relative to it).
#[derive(Debug, Default)]
pub struct GradingContext {
    /// case id -> the manifest's case.
    pub cases: HashMap<String, ManifestCase>,
    pub options: crate::grade::GradeOptions,
    /// judge_task_id -> the stored judge result row, for judge assertions.
    pub judge_results: HashMap<String, serde_json::Value>,
    /// case id -> digest of the judge results of its tasks (part of the key,
    /// so judge results ingested later regrade their cases).
    pub judge_digests: HashMap<String, String>,
    /// The variants the manifests request (the harness's default `--variant`
    /// list): one missing under a case or model folder is a phantom run.
    pub variants: Vec<String>,
    /// The manifests' trigger cases, in manifest order, as the trigger
    /// runners ask them: what a trigger-run trace folder observed.
    pub trigger_queries: Vec<super::trigger_query::TriggerQuery>,
}

#[derive(Debug, Clone)]
pub struct ManifestCase {
    /// The case as compact JSON, parsed again for each run graded: as text
    /// a large manifest's cases take a fraction of what `Value` trees do
    /// through the whole parse, and a parse per run costs little.
    json: Box<str>,
    has_script: bool,
    /// Whether grading reads files from the manifest's folder (a script run
    /// there, a golden_output reference): only then is the folder part of
    /// the case's grading key.
    reads_folder: bool,
    pub manifest_dir: std::path::PathBuf,
}

impl ManifestCase {
    pub fn new(case: &serde_json::Value, manifest_dir: std::path::PathBuf) -> ManifestCase {
        ManifestCase {
            json: case.to_string().into_boxed_str(),
            has_script: has_assertion(case, "script"),
            reads_folder: has_assertion(case, "script") || has_assertion(case, "golden_output"),
            manifest_dir,
        }
    }

    /// The case as the manifest gives it.
    pub fn case(&self) -> serde_json::Value {
        // serde_json's own output of a Value it parsed: it parses back.
        serde_json::from_str(&self.json).unwrap_or_default()
    }
}

impl GradingContext {
    /// The key a liftdb grading of a run of `case_id` gets now: None when no
    /// manifest case grades it. Stored with each grading, so a re-ingest
    /// regrades exactly the runs whose case, grader or verdict-changing flags
    /// moved, or whose manifest folder moved when grading reads files there
    /// (the same manifest checked out at two paths grades alike otherwise).
    pub fn key(&self, case_id: &str) -> Option<String> {
        use sha2::{Digest, Sha256};
        let mc = self.cases.get(case_id)?;
        let mut h = Sha256::new();
        for part in [
            crate::grade::GRADER_VERSION.as_bytes(),
            mc.json.as_bytes(),
            match mc.reads_folder {
                true => mc.manifest_dir.as_os_str().as_encoded_bytes(),
                false => &[][..],
            },
            self.judge_digests
                .get(case_id)
                .map_or(&[][..], |d| d.as_bytes()),
            // --allow-scripts changes only the verdicts of cases with scripts.
            &[
                (self.options.allow_scripts && mc.has_script) as u8,
                self.options.strict as u8,
            ],
        ] {
            // Length-prefixed, so no two different inputs hash alike.
            h.update((part.len() as u64).to_le_bytes());
            h.update(part);
        }
        Some(format!("{:x}", h.finalize()))
    }

    /// Add stored judge result rows (first one wins for a task id, as the
    /// judge-results parser keeps) and recompute each case's digest.
    pub fn add_judge_results(
        &mut self,
        rows: impl IntoIterator<Item = (String, serde_json::Value)>,
    ) {
        use sha2::{Digest, Sha256};
        for (task, raw) in rows {
            self.judge_results.entry(task).or_insert(raw);
        }
        let mut by_case: HashMap<&str, Vec<(&String, &serde_json::Value)>> = HashMap::new();
        for (task, raw) in &self.judge_results {
            let case = task.split("::").next().unwrap_or_default();
            by_case.entry(case).or_default().push((task, raw));
        }
        self.judge_digests = by_case
            .into_iter()
            .map(|(case, mut rows)| {
                rows.sort_by(|a, b| a.0.cmp(b.0));
                let mut h = Sha256::new();
                for (task, raw) in rows {
                    h.update(task.as_bytes());
                    h.update([0]);
                    h.update(raw.to_string().as_bytes());
                    h.update([0]);
                }
                (case.to_string(), format!("{:x}", h.finalize()))
            })
            .collect();
    }
}

/// Whether a case has an assertion of type `kind`, at its top level or in a turn.
fn has_assertion(case: &serde_json::Value, kind: &str) -> bool {
    let is_script = |a: &serde_json::Value| a.get("type").and_then(|t| t.as_str()) == Some(kind);
    let scripted = |list: Option<&serde_json::Value>| {
        list.and_then(|l| l.as_array())
            .is_some_and(|l| l.iter().any(is_script))
    };
    scripted(case.get("assertions"))
        || case
            .get("turns")
            .and_then(|t| t.as_array())
            .is_some_and(|turns| turns.iter().any(|t| scripted(t.get("assertions"))))
}

pub enum RunOutcome {
    /// An answer run: its records (which may include per-file errors).
    Answer { run_id: String, records: Records },
    /// A trigger-trace run directory (population "trigger"): not an answer
    /// run; its records hold its trigger observation.
    TriggerTrace(Records),
    /// Not a run directory we understand; the records hold the error.
    Rejected(Records),
}

/// A file a loose file's parse read besides itself (promptfoo's
/// `evidencePath`), recorded so it is hashed with its unit and a change to
/// it re-ingests the unit.
#[derive(Debug, Clone)]
pub struct DeclaredFile {
    pub path: std::path::PathBuf,
    pub sha256: String,
    pub size: u64,
    pub mtime_ns: i64,
}

/// The one way a loose adapter reads another file: each read is remembered.
#[derive(Debug, Default)]
pub struct DeclaredReader {
    read: std::sync::Mutex<Vec<DeclaredFile>>,
}

impl DeclaredReader {
    /// The file's bytes (gunzipped), or None when it cannot be read.
    pub fn read(&self, path: &std::path::Path) -> Option<Vec<u8>> {
        let meta = std::fs::metadata(path).ok().filter(|m| m.is_file())?;
        // Evidence files a report points to: small, read under the default caps.
        let limits = crate::json::ReadLimits::default();
        let (bytes, sha256) = crate::json::read_hashed(path, &limits).ok()?;
        let info = crate::ingest::discover::FileInfo::of(path, &meta);
        let file = DeclaredFile {
            path: info.path(),
            sha256,
            size: info.size,
            mtime_ns: info.mtime_ns,
        };
        if let Ok(mut read) = self.read.lock() {
            if !read.iter().any(|f| f.path == file.path) {
                read.push(file);
            }
        }
        Some(bytes)
    }

    pub fn into_files(self) -> Vec<DeclaredFile> {
        self.read.into_inner().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A case held as text gives back the case it was made from: escapes,
    /// non-ASCII text, floats, key order and nested turns included (the
    /// grader reads it, and its text is part of every grading key).
    #[test]
    fn a_manifest_case_gives_back_the_case_it_holds() {
        let case = json!({
            "id": "quote-\"é\"-1",
            "prompt": "Line one\nline two \u{1F600} \\ done",
            "reference_score": 0.1,
            "weights": [1e-7, 2.5, -0.0, 12345678901234567890u64],
            "turns": [{"assertions": [{"type": "script", "run": "check.py"}]}],
            "z_last": null,
            "a_after": true
        });
        let held = ManifestCase::new(&case, "/m".into());
        assert_eq!(held.case(), case);
        assert_eq!(held.case().to_string(), case.to_string());
        let keys: Vec<_> = held.case().as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys.first().map(String::as_str), Some("id"));
        assert_eq!(keys.last().map(String::as_str), Some("a_after"));
    }

    /// The grading key of a case follows its text, its manifest's folder
    /// and, for a case with a script (in a turn too), --allow-scripts.
    #[test]
    fn the_grading_key_follows_the_case_and_the_flags_that_change_its_verdicts() {
        let plain = json!({"id": "a", "assertions": [{"type": "contains", "value": "x"}]});
        let scripted = json!({"id": "b", "turns": [{"assertions": [{"type": "script"}]}]});
        let golden =
            json!({"id": "c", "assertions": [{"type": "golden_output", "reference": "r.md"}]});
        let context = |allow_scripts: bool, dir: &str| {
            let mut g = GradingContext {
                options: crate::grade::GradeOptions {
                    allow_scripts,
                    strict: false,
                },
                ..Default::default()
            };
            g.cases
                .insert("a".into(), ManifestCase::new(&plain, dir.into()));
            g.cases
                .insert("b".into(), ManifestCase::new(&scripted, dir.into()));
            g.cases
                .insert("c".into(), ManifestCase::new(&golden, dir.into()));
            g
        };
        let (base, scripts, moved) = (
            context(false, "/m"),
            context(true, "/m"),
            context(false, "/n"),
        );
        assert_eq!(base.key("a"), scripts.key("a"));
        assert_ne!(base.key("b"), scripts.key("b"));
        // The folder counts where grading reads files from it (a script runs
        // there), not for a case that reads nothing from it.
        assert_eq!(base.key("a"), moved.key("a"));
        assert_ne!(base.key("b"), moved.key("b"));
        assert_ne!(base.key("c"), moved.key("c"));
        assert_ne!(base.key("a"), base.key("b"));
        assert_eq!(base.key("missing"), None);
    }
}
