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
    in_terminal_of(WIDTH, name, db, args)
}

/// As `in_terminal`, in a pane `width` columns wide.
fn in_terminal_of(width: usize, name: &str, db: &Path, args: &[&str]) -> (String, i32) {
    in_terminal_with(width, "", name, db, args)
}

/// As `in_terminal_of`, `env` (`NAME=value …`) set for the command.
fn in_terminal_with(
    width: usize,
    env: &str,
    name: &str,
    db: &Path,
    args: &[&str],
) -> (String, i32) {
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
        "cd {}; {env} {} 2>&1; echo \"__EXIT $?__\"; sleep 600",
        env!("CARGO_MANIFEST_DIR"),
        quoted.join(" ")
    );
    let started = tmux(&[
        "new-session",
        "-d",
        "-s",
        name,
        "-x",
        &width.to_string(),
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
    // PAGER=cat: the whole output on the screen (the pager has its own test).
    let (screen, code) = in_terminal_with(
        WIDTH,
        "PAGER=cat",
        "demo",
        &dir.path().join("unused.duckdb"),
        &["demo"],
    );
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

/// The five tool corpora ingested into one store under `dir`.
fn corpora_store(dir: &Path) -> std::path::PathBuf {
    let db = dir.join("s.duckdb");
    liftdb_cmd(&db)
        .args(["ingest", "-q"])
        .args(crate::common::tool_corpora())
        .assert()
        .success();
    db
}

/// A report's rows as the store gives them to a program (JSON, every column).
fn report_json(db: &Path, report: &str) -> Vec<serde_json::Value> {
    let out = crate::common::succeeded(liftdb_cmd(db).args(["report", report, "--format", "json"]));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The box tables on a screen: each as its header cells and rows of cells
/// (trimmed), with its drawn width.
struct Drawn {
    width: usize,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

fn drawn_tables(screen: &str) -> Vec<Drawn> {
    let cells = |line: &str| -> Vec<String> {
        line.trim_matches('│')
            .split(['┆', '│'])
            .map(|c| c.trim().to_string())
            .collect()
    };
    let mut tables: Vec<Drawn> = Vec::new();
    let mut open = false;
    for line in screen.lines() {
        if line.starts_with('┌') {
            tables.push(Drawn {
                width: columns(line),
                header: Vec::new(),
                rows: Vec::new(),
            });
            open = true;
        } else if line.starts_with('└') {
            open = false;
        } else if open && line.starts_with('│') {
            let table = tables.last_mut().unwrap();
            match table.header.is_empty() {
                true => table.header = cells(line),
                false => table.rows.push(cells(line)),
            }
        }
    }
    tables
}

fn one_spaced(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn at_100_and_160_columns_cells_are_cut_only_when_the_table_would_not_fit() {
    let dir = tempfile::tempdir().unwrap();
    let db = corpora_store(dir.path());
    // Source: the reports' own rows, as JSON, from the same store.
    let sentences: Vec<String> = report_json(&db, "lift-headline")
        .iter()
        .map(|r| r["sentence"].as_str().unwrap().to_string())
        .collect();
    assert!(sentences.len() >= 4, "one per skill and release");
    let flag_texts: Vec<String> = report_json(&db, "flags")
        .iter()
        .filter_map(|r| r["flags"].as_str().map(str::to_string))
        .collect();
    for width in [100, 160] {
        // A one-sentence report is never cut: each sentence whole (wrapped).
        let (screen, code) = in_terminal_of(width, "headline", &db, &["report", "lift-headline"]);
        assert_eq!(code, 0, "{screen}");
        let read = one_spaced(&screen);
        for sentence in &sentences {
            assert!(
                read.contains(&one_spaced(sentence)),
                "at {width}: {sentence}\n{screen}"
            );
        }
        assert!(!screen.contains('…'), "at {width}: {screen}");
        for line in screen.lines() {
            assert!(columns(line) <= width, "at {width}: {line}");
        }
        // The flags: a table that cuts a cell is as wide as the terminal
        // lets it be (cells are cut widest first, only to fit).
        let (screen, code) = in_terminal_of(width, "flags", &db, &["report", "flags"]);
        assert_eq!(code, 0, "{screen}");
        let tables = drawn_tables(&screen);
        assert!(!tables.is_empty(), "{screen}");
        for table in &tables {
            assert!(table.width <= width, "at {width}: {screen}");
            let cut = table.rows.iter().flatten().any(|c| c.ends_with('…'));
            if cut {
                assert!(
                    table.width + 8 >= width,
                    "a cut cell in a table {} wide at {width}:\n{screen}",
                    table.width
                );
            }
        }
        // At 160 a flags cell of up to 80 columns is shown whole (the old
        // 40-column cap cut every one past 40).
        if width == 160 {
            let long: Vec<&String> = flag_texts
                .iter()
                .filter(|t| t.len() > 40 && t.len() <= 80)
                .collect();
            assert!(
                !long.is_empty(),
                "the corpora have flag lists past 40 columns"
            );
            for text in long {
                assert!(
                    tables
                        .iter()
                        .flat_map(|t| t.rows.iter().flatten())
                        .any(|c| c == text),
                    "{text}\n{screen}"
                );
            }
        }
    }
}

#[test]
fn a_reports_blocks_come_once_each_and_its_nulls_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let db = corpora_store(dir.path());
    let (screen, code) = in_terminal_of(100, "cpl", &db, &["report", "cost-per-lift"]);
    assert_eq!(code, 0, "{screen}");
    // Each block heading (release · skill · …) once: the rows are grouped by
    // their block before they are split.
    let headings: Vec<&str> = screen
        .lines()
        .filter(|l| l.starts_with("release "))
        .collect();
    assert!(headings.len() >= 4, "{screen}");
    let distinct: std::collections::BTreeSet<&&str> = headings.iter().collect();
    assert_eq!(
        distinct.len(),
        headings.len(),
        "a heading printed twice:\n{screen}"
    );
    // Where the compact set shows no dollars per unit of lift, the cell
    // says why. Source: the report's own rows (JSON) have NULLs there, each
    // with its reason column set.
    let rows = report_json(&db, "cost-per-lift");
    let unexplained = rows
        .iter()
        .filter(|r| {
            r["usd_per_unit_lift"].is_null() && r["usd_per_unit_lift_unavailable"].is_null()
        })
        .count();
    assert_eq!(unexplained, 0, "every NULL has its reason");
    assert!(
        rows.iter().any(|r| r["usd_per_unit_lift"].is_null()),
        "the corpora have NULLs there"
    );
    let mut shown = 0;
    for table in drawn_tables(&screen) {
        let Some(at) = table.header.iter().position(|h| h == "usd_per_unit_lift") else {
            continue;
        };
        for row in &table.rows {
            assert_ne!(row[at], "NULL", "a NULL with no reason:\n{screen}");
            shown += usize::from(row[at].starts_with("NULL ("));
        }
    }
    assert!(shown > 0, "{screen}");
    // The ledger and cost-by-arm say why a cost is NULL, as the cell.
    for report in ["ledger", "cost-by-arm"] {
        let (screen, code) = in_terminal_of(160, report, &db, &["report", report]);
        assert_eq!(code, 0, "{screen}");
        let column = if report == "ledger" {
            "cost_usd"
        } else {
            "known_cost_usd"
        };
        let mut cells = 0;
        for table in drawn_tables(&screen) {
            let at = table.header.iter().position(|h| h == column).unwrap();
            for row in table.rows.iter().filter(|r| r[0] != "·") {
                assert_ne!(row[at], "NULL", "{report}:\n{screen}");
                cells += 1;
            }
        }
        assert!(cells > 0, "{report}: {screen}");
    }
}

/// On a terminal the demo pages as git does (`less` when $PAGER is unset):
/// the first screen is the lift's sentence and table, not the end of 500
/// lines; `q` ends it, and its temporary store is gone unless `--keep`.
#[test]
fn the_demo_pages_on_a_terminal_and_removes_its_store() {
    let tmp = tempfile::tempdir().unwrap();
    let socket = format!("liftdb-pager-{}", std::process::id());
    let tmux = |extra: &[&str]| {
        Command::new("tmux")
            .args(["-L", &socket])
            .args(extra)
            .output()
            .expect("tmux runs")
    };
    let script = format!(
        "cd {}; unset PAGER LESS; TMPDIR={} {} demo 2>/dev/null; echo \"__EXIT $?__\"; sleep 600",
        env!("CARGO_MANIFEST_DIR"),
        tmp.path().display(),
        env!("CARGO_BIN_EXE_liftdb")
    );
    let started = tmux(&[
        "new-session",
        "-d",
        "-s",
        "pager",
        "-x",
        "100",
        "-y",
        "40",
        "bash",
        "-c",
        &script,
    ]);
    assert!(started.status.success(), "{started:?}");
    let screen = |whole: bool| {
        let mut args = vec!["capture-pane", "-p", "-t", "pager"];
        if whole {
            args.extend(["-J", "-S", "-", "-E", "-"]);
        }
        String::from_utf8_lossy(&tmux(&args).stdout).to_string()
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    let first = loop {
        let shown = screen(false);
        if shown.contains("== Lift, split tune") || Instant::now() > deadline {
            break shown;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let demo_dirs = || {
        std::fs::read_dir(tmp.path())
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with("liftdb-demo-"))
            .count()
    };
    let while_paging = demo_dirs();
    tmux(&["send-keys", "-t", "pager", "q"]);
    let deadline = Instant::now() + Duration::from_secs(30);
    let after = loop {
        let shown = screen(true);
        if shown.contains("__EXIT ") || Instant::now() > deadline {
            break shown;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    tmux(&["kill-server"]);
    assert!(first.contains("== Lift, split tune"), "{first}");
    assert!(
        first.contains("split tune: with the skill"),
        "the sentence on the first screen: {first}"
    );
    assert!(
        !first.contains("Trend across releases"),
        "the first screen, not the end: {first}"
    );
    assert_eq!(while_paging, 1, "the demo's store while it runs");
    assert!(after.contains("__EXIT 0__"), "{after}");
    assert_eq!(demo_dirs(), 0, "the temporary store is removed");
    // --keep keeps it, and says where.
    let out = Command::new(env!("CARGO_BIN_EXE_liftdb"))
        .arg("demo")
        .arg("--keep")
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(demo_dirs(), 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("The demo store is "));
}

/// `liftdb completions bash` is a script bash loads, completing liftdb's
/// own subcommands.
#[test]
fn completions_are_a_script_the_shell_loads() {
    let out = crate::common::succeeded(
        assert_cmd::Command::new(env!("CARGO_BIN_EXE_liftdb")).args(["completions", "bash"]),
    );
    let script = String::from_utf8(out.stdout).unwrap();
    for sub in ["ingest", "report", "gate", "completions"] {
        assert!(script.contains(sub), "{sub}");
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("liftdb.bash");
    std::fs::write(&file, &script).unwrap();
    let loaded = Command::new("bash")
        .arg("-c")
        .arg(format!("source {}; complete -p liftdb", file.display()))
        .output()
        .unwrap();
    assert!(loaded.status.success(), "{loaded:?}");
    assert!(String::from_utf8_lossy(&loaded.stdout).contains("liftdb"));
}
