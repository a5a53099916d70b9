//! No path loses data or memory: store paths that would not persist are
//! refused before anything is parsed, foreign files are never written,
//! reads are capped, special files never opened, and each failure is said
//! once, in liftdb's words, with what to do.

use std::path::Path;

use crate::common::{fixture, liftdb_cmd, seh_root};

fn sha256(path: &Path) -> String {
    liftdb::ingest::json::sha256_hex(&std::fs::read(path).unwrap())
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

#[test]
fn store_paths_that_would_not_persist_are_refused_before_parsing() {
    let dir = tempfile::tempdir().unwrap();
    // An existing CSV: DuckDB would read it as a table and keep nothing written.
    let csv = dir.path().join("runs.csv");
    std::fs::write(&csv, "a,b\n1,2\n").unwrap();
    let before = sha256(&csv);
    let manifest = seh_root().join("input/evals/shared-benchmark.json");
    let out = liftdb_cmd(&csv)
        .arg("ingest")
        .arg(&manifest)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).contains("cannot be a store"),
        "{}",
        stderr_of(&out)
    );
    assert!(
        stderr_of(&out).contains(".duckdb"),
        "the hint names the extension"
    );
    assert_eq!(sha256(&csv), before, "the CSV is untouched");
    // New paths of data-file kinds and in-memory names are refused, and nothing is created.
    for name in ["new.parquet", "new.json", ":memory:"] {
        let path = dir.path().join(name);
        let target = if name.starts_with(':') {
            Path::new(name).to_path_buf()
        } else {
            path.clone()
        };
        let out = liftdb_cmd(&target)
            .arg("ingest")
            .arg(&manifest)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}: {}", stderr_of(&out));
        assert!(stderr_of(&out).contains("cannot be a store"), "{name}");
        assert!(!path.exists(), "{name} was not created");
    }
    // A store named .duckdb persists: reopened by another process, the batch is there.
    let db = dir.path().join("ok.duckdb");
    liftdb_cmd(&db)
        .args(["ingest", "-q"])
        .arg(&manifest)
        .assert()
        .success();
    liftdb_cmd(&db)
        .args(["sql", "SELECT count(*) FROM ingest_batch"])
        .assert()
        .success()
        .stdout(predicates::str::contains("1"));
}

#[test]
fn a_foreign_file_is_refused_unchanged_with_one_message() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "my notes, not a database\n").unwrap();
    let before = sha256(&notes);
    let out = liftdb_cmd(&notes)
        .arg("ingest")
        .arg(seh_root().join("input/evals/shared-benchmark.json"))
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("is not a liftdb store"), "{err}");
    // DuckDB's text once, and none of the bindings' code text.
    assert_eq!(
        err.matches("not a valid DuckDB database file").count(),
        1,
        "{err}"
    );
    assert!(!err.contains("Unknown error code"), "{err}");
    assert_eq!(sha256(&notes), before, "the file is untouched");
}

#[test]
fn a_gzip_inflating_far_past_the_cap_is_a_named_error_in_bounded_memory() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let bomb = dir.path().join("reports/benchmark.json.gz");
    std::fs::create_dir_all(bomb.parent().unwrap()).unwrap();
    // 1.5 GiB of spaces (valid JSON whitespace) in a few MB: three times the default cap.
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&bomb).unwrap(),
        flate2::Compression::fast(),
    );
    let block = vec![b' '; 64 << 20];
    for _ in 0..24 {
        gz.write_all(&block).unwrap();
    }
    gz.finish().unwrap();
    let db = dir.path().join("s.duckdb");
    let manifest = seh_root().join("input/evals/shared-benchmark.json");
    // Peak RSS of the ingest process, as /usr/bin/time reports it (KiB).
    let out = std::process::Command::new("/usr/bin/time")
        .args(["-f", "maxrss_kb=%M"])
        .arg(assert_cmd::cargo::cargo_bin("liftdb"))
        .env_remove("LIFTDB_DB")
        .arg("--db")
        .arg(&db)
        .args(["ingest", "-q"])
        .arg(&bomb)
        .arg(&manifest)
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(
        out.status.code(),
        Some(1),
        "an error row, not a failure: {err}"
    );
    assert!(
        err.contains("benchmark.json.gz: cannot read: inflates past the"),
        "{err}"
    );
    assert!(
        err.contains("--max-inflated-mb"),
        "the hint says how to raise it: {err}"
    );
    let kb: u64 = err
        .lines()
        .find_map(|l| l.strip_prefix("maxrss_kb="))
        .and_then(|v| v.trim().parse().ok())
        .expect("maxrss from /usr/bin/time");
    assert!(kb < 1024 * 1024, "peak RSS {kb} KiB is over 1 GiB");
    // The rest of the batch is ingested.
    liftdb_cmd(&db)
        .args(["sql", "SELECT count(*) > 0 FROM case_def"])
        .assert()
        .success()
        .stdout(predicates::str::contains("true"));
}

