//! `liftdb gate` decides a release the way its checks say, each decision
//! recomputed here from the `pairs` view (the unit lifts) and the stats
//! library's interval: a release with lift passes --min-lift; the same runs
//! with every with-skill answer replaced by the without-skill one fail
//! non-inferiority against it (the JUnit file naming that check); a release
//! the store does not hold is exit 2.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::{copy_tree, fixture, liftdb_cmd, rows, seh_root, stderr_of};

/// The corpus's runs as release v1, and as v2 with every with-skill answer
/// replaced by its without-skill twin's (same case, model, repetition).
fn two_releases(dir: &Path) -> PathBuf {
    two_releases_saying(dir).0
}

/// `two_releases`, and what v2's ingest said.
fn two_releases_saying(dir: &Path) -> (PathBuf, String) {
    let db = dir.join("s.duckdb");
    let manifest = seh_root().join("input/evals/shared-benchmark.json");
    let v1 = dir.join("v1/eval-runs");
    copy_tree(&seh_root().join("runs/eval-runs"), &v1);
    let v2 = dir.join("v2/eval-runs");
    copy_tree(&seh_root().join("runs/eval-runs"), &v2);
    for entry in walkdir::WalkDir::new(&v2) {
        let path = entry.unwrap().into_path();
        let is_with_answer = path.file_name().is_some_and(|n| n == "output.md")
            && path.components().any(|c| c.as_os_str() == "with_skill");
        if is_with_answer {
            let run = path.parent().unwrap();
            let twin = run
                .parent()
                .unwrap()
                .parent()
                .unwrap()
                .join("without_skill")
                .join(run.file_name().unwrap())
                .join("output.md");
            std::fs::copy(&twin, &path).unwrap();
        }
    }
    let mut said = String::new();
    for (release, tree) in [("v1", &v1), ("v2", &v2)] {
        let out = liftdb_cmd(&db)
            .args(["ingest", "--release", release])
            .arg(tree)
            .arg(&manifest)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
        said = stderr_of(&out);
    }
    (db, said)
}

/// Each (case, model) unit's lift d_u in `release` (the mean of its
/// eligible pairs' deltas against without_skill), from the pairs view.
fn unit_lifts(db: &Path, release: &str, split: Option<&str>) -> BTreeMap<(String, String), f64> {
    let store = liftdb::store::open_read_after_upkeep(db).unwrap();
    let split = split.map_or("true".to_string(), |s| format!("split = '{s}'"));
    rows(
        &store,
        &format!(
            "SELECT case_id, model, avg(delta) AS d FROM pairs
             WHERE release_label = '{release}' AND control_arm = 'without_skill' AND eligible AND {split}
             GROUP BY ALL"
        ),
    )
    .into_iter()
    .map(|r| {
        (
            (
                r["case_id"].as_str().unwrap().to_string(),
                r["model"].as_str().unwrap().to_string(),
            ),
            r["d"].as_f64().unwrap(),
        )
    })
    .collect()
}

fn gate(db: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = liftdb_cmd(db).arg("gate").args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        stderr_of(&out),
    )
}

/// `gate` of release v1's tune split with `args`, its verdict as JSON.
fn gate_v1_tune(db: &Path, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let mut all = vec!["--release", "v1", "--split", "tune", "--format", "json"];
    all.extend_from_slice(args);
    let (code, out, err) = gate(db, &all);
    let verdict = serde_json::from_str(&out).unwrap_or_else(|_| panic!("{out}{err}"));
    (code, verdict)
}

