//! The interactive shell in a real terminal (tmux): multi-line input,
//! history recall, and Ctrl-C cancelling a long query without leaving.
//! Needs tmux (`apt-get install tmux`; `.ci/run` installs it).

use std::path::Path;
use std::process::Command;
use std::thread::sleep;
use std::time::{Duration, Instant};

use crate::common::{corpus_paths, seh_root};

fn tmux(args: &[&str]) -> String {
    let out = Command::new("tmux").args(args).output().expect("tmux runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Type text literally (tmux would read a trailing ';' as a command separator), then Enter.
fn type_line(session: &str, text: &str) {
    let escaped = match text.strip_suffix(';') {
        Some(head) => format!("{head}\\;"),
        None => text.to_string(),
    };
    tmux(&["send-keys", "-t", session, "-l", &escaped]);
    tmux(&["send-keys", "-t", session, "Enter"]);
}

/// Wait until the shell shows an empty prompt on its last line, then give
/// rustyline a moment to enter raw mode: keys sent before it reads them can be
/// swallowed by its terminal probing (CI once lost an Up that way).
fn wait_for_idle_prompt(session: &str) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        let screen = tmux(&["capture-pane", "-p", "-t", session]);
        let last = screen.lines().rev().find(|l| !l.trim().is_empty());
        if last.is_some_and(|l| l.trim_end() == "liftdb>") {
            break;
        }
        sleep(Duration::from_millis(100));
    }
    sleep(Duration::from_millis(300));
}

fn wait_for(session: &str, needle: &str, timeout: Duration) -> String {
    wait_for_count(session, needle, 1, timeout)
}

/// The screen once `needle` shows `times` times (a recalled or echoed line is
/// already on screen once, so waiting for one sighting would race the shell).
fn wait_for_count(session: &str, needle: &str, times: usize, timeout: Duration) -> String {
    let start = Instant::now();
    loop {
        let screen = tmux(&["capture-pane", "-p", "-t", session, "-S", "-200"]);
        if screen.matches(needle).count() >= times || start.elapsed() > timeout {
            return screen;
        }
        sleep(Duration::from_millis(100));
    }
}

/// A detached 160×50 tmux session running `command` (the shell).
fn start_shell(session: &str, command: &str) {
    tmux(&[
        "new-session",
        "-d",
        "-s",
        session,
        "-x",
        "160",
        "-y",
        "50",
        command,
    ]);
}

#[test]
fn interactive_history_multiline_and_ctrl_c() {
    assert!(
        Path::new("/usr/bin/tmux").exists(),
        "the terminal test needs tmux: apt-get install tmux (.ci/run installs it)"
    );
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.duckdb");
    let bin = assert_cmd::cargo::cargo_bin("liftdb");
    let status = Command::new(&bin)
        .arg("--db")
        .arg(&db)
        .arg("ingest")
        .arg("-q")
        .args(corpus_paths(&seh_root()))
        .status()
        .unwrap();
    assert!(status.success());

    let session = format!("liftdb-test-{}", std::process::id());
    let state = dir.path().join("state");
    let command = format!(
        "env XDG_STATE_HOME={} {} --db {}",
        state.display(),
        bin.display(),
        db.display()
    );
    start_shell(&session, &command);
    let ready = wait_for(&session, "liftdb>", Duration::from_secs(10));
    assert!(ready.contains("liftdb>"), "prompt: {ready}");

    // A statement over two lines: the continuation prompt, then the answer.
    type_line(&session, "SELECT 40 +");
    let cont = wait_for(&session, "...>", Duration::from_secs(5));
    assert!(cont.contains("...>"), "continuation prompt: {cont}");
    type_line(&session, "  2 AS answer;");
    let screen = wait_for(&session, "42", Duration::from_secs(10));
    assert!(
        screen.contains("answer") && screen.contains("42"),
        "{screen}"
    );

    // Up recalls the whole statement from history.
    wait_for_idle_prompt(&session);
    tmux(&["send-keys", "-t", &session, "Up"]);
    let recalled = wait_for_count(&session, "2 AS answer;", 2, Duration::from_secs(5));
    assert!(
        recalled.matches("2 AS answer;").count() >= 2,
        "history recall: {recalled}"
    );
    tmux(&["send-keys", "-t", &session, "C-c"]);
    wait_for_idle_prompt(&session);

    // Tab completes view names from the store's catalog.
    tmux(&[
        "send-keys",
        "-t",
        &session,
        "-l",
        "SELECT count(*) AS n FROM lift_headl",
    ]);
    tmux(&["send-keys", "-t", &session, "Tab"]);
    let completed = wait_for(&session, "FROM lift_headline", Duration::from_secs(5));
    assert!(
        completed.contains("FROM lift_headline"),
        "completion: {completed}"
    );
    tmux(&["send-keys", "-t", &session, "-l", "\\;"]);
    tmux(&["send-keys", "-t", &session, "Enter"]);
    let counted = wait_for(&session, "(1 row)", Duration::from_secs(10));
    assert!(counted.contains("(1 row)"), "{counted}");

    // A query that would run for minutes, cancelled by Ctrl-C; the session stays.
    type_line(&session, "SELECT count(*) FROM range(1000000000000) a;");
    sleep(Duration::from_millis(1500));
    tmux(&["send-keys", "-t", &session, "C-c"]);
    let interrupted = wait_for(&session, "cancelled", Duration::from_secs(10));
    assert!(
        interrupted
            .lines()
            .any(|l| l.trim().trim_start_matches("^C") == "cancelled")
            && !interrupted.contains("INTERRUPT"),
        "interrupted: {interrupted}"
    );
    type_line(&session, "SELECT 'still here' AS after;");
    let after = wait_for_count(&session, "still here", 2, Duration::from_secs(10));
    assert!(
        after.matches("still here").count() >= 2,
        "session survives: {after}"
    );

    // Ctrl-D leaves and the history is saved in the state directory.
    tmux(&["send-keys", "-t", &session, "C-d"]);
    let start = Instant::now();
    let alive = || {
        Command::new("tmux")
            .args(["has-session", "-t", &session])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false)
    };
    while alive() && start.elapsed() < Duration::from_secs(5) {
        sleep(Duration::from_millis(100));
    }
    let _ = Command::new("tmux")
        .args(["kill-session", "-t", &session])
        .output();
    let history = std::fs::read_to_string(state.join("liftdb/history")).unwrap_or_default();
    assert!(history.contains("2 AS answer;"), "history file: {history}");
}