#[test]
fn a_fifo_in_a_run_directory_is_named_and_never_opened() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("eval-runs");
    crate::common::copy_tree(
        &fixture("skill-eval-harness/runs/eval-runs/enum-add-value"),
        &runs.join("enum-add-value"),
    );
    let fifo = runs.join("enum-add-value/claude-haiku-4-5/with_skill/run-1/trace.jsonl");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo");
    let db = dir.path().join("s.duckdb");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("liftdb"))
        .env_remove("LIFTDB_DB")
        .arg("--db")
        .arg(&db)
        .args(["ingest", "-q"])
        .arg(&runs)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Opening a FIFO with no writer blocks forever: a hang is the failure.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("ingest hung on a FIFO");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut err = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("trace.jsonl: not a regular file (a FIFO, socket or device)"),
        "{err}"
    );
    // The other runs are there.
    liftdb_cmd(&db)
        .args(["sql", "SELECT count(*) >= 18 FROM run"])
        .assert()
        .success()
        .stdout(predicates::str::contains("true"));
}

#[test]
fn a_full_disk_leaves_the_store_as_it_was_and_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let mount = dir.path().join("small");
    std::fs::create_dir_all(&mount).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=12m", "tmpfs"])
        .arg(&mount)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("skipped: cannot mount a tmpfs here (needs root or CAP_SYS_ADMIN)");
        return;
    }
    struct Unmount<'a>(&'a Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(self.0).status();
        }
    }
    let _guard = Unmount(&mount);
    let db = mount.join("s.duckdb");
    let manifest = seh_root().join("input/evals/shared-benchmark.json");
    liftdb_cmd(&db)
        .args(["ingest", "-q"])
        .arg(&manifest)
        .assert()
        .success();
    let cases = |db: &Path| {
        String::from_utf8(
            liftdb_cmd(db)
                .args(["sql", "SELECT count(*) FROM case_def"])
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap()
    };
    let before = cases(&db);
    // The whole dev corpus does not fit in what is left.
    let out = liftdb_cmd(&db)
        .arg("ingest")
        .arg(seh_root())
        .output()
        .unwrap();
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the disk is full"), "{err}");
    assert!(err.contains("the store is as it was"), "{err}");
    // Reopenable, and what it held before.
    assert_eq!(cases(&db), before);
    assert_eq!(
        liftdb_cmd(&db)
            .args(["sql", "SELECT count(*) FROM run"])
            .output()
            .unwrap()
            .stdout,
        b"count_star()\n0\n"
    );
}

#[test]
fn check_reads_every_table_and_view_and_rebuild_writes_a_new_store() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.duckdb");
    let manifest = seh_root().join("input/evals/shared-benchmark.json");
    liftdb_cmd(&db)
        .args(["ingest", "-q", "--release", "r1"])
        .arg(fixture("skill-creator"))
        .assert()
        .success();
    liftdb_cmd(&db)
        .args(["ingest", "-q", "--release", "r2"])
        .arg(&manifest)
        .assert()
        .success();
    let out = liftdb_cmd(&db).arg("check").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let report = String::from_utf8_lossy(&out.stdout);
    for name in [
        "table run ",
        "table case_def ",
        "view  lift ",
        "view  trend ",
    ] {
        assert!(
            report.contains(&format!("ok       {name}")),
            "{name}: {report}"
        );
    }
    // Rebuild: the recorded batches again, in a new store; the old path is refused as target.
    liftdb_cmd(&db)
        .args(["rebuild", "--out"])
        .arg(&db)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("overwrites nothing"));
    let new = dir.path().join("new.duckdb");
    liftdb_cmd(&db)
        .args(["rebuild", "--out"])
        .arg(&new)
        .assert()
        .success();
    let summary = |db: &Path| {
        liftdb_cmd(db)
            .args([
                "sql",
                "SELECT release_label, count(*) FROM run GROUP BY 1 UNION ALL
                 SELECT release_label, count(*) FROM case_def GROUP BY 1 ORDER BY ALL",
            ])
            .output()
            .unwrap()
            .stdout
    };
    assert_eq!(summary(&new), summary(&db));
}

#[test]
fn a_damaged_store_is_found_by_check() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.duckdb");
    liftdb_cmd(&db)
        .args(["ingest", "-q"])
        .arg(fixture("skill-creator"))
        .assert()
        .success();
    // Overwrite the middle half of the file (table data; the headers stay).
    let len = std::fs::metadata(&db).unwrap().len();
    let mut bytes = std::fs::read(&db).unwrap();
    for b in &mut bytes[(len / 4) as usize..(3 * len / 4) as usize] {
        *b ^= 0x5a;
    }
    std::fs::write(&db, bytes).unwrap();
    let out = liftdb_cmd(&db).arg("check").output().unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        stderr_of(&out)
    );
    assert_ne!(out.status.code(), Some(0), "{all}");
    assert!(
        all.contains("DAMAGED") || all.contains("is damaged"),
        "check names the damage: {all}"
    );
    assert!(all.contains("rebuild"), "and what to do: {all}");
}
