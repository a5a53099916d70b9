//! The analyst surface through the real binary: output modes, the shell's
//! dot-commands, -c / -f / stdin, every canned report, exports, releases and
//! trends, the HTML report.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use predicates::str::contains;

use crate::common::{corpus_paths, fixture, liftdb_cmd, rows, seh_root};

fn corpus_db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("a.duckdb");
    liftdb_cmd(&db)
        .arg("ingest")
        .arg("--quiet")
        .args(corpus_paths(&seh_root()))
        .assert()
        .success();
    (dir, db)
}

fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_output_mode() {
    let (_d, db) = corpus_db();
    // y typed: DuckDB 1.5 gives an untyped NULL literal a numeric Arrow type.
    let q = "SELECT 'a,b' AS x, NULL::VARCHAR AS y, 1.5 AS z";
    let run = |mode: &str| stdout_of(liftdb_cmd(&db).args(["sql", q, "--format", mode]));
    assert_eq!(run("csv"), "x,y,z\n\"a,b\",,1.5\n");
    assert_eq!(run("tsv"), "x\ty\tz\na,b\t\t1.5\n");
    let json: serde_json::Value = serde_json::from_str(&run("json")).unwrap();
    assert_eq!(json, serde_json::json!([{"x": "a,b", "y": null, "z": 1.5}]));
    assert_eq!(run("jsonl").trim(), r#"{"x":"a,b","y":null,"z":1.5}"#);
    assert!(
        run("markdown").starts_with("| x | y | z |\n| --- | --- | ---: |\n| a,b | NULL | 1.5 |")
    );
    assert!(run("line").contains("x = a,b\ny = NULL\nz = 1.5"));
    assert!(run("table").contains("│ a,b ┆ NULL ┆ 1.5 │"));
    assert!(run("box").contains("a,b"));
}

#[test]
fn dot_commands_and_scripts() {
    let (dir, db) = corpus_db();
    let out_file = dir.path().join("out.csv");
    let once_file = dir.path().join("once.json");
    let export_file = dir.path().join("flags.parquet");
    let script = dir.path().join("script.sql");
    std::fs::write(&script, ".mode csv\nSELECT 40 + 2\n  AS answer;\n").unwrap();

    liftdb_cmd(&db)
        .args(["-c", ".help"])
        .assert()
        .success()
        .stderr(contains(".report NAME"));
    liftdb_cmd(&db)
        .args(["-c", ".tables"])
        .assert()
        .success()
        .stdout(contains("runs,view").and(contains("run,table")));
    liftdb_cmd(&db)
        .args(["-c", ".schema lift_units"])
        .assert()
        .success()
        .stdout(contains("CREATE VIEW lift_units"));
    liftdb_cmd(&db)
        .args(["-c", ".views"])
        .assert()
        .success()
        .stdout(contains("case_flags"));
    liftdb_cmd(&db)
        .args(["-c", ".reports"])
        .assert()
        .success()
        .stdout(contains("reconcile"));
    liftdb_cmd(&db)
        .args([
            "-c",
            ".report lift split=tune arm=without_skill",
            "--format",
            "json",
        ])
        .assert()
        .success()
        .stdout(contains("\"scope\": \"overall\"").and(contains("0.2725")));
    liftdb_cmd(&db)
        .args(["-c", ".report flags model=x"])
        .assert()
        .code(1)
        .stderr(contains("does not take the filter"));
    liftdb_cmd(&db)
        .args(["-c", ".mode jsonl", "-c", "SELECT 1 AS one;"])
        .assert()
        .success()
        .stdout("{\"one\":1}\n");
    liftdb_cmd(&db)
        .args([
            "-c",
            &format!(".output {}", out_file.display()),
            "-c",
            "SELECT 7 AS seven",
            "-c",
            ".output",
            "-c",
            "SELECT 8 AS eight",
        ])
        .assert()
        .success()
        .stdout("eight\n8\n");
    assert_eq!(std::fs::read_to_string(&out_file).unwrap(), "seven\n7\n");
    liftdb_cmd(&db)
        .args([
            "-c",
            ".mode json",
            "-c",
            &format!(".once {}", once_file.display()),
            "-c",
            "SELECT 1 AS a",
            "-c",
            "SELECT 2 AS b",
        ])
        .assert()
        .success()
        .stdout(contains("\"b\": 2"));
    assert!(std::fs::read_to_string(&once_file)
        .unwrap()
        .contains("\"a\": 1"));
    liftdb_cmd(&db)
        .args([
            "-c",
            &format!(".export case_flags {}", export_file.display()),
        ])
        .assert()
        .success()
        .stderr(contains("wrote 10 rows"));
    liftdb_cmd(&db)
        .args([
            "-c",
            ".maxrows 2",
            "-c",
            ".mode table",
            "-c",
            "SELECT * FROM range(5)",
        ])
        .assert()
        .success()
        .stdout(contains("(5 rows, 2 shown"));
    liftdb_cmd(&db)
        .args(["-c", ".timer on", "-c", "SELECT 1"])
        .assert()
        .success()
        .stderr(contains("Run Time:"));
    liftdb_cmd(&db)
        .args([
            "-c",
            ".nullvalue (none)",
            "-c",
            ".mode line",
            "-c",
            "SELECT NULL AS n",
        ])
        .assert()
        .success()
        .stdout(contains("n = (none)"));
    liftdb_cmd(&db)
        .args(["-c", &format!(".read {}", script.display())])
        .assert()
        .success()
        .stdout("answer\n42\n");
    liftdb_cmd(&db)
        .args(["-f"])
        .arg(&script)
        .assert()
        .success()
        .stdout("answer\n42\n");
    // .bail on stops at the first error; without it the run goes on (and still exits 1).
    liftdb_cmd(&db)
        .args([
            "-c",
            ".bail on",
            "-c",
            "SELECT nope FROM nowhere",
            "-c",
            "SELECT 5 AS after",
        ])
        .assert()
        .code(1)
        .stdout(contains("after").not());
    liftdb_cmd(&db)
        .args(["-c", "SELECT nope FROM nowhere", "-c", "SELECT 5 AS after"])
        .assert()
        .code(1)
        .stdout(contains("after"));
    liftdb_cmd(&db)
        .args(["-c", ".quit", "-c", "SELECT 9 AS nine"])
        .assert()
        .success()
        .stdout("");
    // Statements piped on stdin: multi-line, several per line, dot-commands between.
    liftdb_cmd(&db)
        .write_stdin("SELECT 1 AS a; SELECT\n 2 AS b;\n.mode jsonl\nSELECT 3 AS c;\n")
        .assert()
        .success()
        .stdout("a\n1\nb\n2\n{\"c\":3}\n");
}

#[test]
fn a_writing_statement_reopens_the_store_for_writing() {
    let (_d, db) = corpus_db();
    liftdb_cmd(&db)
        .args([
            "-c",
            "CREATE TABLE notes AS SELECT 'kept' AS note",
            "-c",
            "SELECT note FROM notes",
        ])
        .assert()
        .success()
        .stderr(contains("reopened for writing"))
        .stdout(contains("kept"));
}

#[test]
fn a_report_whose_when_fails_gives_its_columns_and_no_rows_without_running() {
    // The corpus holds no skill-benchmark trend output, so reconcile-trend's
    // `when` is false: its answer is its own statement's columns, no rows.
    let (_d, db) = corpus_db();
    let store = liftdb::store::open_read_after_upkeep(&db).unwrap();
    let report = liftdb::report::find("reconcile-trend").unwrap();
    let when = report.when.expect("reconcile-trend has a when");
    let holds: bool = store.conn.query_row(when, [], |r| r.get(0)).unwrap();
    assert!(!holds);
    let guarded = liftdb::report::run(&store.conn, &report, &Default::default()).unwrap();
    // The statement itself, run in full: the same columns, and no rows either.
    let full = liftdb::report::query(&store.conn, report.sql, &Default::default()).unwrap();
    assert_eq!(guarded.schema, full.schema);
    let rows =
        |rs: &liftdb::output::ResultSet| rs.batches.iter().map(|b| b.num_rows()).sum::<usize>();
    assert_eq!((rows(&guarded), rows(&full)), (0, 0));
}

#[test]
fn every_report_runs_on_the_corpus() {
    let (dir, db) = corpus_db();
    for report in liftdb::report::all() {
        let out = stdout_of(liftdb_cmd(&db).args(["report", &report.name, "--format", "json"]));
        let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
        // The corpus is one release with every pair eligible: nothing is
        // blocked, every run counts (invalid_runs.rs covers those that do
        // not), nothing changed since a previous release, and a prune
        // candidate needs two releases (tests/it/case_trend.rs and
        // trend_history.rs cover those on histories, and reconcile-trend,
        // which needs the tool's trend output).
        if !matches!(
            report.name.as_str(),
            "blocked" | "not-counted" | "trend-cases" | "prune-candidates" | "reconcile-trend"
        ) {
            assert!(
                !rows.is_empty(),
                "report {} is empty on the corpus",
                report.name
            );
        }
    }
    let reconcile: Vec<serde_json::Value> =
        serde_json::from_str(&stdout_of(liftdb_cmd(&db).args([
            "report",
            "reconcile",
            "--format",
            "json",
        ])))
        .unwrap();
    assert!(reconcile.len() >= 18);
    assert!(
        reconcile.iter().all(|r| r["agrees"] == true),
        "{reconcile:#?}"
    );
    let md = dir.path().join("lift.md");
    liftdb_cmd(&db)
        .args(["report", "lift", "--format", "markdown", "--out"])
        .arg(&md)
        .assert()
        .success();
    assert!(std::fs::read_to_string(&md)
        .unwrap()
        .starts_with("| release |"));
}

#[test]
fn cost_ledger_exports_round_trip() {
    let (dir, db) = corpus_db();
    let csv = dir.path().join("ledger.csv");
    let parquet = dir.path().join("ledger.parquet");
    liftdb_cmd(&db)
        .args(["export", "cost_ledger", "--out"])
        .arg(&csv)
        .assert()
        .success()
        .stderr(contains("wrote 558 rows"));
    liftdb_cmd(&db)
        .args(["export", "SELECT * FROM cost_ledger", "--out"])
        .arg(&parquet)
        .assert()
        .success();
    let header = std::fs::read_to_string(&csv)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    for col in [
        "run_id",
        "input_tokens",
        "total_tokens",
        "cost_usd",
        "elapsed_ms",
        "cost_availability",
    ] {
        assert!(header.split(',').any(|h| h == col), "{col} in {header}");
    }
    let q = format!(
        "SELECT (SELECT count(*) FROM read_csv('{0}')) = (SELECT count(*) FROM cost_ledger) AS same_rows,
                (SELECT sum(cost_usd) FROM read_csv('{0}'))::DECIMAL(18,6) = (SELECT sum(cost_usd) FROM cost_ledger)::DECIMAL(18,6) AS same_cost,
                (SELECT sum(total_tokens) FROM read_csv('{0}')) = (SELECT sum(total_tokens) FROM cost_ledger) AS same_tokens,
                (SELECT count(*) FROM read_parquet('{1}')) = (SELECT count(*) FROM cost_ledger) AS parquet_rows",
        csv.display(),
        parquet.display()
    );
    liftdb_cmd(&db)
        .args(["sql", &q, "--format", "csv"])
        .assert()
        .success()
        .stdout("same_rows,same_cost,same_tokens,parquet_rows\ntrue,true,true,true\n");
}

#[test]
fn releases_are_ordered_and_trend_shows_the_change() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("t.duckdb");
    let seed = fixture("seed000-skill-eval/runs/tmp/skills-eval");
    liftdb_cmd(&db)
        .args(["ingest", "--release", "v1"])
        .arg(seed.join("corpus-claude-sonnet-4-5-single"))
        .assert()
        .success();
    liftdb_cmd(&db)
        .args(["ingest", "--release", "v2"])
        .arg(seed.join("corpus-claude-haiku-4-5"))
        .assert()
        .success();
    let out = stdout_of(liftdb_cmd(&db).args(["report", "trend", "--format", "json"]));
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    let overall: Vec<&serde_json::Value> =
        rows.iter().filter(|r| r["scope"] == "overall").collect();
    assert_eq!(overall.len(), 2);
    assert_eq!(overall[0]["release"], "v1");
    assert_eq!(overall[1]["release"], "v2");
    assert_eq!(overall[1]["previous"], "v1");
    let change = overall[1]["lift"].as_f64().unwrap() - overall[0]["lift"].as_f64().unwrap();
    assert!((overall[1]["lift_change"].as_f64().unwrap() - change).abs() < 1e-3);
    assert_eq!(overall[1]["matched"].as_i64(), Some(7));
    // A release label derived from the data when none is given: the skill tree hash.
    let meta: serde_json::Value =
        serde_json::from_slice(
            &std::fs::read(seh_root().join(
                "runs/eval-runs/add-not-null-column/gpt-5-codex/with_skill/run-1/metadata.json",
            ))
            .unwrap(),
        )
        .unwrap();
    let hash = meta["skill_tree_hash"].as_str().unwrap();
    liftdb_cmd(&db)
        .arg("ingest")
        .arg(seh_root().join("runs/eval-runs/add-not-null-column"))
        .assert()
        .success()
        .stderr(contains(format!(
            "release 'skill-{}' (from skill_tree_hash)",
            &hash[..12]
        )));
    liftdb_cmd(&db)
        .args([
            "sql",
            "SELECT string_agg(release_label, ' ' ORDER BY ordinal) AS r FROM releases",
            "--format",
            "csv",
        ])
        .assert()
        .stdout(format!("r\nv1 v2 skill-{}\n", &hash[..12]));
}

