//! No path loses data or memory: store paths that would not persist are
//! refused before anything is parsed, foreign files are never written,
//! reads are capped, special files never opened, and each failure is said
//! once, in liftdb's words, with what to do.

use std::path::Path;

use crate::common::{assert_damaged, check_listing, fixture, liftdb_cmd, seh_root, stderr_of};

fn sha256(path: &Path) -> String {
    liftdb::sys::hash::sha256_hex(&std::fs::read(path).unwrap())
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

/// `liftdb ingest -q PATHS` and its peak RSS in KiB, as /usr/bin/time reports it.
fn ingest_measured(db: &Path, paths: &[&Path]) -> (std::process::Output, u64) {
    let out = std::process::Command::new("/usr/bin/time")
        .args(["-f", "maxrss_kb=%M"])
        .arg(assert_cmd::cargo::cargo_bin("liftdb"))
        .env_remove("LIFTDB_DB")
        .arg("--db")
        .arg(db)
        .args(["ingest", "-q"])
        .args(paths)
        .output()
        .unwrap();
    let kb = stderr_of(&out)
        .lines()
        .find_map(|l| l.strip_prefix("maxrss_kb="))
        .and_then(|v| v.trim().parse().ok())
        .expect("maxrss from /usr/bin/time");
    (out, kb)
}

/// A gzip of `mb` MiB of spaces (valid JSON whitespace, a few KB on disk).
fn gzip_of_spaces(path: &Path, mb: usize) {
    use std::io::Write;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(path).unwrap(),
        flate2::Compression::fast(),
    );
    let block = vec![b' '; 1 << 20];
    for _ in 0..mb {
        gz.write_all(&block).unwrap();
    }
    gz.finish().unwrap();
}

#[test]
fn many_reports_under_the_caps_are_never_all_held_at_once() {
    let dir = tempfile::tempdir().unwrap();
    // Five reports each inflating to 250 MiB, under the 512 MiB cap: 1.25 GiB
    // if every one were kept from its change check until its parse.
    let reports: Vec<_> = (0..5)
        .map(|i| dir.path().join(format!("reports/r{i}/benchmark.json.gz")))
        .collect();
    for r in &reports {
        gzip_of_spaces(r, 250);
    }
    let db = dir.path().join("s.duckdb");
    let manifest = seh_root().join("input/evals/shared-benchmark.json");
    let mut paths: Vec<&Path> = reports.iter().map(|p| p.as_path()).collect();
    paths.push(&manifest);
    let (out, kb) = ingest_measured(&db, &paths);
    let err = stderr_of(&out);
    assert_eq!(out.status.code(), Some(1), "error rows: {err}");
    // Each is read (it is whitespace only, so it is no report) and named.
    for i in 0..5 {
        assert!(err.contains(&format!("r{i}/benchmark.json.gz")), "{err}");
    }
    assert!(kb < 1024 * 1024, "peak RSS {kb} KiB is over 1 GiB");
}

