//! The real binary: exit codes, output formats, messages.

use predicates::prelude::*;
use predicates::str::contains;

use crate::common::{corpus_paths, liftdb_cmd, reference, seh_root};

fn ingested_db() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cli.duckdb");
    liftdb_cmd(&db)
        .arg("ingest")
        .args(corpus_paths(&seh_root()))
        .assert()
        .success()
        .stderr(contains("wrote 558 runs"));
    (dir, db)
}

#[test]
fn ingest_twice_says_nothing_new() {
    let (_dir, db) = ingested_db();
    liftdb_cmd(&db)
        .arg("ingest")
        .args(corpus_paths(&seh_root()))
        .assert()
        .success()
        .stderr(contains("nothing new").and(contains("0 rows added")));
}

#[test]
fn sql_prints_csv_when_piped() {
    let (_dir, db) = ingested_db();
    liftdb_cmd(&db)
        .args(["sql", "SELECT count(*) AS n FROM runs WHERE split = 'tune'"])
        .assert()
        .success()
        .stdout("n\n504\n");
}

/// A TIMESTAMP WITH TIME ZONE (what `now()` returns) prints as its instant,
/// in UTC, in every format: the literal's own instant is the expected value.
#[test]
fn a_time_with_zone_prints_its_instant_never_null() {
    let (_dir, db) = ingested_db();
    let query = "SELECT TIMESTAMPTZ '2026-01-02 04:04:05.5+01' AS t";
    for (format, expected) in [
        ("csv", "t\n2026-01-02T03:04:05.500+00:00\n"),
        (
            "json",
            "[\n  {\n    \"t\": \"2026-01-02T03:04:05.500+00:00\"\n  }\n]\n",
        ),
    ] {
        liftdb_cmd(&db)
            .args(["sql", query, "--format", format])
            .assert()
            .success()
            .stdout(expected);
    }
}