#[test]
fn a_release_with_lift_passes_and_its_answers_without_the_skill_fail_non_inferiority() {
    let dir = tempfile::tempdir().unwrap();
    let db = two_releases(dir.path());

    // v1, tune split: its lift (the mean of the unit lifts) clears 0.1.
    let v1 = unit_lifts(&db, "v1", Some("tune"));
    let lift = v1.values().sum::<f64>() / v1.len() as f64;
    assert!(lift >= 0.1, "the corpus's tune lift {lift}");
    let (code, verdict) = gate_v1_tune(&db, &["--min-lift", "0.1"]);
    assert_eq!(code, Some(0), "{verdict}");
    let check = &verdict["checks"][0];
    assert_eq!(check["check"], "min-lift");
    assert_eq!(check["outcome"], "pass");
    assert!(
        check["measured"]
            .as_str()
            .unwrap()
            .starts_with(&format!("lift {lift:+.4} over {} units", v1.len())),
        "{check}"
    );

    // v2 against v1 (its baseline by default: the release before it): the
    // matched units' changes, their interval's lower bound below -0.05.
    let v1_all = unit_lifts(&db, "v1", None);
    let v2_all = unit_lifts(&db, "v2", None);
    let changes: Vec<f64> = v2_all
        .iter()
        .filter_map(|(unit, d2)| v1_all.get(unit).map(|d1| d2 - d1))
        .collect();
    assert!(changes.len() >= 6);
    let bound = liftdb::stats::interval(&changes);
    let lower = bound.lower.unwrap();
    assert!(lower < -0.05, "{lower}");
    let junit = dir.path().join("gate.xml");
    let (code, out, err) = gate(
        &db,
        &[
            "--non-inferiority-margin",
            "0.05",
            "--junit",
            junit.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("release v2 against v1"), "{out}");
    assert!(
        out.contains("FAIL") && out.contains(&format!("{lower:+.4}")),
        "{out}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("<testcase name=\"non-inferiority (sql-migration-review)\""),
        "{xml}"
    );
    assert!(xml.contains("<failure"), "{xml}");
    // A margin the change stays within passes the same units.
    let wide = format!("{}", -lower + 0.01);
    let (code, out, _) = gate(&db, &["--non-inferiority-margin", &wide]);
    assert_eq!(code, Some(0), "{out}");

    // The same gate as a checked-in file, one line in CI.
    let file = dir.path().join("gate.toml");
    std::fs::write(&file, "baseline = \"v1\"\nnon-inferiority-margin = 0.05\n").unwrap();
    let (code, _, _) = gate(&db, &["--config", file.to_str().unwrap()]);
    assert_eq!(code, Some(1));

    // No such release: exit 2, naming the releases there are.
    let (code, _, err) = gate(&db, &["--release", "v9", "--min-lift", "0"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("--release v9") && err.contains("v1, v2"),
        "{err}"
    );
    // Nothing to check: refused, saying what to give.
    let (code, _, err) = gate(&db, &[]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--min-lift"), "{err}");
}

/// v2's with-skill answers are its without-skill ones, byte for byte: the
/// ingest, `report lift` and the HTML say that release measures nothing,
/// once per model (the model folders of the tree), and say nothing of v1,
/// whose answers differ (compared here, file by file).
#[test]
fn answers_the_same_in_both_arms_are_said_to_measure_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (db, said) = two_releases_saying(dir.path());
    let runs = seh_root().join("runs/eval-runs");
    let case_dirs: Vec<PathBuf> = std::fs::read_dir(&runs)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    let mut models: Vec<String> = std::fs::read_dir(&case_dirs[0])
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    models.sort();
    // One note for the kind, naming each model.
    let note = said
        .lines()
        .find(|l| {
            l.contains(&format!(
                "{} × identical_outputs in release v2 (measures nothing here)",
                models.len()
            ))
        })
        .unwrap_or_else(|| panic!("{said}"));
    for model in &models {
        assert!(note.contains(model.as_str()), "{model}: {note}");
        // In v1 (the corpus as the harness wrote it) some answer differs.
        let differs = case_dirs.iter().any(|case| {
            let arm = |a: &str| case.join(model).join(a).join("run-1/output.md");
            std::fs::read(arm("with_skill")).ok() != std::fs::read(arm("without_skill")).ok()
        });
        assert!(differs, "{model}: v1's answers differ somewhere");
    }
    let store = liftdb::store::open_read_after_upkeep(&db).unwrap();
    let suspect = rows(
        &store,
        "SELECT release_label, kind, subject FROM suspect_measurements ORDER BY ALL",
    );
    drop(store);
    assert_eq!(suspect.len(), models.len(), "{suspect:?}");
    assert!(suspect
        .iter()
        .all(|r| r["release_label"] == "v2" && r["kind"] == "identical_outputs"));

    let lift = liftdb_cmd(&db)
        .args([
            "report",
            "lift",
            "--release",
            "v2",
            "--format",
            "table",
            "--max-width",
            "100",
        ])
        .output()
        .unwrap();
    let lift = String::from_utf8_lossy(&lift.stdout);
    assert!(
        lift.contains(
            "note: release v2 of sql-migration-review measures nothing here: identical_outputs ("
        ),
        "{lift}"
    );
    let html = dir.path().join("r.html");
    liftdb_cmd(&db)
        .args(["report", "html", "--release", "v2", "--out"])
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert_eq!(page.matches("<p class=\"suspect\">").count(), models.len());
}

/// The other rules of suspect_measurements, on stores made to hold what
/// they look for: a release whose cases all pass (then all fail) in both
/// arms, and trigger evals where nothing triggered. The rows are set by
/// hand in the stored tables the view reads (as a harness that measured
/// nothing would have left them); the view names each.
#[test]
fn suites_that_cannot_show_lift_and_evals_that_never_triggered_are_suspect() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.duckdb");
    liftdb_cmd(&db)
        .args(["ingest", "-q", "--release", "r"])
        .arg(crate::common::fixture("skill-creator-anthropic"))
        .assert()
        .success();
    let sql = |q: &str| {
        let out = liftdb_cmd(&db)
            .args(["sql", "--format", "csv", q])
            .output()
            .unwrap();
        assert!(out.status.success(), "{q}: {}", stderr_of(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let kinds =
        || sql("SELECT kind, count(*) AS n FROM suspect_measurements GROUP BY ALL ORDER BY ALL");
    let reports = sql("SELECT count(DISTINCT source_path) FROM trigger_observation");
    let reports: i64 = reports.lines().nth(1).unwrap().parse().unwrap();
    assert!(reports >= 1);
    // As ingested: the workspace's suite discriminates; the queries that
    // should trigger and never did are those run_eval.py's own output says
    // (should_trigger, 0 triggers; its files read here), one row each.
    assert!(!kinds().contains("all_"), "{}", kinds());
    let silent: usize = ["run_eval-v1.json", "run_eval-v3.json"]
        .iter()
        .map(|f| {
            let doc = crate::common::read_report(
                &fixture("skill-creator-anthropic/runs/trigger-eval").join(f),
            );
            doc["results"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|r| r["should_trigger"] == true && r["triggers"] == 0)
                .count()
        })
        .sum();
    assert!(
        kinds().contains(&format!("never_triggered,{silent}")),
        "{}",
        kinds()
    );

    // One suite per experiment of two cases or more.
    let suites = sql("SELECT count(*) FROM (SELECT 1 FROM case_flag_rows
         GROUP BY release_label, skill_name, experiment HAVING count(*) >= 2)");
    let suites: i64 = suites.lines().nth(1).unwrap().parse().unwrap();
    assert!(suites >= 1);
    sql("UPDATE case_flag_rows SET with_skill = 1, without_skill = 1");
    assert!(
        kinds().contains(&format!("all_saturated,{suites}")),
        "{}",
        kinds()
    );
    sql("UPDATE case_flag_rows SET with_skill = 0, without_skill = 0");
    assert!(
        kinds().contains(&format!("all_floor,{suites}")),
        "{}",
        kinds()
    );
    // Every query that should trigger, of every trigger eval, once each.
    let queries = sql(
        "SELECT count(*) FROM (SELECT DISTINCT source_path, coalesce(query_text, query_id)
         FROM trigger_observation WHERE should_trigger)",
    );
    let queries: i64 = queries.lines().nth(1).unwrap().parse().unwrap();
    assert!(queries >= reports);
    sql("UPDATE trigger_observation SET triggered = false, triggered_runs = 0");
    assert!(
        kinds().contains(&format!("never_triggered,{queries}")),
        "{}",
        kinds()
    );
}

/// `--max-invalid-rate`: with-skill runs whose answer is missing do not
/// count; the gate fails when their share of the arm (counted here from the
/// tree's folders) passes R, and passes at R.
#[test]
fn runs_that_do_not_count_are_held_under_a_rate() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.duckdb");
    let tree = dir.path().join("eval-runs");
    copy_tree(&seh_root().join("runs/eval-runs"), &tree);
    let with_runs: Vec<PathBuf> = walkdir::WalkDir::new(&tree)
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .filter(|p| {
            p.join("metadata.json").exists()
                && p.components().any(|c| c.as_os_str() == "with_skill")
        })
        .collect();
    let missing = 5;
    for run in with_runs.iter().take(missing) {
        std::fs::remove_file(run.join("output.md")).unwrap();
    }
    liftdb_cmd(&db)
        .args(["ingest", "-q", "--release", "r"])
        .arg(&tree)
        .arg(seh_root().join("input/evals/shared-benchmark.json"))
        .assert()
        .success();
    let share = missing as f64 / with_runs.len() as f64;
    let below = format!("{}", share - 0.001);
    let (code, out, err) = gate(&db, &["--max-invalid-rate", &below]);
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        out.contains(&format!(
            "with_skill: {missing} of {} runs do not count",
            with_runs.len()
        )),
        "{out}"
    );
    let at = format!("{share}");
    let (code, out, _) = gate(&db, &["--max-invalid-rate", &at]);
    assert_eq!(code, Some(0), "{out}");
}

