//! The interactive shell in a real terminal (tmux): multi-line input,
//! history recall, and Ctrl-C cancelling a long query without leaving.
//! Skipped with a printed reason where tmux is not installed.

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

fn wait_for(session: &str, needle: &str, timeout: Duration) -> String {
    let start = Instant::now();
    loop {
        let screen = tmux(&["capture-pane", "-p", "-t", session, "-S", "-200"]);
        if screen.contains(needle) || start.elapsed() > timeout {
            return screen;
        }
        sleep(Duration::from_millis(100));
    }
}

#[test]
fn interactive_history_multiline_and_ctrl_c() {
    if !Path::new("/usr/bin/tmux").exists() {
        println!("skipped the terminal test: tmux is not installed (apt-get install tmux)");
        return;
    }
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
    tmux(&[
        "new-session",
        "-d",
        "-s",
        &session,
        "-x",
        "160",
        "-y",
        "50",
        &command,
    ]);
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
    tmux(&["send-keys", "-t", &session, "Up"]);
    let recalled = wait_for(&session, "2 AS answer;", Duration::from_secs(5));
    assert!(
        recalled.matches("2 AS answer;").count() >= 2,
        "history recall: {recalled}"
    );
    tmux(&["send-keys", "-t", &session, "C-c"]);

    // Tab completes view names from the store's catalog.
    tmux(&[
        "send-keys",
        "-t",
        &session,
        "-l",
        "SELECT count(*) AS n FROM case_fl",
    ]);
    tmux(&["send-keys", "-t", &session, "Tab"]);
    let completed = wait_for(&session, "FROM case_flags", Duration::from_secs(5));
    assert!(
        completed.contains("FROM case_flags"),
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
    let interrupted = wait_for(&session, "nterrupt", Duration::from_secs(10));
    assert!(
        interrupted.contains("nterrupt"),
        "interrupted: {interrupted}"
    );
    type_line(&session, "SELECT 'still here' AS after;");
    let after = wait_for(&session, "still here", Duration::from_secs(10));
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
