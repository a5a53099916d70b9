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
        err.contains("no release 'v9'") && err.contains("v1, v2"),
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
    for model in &models {
        assert!(
            said.contains(&format!("release 'v2' of sql-migration-review measures nothing here: identical_outputs ({model})")),
            "{model}: {said}"
        );
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
    // As ingested: the workspace's suite discriminates and its evals trigger.
    assert!(!kinds().contains("all_"), "{}", kinds());
    assert!(!kinds().contains("never_triggered"), "{}", kinds());

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
    sql("UPDATE trigger_observation SET triggered = false, triggered_runs = 0");
    assert!(
        kinds().contains(&format!("never_triggered,{reports}")),
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
/// decide it: the runs `liftdb plan` gives for 80% power at the gated lift
/// and the release's own repetitions, less the paired runs it has.
#[test]
fn a_gate_that_cannot_decide_says_how_many_more_runs_would() {
    let dir = tempfile::tempdir().unwrap();
    let db = two_releases(dir.path());
    let (code, verdict) = gate_v1_tune(&db, &["--min-lift", "0.1", "--significant"]);
    let check = &verdict["checks"][0];
    // The tune lift clears 0.1 (the first test) and the check still fails:
    // on its p alone, above 0.05 over the split's units.
    assert_eq!(code, Some(1), "{verdict}");
    assert!(
        check["measured"].as_str().unwrap().starts_with("lift +0."),
        "{check}"
    );
    let plan = liftdb_cmd(&db)
        .args([
            "plan",
            "--release",
            "v1",
            "--split",
            "tune",
            "--lift",
            "0.1",
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
    assert!(!saturated.is_empty() && !floor.is_empty() && !flaky.is_empty());

    for (asked, expected) in [
        ("saturated", saturated.clone()),
        ("floor", floor.clone()),
        ("flaky", flaky),
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