/// The shell's answer to `SELECT count(*) AS n_runs ...`: the number in the
/// last row under the header (table output).
fn count_after(screen: &str, label: &str) -> Option<i64> {
    let at = screen.rfind(label)?;
    screen[at..]
        .lines()
        .skip(1)
        .find_map(|l| l.trim_matches(|c: char| !c.is_ascii_digit()).parse().ok())
}

#[test]
fn an_open_shell_never_blocks_an_ingest_and_then_sees_its_runs() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.duckdb");
    let bin = assert_cmd::cargo::cargo_bin("liftdb");
    let ingest = |what: &Path| {
        Command::new(&bin)
            .arg("--db")
            .arg(&db)
            .args(["ingest", "-q"])
            .arg(what)
            .output()
            .unwrap()
    };
    assert!(ingest(&crate::common::fixture("skill-creator"))
        .status
        .success());
    let session = format!("liftdb-coexist-{}", std::process::id());
    let command = format!(
        "env XDG_STATE_HOME={} {} --db {}",
        dir.path().join("state").display(),
        bin.display(),
        db.display()
    );
    start_shell(&session, &command);
    struct Kill(String);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = Command::new("tmux")
                .args(["kill-session", "-t", &self.0])
                .output();
        }
    }
    let _kill = Kill(session.clone());
    wait_for(&session, "liftdb>", Duration::from_secs(10));
    wait_for_idle_prompt(&session);
    type_line(&session, "SELECT count(*) AS first_count FROM runs;");
    let screen = wait_for(&session, "(1 row)", Duration::from_secs(10));
    let before = count_after(&screen, "first_count").expect("a count");

    // The shell sits at its prompt: an ingest goes ahead (no --wait).
    let started = Instant::now();
    let out = ingest(&seh_root());
    assert!(
        out.status.success(),
        "ingest beside an open shell: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        started.elapsed() < Duration::from_secs(25),
        "it did not wait for the shell"
    );
    // The count the store now holds, read by a separate process.
    let after = Command::new(&bin)
        .arg("--db")
        .arg(&db)
        .args(["sql", "SELECT count(*) FROM runs"])
        .output()
        .unwrap();
    let expected: i64 = String::from_utf8_lossy(&after.stdout)
        .lines()
        .nth(1)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(expected > before, "the second ingest added runs");

    // The same shell sees the new batch.
    type_line(&session, "SELECT count(*) AS second_count FROM runs;");
    let screen = wait_for_count(&session, "(1 row)", 2, Duration::from_secs(10));
    assert_eq!(
        count_after(&screen, "second_count"),
        Some(expected),
        "{screen}"
    );
}
