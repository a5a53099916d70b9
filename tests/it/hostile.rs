//! Broken and hostile input: every case ends as a named ingest_error (or is
//! read leniently), never a panic, and the rest of the tree still goes in.

use std::path::Path;

use crate::common::{ingest_paths, new_store, rows, scalar};

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// A minimal valid skill-eval-harness run.
fn good_run(dir: &Path, case: &str) {
    write(&dir.join("output.md"), b"Severity: Blocking");
    write(
        &dir.join("metadata.json"),
        format!(
            r#"{{"case_id": "{case}", "returncode": 0, "timed_out": false, "elapsed_ms": 10}}"#
        )
        .as_bytes(),
    );
}

#[test]
fn broken_files_become_named_errors_and_the_rest_is_ingested() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("eval-runs");
    let runs = |case: &str| root.join(case).join("with_skill");
    let manifest = dir.path().join("manifest.json");
    let cases: Vec<String> = (0..20).map(|i| format!("c{i:02}")).collect();
    write(
        &manifest,
        serde_json::json!({"skill_name": "s", "cases": cases.iter().map(|c| serde_json::json!({"id": c, "split": "tune"})).chain([serde_json::json!({"id": "c00"}), serde_json::json!({"prompt": "no id"})]).collect::<Vec<_>>()}).to_string().as_bytes(),
    );
    for c in &cases {
        good_run(&runs(c), c);
    }
    // Each case breaks one file of one run (or adds a hostile file).
    write(
        &runs("c01").join("metadata.json"),
        br#"{"case_id": "c01", "returncode": "#,
    ); // truncated
    write(
        &runs("c02").join("metadata.json"),
        br#"{"case_id": "c02", "returncode": 0, "elapsed_ms": NaN, "x": -Infinity}"#,
    ); // NaN: lenient
    write(&runs("c03").join("metadata.json"), b"[1, 2, 3]"); // wrong top-level type
    write(
        &runs("c04").join("metadata.json"),
        br#"{"case_id": 4, "returncode": "zero", "timed_out": "maybe", "model": 7}"#,
    ); // wrong field types
    write(
        &runs("c05").join("metadata.json"),
        br#"{"case_id": "c05", "returncode": 0, "brand_new_field": {"deep": [1, 2]}}"#,
    ); // unknown fields
    write(&runs("c06").join("metadata.json"), b""); // empty
    write(&runs("c07").join("output.md"), b""); // empty output
    write(
        &runs("c08").join("output.md"),
        &[0xff, 0xfe, 0x00, 0x9f, 0x80, 0x41],
    ); // binary junk
    write(
        &runs("c09").join("metadata.json"),
        &[0x00, 0xff, 0x13, 0x37],
    ); // binary junk JSON
    write(
        &runs("c10").join("events.json"),
        br#"{"schema_version": 2, "events": [{"type": "command""#,
    ); // truncated events
    write(
        &runs("c11").join("events.json"),
        br#"{"schema_version": 2, "events": "not a list"}"#,
    );
    write(
        &runs("c12").join("trace.jsonl"),
        b"{\"ok\": 1}\nnot json at all\n\xff\xfe\n",
    ); // mixed trace lines
    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    write(&runs("c13").join("metrics.json"), deep.as_bytes()); // deeply nested
    write(
        &root.join("c14").join("mystery_arm").join("output.md"),
        b"x",
    ); // not an arm
    write(
        &root
            .join("c15")
            .join("with_skill")
            .join("run-0")
            .join("output.md"),
        b"x",
    ); // bad repetition
    write(&runs("c16").join("metadata.json"), br#"{"case_id": "c16", "telemetry_schema_version": 3, "telemetry": {"schema_version": 3, "measurements": {"cost": {"availability": "available", "value": {"amount": "not-a-number"}}, "input_tokens": "weird"}}}"#);
    write(
        &runs("c17").join("output.md"),
        "ünïcødé ✓ — and a very long line "
            .repeat(10_000)
            .as_bytes(),
    );
    write(&dir.path().join("junk.json"), b"\x00\x01 not json"); // unreadable report in the tree
    write(&dir.path().join("benchmark.json.gz"), b"this is not gzip"); // broken gzip
    write(
        &dir.path().join("bench-dup.json"),
        serde_json::json!({"skill_name": "s", "population": "answer", "paired_summary": {},
            "results": [
                {"case_id": "c00", "variant": "with_skill", "run_number": 1, "run_base": "/x/eval-runs/c00/with_skill", "assertions": []},
                {"case_id": "c00", "variant": "with_skill", "run_number": 1, "run_base": "/x/eval-runs/c00/with_skill", "assertions": []},
                {"variant": "with_skill", "run_base": "/x/eval-runs/c99/with_skill"}
            ]})
        .to_string()
        .as_bytes(),
    );
    // Symbolic links: a loop, and one pointing outside the tree.
    std::os::unix::fs::symlink(&root, root.join("loop")).unwrap();
    std::fs::create_dir_all(root.join("c18")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", root.join("c18").join("outside.json")).unwrap();
    // Many empty folders.
    for i in 0..2_000 {
        std::fs::create_dir_all(dir.path().join("empty").join(format!("d{i}"))).unwrap();
    }

    let mut ts = new_store();
    let summary = ingest_paths(&mut ts, &[dir.path().to_path_buf()]);
    let errors: Vec<String> = summary
        .errors
        .iter()
        .map(|e| format!("{} | {} | {}", e.path, e.stage, e.reason))
        .collect();
    let has = |path_part: &str, reason_part: &str| {
        errors.iter().any(|e| {
            e.contains(path_part) && e.to_lowercase().contains(&reason_part.to_lowercase())
        })
    };
    for (path, reason) in [
        ("c01/with_skill/metadata.json", "invalid JSON"),
        ("c03/with_skill/metadata.json", "expected a JSON object"),
        ("c06/with_skill/metadata.json", "invalid JSON"),
        ("c09/with_skill/metadata.json", "invalid JSON"),
        ("c10/with_skill/events.json", "invalid"),
        ("c11/with_skill/events.json", "invalid events"),
        ("c13/with_skill/metrics.json", "invalid JSON"),
        ("c14/mystery_arm", "not an arm"),
        ("c15/with_skill/run-0", "not an arm"),
        ("benchmark.json.gz", "cannot read"),
        ("bench-dup.json", "a second row"),
        ("bench-dup.json", "lacks case_id"),
        ("manifest.json", "duplicate case id"),
        ("manifest.json", "has no id"),
        ("loop", "symbolic link"),
        ("outside.json", "symbolic link"),
    ] {
        assert!(
            has(path, reason),
            "expected an error for {path} ({reason}); got:\n{}",
            errors.join("\n")
        );
    }
    assert!(
        summary
            .skipped_files
            .iter()
            .any(|f| f.ends_with("junk.json"))
            || has("junk.json", ""),
        "junk.json accounted for"
    );

    // Every run directory that could be placed is in the store.
    let ingested: Vec<String> = rows(&ts.store, "SELECT case_id FROM run ORDER BY case_id")
        .into_iter()
        .map(|r| r["case_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        ingested, cases,
        "every run directory ingested, broken metadata and all"
    );
    let nan = rows(
        &ts.store,
        "SELECT elapsed_ms, elapsed_availability FROM runs WHERE case_id = 'c02'",
    )
    .remove(0);
    assert!(nan["elapsed_ms"].is_null(), "NaN is NULL, not a number");
    let bad = rows(&ts.store, "SELECT scorable, unscorable_reason FROM runs WHERE case_id IN ('c01', 'c06', 'c09') ORDER BY case_id");
    assert!(bad
        .iter()
        .all(|r| r["unscorable_reason"] == "invalid_metadata"));
    assert_eq!(scalar(&ts.store, "SELECT count(*) FROM trace_line WHERE run_id IN (SELECT run_id FROM run WHERE case_id = 'c12')").as_i64(), Some(3));
    let errors_in_store = scalar(&ts.store, "SELECT count(*) FROM ingest_error")
        .as_u64()
        .unwrap();
    assert_eq!(errors_in_store, summary.errors.len() as u64);
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