#[test]
fn report_lift_json_matches_the_tool() {
    let (_dir, db) = ingested_db();
    let out = liftdb_cmd(&db)
        .args(["report", "lift", "--split", "tune", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let overall = rows
        .iter()
        .find(|r| r["scope"] == "overall")
        .expect("overall row");
    let expected = reference("benchmark-tune.json.gz")["paired_summary"]["absolute_delta"]
        .as_f64()
        .unwrap();
    let shown = overall["lift"].as_f64().unwrap();
    assert!(
        (shown - expected).abs() < 5e-5,
        "lift {shown} vs {expected}"
    );
    assert_eq!(overall["pairs"].as_i64(), Some(126));
}

#[test]
fn format_before_the_subcommand_is_the_subcommands_and_shell_flags_are_refused_there() {
    let (_dir, db) = ingested_db();
    let stdout = |args: &[&str]| {
        let out = liftdb_cmd(&db).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    // It used to be the shell's flag, silently ignored by a subcommand (CSV came out).
    let before = stdout(&["--format", "jsonl", "report", "lift", "--split", "tune"]);
    let after = stdout(&["report", "lift", "--split", "tune", "--format", "jsonl"]);
    assert_eq!(before, after);
    assert!(before.starts_with('{'), "{before}");
    let q = "SELECT count(*) AS n FROM runs WHERE split = 'tune'";
    // 504: the tune runs of the corpus, as sql_prints_csv_when_piped counts them.
    assert_eq!(
        stdout(&["--format", "json", "sql", q]),
        "[\n  {\n    \"n\": 504\n  }\n]\n"
    );
    liftdb_cmd(&db)
        .args(["-c", "SELECT 1", "report", "lift"])
        .assert()
        .failure()
        .stderr(contains("-c and -f run the SQL shell"));
}

#[test]
fn report_filters_are_parameters_and_unknown_ones_are_refused() {
    let (_dir, db) = ingested_db();
    liftdb_cmd(&db)
        .args([
            "report",
            "lift",
            "--split",
            "tune",
            "--model",
            "gpt-5-codex",
            "--format",
            "csv",
        ])
        .assert()
        .success()
        .stdout(contains("gpt-5-codex").and(contains("claude-haiku-4-5").not()));
    // A quote in a filter is data, not SQL: a value no case has, said so.
    liftdb_cmd(&db)
        .args([
            "report",
            "runs",
            "--case",
            "x' OR '1'='1",
            "--format",
            "csv",
        ])
        .assert()
        .failure()
        .stderr(contains("--case x' OR '1'='1 matches nothing in the store"))
        .stdout("");
    // The classic payload in every filter of every report: bound, never spliced.
    let payload = "'; DROP TABLE run; --";
    let count = |db: &std::path::Path| {
        let out = liftdb_cmd(db)
            .args(["sql", "SELECT count(*) AS n FROM run", "--format", "csv"])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let before = count(&db);
    for report in liftdb::report::all() {
        let mut args = vec![
            "report".to_string(),
            report.name.to_string(),
            "--format".into(),
            "csv".into(),
        ];
        for param in &report.params {
            args.push(format!("--{param}"));
            args.push(payload.into());
        }
        let out = liftdb_cmd(&db).args(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() || stderr.contains("matches nothing in the store"),
            "{}: {stderr}",
            report.name
        );
    }
    let csv = db.with_extension("csv");
    liftdb_cmd(&db)
        .args(["export", "runs", "--case", payload, "--out"])
        .arg(&csv)
        .assert()
        .failure()
        .stderr(contains("matches nothing in the store"));
    assert!(
        !csv.exists(),
        "nothing written for a filter that matches nothing"
    );
    // The same filter with a real value selects: bound, and it works.
    liftdb_cmd(&db)
        .args([
            "export",
            "lift",
            "--split",
            "tune",
            "--model",
            "gpt-5-codex",
            "--out",
        ])
        .arg(&csv)
        .assert()
        .success();
    let exported = std::fs::read_to_string(&csv).unwrap();
    assert!(exported.contains("gpt-5-codex") && !exported.contains("claude-haiku-4-5"));
    assert_eq!(count(&db), before, "the run table survived every filter");
    assert!(before.contains("558"), "{before}");
    liftdb_cmd(&db)
        .args(["report", "flags", "--model", "gpt-5-codex"])
        .assert()
        .code(2)
        .stderr(contains("does not take the filter --model"));
}

#[test]
fn schema_lists_tables_and_views_with_docs() {
    let (_dir, db) = ingested_db();
    liftdb_cmd(&db).arg("schema").assert().success().stdout(
        contains(format!(
            "schema version: {}",
            liftdb::sqlfiles::MIGRATIONS.len()
        ))
        .and(contains("0001_core"))
        .and(contains("0002_statistics"))
        .and(contains("assertion_result"))
        .and(contains("case_flags"))
        .and(contains("Paired lift")),
    );
}

#[test]
fn ingest_exits_1_and_names_the_file_on_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("broken.json");
    std::fs::write(&bad, "{not json").unwrap();
    let db = dir.path().join("s.duckdb");
    liftdb_cmd(&db)
        .args(["ingest"])
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(contains("broken.json").and(contains("invalid JSON")));
}

#[test]
fn a_store_held_by_a_writer_gives_a_clear_message() {
    let (_dir, db) = ingested_db();
    let _writer = liftdb::store::open_write(&db).unwrap();
    liftdb_cmd(&db)
        .args(["ingest"])
        .arg(seh_root().join("input/evals/shared-benchmark.json"))
        .assert()
        .code(2)
        .stderr(contains("is being written by another process (PID"));
}

#[test]
fn ingest_wait_outlasts_a_short_lock() {
    let (_dir, db) = ingested_db();
    let writer = liftdb::store::open_write(&db).unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("liftdb"))
        .env_remove("LIFTDB_DB")
        .arg("--db")
        .arg(&db)
        .args(["ingest", "--quiet", "--wait", "30"])
        .arg(seh_root().join("input/evals/shared-benchmark.json"))
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    drop(writer);
    let status = child.wait().unwrap();
    assert!(status.success(), "ingest waited for the lock and then ran");
}

#[test]
fn a_filter_matching_nothing_and_a_mistyped_report_say_what_exists() {
    let (_dir, db) = ingested_db();
    // The models there, read from the store itself.
    let out = liftdb_cmd(&db)
        .args([
            "sql",
            "SELECT string_agg(DISTINCT model, ', ' ORDER BY model) AS m FROM runs",
            "--format",
            "csv",
        ])
        .output()
        .unwrap();
    let models = String::from_utf8(out.stdout).unwrap();
    let models = models.lines().nth(1).unwrap().trim_matches('"').to_string();
    assert!(models.contains("gpt-5-codex"), "{models}");
    liftdb_cmd(&db)
        .args(["report", "lift", "--model", "gpt-5"])
        .assert()
        .failure()
        .stderr(contains("--model gpt-5 matches nothing in the store"))
        .stderr(contains(models.as_str()))
        .stdout("");
    liftdb_cmd(&db)
        .args(["report", "lfit"])
        .assert()
        .failure()
        .stderr(contains("unknown report 'lfit' (did you mean 'lift'?)"));
    liftdb_cmd(&db)
        .args(["report", "qqqqqqqq"])
        .assert()
        .failure()
        .stderr(contains("did you mean").not());
}

#[test]
fn export_of_a_name_that_is_a_report_and_a_view_says_which_it_took() {
    let (dir, db) = ingested_db();
    let csv = dir.path().join("runs.csv");
    liftdb_cmd(&db)
        .args(["export", "runs", "--out"])
        .arg(&csv)
        .assert()
        .success()
        .stderr(contains(
            "'runs' is both a report and a view: exported the report",
        ));
    // It is the report's rows: the header `report runs` prints.
    let out = liftdb_cmd(&db)
        .args(["report", "runs", "--format", "csv"])
        .output()
        .unwrap();
    let report_header = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    let written = std::fs::read_to_string(&csv).unwrap();
    assert_eq!(written.lines().next().unwrap(), report_header);
    // A view only: no note.
    liftdb_cmd(&db)
        .args(["export", "cost_ledger", "--out"])
        .arg(dir.path().join("ledger.csv"))
        .assert()
        .success()
        .stderr(contains("both a report").not());
}
