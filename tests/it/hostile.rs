//! Broken and hostile input (tests/fixtures/bad/): every case ends as a named
//! ingest_error with a hint, or is read leniently; never a panic, and the rest
//! of the tree still goes in. Cases that cannot live in git (non-UTF-8 names,
//! 100,000 empty folders, a 200 MB output) are made here at run time.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::common::{copy_tree, ingest_paths, new_store, rows, scalar, sql_str};

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn bad_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bad")
}

/// A minimal valid skill-eval-harness run.
fn good_run(dir: &Path, case: &str) {
    write(&dir.join("output.md"), b"Severity: Blocking");
    write(
        &dir.join("metadata.json"),
        format!(r#"{{"case_id": "{case}", "returncode": 0, "elapsed_ms": 10}}"#).as_bytes(),
    );
}

/// The cases made at run time, each with its expectations.
fn generated_cases(root: &Path) -> Vec<(String, Vec<String>)> {
    // Non-UTF-8 names: a file inside a run, and a case directory.
    let run = root.join("g1-non-utf8-names/eval-runs/g1-non-utf8-names/with_skill");
    good_run(&run, "g1-non-utf8-names");
    write(&run.join(OsStr::from_bytes(b"notes-\xff\xfe.md")), b"x");
    let odd_case = root
        .join("g1-non-utf8-names/eval-runs")
        .join(OsStr::from_bytes(b"case-\xe9t\xe9"))
        .join("with_skill");
    good_run(&odd_case, "g1-latin1-case");
    // 100,000 empty folders beside one good run.
    let many = root.join("g2-100k-empty-folders");
    for i in 0..100_000 {
        std::fs::create_dir_all(many.join(format!("d{}/e{i}", i % 100))).unwrap();
    }
    good_run(
        &many.join("eval-runs/g2-100k-empty-folders/with_skill"),
        "g2-100k-empty-folders",
    );
    vec![
        (
            "g1-non-utf8-names".into(),
            vec![
                "ingested g1-non-utf8-names".into(),
                // The case id comes from the directory name, made valid UTF-8.
                "ingested case-\u{fffd}t\u{fffd}".into(),
            ],
        ),
        (
            "g2-100k-empty-folders".into(),
            vec!["ingested g2-100k-empty-folders".into()],
        ),
    ]
}

#[test]
fn the_bad_input_corpus_gives_named_errors_and_the_rest_is_ingested() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bad");
    let mut cases: Vec<(String, Vec<String>)> = Vec::new();
    for entry in std::fs::read_dir(bad_root()).unwrap() {
        let case = entry.unwrap().path();
        if !case.is_dir() {
            continue;
        }
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        copy_tree(&case.join("input"), &root.join(&name));
        let expect = std::fs::read_to_string(case.join("expect.txt")).unwrap();
        cases.push((name, expect.lines().map(str::to_string).collect()));
    }
    cases.extend(generated_cases(&root));
    assert!(cases.len() >= 30, "{} cases", cases.len());

    let mut ts = new_store();
    let summary = ingest_paths(&mut ts, std::slice::from_ref(&root));
    let errors: Vec<String> = summary
        .errors
        .iter()
        .map(|e| format!("{} | {} | {}", e.path, e.stage, e.reason))
        .collect();
    let has_error = |path: &str, reason: &str| {
        errors
            .iter()
            .any(|e| e.contains(path) && e.to_lowercase().contains(&reason.trim().to_lowercase()))
    };
    let ingested: Vec<String> = rows(&ts.store, "SELECT case_id FROM run")
        .into_iter()
        .filter_map(|r| r["case_id"].as_str().map(str::to_string))
        .collect();
    let mut failures = Vec::new();
    for (name, expectations) in &cases {
        for line in expectations {
            let (kind, rest) = line.split_once(' ').unwrap_or((line, ""));
            let ok = match kind {
                "error" => {
                    let (path, reason) = rest.split_once(" | ").unwrap_or((rest, ""));
                    has_error(path.trim(), reason)
                }
                "skipped-or-error" => {
                    has_error(rest.trim(), "")
                        || summary
                            .skipped_files
                            .iter()
                            .any(|f| f.ends_with(rest.trim()))
                }
                "ingested" => ingested.iter().any(|c| c == rest.trim()),
                "null" => {
                    let (column, case) = rest.split_once(' ').unwrap();
                    scalar(
                        &ts.store,
                        &format!(
                            "SELECT {column} IS NULL FROM runs WHERE case_id = {}",
                            sql_str(case)
                        ),
                    ) == true
                }
                "trace_lines" => {
                    let (case, n) = rest.split_once(' ').unwrap();
                    scalar(&ts.store, &format!("SELECT count(*) FROM trace_line WHERE run_id IN (SELECT run_id FROM run WHERE case_id = {})", sql_str(case))).as_i64()
                        == n.parse().ok()
                }
                other => panic!("{name}: unknown expectation '{other}'"),
            };
            if !ok {
                failures.push(format!("{name}: {line}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "unmet expectations:\n{}\nerrors were:\n{}",
        failures.join("\n"),
        errors.join("\n")
    );
    // Every error is in the store, and every one the user sees has a hint.
    let stored = scalar(&ts.store, "SELECT count(*) FROM ingest_error")
        .as_u64()
        .unwrap();
    assert_eq!(stored, summary.errors.len() as u64);
    let unhinted: Vec<&String> = summary
        .errors
        .iter()
        .zip(&errors)
        .filter(|(e, _)| e.hint.is_none())
        .map(|(_, line)| line)
        .collect();
    assert!(unhinted.is_empty(), "errors without a hint: {unhinted:?}");
}

#[test]
fn a_huge_output_file_is_ingested() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("eval-runs/big-case/with_skill");
    good_run(&run, "big-case");
    let chunk = "Severity: Major — a long answer line that repeats.\n".repeat(20_000);
    let mut out = std::fs::File::create(run.join("output.md")).unwrap();
    use std::io::Write;
    while out.metadata().unwrap().len() < 200 * 1024 * 1024 {
        out.write_all(chunk.as_bytes()).unwrap();
    }
    drop(out);
    let mut ts = new_store();
    let summary = ingest_paths(&mut ts, &[dir.path().join("eval-runs")]);
    assert!(summary.errors.is_empty(), "{:?}", summary.errors);
    let len = scalar(&ts.store, "SELECT strlen(output_text) FROM run")
        .as_i64()
        .unwrap();
    assert!(len >= 200 * 1024 * 1024);
}

/// A token count no run can have (1e23 in the run's metrics) is no count:
/// the run's total_tokens reads NULL and its tokens unavailable, never a
/// figure and never "available"; the run itself is ingested.
#[test]
fn an_impossible_token_count_is_unavailable() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("eval-runs");
    copy_tree(&crate::common::seh_root().join("runs/eval-runs"), &runs);
    let run = runs.join("add-not-null-column/claude-haiku-4-5/with_skill/run-1");
    for name in ["metrics.json", "metadata.json"] {
        let path = run.join(name);
        let mut doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        doc["total_tokens"] = serde_json::json!(1e23);
        doc["telemetry"]["measurements"]["total_tokens"]["value"] = serde_json::json!(1e23);
        std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    }
    let mut ts = new_store();
    let summary = ingest_paths(&mut ts, &[runs]);
    assert!(summary.errors.is_empty(), "{:?}", summary.errors);
    let found = rows(
        &ts.store,
        "SELECT total_tokens, tokens_availability FROM runs
         WHERE case_id = 'add-not-null-column' AND model = 'claude-haiku-4-5'
           AND arm = 'with_skill' AND repetition = 1",
    );
    assert_eq!(found.len(), 1);
    assert!(found[0]["total_tokens"].is_null(), "{found:?}");
    assert_eq!(found[0]["tokens_availability"], "unavailable");
}