/// A min-lift that misses only its significance says how many runs would
/// decide it: the runs `liftdb plan` gives for 80% power at the lift it
/// must show (measured above D, the lift itself against 0) and the
/// release's own repetitions, less the paired runs it has. Counted as
/// failing (`--undecided fail`), the check is a JUnit `<failure>`.
#[test]
fn a_gate_that_cannot_decide_says_how_many_more_runs_would() {
    let dir = tempfile::tempdir().unwrap();
    let db = two_releases(dir.path());
    let (code, verdict) = gate_v1_tune(&db, &["--min-lift", "0.1", "--significant"]);
    let check = &verdict["checks"][0];
    // The tune lift clears 0.1 (the first test) but its p is above 0.05 and
    // its interval reaches below 0.1: the data shows neither the lift met
    // nor missed, so the check is undecided (exit 3), not failed.
    assert_eq!(code, Some(3), "{verdict}");
    assert_eq!(check["outcome"], "undecided", "{check}");
    let v1 = unit_lifts(&db, "v1", Some("tune"));
    let bound = liftdb::stats::interval(&v1.values().copied().collect::<Vec<_>>());
    assert!(
        bound.lower.unwrap() < 0.1 && 0.1 < bound.upper.unwrap(),
        "{bound:?}"
    );
    assert!(
        check["measured"].as_str().unwrap().starts_with("lift +0."),
        "{check}"
    );
    let lift = v1.values().sum::<f64>() / v1.len() as f64;
    let plan = liftdb_cmd(&db)
        .args([
            "plan",
            "--release",
            "v1",
            "--split",
            "tune",
            "--lift",
            &lift.to_string(),
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    let plan: serde_json::Value = serde_json::from_slice(&plan.stdout).unwrap();
    let observed = &plan["skills"][0]["observed"];
    let own = observed["repetitions"].as_f64().unwrap().round() as u64;
    let option = plan["skills"][0]["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["repetitions"] == own)
        .unwrap();
    let has = 2 * observed["pairs"].as_u64().unwrap();
    let more = option["runs"].as_u64().unwrap() - has;
    assert!(
        check["more_runs"].as_str().unwrap().starts_with(&format!(
            "about {more} more runs: {} cases × {own} repetitions",
            option["cases"]
        )),
        "{check}\n{option}"
    );
    let junit = dir.path().join("undecided.xml");
    let (code, _) = gate_v1_tune(
        &db,
        &[
            "--min-lift",
            "0.1",
            "--significant",
            "--undecided",
            "fail",
            "--junit",
            junit.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(1));
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("<failure") && !xml.contains("<error"), "{xml}");
    // A check that passes says nothing of more runs.
    let (code, verdict) = gate_v1_tune(&db, &["--min-lift", "0.1"]);
    assert_eq!(code, Some(0));
    assert!(verdict["checks"][0].get("more_runs").is_none());
}

/// `--fail-on` fails on the cases the harness flags, by the names
/// skill-benchmark's labels carry: the expected cases are read from its
/// tune benchmark (case_flags), floor from its rates (both arms 0).
#[test]
fn fail_on_names_the_cases_the_harness_flags() {
    let dir = tempfile::tempdir().unwrap();
    let db = two_releases(dir.path());
    let harness = crate::common::reference("benchmark-tune.json.gz");
    let flagged = |pick: &dyn Fn(&serde_json::Value) -> bool| -> Vec<String> {
        let mut cases: Vec<String> = harness["case_flags"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| pick(c))
            .map(|c| c["case_id"].as_str().unwrap().to_string())
            .collect();
        cases.sort();
        cases
    };
    let labelled = |label: &'static str| {
        move |c: &serde_json::Value| {
            c["flags"]
                .as_array()
                .unwrap()
                .iter()
                .any(|f| f.as_str().unwrap().split(": ").next() == Some(label))
        }
    };
    let saturated = flagged(&labelled("saturated/non-discriminating"));
    let floor = flagged(&|c| c["with_skill"] == 0.0 && c["without_skill"] == 0.0);
    let flaky = flagged(&labelled("flaky repeated pass rates"));
    // Flaky in the with_skill arm: what a bare --fail-on flaky counts.
    let flaky_with_skill = flagged(&|c: &serde_json::Value| {
        c["flags"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f == "flaky repeated pass rates: with_skill")
    });
    assert!(!saturated.is_empty() && !floor.is_empty() && !flaky_with_skill.is_empty());
    assert!(flaky.len() > flaky_with_skill.len(), "{flaky:?}");

    for (asked, expected) in [
        ("saturated", saturated.clone()),
        ("floor", floor.clone()),
        ("flaky", flaky_with_skill),
        ("flaky:any", flaky),
        ("saturated,floor", {
            let mut both = [saturated.clone(), floor.clone()].concat();
            both.sort();
            both.dedup();
            both
        }),
    ] {
        let (code, verdict) = gate_v1_tune(&db, &["--fail-on", asked]);
        assert_eq!(code, Some(1), "{asked}: {verdict}");
        let check = &verdict["checks"][0];
        assert_eq!(check["check"], "fail-on");
        let measured = check["measured"].as_str().unwrap();
        assert!(
            measured.starts_with(&format!("{} of ", expected.len())),
            "{asked}: {measured}"
        );
        for case in &expected {
            assert!(
                measured.contains(&format!("{case} (")),
                "{asked}: {case} in {measured}"
            );
        }
    }
    // The preset: what measures nothing (saturated, forgettable, floor).
    let (code, verdict) = gate_v1_tune(&db, &["--fail-on", "measurement"]);
    assert_eq!(code, Some(1));
    for case in saturated.iter().chain(&floor) {
        assert!(verdict["checks"][0]["measured"]
            .as_str()
            .unwrap()
            .contains(case.as_str()));
    }
    // A name that is no finding: exit 2, listing the names there are.
    let (code, _, err) = gate(&db, &["--fail-on", "lifted"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("no such finding") && err.contains("with-skill-failed"),
        "{err}"
    );
}

/// A report aggregated from zero runs (skill-creator's aggregate_benchmark
/// over a layout it does not read) measures nothing, and the ingest says
/// so; the same script's report of the real iteration does not.
#[test]
fn a_benchmark_of_zero_runs_is_said_to_measure_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.duckdb");
    let zero = fixture("skill-creator-zero-runs/dockerfile-hardening-workspace");
    let out = liftdb_cmd(&db).arg("ingest").arg(&zero).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let said = stderr_of(&out);
    assert!(
        said.contains("measures nothing here: zero_runs (")
            && said.contains("iteration-1/benchmark.json"),
        "{said}"
    );
    let real = dir.path().join("real.duckdb");
    let out = liftdb_cmd(&real)
        .arg("ingest")
        .arg(fixture(
            "skill-creator-anthropic/runs/dockerfile-hardening-workspace",
        ))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let store = liftdb::store::open_read_after_upkeep(&real).unwrap();
    assert!(rows(
        &store,
        "SELECT * FROM suspect_measurements WHERE kind = 'zero_runs'"
    )
    .is_empty());
}

/// The four exit codes a CI job acts on: 0 pass, 1 fail (the data shows a
/// requirement missed), 3 undecided (it shows neither), 2 an error (a filter
/// the store does not hold, as report refuses it; a store another process
/// writes). `--undecided` maps 3 to what a team wants. The lift each
/// decision rests on is recomputed from the pairs view.
#[test]
fn every_exit_code_is_one_a_ci_job_can_act_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = two_releases(dir.path());
    let v1 = unit_lifts(&db, "v1", Some("tune"));
    let lift = v1.values().sum::<f64>() / v1.len() as f64;
    let bound = liftdb::stats::interval(&v1.values().copied().collect::<Vec<_>>());
    let (lower, upper) = (bound.lower.unwrap(), bound.upper.unwrap());

    // Pass: the lift clears a threshold below it.
    let (code, _) = gate_v1_tune(&db, &["--min-lift", &format!("{}", lift - 0.05)]);
    assert_eq!(code, Some(0));
    // Fail: with --significant, a threshold above the whole interval.
    let above = format!("{}", upper + 0.05);
    let (code, verdict) = gate_v1_tune(&db, &["--min-lift", &above, "--significant"]);
    assert_eq!(code, Some(1), "{verdict}");
    assert_eq!(verdict["checks"][0]["outcome"], "fail");
    // Undecided: a threshold inside the interval, the lift above it.
    let inside = format!("{}", (lower.max(0.0) + lift) / 2.0);
    assert!(lower < (lower.max(0.0) + lift) / 2.0);
    let (code, verdict) = gate_v1_tune(&db, &["--min-lift", &inside, "--significant"]);
    assert_eq!(code, Some(3), "{verdict}");
    assert_eq!(verdict["exit_code"], 3);
    for (mapped, expected) in [("pass", 0), ("fail", 1), ("error", 2)] {
        let (code, _) = gate_v1_tune(
            &db,
            &[
                "--min-lift",
                &inside,
                "--significant",
                "--undecided",
                mapped,
            ],
        );
        assert_eq!(code, Some(expected), "--undecided {mapped}");
    }

    // Errors: each filter checked as report checks it, naming what exists.
    for (args, names) in [
        (vec!["--split", "tunes"], "holdout, tune"),
        (vec!["--skill", "sql-migration"], "sql-migration-review"),
        (vec!["--experiment", "nope"], "eval-runs"),
        (vec!["--baseline", "v0"], "v1, v2"),
    ] {
        let mut all = args.clone();
        all.extend(["--min-lift", "0.1"]);
        let (code, out, err) = gate(&db, &all);
        assert_eq!(code, Some(2), "{args:?}: {out}{err}");
        assert!(
            err.contains(args[1]) && err.contains(names),
            "{args:?}: {err}"
        );
        let report = liftdb_cmd(&db)
            .args(["report", "lift"])
            .args(&args[..2])
            .output()
            .unwrap();
        if args[0] != "--baseline" && args[0] != "--experiment" {
            assert_eq!(
                report.status.code(),
                Some(2),
                "report {args:?} refuses it too"
            );
        }
    }
    // A usage error (clap's) and a store another process writes: exit 2.
    let (code, _, _) = gate(&db, &["--min-lift", "0.1", "--undecided", "maybe"]);
    assert_eq!(code, Some(2));
    let _writer = liftdb::store::open_write(&db).unwrap();
    let (code, _, err) = gate(&db, &["--min-lift", "0.1"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("another process"), "{err}");
}

/// The handbook corpus ingested in one call (its run ids become the
/// experiments of one release) and a run id whose adapter crashed (the
/// harness's partial tree: tests/fixtures/seed000-crashed-run/README.md):
/// the gate run on each run id with the harness's own gate (every required
/// with_skill check passes; the lift at least --minimum-lift when one was
/// given, read from its benchmark.json) exits as the harness did, read from
/// its console file; the crashed run id exits 2 under --infra-errors error.
#[test]
fn the_handbook_harness_gates_to_its_own_exit_code_per_run_id() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.duckdb");
    let corpus = fixture("seed000-skill-eval");
    let crashed = fixture("seed000-crashed-run");
    let out = liftdb_cmd(&db)
        .args(["ingest", "--release", "r1"])
        .arg(corpus.join("runs"))
        .arg(crashed.join("runs"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let mut expected: Vec<(String, i32, Option<f64>)> = Vec::new();
    for run_id in [
        "corpus-claude-sonnet-4-5",
        "corpus-claude-haiku-4-5",
        "corpus-claude-sonnet-4-5-single",
    ] {
        let console = std::fs::read_to_string(corpus.join(format!(
            "reference/run-{}.console.txt",
            run_id.trim_start_matches("corpus-")
        )))
        .unwrap();
        let exit: i32 = console
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("exit="))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let benchmark: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(corpus.join(format!(
                "reference/benchmark-{}.json",
                run_id.trim_start_matches("corpus-")
            )))
            .unwrap(),
        )
        .unwrap();
        expected.push((run_id.into(), exit, benchmark["minimum_lift"].as_f64()));
    }
    // The crashed run: the harness exits 2 (README of the fixture), and its
    // command asked for the same --minimum-lift as its source run.
    expected.push(("corpus-claude-sonnet-4-5-crashed".into(), 2, Some(0.1)));
    for (run_id, exit, minimum_lift) in &expected {
        let mut args = vec![
            "--experiment".to_string(),
            run_id.clone(),
            "--fail-on".into(),
            "with-skill-failed".into(),
            "--infra-errors".into(),
            "error".into(),
        ];
        if let Some(m) = minimum_lift {
            args.extend(["--min-lift".into(), m.to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = gate(&db, &args);
        assert_eq!(code, Some(*exit), "{run_id}: {out}{err}");
    }
    // The issue's call, no experiment named: the run ids do not pool (no
    // model), so each is decided; one failure fails the release, and a
    // case is counted once per run id (7 cases, not 14).
    let (code, out, _) = gate(
        &db,
        &["--min-lift", "0.25", "--fail-on", "with-skill-failed"],
    );
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("each experiment") && out.contains("of 7 cases"),
        "{out}"
    );
    assert!(!out.contains("no paired"), "{out}");
}

/// The seh corpus's only critical failure is in the without_skill arm
/// (its benchmark's case_flags say `critical-failure: without_skill (…)`,
/// read here): `--fail-on critical` counts the skill's arm and passes,
/// listing the finding with its arm; `critical:any` fails on it. Every
/// format names the arm; the JUnit, read by junitparser (a real consumer),
/// carries it on every failure.
#[test]
fn control_arm_findings_fail_only_when_asked_for_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let db = two_releases(dir.path());
    let harness = crate::common::reference("benchmark.json.gz");
    let critical: Vec<(String, String)> = harness["case_flags"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| {
            let case = c["case_id"].as_str().unwrap().to_string();
            c["flags"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|f| f.as_str().unwrap().strip_prefix("critical-failure: "))
                .map(move |rest| (case.clone(), rest.split(" (").next().unwrap().to_string()))
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(
        !critical.is_empty() && critical.iter().all(|(_, arm)| arm == "without_skill"),
        "{critical:?}"
    );
    let v1 = ["--release", "v1", "--fail-on"];
    let run = |selector: &str, format: &str| {
        let mut args = v1.to_vec();
        args.extend([selector, "--format", format]);
        gate(&db, &args)
    };
    let (code, out, err) = run("critical", "json");
    assert_eq!(code, Some(0), "{out}{err}");
    let verdict: serde_json::Value = serde_json::from_str(&out).unwrap();
    let findings = verdict["checks"][0]["findings"].as_array().unwrap();
    for (case, arm) in &critical {
        assert!(
            findings.iter().any(|f| f["case"] == case.as_str()
                && f["arm"] == arm.as_str()
                && f["counted"] == false),
            "{case} {arm}: {findings:?}"
        );
    }
    let (code, out, _) = run("critical", "table");
    assert_eq!(code, Some(0));
    assert!(
        out.contains(&format!(
            "{} (without_skill: critical-failure",
            critical[0].0
        )),
        "{out}"
    );
    let (code, out, _) = run("critical:any", "markdown");
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("| without_skill |"), "{out}");
    let (code, _, _) = run("critical:without_skill", "csv");
    assert_eq!(code, Some(1));

    let junit = dir.path().join("gate.xml");
    let mut args = v1.to_vec();
    args.extend(["critical:any,flaky:any", "--junit", junit.to_str().unwrap()]);
    let (code, _, _) = gate(&db, &args);
    assert_eq!(code, Some(1));
    let python = std::env::var("LIFTDB_TEST_PYTHON").expect(
        "LIFTDB_TEST_PYTHON: run the suite through scripts/test, which installs junitparser",
    );
    let read = std::process::Command::new(python)
        .arg("-c")
        .arg(
            r#"
import json, re, sys
from junitparser import JUnitXml, Failure, Error
out = []
for suite in JUnitXml.fromfile(sys.argv[1]):
    for case in suite:
        for r in case.result:
            if isinstance(r, (Failure, Error)):
                arm = re.search(r"\[arm: ([^\]]+)\]", r.message or "")
                out.append({"name": case.name, "kind": type(r).__name__, "message": r.message,
                            "arm": arm.group(1) if arm else None, "system_out": case.system_out})
print(json.dumps(out))
"#,
        )
        .arg(&junit)
        .output()
        .unwrap();
    assert!(
        read.status.success(),
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );
    let failures: Vec<serde_json::Value> = serde_json::from_slice(&read.stdout).unwrap();
    assert!(failures.len() >= 2, "{failures:?}");
    for f in &failures {
        let arm = f["arm"].as_str().unwrap_or_else(|| panic!("no arm: {f}"));
        assert!(
            f["system_out"]
                .as_str()
                .unwrap()
                .contains(&format!("arm: {arm}")),
            "{f}"
        );
    }
    assert!(failures.iter().any(
        |f| f["arm"] == "without_skill" && f["name"].as_str().unwrap().contains(&critical[0].0)
    ));
}

/// `--format github`: every line one workflow command as GitHub's syntax
/// has it (`::LEVEL title=…::MESSAGE`, the property's `%`, CR, LF, `:` and
/// `,` escaped, the message's `%`, CR and LF), one per check and per
/// finding, each naming its arm; with GITHUB_STEP_SUMMARY set, the
/// markdown summary is appended to that file.
#[test]
fn github_annotations_follow_the_workflow_command_syntax() {
    let dir = tempfile::tempdir().unwrap();
    let db = two_releases(dir.path());
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let asked = [
        "gate",
        "--release",
        "v1",
        "--min-lift",
        "0.1",
        "--fail-on",
        "critical:any,flaky",
        "--format",
    ];
    let out = liftdb_cmd(&db)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .args(asked)
        .arg("github")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let text = String::from_utf8(out.stdout).unwrap();
    let command = regex::Regex::new(
        r"^::(error|warning|notice) title=((?:[^%:,\r\n]|%25|%0D|%0A|%3A|%2C)+)::((?:[^%\r\n]|%25|%0D|%0A)*)$",
    )
    .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    for line in &lines {
        let m = command
            .captures(line)
            .unwrap_or_else(|| panic!("not a workflow command: {line}"));
        assert!(
            m[3].contains("[arm: ")
                || m[2].starts_with("liftdb gate note")
                || *line == *lines.last().unwrap(),
            "{line}"
        );
    }
    let verdict = liftdb_cmd(&db).args(asked).arg("json").output().unwrap();
    let verdict: serde_json::Value = serde_json::from_slice(&verdict.stdout).unwrap();
    let checks = verdict["checks"].as_array().unwrap();
    let findings: usize = checks
        .iter()
        .map(|c| c["findings"].as_array().map_or(0, Vec::len))
        .sum();
    // One per check, one per finding, one summary line.
    assert_eq!(lines.len(), checks.len() + findings + 1, "{text}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("::error ") && l.contains("[arm: without_skill]")),
        "{text}"
    );
    let written = std::fs::read_to_string(&summary).unwrap();
    assert!(
        written.starts_with("earlier step\n### liftdb gate: FAILED"),
        "{written}"
    );
    assert!(
        written.contains("| check | skill | experiment | arm |"),
        "{written}"
    );
}

/// A release holding two runs roots of one suite (the seh corpus's
/// eval-runs split by model: the claude models' folders in one root, the
/// codex model's in another — two experiments, their units pooled):
/// `--fail-on` counts each case once — the cases read from the case_flags
/// view across both experiments — and names each flagged case once.
#[test]
fn a_case_in_two_runs_roots_is_counted_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.duckdb");
    let (claude, codex) = (
        dir.path().join("claude-runs"),
        dir.path().join("codex-runs"),
    );
    copy_tree(&seh_root().join("runs/eval-runs"), &claude);
    copy_tree(&seh_root().join("runs/eval-runs"), &codex);
    for case in std::fs::read_dir(&claude).unwrap() {
        let case = case.unwrap().path();
        std::fs::remove_dir_all(case.join("gpt-5-codex")).unwrap();
        for model in std::fs::read_dir(codex.join(case.file_name().unwrap())).unwrap() {
            let model = model.unwrap().path();
            if model.file_name().unwrap() != "gpt-5-codex" {
                std::fs::remove_dir_all(model).unwrap();
            }
        }
    }
    let out = liftdb_cmd(&db)
        .args(["ingest", "--release", "r"])
        .arg(&claude)
        .arg(&codex)
        .arg(seh_root().join("input/evals/shared-benchmark.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let store = liftdb::store::open_read_after_upkeep(&db).unwrap();
    let cases = rows(
        &store,
        "SELECT count(DISTINCT case_id) AS cases, count(DISTINCT experiment) AS experiments,
                count(*) AS rows FROM case_flags",
    );
    let flaky = rows(
        &store,
        "SELECT DISTINCT case_id FROM case_flags
         WHERE len(list_filter(flags, f -> f LIKE 'flaky repeated pass rates: %')) > 0",
    );
    drop(store);
    let (total, experiments, per_experiment_rows) = (
        cases[0]["cases"].as_u64().unwrap(),
        cases[0]["experiments"].as_u64().unwrap(),
        cases[0]["rows"].as_u64().unwrap(),
    );
    assert_eq!(experiments, 2);
    assert!(
        per_experiment_rows > total,
        "each case flagged per experiment"
    );
    let (code, out, err) = gate(&db, &["--fail-on", "flaky:any", "--format", "json"]);
    assert_eq!(code, Some(1), "{out}{err}");
    let verdict: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(verdict["experiments"], "pooled");
    let check = &verdict["checks"][0];
    let measured = check["measured"].as_str().unwrap();
    assert!(
        measured.starts_with(&format!("{} of {total} cases", flaky.len())),
        "{measured}"
    );
    let findings = check["findings"].as_array().unwrap();
    for case in &flaky {
        let case = case["case_id"].as_str().unwrap();
        assert_eq!(
            measured.matches(&format!("{case} (")).count(),
            1,
            "{measured}"
        );
        let mine: Vec<_> = findings.iter().filter(|f| f["case"] == case).collect();
        assert!(!mine.is_empty(), "{case}");
        // One finding per (case, arm), however many experiments hold it.
        let mut arms: Vec<&str> = mine.iter().map(|f| f["arm"].as_str().unwrap()).collect();
        let n = arms.len();
        arms.dedup();
        assert_eq!(arms.len(), n, "{case}: {mine:?}");
    }
}

/// A baseline kept as its report: the gate compares the release with it as
/// it does with the baseline's runs. Two stores hold release v2 (the
/// gen-runs tree of seed 23, graded by liftdb) and v1 — one from the run
/// tree of seed 11, the other from that tree's skill-benchmark report
/// alone (tests/fixtures/generated-seed11): non-inferiority and the
/// regression check decide alike, on the same figures.
#[test]
fn a_baseline_kept_as_its_report_is_gated_against_as_its_runs_are() {
    use crate::common::generated_tree;
    let dir = tempfile::tempdir().unwrap();
    let (_d11, tree11) = generated_tree(11, &fixture("generated-seed11"));
    let (_d23, tree23) = generated_tree(23, &fixture("generated-seed23"));
    let verdict = |db: &Path| {
        let (code, out, err) = gate(
            db,
            &[
                "--release",
                "v2",
                "--baseline",
                "v1",
                "--non-inferiority-margin",
                "0.05",
                "--no-significant-regression",
                "--format",
                "json",
            ],
        );
        let v: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|_| panic!("{out}{err}"));
        (code, v["checks"].clone())
    };
    let mut verdicts = Vec::new();
    for (name, v1) in [
        (
            "runs",
            vec![tree11.join("eval-runs"), tree11.join("manifest.json")],
        ),
        (
            "report",
            vec![fixture("generated-seed11/benchmark.json.gz")],
        ),
    ] {
        let db = dir.path().join(format!("{name}.duckdb"));
        for (release, paths) in [
            ("v1", v1),
            (
                "v2",
                vec![tree23.join("eval-runs"), tree23.join("manifest.json")],
            ),
        ] {
            let out = liftdb_cmd(&db)
                .args(["ingest", "-q", "--release", release])
                .args(&paths)
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(0),
                "{name} {release}: {}",
                stderr_of(&out)
            );
        }
        let store = liftdb::store::open_read_after_upkeep(&db).unwrap();
        let reported = rows(
            &store,
            "SELECT count(*) FILTER (WHERE defined_by IS NOT NULL) AS n FROM run WHERE release_label = 'v1'",
        );
        assert_eq!(reported[0]["n"], if name == "report" { 1500 } else { 0 });
        drop(store);
        verdicts.push(verdict(&db));
    }
    assert_eq!(verdicts[0], verdicts[1]);
    let checks = verdicts[0].1.as_array().unwrap();
    assert_eq!(checks.len(), 2, "{checks:?}");
    assert!(checks[0]["measured"]
        .as_str()
        .unwrap()
        .contains("matched units against v1"));
}

/// The shell runs the gate as the command does (#70): `.gate` with a gate
/// file's keys gives the verdict `liftdb gate` gives for the same flags,
/// exit code included, and refuses a word that is not KEY=VALUE.
#[test]
fn the_shell_gates_as_the_command_does() {
    let dir = tempfile::tempdir().unwrap();
    let db = two_releases(dir.path());
    let (code, command) = gate_v1_tune(&db, &["--min-lift", "0.1", "--fail-on", "outcome"]);
    let shell = liftdb_cmd(&db)
        .args([
            "-c",
            ".mode json",
            "-c",
            ".gate release=v1 split=tune min-lift=0.1 fail-on=outcome",
        ])
        .output()
        .unwrap();
    // A script's exit code is its last gate's.
    assert_eq!(shell.status.code(), code, "{}", stderr_of(&shell));
    let shell: serde_json::Value = serde_json::from_slice(&shell.stdout).unwrap();
    assert_eq!(shell, command);
    assert_eq!(shell["exit_code"], code.unwrap());
    liftdb_cmd(&db)
        .args(["-c", ".gate min-lift"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("is not KEY=VALUE"));
}
