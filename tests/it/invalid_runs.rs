//! Runs that do not count (an infrastructure error, a cut-off answer, a
//! served-model mismatch) block their pair with the harness's reason and are
//! said per arm, never lowering a pass rate. The fixture's changes
//! (`seh-invalid-runs/changes.json`) are applied to a copy of the corpus;
//! skill-eval-harness 0.6.0's benchmark of the same tree
//! (`benchmark-tune.json.gz`, read here) says which pairs it blocks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{copy_tree, fixture, liftdb_cmd, read_report, rows, seh_root, stderr_of};

type PairKey = (String, String, i64);

/// The corpus's runs with `changes.json` applied, ingested as release v1;
/// and what the ingest said.
fn store_with_changes(dir: &Path) -> (PathBuf, Value, String) {
    let changes = read_report(&fixture("seh-invalid-runs/changes.json"));
    let runs = dir.join("runs/eval-runs");
    copy_tree(&seh_root().join("runs/eval-runs"), &runs);
    for change in changes["runs"].as_array().unwrap() {
        apply(&runs.join(change["run"].as_str().unwrap()), change);
    }
    let db = dir.join("s.duckdb");
    let out = liftdb_cmd(&db)
        .args(["ingest", "--release", "v1"])
        .arg(&runs)
        .arg(seh_root().join("input/evals/shared-benchmark.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    (db, changes, stderr_of(&out))
}

/// One change of changes.json, as make_fixture.sh applies it: keys set in
/// metadata.json, and output.md replaced when it gives one.
fn apply(run: &Path, change: &Value) {
    let path = run.join("metadata.json");
    let mut meta: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    for (k, v) in change["metadata"].as_object().unwrap() {
        meta[k] = v.clone();
    }
    std::fs::write(&path, serde_json::to_vec_pretty(&meta).unwrap()).unwrap();
    if let Some(text) = change["output"].as_str() {
        std::fs::write(run.join("output.md"), text).unwrap();
    }
}

/// (case, model, run) of a changes.json entry and the arm it changed.
fn key_of(change: &Value) -> (PairKey, String) {
    let parts: Vec<&str> = change["run"].as_str().unwrap().split('/').collect();
    let run: i64 = parts[3].trim_start_matches("run-").parse().unwrap();
    (
        (parts[0].to_string(), parts[1].to_string(), run),
        parts[2].to_string(),
    )
}

#[test]
fn invalid_runs_block_the_pairs_the_harness_blocks_with_its_reasons() {
    let dir = tempfile::tempdir().unwrap();
    let (db, changes, said) = store_with_changes(dir.path());
    // The ingest says it, over every run folder of the tree (all arms).
    let folders = walkdir::WalkDir::new(seh_root().join("runs/eval-runs"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_dir() && e.file_name().to_string_lossy().starts_with("run-"))
        .count();
    assert!(
        said.contains(&format!(
            "note: release 'v1' of sql-migration-review: 4 of {folders} runs do not count \
             (2 infrastructure errors, 1 cut off, 1 served-model mismatch)"
        )),
        "{said}"
    );
    let harness = read_report(&fixture("seh-invalid-runs/benchmark-tune.json.gz"));

    // The harness's blocked pairs: a (case, model, run) with an arm it
    // marks not scorable (missing output or execution invalid), as many as
    // its pairing diagnostics count, all `unscorable_arm`.
    let mut harness_blocked: BTreeMap<PairKey, String> = BTreeMap::new();
    for r in harness["results"].as_array().unwrap() {
        if r["missing_output"] == true || r["execution_valid"] == false {
            let key = (
                r["case_id"].as_str().unwrap().to_string(),
                r["model"].as_str().unwrap().to_string(),
                r["run_number"].as_i64().unwrap(),
            );
            harness_blocked.insert(key, r["variant"].as_str().unwrap().to_string());
        }
    }
    let pairing = &harness["paired_summary"]["pairing"];
    assert_eq!(pairing["blocked_pairs"], harness_blocked.len());
    assert_eq!(
        pairing["blocked_reason_counts"],
        serde_json::json!({"unscorable_arm": harness_blocked.len()})
    );

    // liftdb's blocked tune pairs against without_skill.
    let store = liftdb::store::open_read_after_upkeep(&db).unwrap();
    let ours: BTreeMap<PairKey, (String, String)> = rows(
        &store,
        "SELECT case_id, model, repetition, blocked_reason, arm_reasons FROM pairs
         WHERE release_label = 'v1' AND split = 'tune' AND control_arm = 'without_skill'
           AND NOT eligible",
    )
    .into_iter()
    .map(|r| {
        (
            (
                r["case_id"].as_str().unwrap().to_string(),
                r["model"].as_str().unwrap().to_string(),
                r["repetition"].as_i64().unwrap(),
            ),
            (
                r["blocked_reason"].as_str().unwrap().to_string(),
                r["arm_reasons"].as_str().unwrap_or_default().to_string(),
            ),
        )
    })
    .collect();

    // Every pair the harness blocks, blocked with its reason, naming the arm
    // it marks invalid.
    for (key, arm) in &harness_blocked {
        let (reason, why) = &ours[key];
        assert_eq!(reason, "unscorable_arm", "{key:?}");
        assert!(why.starts_with(&format!("{arm}: ")), "{key:?}: {why}");
    }
    // And the runs recorded as cut off or answered by another model, which
    // 0.6.0 cannot read (it has no such fields) and the harness after it
    // makes not scorable with these names (stopped:<class>,
    // served_model_mismatch): blocked the same way. No other pair.
    let mut expected: BTreeSet<PairKey> = harness_blocked.keys().cloned().collect();
    for change in changes["runs"].as_array().unwrap() {
        let (key, arm) = key_of(change);
        let meta = &change["metadata"];
        let named = if let Some(class) = meta["stop_class"].as_str() {
            format!("{arm}: stopped:{class}")
        } else if meta["served_model_check"] == "mismatch" {
            format!("{arm}: served_model_mismatch")
        } else {
            continue;
        };
        assert!(
            !harness_blocked.contains_key(&key),
            "0.6.0 reads no {named}"
        );
        assert_eq!(ours[&key], ("unscorable_arm".into(), named));
        expected.insert(key);
    }
    assert_eq!(ours.keys().cloned().collect::<BTreeSet<_>>(), expected);

    // Said per arm under report lift's headline: runs counted from the
    // tune cases' run folders of the two arms.
    let manifest = read_report(&seh_root().join("input/evals/shared-benchmark.json"));
    let tune: Vec<&str> = manifest["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["split"] == "tune" && c["kind"] != "trigger")
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    let runs_of = |arm: &str| -> usize {
        tune.iter()
            .flat_map(|case| std::fs::read_dir(seh_root().join("runs/eval-runs").join(case)))
            .flatten()
            .map(|model| model.unwrap().path().join(arm))
            .filter_map(|d| std::fs::read_dir(d).ok())
            .map(|runs| runs.count())
            .sum()
    };
    let changed_in = |arm: &str| {
        changes["runs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| key_of(c).1 == arm)
            .count()
    };
    let (with_runs, without_runs) = (runs_of("with_skill"), runs_of("without_skill"));
    let sentence = format!(
        "{} of {} runs did not count (with the skill {} of {with_runs}, without {} of {without_runs}): \
         2 infrastructure errors, 1 cut off, 1 served-model mismatch; their pairs are left out of the lift.",
        changes["runs"].as_array().unwrap().len(),
        with_runs + without_runs,
        changed_in("with_skill"),
        changed_in("without_skill"),
    );
    let out = liftdb_cmd(&db)
        .args([
            "report",
            "lift",
            "--split",
            "tune",
            "--format",
            "table",
            "--max-width",
            "1000",
        ])
        .output()
        .unwrap();
    let lift = String::from_utf8_lossy(&out.stdout);
    assert!(lift.contains(&sentence), "{sentence}\n{lift}");

    // And under the HTML report's headline (every split pooled).
    let html = dir.path().join("r.html");
    liftdb_cmd(&db)
        .args(["report", "html", "--out"])
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains("<p class=\"not-counted\">sql-migration-review, release v1: 4 of ")
            && page.contains("2 infrastructure errors, 1 cut off, 1 served-model mismatch"),
        "{page}"
    );

    // Each run listed with its reason and class.
    let listed = liftdb_cmd(&db)
        .args([
            "report",
            "not-counted",
            "--split",
            "tune",
            "--format",
            "csv",
        ])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&listed.stdout);
    for (reason, class) in [
        ("stopped:truncated", "cut off"),
        ("served_model_mismatch", "served-model mismatch"),
        ("timed_out", "infrastructure error"),
        ("returncode_1", "infrastructure error"),
    ] {
        assert!(listed.contains(&format!("{class},{reason},")), "{listed}");
    }
    assert_eq!(
        listed.lines().count(),
        1 + changes["runs"].as_array().unwrap().len()
    );
}

/// Arms run at different reasoning efforts are not compared: the pair is
/// blocked effort_mismatch, or effort_unrecorded_on_one_arm when one arm
/// recorded none (the harness's contrast rule after 0.6.0).
#[test]
fn arms_at_different_efforts_are_not_compared() {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs/eval-runs");
    copy_tree(&seh_root().join("runs/eval-runs"), &runs);
    let effort = |run: &str, requested: &str| {
        apply(
            &runs.join(run),
            &serde_json::json!({"metadata": {"effort": {"requested": requested, "applied_by": "claude --effort"}}}),
        )
    };
    let case = "add-not-null-column/claude-sonnet-4-5";
    effort(&format!("{case}/with_skill/run-1"), "high");
    effort(&format!("{case}/without_skill/run-1"), "low");
    effort(&format!("{case}/with_skill/run-2"), "high");
    effort(&format!("{case}/with_skill/run-3"), "high");
    effort(&format!("{case}/without_skill/run-3"), "high");
    let db = dir.path().join("s.duckdb");
    liftdb_cmd(&db)
        .args(["ingest", "--release", "v1"])
        .arg(&runs)
        .arg(seh_root().join("input/evals/shared-benchmark.json"))
        .assert()
        .success();
    let store = liftdb::store::open_read_after_upkeep(&db).unwrap();
    let reasons: Vec<(i64, Option<String>)> = rows(
        &store,
        "SELECT repetition, blocked_reason FROM pairs
         WHERE case_id = 'add-not-null-column' AND model = 'claude-sonnet-4-5'
           AND control_arm = 'without_skill' AND repetition <= 3 ORDER BY repetition",
    )
    .into_iter()
    .map(|r| {
        (
            r["repetition"].as_i64().unwrap(),
            r["blocked_reason"].as_str().map(str::to_string),
        )
    })
    .collect();
    assert_eq!(
        reasons,
        vec![
            (1, Some("effort_mismatch".into())),
            (2, Some("effort_unrecorded_on_one_arm".into())),
            (3, None),
        ]
    );
}

/// A promptfoo row that errored (failureReason 2, the only reliable
/// infrastructure signal it writes) does not count, classed an
/// infrastructure error: as many as promptfoo's own stats.errors.
#[test]
fn a_promptfoo_error_row_is_an_infrastructure_error() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.duckdb");
    let results = fixture("promptfoo-cached/runs/results.json");
    liftdb_cmd(&db)
        .arg("ingest")
        .arg(&results)
        .assert()
        .success();
    let report = read_report(&results);
    let errors = report["results"]["stats"]["errors"].as_u64().unwrap();
    assert!(errors > 0);
    let store = liftdb::store::open_read_after_upkeep(&db).unwrap();
    let infra = rows(
        &store,
        "SELECT reason FROM not_counted_runs WHERE counted_as = 'infrastructure error'",
    );
    assert_eq!(infra.len() as u64, errors);
    assert!(infra.iter().all(|r| r["reason"] == "provider_error"));
}