/// `report html --out page` on the store `db`: the page written.
fn html_page(db: &Path, page: &Path) -> String {
    liftdb_cmd(db)
        .args(["report", "html", "--out"])
        .arg(page)
        .assert()
        .success();
    std::fs::read_to_string(page).unwrap()
}

/// The Chromium the rendering checks drive (`.ci/run` installs it).
fn chromium() -> &'static str {
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect(
            "the rendering check needs Chromium: apt-get install chromium (.ci/run installs it)",
        )
}

/// Headless Chromium with its own profile and nothing reaching the network.
fn headless(chromium: &str, profile: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new(chromium);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
    ])
    .args(["--no-first-run", "--disable-background-networking"])
    .args(["--disable-component-update", "--disable-sync"])
    .arg(format!("--user-data-dir={}", profile.display()));
    cmd
}

#[test]
fn html_report_is_self_contained_and_renders() {
    let (dir, db) = corpus_db();
    let html = dir.path().join("report.html");
    let text = html_page(&db, &html);
    assert!(text.matches("<svg").count() >= 3, "three charts");
    assert!(
        !text.contains("http://") && !text.contains("https://"),
        "no network references"
    );
    assert!(text.contains("no-rubber-stamp"), "flags table");
    let chromium = chromium();
    let png = dir.path().join("report.png");
    let status = headless(chromium, &dir.path().join("chromium"))
        .args([
            "--window-size=1100,1800",
            &format!("--screenshot={}", png.display()),
        ])
        .arg(format!("file://{}", html.display()))
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    // A rendered page with charts is far larger than a blank screenshot.
    assert!(std::fs::metadata(&png).unwrap().len() > 50_000);

    // The drill-down, followed in the browser: a case with a failing
    // assertion (found in the store), opened from its #fragment, shows that
    // assertion's evidence; and no two texts of any chart overlap.
    let store = liftdb::store::open_read_after_upkeep(&db).unwrap();
    let failing = &rows(
        &store,
        "SELECT r.release_label, r.skill_name, r.case_id, a.name, a.evidence
         FROM assertion_result a JOIN runs r ON r.run_id = a.run_id AND r.grading_id = a.grading_id
         JOIN lift l ON l.release_label = r.release_label AND l.skill_name = r.skill_name
                    AND l.case_id = r.case_id AND l.scope = 'case' AND l.row_kind = 'release'
                    AND l.channel = 'objective' AND l.split = 'all' AND l.control_arm = 'without_skill'
         WHERE NOT a.passed AND NOT coalesce(a.skipped, false) AND length(a.evidence) > 20
         ORDER BY r.case_id, r.run_id, a.seq LIMIT 1",
    )[0];
    drop(store);
    let field = |k: &str| failing[k].as_str().unwrap().to_string();
    // The id rule: case-RELEASE--SKILL--CASE, letters, digits, '.', '_'
    // and '-' kept, any other character '-'.
    let id: String = std::iter::once("case-".to_string())
        .chain(
            [
                field("release_label"),
                field("skill_name"),
                field("case_id"),
            ]
            .join("--")
            .chars()
            .map(|c| match c.is_ascii_alphanumeric() || "._-".contains(c) {
                true => c.to_string(),
                false => "-".to_string(),
            }),
        )
        .collect();
    let dom = headless(chromium, &dir.path().join("chromium-dom"))
        .args([
            "--window-size=1100,1800",
            "--virtual-time-budget=3000",
            "--dump-dom",
        ])
        .arg(format!("file://{}#{id}", html.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(
        dom.contains(&format!("data-opened=\"{id}\"")),
        "the script opened {id}"
    );
    let opened = &dom[dom
        .find(&format!("id=\"{id}\""))
        .expect("the case's section")..];
    let section = &opened[..opened
        .find("</details><details class=\"case\"")
        .unwrap_or(opened.len())];
    assert!(
        section.contains(&format!("{}</b>", field("name"))),
        "the failing assertion"
    );
    let evidence: String = field("evidence").chars().take(20).collect();
    let escaped = evidence
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    assert!(
        section.contains(&escaped),
        "its evidence '{escaped}' under the case"
    );
    assert!(
        dom.contains("data-text-overlaps=\"0\""),
        "chart labels overlap: {}",
        &dom[dom.find("<body").unwrap()..][..200]
    );
}

/// The page a reader opens at 1400 pixels: the headline is its sentences,
/// first and whole; no chart text is cut or overlaps another (measured in
/// Chromium); every case's name is whole in the lift chart; the case list
/// sorts by lift; --release keeps the page to that release; and an
/// existing ./report.html is never replaced unasked.
#[test]
fn html_report_reads_at_a_glance() {
    let (dir, db) = corpus_db();
    let store = liftdb::store::open_read_after_upkeep(&db).unwrap();
    let sentences: Vec<String> = rows(
        &store,
        "SELECT sentence FROM lift_headline WHERE split = 'all' AND control_arm = 'without_skill'
           AND release_label = (SELECT release_label FROM releases ORDER BY ordinal LIMIT 1)
         ORDER BY release_label, skill_name",
    )
    .iter()
    .map(|r| r["sentence"].as_str().unwrap().to_string())
    .collect();
    let cases: Vec<String> = rows(&store, "SELECT DISTINCT case_id FROM runs ORDER BY 1")
        .iter()
        .map(|r| r["case_id"].as_str().unwrap().to_string())
        .collect();
    let release = rows(
        &store,
        "SELECT release_label FROM releases ORDER BY ordinal LIMIT 1",
    )[0]["release_label"]
        .as_str()
        .unwrap()
        .to_string();
    drop(store);
    assert!(!sentences.is_empty() && cases.len() > 5);

    // Written in a folder holding a report.html already: refused, kept.
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    std::fs::write(work.join("report.html"), "mine").unwrap();
    let refused = liftdb_cmd(&db)
        .current_dir(&work)
        .args(["report", "html"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--out"));
    assert_eq!(
        std::fs::read_to_string(work.join("report.html")).unwrap(),
        "mine"
    );

    let html = dir.path().join("page.html");
    liftdb_cmd(&db)
        .args(["report", "html", "--release", &release, "--out"])
        .arg(&html)
        .assert()
        .success();
    let text = std::fs::read_to_string(&html).unwrap();
    // The sentences come first, before any table.
    let first_sentence = text
        .find("<p class=\"headline\">")
        .expect("a headline sentence");
    assert!(first_sentence < text.find("<table").unwrap());
    for s in &sentences {
        let escaped = s
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        assert!(
            text.contains(&format!("<p class=\"headline\">{escaped}</p>")),
            "{s}"
        );
    }
    // --release: no other release's case or run on the page.
    for value in text.split("data-release=\"").skip(1) {
        assert!(
            value.starts_with(&format!("{release}\"")),
            "{}",
            &value[..40]
        );
    }

    let chromium = chromium();
    let png = dir.path().join("page.png");
    let shot = headless(chromium, &dir.path().join("chromium-shot"))
        .args([
            "--window-size=1400,1000",
            &format!("--screenshot={}", png.display()),
        ])
        .arg(format!("file://{}", html.display()))
        .output()
        .unwrap();
    assert!(
        shot.status.success(),
        "{}",
        String::from_utf8_lossy(&shot.stderr)
    );
    assert!(std::fs::metadata(&png).unwrap().len() > 50_000);
    let dom = headless(chromium, &dir.path().join("chromium-sorted"))
        .args([
            "--window-size=1400,1000",
            "--virtual-time-budget=3000",
            "--dump-dom",
        ])
        .arg(format!("file://{}?sort=lift-down", html.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&dom.stdout);
    for measured in [
        "data-text-overlaps=\"0\"",
        "data-text-clipped=\"0\"",
        "data-headline-hidden=\"0\"",
        "data-sorted-by=\"lift-down\"",
    ] {
        assert!(
            dom.contains(measured),
            "{measured}: {}",
            &dom[dom.find("<body").unwrap()..][..300]
        );
    }
    // Every case's name whole, as a label of the lift chart.
    let chart = &dom[dom.find("aria-label=\"lift per case\"").unwrap()..];
    let chart = &chart[..chart.find("</svg>").unwrap()];
    for case in &cases {
        assert!(
            chart.contains(&format!(">{case}<title>")),
            "{case} in the lift chart"
        );
    }
    // The case list in lift order, highest first.
    let lifts: Vec<f64> = dom
        .split("<details class=\"case\"")
        .skip(1)
        .map(|d| {
            let v = &d[d.find("data-lift=\"").unwrap() + 11..];
            v[..v.find('"').unwrap()]
                .parse()
                .unwrap_or(f64::NEG_INFINITY)
        })
        .collect();
    assert!(lifts.len() > 5);
    assert!(lifts.windows(2).all(|w| w[0] >= w[1]), "{lifts:?}");
}

#[test]
fn session_settings_and_temp_tables_outlive_the_statement_that_made_them() {
    // The shell holds the store only while a statement runs; a setting is
    // replayed on the next open and a temp table pins the connection.
    let (_d, db) = corpus_db();
    liftdb_cmd(&db)
        .args([
            "-c",
            "SET threads = 1",
            "-c",
            "SELECT current_setting('threads') AS t",
            "-c",
            "CREATE TEMP TABLE mine AS SELECT 41 + 1 AS x",
            "-c",
            "SELECT x FROM mine",
            "-c",
            ".release",
            "-c",
            "SELECT count(*) AS gone FROM duckdb_tables() WHERE table_name = 'mine'",
        ])
        .assert()
        .success()
        .stdout(contains("t\n1\n"))
        .stdout(contains("x\n42\n"))
        .stdout(contains("gone\n0\n"))
        .stderr(contains("keeps the store open for a temp object"))
        .stderr(contains("store released; a temp object is gone"));
}

#[test]
fn the_shell_lists_every_name_and_whole_descriptions() {
    let (_dir, db) = corpus_db();
    let names = |sql: &str| -> Vec<String> { crate::common::sql_column(&db, sql) };
    let every = names(
        "SELECT table_name FROM duckdb_tables() WHERE NOT internal AND NOT temporary
         UNION ALL SELECT view_name FROM duckdb_views() WHERE NOT internal AND NOT temporary",
    );
    assert!(every.len() > 40, "more names than a table shows unelided");
    // As a terminal shows them (table mode), at 100 columns.
    let out = liftdb_cmd(&db)
        .args(["-c", ".mode table", "-c", ".maxwidth 100", "-c", ".tables"])
        .output()
        .unwrap();
    let listed = String::from_utf8(out.stdout).unwrap();
    let shown: std::collections::HashSet<&str> = listed.split_whitespace().collect();
    for name in &every {
        assert!(
            shown.contains(name.as_str()),
            "{name} missing from:\n{listed}"
        );
    }
    assert!(listed.lines().all(|l| l.chars().count() <= 100), "{listed}");
    // Each view's description whole (the longest one, word for word).
    let comment =
        names("SELECT comment FROM duckdb_views() WHERE view_name = 'lift_headline'").join("\n");
    let comment = comment.trim_matches('"');
    let out = liftdb_cmd(&db)
        .args(["-c", ".mode table", "-c", ".maxwidth 100", "-c", ".views"])
        .output()
        .unwrap();
    let views = String::from_utf8(out.stdout).unwrap();
    let flat = views.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(&comment.split_whitespace().collect::<Vec<_>>().join(" ")),
        "{views}"
    );
    // .schema VIEW: its columns with what each holds.
    let out = liftdb_cmd(&db)
        .args(["-c", ".schema lift_headline"])
        .output()
        .unwrap();
    let schema = String::from_utf8(out.stdout).unwrap();
    assert!(
        schema.contains("-- sentence VARCHAR: with the skill W"),
        "{schema}"
    );
}

/// The exported ledger as finance reads it, with Python's csv module: each
/// identity column once, the run's start time, money as the harness wrote it
/// (promptfoo's results.json `cost` per row, Python's own float text), the
/// currency on every priced row. Sources: results.json and skill-creator's
/// timing.json `executor_start`, read by the script at test time.
#[test]
fn the_exported_ledger_reads_in_python_as_the_harness_wrote_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("l.duckdb");
    liftdb_cmd(&db)
        .args(["ingest", "--quiet"])
        .arg(crate::common::fixture("promptfoo"))
        .arg(crate::common::fixture("skill-creator-anthropic"))
        .assert()
        .success();
    let csv = dir.path().join("ledger.csv");
    liftdb_cmd(&db)
        .args(["export", "cost_ledger", "--out"])
        .arg(&csv)
        .assert()
        .success();
    let python = std::env::var("LIFTDB_TEST_PYTHON")
        .expect("LIFTDB_TEST_PYTHON: run the suite through scripts/test");
    let read = std::process::Command::new(python)
        .arg("-c")
        .arg(
            r##"
import csv, json, os, sys
from datetime import datetime, timezone
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
header = list(rows[0].keys())
problems = []
for a, b in [("release", "release_label"), ("skill", "skill_name"), ("case", "case_id"),
             ("rep", "repetition"), ("cost_usd", "cost_amount")]:
    if a in header and b in header:
        problems.append(f"both {a} and {b}")
if len(set(header)) != len(header):
    problems.append("a column twice")
if "started_at" not in header:
    problems.append("no started_at")
doc = json.load(open(sys.argv[2]))
harness = {r["id"]: r for r in doc["results"]["results"]}
eval_start = datetime.fromisoformat(doc["results"]["timestamp"].replace("Z", "+00:00"))
money = times = 0
for row in rows:
    if row["cost_usd"] and not row["cost_currency"]:
        problems.append(f"priced, no currency: {row['run_id']}")
    where, _, row_id = row["run_dir"].partition("#")
    if row_id in harness:
        cost = harness[row_id].get("cost")
        if cost is not None:
            money += 1
            if row["cost_usd"] != repr(float(cost)):
                problems.append(f"{row_id}: {row['cost_usd']} != {cost!r}")
        started = datetime.fromisoformat(row["started_at"]).replace(tzinfo=timezone.utc)
        if started != eval_start:
            problems.append(f"{row_id}: started {started} != {eval_start}")
        times += 1
    timing = os.path.join(row["run_dir"], "timing.json")
    if os.path.exists(timing):
        start = json.load(open(timing)).get("executor_start")
        if start:
            want = datetime.fromisoformat(start.replace("Z", "+00:00"))
            got = datetime.fromisoformat(row["started_at"]).replace(tzinfo=timezone.utc) if row["started_at"] else None
            if got != want:
                problems.append(f"{timing}: started {got} != {want}")
            times += 1
print(json.dumps({"rows": len(rows), "money": money, "times": times, "problems": problems}))
"##,
        )
        .arg(&csv)
        .arg(crate::common::fixture("promptfoo/runs/results.json"))
        .output()
        .unwrap();
    assert!(
        read.status.success(),
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );
    let seen: serde_json::Value = serde_json::from_slice(&read.stdout).unwrap();
    assert_eq!(seen["problems"], serde_json::json!([]), "{seen}");
    assert!(seen["money"].as_u64().unwrap() >= 50, "{seen}");
    assert!(seen["times"].as_u64().unwrap() >= 80, "{seen}");
}

/// The page on a phone and on a desktop (Chromium at 390 and 1400 pixels):
/// it declares its viewport, nothing runs past the window's width (charts
/// scale to it), no text outside a chart is under 12 pixels, cost has its
/// own chart only when something is priced, new flags read in words, and
/// `--format csv` is refused rather than writing HTML. Measured by the
/// page's own script in the browser (data-page-overflow, data-small-text).
#[test]
fn html_report_reads_on_a_phone_and_a_desktop() {
    let (dir, db) = corpus_db();
    let html = dir.path().join("page.html");
    let text = html_page(&db, &html);
    assert!(
        text.contains(r#"<meta name="viewport" content="width=device-width, initial-scale=1">"#)
    );
    assert!(
        text.matches("viewBox=").count() >= 3,
        "charts drawn in a viewBox"
    );
    assert!(!text.contains("::"), "no flag as a raw case::flag key");
    // The seh corpus is priced (its README: cost-summary): a cost chart with
    // round ticks, never the odd $0.004096.
    assert!(text.contains("aria-label=\"known cost across releases\""));
    for tick in text.split("fill=\"#b26a00\">$").skip(1) {
        let value = &tick[..tick.find('<').unwrap()];
        assert!(value.len() <= 6, "a round tick: ${value}");
    }
    let chromium = chromium();
    for width in [390, 1400] {
        let dom = headless(chromium, &dir.path().join(format!("chromium-{width}")))
            .args([
                &format!("--window-size={width},900"),
                "--virtual-time-budget=3000",
                "--dump-dom",
            ])
            .arg(format!("file://{}", html.display()))
            .output()
            .unwrap();
        let dom = String::from_utf8_lossy(&dom.stdout);
        let body = &dom[dom.find("<body").expect("a body")..];
        let body = &body[..body.find('>').unwrap()];
        for measured in [
            "data-page-overflow=\"0\"",
            "data-small-text=\"0\"",
            "data-text-overlaps=\"0\"",
        ] {
            assert!(
                body.contains(measured),
                "at {width} px: {measured} in {body}"
            );
        }
    }
    // A store where nothing is priced: no cost chart, a sentence instead.
    let unpriced = dir.path().join("unpriced.duckdb");
    liftdb_cmd(&unpriced)
        .args(["ingest", "--quiet"])
        .arg(crate::common::fixture("skill-creator-anthropic"))
        .assert()
        .success();
    let page = dir.path().join("unpriced.html");
    let text = html_page(&unpriced, &page);
    assert!(
        !text.contains("known cost across releases\""),
        "no empty cost chart"
    );
    assert!(!text.contains("$0.000000"));
    assert!(text.contains("No run of these releases is priced"));
    // --format csv: refused, nothing written.
    let refused = liftdb_cmd(&db)
        .args(["report", "html", "--format", "csv", "--out"])
        .arg(dir.path().join("no.html"))
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(!dir.path().join("no.html").exists());
}