#[test]
fn a_gzip_inflating_far_past_the_cap_is_a_named_error_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let bomb = dir.path().join("reports/benchmark.json.gz");
    // 1.5 GiB of spaces in a few MB: three times the default cap.
    gzip_of_spaces(&bomb, 1536);
    let db = dir.path().join("s.duckdb");
    let manifest = seh_root().join("input/evals/shared-benchmark.json");
    let (out, kb) = ingest_measured(&db, &[&bomb, &manifest]);
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
    // The advice is a number, and enough: grow the filesystem by it and the
    // same ingest succeeds.
    let figure = |label: &str| -> u64 {
        let re = regex::Regex::new(&format!(r"(\d+) MB {label}")).unwrap();
        re.captures(&err)
            .unwrap_or_else(|| panic!("no '{label}' figure in: {err}"))[1]
            .parse()
            .unwrap()
    };
    let free = figure("are free there now");
    let more = figure("more");
    assert!(free <= 12, "the tmpfs is 12 MB: {err}");
    assert!(more >= 1, "{err}");
    let grown = std::process::Command::new("mount")
        .args(["-o", &format!("remount,size={}m", 12 + more)])
        .arg(&mount)
        .status()
        .unwrap();
    assert!(grown.success());
    liftdb_cmd(&db)
        .args(["ingest", "-q"])
        .arg(seh_root())
        .assert()
        .success();
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
    for (kind, name) in [
        ("table", "run"),
        ("table", "case_def_record"),
        ("view", "case_def"),
        ("view", "lift"),
        ("view", "trend"),
        ("derived", "lift_rows"),
    ] {
        assert!(
            report
                .lines()
                .any(|l| l.split_whitespace().take(3).eq(["ok", kind, name])),
            "{kind} {name}: {report}"
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

#[test]
fn a_key_held_twice_is_found_by_check_and_long_texts_are_compressed() {
    // The child tables hold their keys without an index (migration 0012):
    // `check` must find a key written twice, which no index refuses now.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.duckdb");
    liftdb_cmd(&db)
        .args(["ingest", "-q"])
        .arg(seh_root().join("runs/eval-runs"))
        .arg(seh_root().join("input/evals/shared-benchmark.json"))
        .assert()
        .success();
    let ok = liftdb_cmd(&db).arg("check").output().unwrap();
    assert_eq!(ok.status.code(), Some(0), "{}", stderr_of(&ok));
    let listing = String::from_utf8_lossy(&ok.stdout).to_string();
    assert!(
        listing.contains("measurement (run_id, metric)") && listing.contains("unique"),
        "{listing}"
    );

    // What the store holds for long texts, after a checkpoint: zstd segments.
    let compressed = liftdb_cmd(&db)
        .args(["sql", "--format", "csv"])
        .arg("SELECT count(*) FROM pragma_storage_info('run') WHERE column_name = 'raw_metadata' AND compression = 'ZSTD'")
        .output()
        .unwrap();
    let n: i64 = String::from_utf8_lossy(&compressed.stdout)
        .lines()
        .nth(1)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(n > 0, "raw_metadata is stored zstd-compressed");

    liftdb_cmd(&db)
        .args(["sql"])
        .arg("INSERT INTO measurement SELECT * FROM measurement LIMIT 3")
        .assert()
        .success();
    let (code, listing) = check_listing(&db);
    assert_eq!(code, Some(1), "{listing}");
    assert_damaged(
        &listing,
        "measurement (run_id, metric)",
        "3 keys held by more than one row",
    );
}

/// Every "error:" line of `stderr`: none repeats a run of six words (the
/// shape of a message said twice: a context naming what its cause names,
/// DuckDB's text repeated by its error chain), none ends in the bindings'
/// "Unknown error code".
fn assert_said_once(what: &str, stderr: &str) {
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert!(!lines.is_empty(), "{what}: no error line in {stderr}");
    for line in lines {
        assert!(!line.contains("Unknown error code"), "{what}: {line}");
        let words: Vec<&str> = line.split_whitespace().collect();
        let mut seen = std::collections::HashSet::new();
        for run in words.windows(6) {
            assert!(
                seen.insert(run),
                "{what}: '{}' twice in: {line}",
                run.join(" ")
            );
        }
    }
}

#[test]
fn every_failure_is_said_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s.duckdb");
    liftdb_cmd(&store)
        .args(["ingest", "-q"])
        .arg(fixture("skill-creator"))
        .assert()
        .success();
    let notes = dir.path().join("notes.txt");
    std::fs::write(&notes, "not a store\n").unwrap();
    let damaged = dir.path().join("damaged.duckdb");
    let mut bytes = std::fs::read(&store).unwrap();
    let len = bytes.len();
    for b in &mut bytes[len / 4..3 * len / 4] {
        *b ^= 0x5a;
    }
    std::fs::write(&damaged, bytes).unwrap();
    let csv = dir.path().join("runs.csv");
    let missing = dir.path().join("missing.duckdb");
    let given = |db: &Path, args: &[&str]| -> (String, std::process::Output) {
        let out = liftdb_cmd(db).args(args).output().unwrap();
        (format!("{} {}", db.display(), args.join(" ")), out)
    };
    let notes_arg = notes.display().to_string();
    let cases = [
        given(&notes, &["sql", "SELECT 1"]),
        given(&notes, &["ingest", "-q", &notes_arg]),
        given(&csv, &["ingest", "-q", &notes_arg]),
        given(dir.path(), &["sql", "SELECT 1"]),
        given(&missing, &["report", "lift"]),
        given(&damaged, &["sql", "SELECT count(*) FROM runs"]),
        given(&store, &["sql", "SELECT * FROM no_such_view"]),
        given(&store, &["sql", "SELEC 1"]),
        given(&store, &["report", "no-such-report"]),
        given(&store, &["report", "trend", "--case", "x"]),
        given(&store, &["ingest", "-q", "/no/such/tree"]),
        given(&store, &["ingest", "-q", &notes_arg]),
        given(&store, &["rebuild", "--out", &store.display().to_string()]),
    ];
    // The check catches the message #14 quoted (DuckDB's text twice).
    let quoted = "error: IO Error: The file notes.txt is not a valid DuckDB database file!: IO Error: The file notes.txt is not a valid DuckDB database file!: Error code 1: Unknown error code";
    assert!(std::panic::catch_unwind(|| assert_said_once("quoted", quoted)).is_err());
    for (what, out) in &cases {
        assert_ne!(out.status.code(), Some(0), "{what} failed");
        assert_said_once(what, &stderr_of(out));
    }
}

/// A store written by the DuckDB 2.0 build of liftdb (its storage format is
/// newer than this DuckDB reads) is refused untouched, with the way to
/// rebuild it from its run trees.
#[test]
fn a_store_of_the_duckdb_2_build_is_refused_with_the_rebuild_advice() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("liftdb.duckdb");
    let gz = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/store-duckdb-2.0/liftdb.duckdb.gz"),
    )
    .unwrap();
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut bytes).unwrap();
    std::fs::write(&db, &bytes).unwrap();
    for args in [&["report", "lift"][..], &["ingest", "/nonexistent"][..]] {
        let out = crate::common::liftdb_cmd(&db).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            said.contains("newer DuckDB") && said.contains("rebuild --batches"),
            "{said}"
        );
    }
    assert_eq!(std::fs::read(&db).unwrap(), bytes, "left untouched");
}
