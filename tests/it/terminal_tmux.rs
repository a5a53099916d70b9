//! What a reader sees in a real 100-column terminal (tmux): the demo's
//! tables fit, every lift row of a two-release store names its release, a
//! filter value that matches nothing fails naming the values there are, and
//! `liftdb show RUN` gives a run's failing assertion with its evidence.
//! Needs tmux (`.ci/run` installs it).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{copy_tree, corpus_paths, fixture, liftdb_cmd, seh_root};

const WIDTH: usize = 100;

/// What the command printed in a detached 100×50 tmux pane (its whole
/// scrollback, wrapped lines joined back), and its exit code.
fn in_terminal(name: &str, db: &Path, args: &[&str]) -> (String, i32) {
    assert!(
        Path::new("/usr/bin/tmux").exists(),
        "the terminal test needs tmux: apt-get install tmux (.ci/run installs it)"
    );
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("tmux.conf");
    std::fs::write(&conf, "set -g history-limit 50000\n").unwrap();
    let socket = format!("liftdb-{name}-{}", std::process::id());
    let tmux = |extra: &[&str]| {
        Command::new("tmux")
            .args(["-L", &socket, "-f"])
            .arg(&conf)
            .args(extra)
            .output()
            .expect("tmux runs")
    };
    let quoted: Vec<String> = std::iter::once(env!("CARGO_BIN_EXE_liftdb").to_string())
        .chain(["--db".to_string(), db.display().to_string()])
        .chain(args.iter().map(|a| a.to_string()))
        .map(|a| format!("'{}'", a.replace('\'', r"'\''")))
        .collect();
    let script = format!(
        "cd {}; {} 2>&1; echo \"__EXIT $?__\"; sleep 600",
        env!("CARGO_MANIFEST_DIR"),
        quoted.join(" ")
    );
    let started = tmux(&[
        "new-session",
        "-d",
        "-s",
        name,
        "-x",
        "100",
        "-y",
        "50",
        "bash",
        "-c",
        &script,
    ]);
    assert!(started.status.success(), "{started:?}");
    let deadline = Instant::now() + Duration::from_secs(120);
    let screen = loop {
        let shot = tmux(&["capture-pane", "-p", "-J", "-S", "-", "-E", "-", "-t", name]);
        let text = String::from_utf8_lossy(&shot.stdout).to_string();
        if text.contains("__EXIT ") || Instant::now() > deadline {
            break text;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    tmux(&["kill-server"]);
    let (printed, exit) = screen
        .rsplit_once("__EXIT ")
        .unwrap_or_else(|| panic!("the command did not end in 120 s:\n{screen}"));
    let code = exit.split("__").next().unwrap().trim().parse().unwrap();
    (printed.to_string(), code)
}

/// The skill-eval-harness corpus (runs, manifest, the tool's reports)
/// copied under `dir` and ingested: the store and the copy.
fn seh_store(dir: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let db = dir.join("s.duckdb");
    let tree = dir.join("seh");
    copy_tree(&seh_root(), &tree);
    liftdb_cmd(&db)
        .args(["ingest", "-q"])
        .args(corpus_paths(&tree))
        .assert()
        .success();
    (db, tree)
}

fn columns(line: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(line)
}

#[test]
fn the_demo_fits_a_100_column_terminal() {
    let dir = tempfile::tempdir().unwrap();
    // The demo makes its own store; --db is the global flag it ignores.
    let (screen, code) = in_terminal("demo", &dir.path().join("unused.duckdb"), &["demo"]);
    assert_eq!(code, 0, "{screen}");
    // The tables and their headings fit (the ingest summary on stderr is
    // prose the terminal wraps).
    for line in screen
        .lines()
        .filter(|l| l.starts_with(['┌', '│', '╞', '└', '(']) || l.starts_with("== "))
    {
        assert!(
            columns(line) <= WIDTH,
            "a line of {} columns in a {WIDTH}-column terminal: {line}",
            columns(line)
        );
    }
    // Every section printed a table, and the lift tables show lift and p.
    let sections = screen.matches("\n== ").count();
    assert_eq!(sections, 7, "{screen}");
    let lift_headers = screen
        .lines()
        .filter(|l| l.starts_with('│') && l.contains(" lift ") && l.trim_end().ends_with(" p │"))
        .count();
    assert!(lift_headers >= 2, "{screen}");
    // No table elided a column to fit.
    assert!(!screen.contains(" columns, "), "{screen}");
}

#[test]
fn on_a_two_release_store_every_lift_row_names_its_release() {
    // Anthropic's skill-creator workspace: iteration-1..3 are releases.
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.duckdb");
    liftdb_cmd(&db)
        .arg("ingest")
        .arg(fixture("skill-creator-anthropic"))
        .assert()
        .success();
    // Rows per release, from the report's own CSV.
    let out = liftdb_cmd(&db)
        .args(["report", "lift", "--format", "csv"])
        .output()
        .unwrap();
    let csv = String::from_utf8(out.stdout).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let at = header.iter().position(|c| *c == "release").unwrap();
    let mut expected: std::collections::BTreeMap<String, usize> = Default::default();
    for line in lines {
        *expected
            .entry(line.split(',').nth(at).unwrap().to_string())
            .or_default() += 1;
    }
    assert!(expected.len() > 1, "{expected:?}");

    let (screen, code) = in_terminal("lift", &db, &["report", "lift"]);
    assert_eq!(code, 0, "{screen}");
    let mut counted: std::collections::BTreeMap<String, usize> = Default::default();
    let mut release: Option<String> = None;
    for line in screen.lines() {
        if line.starts_with(['┌', '│', '╞', '└']) {
            assert!(columns(line) <= WIDTH, "{line}");
        }
        if let Some(rest) = line.strip_prefix("release ") {
            release = Some(rest.split(" · ").next().unwrap().to_string());
        } else if line.starts_with('│') && !line.contains("row_label") {
            let r = release
                .clone()
                .unwrap_or_else(|| panic!("a row before any heading:\n{screen}"));
            *counted.entry(r).or_default() += 1;
        }
    }
    assert_eq!(counted, expected, "{screen}");
}

#[test]
fn a_model_no_run_has_fails_naming_the_models_there_are() {
    let dir = tempfile::tempdir().unwrap();
    let (db, tree) = seh_store(dir.path());
    let (screen, code) = in_terminal(
        "model",
        &db,
        &["report", "lift", "--model", "no-such-model"],
    );
    assert_eq!(code, 2, "{screen}");
    // The corpus's models: its run folders' model level.
    let runs = tree.join("runs/eval-runs/add-not-null-column");
    let mut models: Vec<String> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    models.sort();
    assert!(
        screen.contains("no-such-model") && screen.contains(&models.join(", ")),
        "{models:?}\n{screen}"
    );
}

#[test]
fn show_run_lists_its_failing_assertions_with_their_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = seh_store(dir.path());
    // The harness's own report: the first run with a failing assertion.
    let report = crate::common::reference("benchmark-tune.json.gz");
    let result = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["assertions"]
                .as_array()
                .unwrap()
                .iter()
                .any(|a| a["passed"] == false)
        })
        .expect("a run with a failing assertion");
    let folder = format!(
        "eval-runs/{}/{}/{}/run-{}",
        result["case_id"].as_str().unwrap(),
        result["model"].as_str().unwrap(),
        result["variant"].as_str().unwrap(),
        result["run_number"]
    );
    let (screen, code) = in_terminal("show", &db, &["show", &folder]);
    assert_eq!(code, 0, "{screen}");
    for a in result["assertions"].as_array().unwrap() {
        let name = a["name"].as_str().unwrap();
        if a["passed"] == false {
            assert!(
                screen.contains(&format!("FAILED {name} (")),
                "{name}\n{screen}"
            );
            let evidence = a["evidence"].as_str().unwrap();
            assert!(
                screen.contains(&format!("evidence: {evidence}")),
                "{evidence}\n{screen}"
            );
        }
    }
    assert!(
        screen.contains(&format!(
            "objective {} of {} passed",
            result["objective_passed"], result["objective_total"]
        )),
        "{screen}"
    );
    for line in screen.lines() {
        assert!(columns(line) <= WIDTH, "{line}");
    }
}

#[test]
fn the_shells_report_is_the_report_commands() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = seh_store(dir.path());
    for (shell, command) in [
        (
            ".report lift split=tune",
            vec!["report", "lift", "--split", "tune"],
        ),
        (
            ".report flags --all-columns",
            vec!["report", "flags", "--all-columns"],
        ),
    ] {
        let (by_shell, code) = in_terminal("shell-report", &db, &["-c", shell]);
        assert_eq!(code, 0, "{by_shell}");
        let (by_command, code) = in_terminal("report", &db, &command);
        assert_eq!(code, 0, "{by_command}");
        // The lift table shows lift and p, and both say the same lines.
        assert!(by_command.lines().count() > 5, "{by_command}");
        assert_eq!(by_shell, by_command, "{shell}");
    }
    let (lift, _) = in_terminal("lift-columns", &db, &["-c", ".report lift"]);
    assert!(
        lift.lines()
            .any(|l| l.starts_with('│') && l.contains(" lift ") && l.trim_end().ends_with(" p │")),
        "{lift}"
    );
}
