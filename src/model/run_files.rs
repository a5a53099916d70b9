//! The one list of the files a run directory can hold: which mark a
//! directory as a run, the output aliases in the harness's lookup order, and
//! the `source_file.kind` each is recorded as.

/// The file contents of one run directory, keyed by path relative to it
/// (`../case.json` for a file the unit declares from its parent).
pub type RunFiles = std::collections::HashMap<String, Vec<u8>>;

/// Output aliases in skill-eval-harness 0.6.0's lookup order (`read_output_base`).
pub const OUTPUT_ALIASES: &[&str] = &[
    "output.md",
    "output.txt",
    "response.md",
    "response.txt",
    "final.md",
    "final.txt",
];

/// The files grading takes a run's metadata from, in the harness's order
/// (`read_metadata_base`): the first that exists, alone, not merged.
pub const METADATA_FILES: &[&str] = &[
    "metadata.json",
    "timing.json",
    "metrics.json",
    "outputs/metrics.json",
];

/// The first of `METADATA_FILES` the run has, whatever it holds.
pub fn first_metadata_file(files: &RunFiles) -> Option<&'static str> {
    METADATA_FILES
        .iter()
        .copied()
        .find(|name| files.contains_key(*name))
}

/// A run's output as the harness reads it: the first output alias present;
/// else the text files under `outputs/` (skill-creator's, and the harness's
/// fallback) in name order, each under a `--- name ---` header, at most 100.
/// The file it came from (`outputs/` for the folder) and the text.
pub fn read_output(files: &RunFiles) -> (Option<String>, Option<String>) {
    for name in OUTPUT_ALIASES {
        if let Some(bytes) = files.get(*name) {
            return (
                Some(name.to_string()),
                Some(String::from_utf8_lossy(bytes).into_owned()),
            );
        }
    }
    let mut outputs: Vec<(&String, &Vec<u8>)> = files
        .iter()
        .filter(|(k, _)| k.starts_with("outputs/") && k.as_str() != "outputs/metrics.json")
        .filter(|(_, v)| std::str::from_utf8(v).is_ok())
        .collect();
    if outputs.is_empty() {
        return (None, None);
    }
    outputs.sort();
    let text = outputs
        .iter()
        .take(100)
        .map(|(k, v)| {
            format!(
                "--- {} ---\n{}",
                &k["outputs/".len()..],
                String::from_utf8_lossy(v)
            )
        })
        .collect::<Vec<_>>()
        .join("\n");
    (Some("outputs/".to_string()), Some(text))
}

/// Named run files and their `source_file.kind`; `marks_run` says whether
/// the file alone makes its directory a run directory (every harness writes
/// one of these in each run; environment and trace files never come alone).
const NAMED: &[(&str, &str, bool)] = &[
    ("metadata.json", "metadata", true),
    ("metrics.json", "metrics", true),
    ("events.json", "events", true),
    ("timing.json", "timing", true),
    ("trace.jsonl", "trace", false),
    ("environment.json", "environment", false),
    ("grading.json", "grading", false),
];

/// Does a file of this name make its directory a run directory?
pub fn marks_run_dir(name: &str) -> bool {
    OUTPUT_ALIASES.contains(&name) || NAMED.iter().any(|(n, _, marks)| *n == name && *marks)
}

/// The `source_file.kind` of a file in a run directory.
pub fn kind_of(name: &str) -> &'static str {
    if let Some((_, kind, _)) = NAMED.iter().find(|(n, _, _)| *n == name) {
        return kind;
    }
    if name.starts_with("output") || name.starts_with("response") || name.starts_with("final") {
        "output"
    } else {
        "artifact"
    }
}

/// Files above a run directory that adapters read with it, as keys of its
/// `RunFiles`: the handbook's eval case beside the mode directories, and
/// skill-creator's eval metadata beside the config directory (or above it,
/// for `run-N`). Declared so they are hashed with the run and a change to
/// them re-ingests it.
pub const CONTEXT_FILES: &[&str] = &[
    "../case.json",
    "../eval_metadata.json",
    "../../eval_metadata.json",
];

// Each lies above its run directory: discovery looks them up once per parent.
const _: () = {
    let mut i = 0;
    while i < CONTEXT_FILES.len() {
        let rel = CONTEXT_FILES[i].as_bytes();
        assert!(rel.len() > 3 && rel[0] == b'.' && rel[1] == b'.' && rel[2] == b'/');
        i += 1;
    }
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_and_kinds() {
        assert!(marks_run_dir("final.txt") && marks_run_dir("timing.json"));
        assert!(!marks_run_dir("trace.jsonl") && !marks_run_dir("notes.md"));
        assert_eq!(kind_of("trace.jsonl"), "trace");
        assert_eq!(kind_of("response.json"), "output");
        assert_eq!(kind_of("report.md"), "artifact");
    }
}
