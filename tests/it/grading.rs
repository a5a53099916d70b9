//! liftdb grades skill-eval-harness runs itself: the dev corpus ingested as
//! run tree + manifest only (no report) gives, verdict for verdict, what
//! skill-benchmark 0.6.0 wrote in its reports (read at test time), and the
//! same lift, flags, reliability and ablation evidence.

use std::collections::BTreeMap;

use liftdb::batch::{self, IngestOptions};
use serde_json::Value;

use crate::common::{
    assert_close, f, fixture, new_store, read_report, reference, rows, seh_root, store_of,
    TestStore,
};
use crate::seh_reference::{
    check_case_flags, check_paired_summary, check_reliability, check_run_rows,
};

/// The tree and the manifest, graded by liftdb (no report ingested).
fn graded_store(allow_scripts: bool) -> TestStore {
    let root = seh_root();
    let mut ts = new_store();
    let opts = IngestOptions {
        allow_scripts,
        ..Default::default()
    };
    let paths = [
        root.join("runs/eval-runs"),
        root.join("input/evals/shared-benchmark.json"),
    ];
    let summary = batch::ingest(&mut ts.store, &paths, &opts).expect("ingest");
    assert!(summary.errors.is_empty(), "{:?}", summary.errors);
    ts
}

/// (run directory below eval-runs/, seq) -> our assertion row.
fn our_verdicts(ts: &TestStore) -> BTreeMap<(String, i64), serde_json::Map<String, Value>> {
    rows(
        &ts.store,
        "SELECT r.run_dir, a.seq, a.name, a.type, a.passed, a.score, a.severity, a.oracle_tier,
                a.evidence, a.skipped, a.availability
         FROM assertion_result a JOIN grading g USING (grading_id) JOIN run r ON r.run_id = g.run_id
         WHERE g.origin = 'liftdb'",
    )
    .into_iter()
    .map(|r| {
        let dir = r["run_dir"].as_str().unwrap();
        let below = dir[dir.find("eval-runs/").unwrap()..].to_string();
        ((below, r["seq"].as_i64().unwrap()), r)
    })
    .collect()
}

/// Every assertion row of the tool's report equals ours: name, type,
/// passed, score, severity, oracle and evidence; no row more, none fewer.
fn check_every_verdict(ts: &TestStore, report: &Value, allow_scripts: bool) -> usize {
    let ours = our_verdicts(ts);
    let mut checked = 0;
    for row in report["results"].as_array().unwrap() {
        let base = row["run_base"].as_str().unwrap();
        let below = &base[base.find("eval-runs/").unwrap()..];
        // Judge rows follow the objective ones, as liftdb numbers them.
        let theirs_all: Vec<&Value> = row["assertions"]
            .as_array()
            .unwrap()
            .iter()
            .chain(
                row["qualitative_assertions"]
                    .as_array()
                    .into_iter()
                    .flatten(),
            )
            .collect();
        for (i, theirs) in theirs_all.iter().enumerate() {
            let key = (below.to_string(), i as i64 + 1);
            let mine = ours
                .get(&key)
                .unwrap_or_else(|| panic!("no verdict for {key:?}"));
            let what = format!("{key:?}");
            assert_eq!(mine["name"], theirs["name"], "{what} name");
            assert_eq!(mine["type"], theirs["type"], "{what} type");
            assert_eq!(mine["passed"], theirs["passed"], "{what} passed");
            assert_eq!(
                mine["score"].as_f64(),
                theirs["score"].as_f64(),
                "{what} score"
            );
            assert_eq!(mine["severity"], theirs["severity"], "{what} severity");
            assert_eq!(mine["oracle_tier"], theirs["oracle"], "{what} oracle");
            // A judge's non-text evidence is stored as its JSON text.
            let their_evidence = match &theirs["evidence"] {
                Value::String(_) | Value::Null => theirs["evidence"].clone(),
                other => Value::String(other.to_string()),
            };
            assert_eq!(
                path_spelled_from_runs(&mine["evidence"]),
                path_spelled_from_runs(&their_evidence),
                "{what} evidence"
            );
            let expected = match (mine["type"].as_str(), allow_scripts) {
                (Some("script"), false) => "scripts_not_allowed",
                _ => "complete",
            };
            assert_eq!(mine["availability"].as_str(), Some(expected), "{what}");
            checked += 1;
        }
        let ours_for_run = ours.keys().filter(|(d, _)| d == below).count();
        assert_eq!(
            ours_for_run,
            theirs_all.len(),
            "{below}: as many rows as the tool"
        );
    }
    checked
}

#[test]
fn the_dev_corpus_is_graded_verdict_for_verdict_like_skill_benchmark() {
    let ts = graded_store(true);
    let mut verdicts = 0;
    for (name, split) in [
        ("benchmark-tune.json.gz", "tune"),
        ("benchmark-holdout.json.gz", "holdout"),
        ("benchmark.json.gz", "all"),
    ] {
        let report = reference(name);
        verdicts += check_every_verdict(&ts, &report, true);
        check_run_rows(&ts, &report);
        check_paired_summary(&ts, &report, split);
        if split != "all" {
            check_case_flags(&ts, &report, split);
            check_reliability(&ts, &report, split);
        }
    }
    // docs/grading.md §0: 2,016 verdicts over the three reports.
    assert_eq!(verdicts, 2016);
}

#[test]
fn lift_and_ablations_without_any_report() {
    let ts = graded_store(true);
    let report = reference("benchmark-tune.json.gz");
    let lift = rows(
        &ts.store,
        "SELECT s.p_value FROM lift_stats s WHERE channel = 'objective' AND control_arm = 'without_skill'
         AND split = 'tune' AND scope = 'overall' AND row_kind = 'experiment'",
    );
    assert_eq!(
        lift[0]["p_value"].as_f64(),
        report["paired_summary"]["significance"]["p_value"].as_f64(),
        "tune p as the tool printed it"
    );
    // Both materialized ablations are expected regressions the tool confirms
    // (corpus README: no-severity on severity-label, no-checklist via the script oracle).
    let classes = rows(
        &ts.store,
        "SELECT ablation_id, evidence_class FROM ablation_stats ORDER BY ablation_id",
    );
    let got: Vec<(&str, &str)> = classes
        .iter()
        .map(|r| {
            (
                r["ablation_id"].as_str().unwrap(),
                r["evidence_class"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("no-checklist", "confirmed_causal"),
            ("no-severity", "confirmed_causal")
        ]
    );
    let graded_by = rows(
        &ts.store,
        "SELECT DISTINCT graded_by FROM runs WHERE graded",
    );
    assert_eq!(graded_by.len(), 1);
    assert_eq!(graded_by[0]["graded_by"].as_str(), Some("liftdb"));
}

#[test]
fn without_allow_scripts_the_verdicts_are_the_harness_without_it() {
    let ts = graded_store(false);
    // skill-benchmark 0.6.0 run without --allow-scripts on the same tree
    // (tests/fixtures/skill-eval-harness-no-scripts/README.md).
    let report = read_report(
        &fixture("skill-eval-harness-no-scripts").join("benchmark-tune-no-scripts.json.gz"),
    );
    check_every_verdict(&ts, &report, false);
    check_run_rows(&ts, &report);
    check_paired_summary(&ts, &report, "tune");
    let with_rate = rows(
        &ts.store,
        "SELECT avg(objective_pass_rate) AS r FROM runs
         WHERE case_id = 'multi-statement-findings' AND arm = 'with_skill' AND scorable",
    );
    // docs/grading.md §4.9: the skipped script fails, so 1.0 becomes 0.5 on these 18 runs.
    assert_eq!(with_rate[0]["r"].as_f64(), Some(0.5));
}

#[test]
fn generated_trees_are_graded_like_skill_benchmark() {
    // Differential: two gen-runs seeds, each graded by the real
    // skill-benchmark 0.6.0 (its report is the fixture) and by liftdb from
    // the tree and its manifest alone.
    for (seed, name) in [(11, "generated-seed11"), (23, "generated-seed23")] {
        let fixture = fixture(name);
        let (_dir, tree) = crate::common::generated_tree(seed, &fixture);
        let mut ts = new_store();
        let summary = crate::common::ingest_paths(&mut ts, &[tree]);
        assert!(summary.errors.is_empty(), "{:?}", summary.errors);
        let report = read_report(&fixture.join("benchmark.json.gz"));
        let verdicts = check_every_verdict(&ts, &report, false);
        assert_eq!(verdicts, 6000, "seed {seed}: 1,500 runs x 4 assertions");
        check_run_rows(&ts, &report);
        check_paired_summary(&ts, &report, "all");
    }
}

#[test]
fn the_summary_says_what_was_graded_and_how_to_grade_the_rest() {
    let root = seh_root();
    let runs = root.join("runs/eval-runs");
    let manifest = root.join("input/evals/shared-benchmark.json");
    let ingest_with = |paths: &[std::path::PathBuf], allow_scripts: bool| {
        let mut ts = new_store();
        let opts = IngestOptions {
            allow_scripts,
            ..Default::default()
        };
        batch::ingest(&mut ts.store, paths, &opts)
            .expect("ingest")
            .grading
    };
    // Corpus README: 558 answer runs; docs/grading.md §10: the script assertion
    // is on the 72 runs of multi-statement-findings.
    let alone = ingest_with(std::slice::from_ref(&runs), false);
    assert_eq!((alone.graded, alone.no_manifest), (0, 558));
    let unscripted = ingest_with(&[runs.clone(), manifest.clone()], false);
    assert_eq!((unscripted.graded, unscripted.scripts_not_run), (486, 72));
    let scripted = ingest_with(&[runs, manifest], true);
    assert_eq!(
        (
            scripted.graded,
            scripted.scripts_not_run,
            scripted.unavailable
        ),
        (558, 0, 0)
    );
}

#[test]
fn re_ingest_regrades_exactly_the_runs_whose_grading_changed() {
    let root = seh_root();
    let dir = tempfile::tempdir().unwrap();
    crate::common::copy_tree(&root.join("runs"), &dir.path().join("runs"));
    crate::common::copy_tree(&root.join("input"), &dir.path().join("input"));
    let runs = dir.path().join("runs/eval-runs");
    let manifest = dir.path().join("input/evals/shared-benchmark.json");
    let mut ts = new_store();
    // Corpus README: 558 answer runs; docs/grading.md §10: 72 of them
    // (multi-statement-findings) carry the script assertion.
    let (regraded, alone) = ingest_counting(&mut ts, std::slice::from_ref(&runs), false);
    assert_eq!((regraded, alone.no_manifest), (0, 558));
    // The manifest ingested after its runs grades them (the summary's fix command).
    let both = [runs.clone(), manifest.clone()];
    let (regraded, g) = ingest_counting(&mut ts, &both, false);
    assert_eq!((regraded, g.graded, g.scripts_not_run), (558, 486, 72));
    let report = read_report(
        &fixture("skill-eval-harness-no-scripts").join("benchmark-tune-no-scripts.json.gz"),
    );
    check_every_verdict(&ts, &report, false);
    // --allow-scripts changes the scripted case's verdicts alone.
    let (regraded, g) = ingest_counting(&mut ts, &both, true);
    assert_eq!((regraded, g.graded, g.scripts_not_run), (72, 72, 0));
    check_every_verdict(&ts, &reference("benchmark.json.gz"), true);
    let (regraded, _) = ingest_counting(&mut ts, &both, true);
    assert_eq!(regraded, 0, "nothing changed, nothing regraded");

    // Editing one case regrades that case's runs alone.
    write_manifest_with(
        &manifest,
        &manifest,
        "enum-add-value",
        serde_json::json!({"type": "contains", "name": "edit-probe", "value": "no answer says zqxj-4711"}),
    );
    let case_runs = walk_run_dirs(&runs.join("enum-add-value"));
    let (regraded, g) = ingest_counting(&mut ts, &both, true);
    assert_eq!((regraded, g.graded), (case_runs, case_runs));
    let probe = rows(
        &ts.store,
        "SELECT count(*) AS n, count(*) FILTER (WHERE NOT passed) AS failed
         FROM assertion_result WHERE name = 'edit-probe'",
    );
    assert_eq!(probe[0]["n"].as_i64(), Some(case_runs as i64));
    assert_eq!(
        probe[0]["failed"], probe[0]["n"],
        "no output holds the probe text"
    );
}

/// An evidence text with the paths it quotes spelled from `eval-runs/` on:
/// the harness spells them as its --runs argument was written (relative to
/// where it ran), liftdb as the file's absolute path; the file is the same.
fn path_spelled_from_runs(evidence: &Value) -> Value {
    match evidence.as_str() {
        Some(text) => {
            let re = regex::Regex::new(r"'[^']*?(eval-runs/)").unwrap();
            Value::String(re.replace_all(text, "'$1").into_owned())
        }
        None => evidence.clone(),
    }
}

/// Write manifest `from` to `to` with `assertion` added to case `case_id`.
fn write_manifest_with(
    from: &std::path::Path,
    to: &std::path::Path,
    case_id: &str,
    assertion: Value,
) {
    let mut doc: Value = serde_json::from_slice(&std::fs::read(from).unwrap()).unwrap();
    let case = doc["cases"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|c| c["id"] == case_id)
        .unwrap();
    case["assertions"].as_array_mut().unwrap().push(assertion);
    std::fs::write(to, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
}

/// A copy of the corpus's input folder with `manifest` beside its own (the
/// script assertions' working directory is the manifest's folder).
fn corpus_input_with(manifest: &std::path::Path) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input");
    crate::common::copy_tree(&seh_root().join("input"), &input);
    let copy = input.join("evals").join(manifest.file_name().unwrap());
    std::fs::copy(manifest, &copy).unwrap();
    (dir, copy)
}

/// Drop a report's phantom rows for variants with no run directory: the tool
/// made them for variants requested by --variant on its command line, which
/// no file records, so liftdb grades what is on disk. (rows before, after).
fn drop_phantom_rows(report: &mut Value) -> (usize, usize) {
    let results = report["results"].as_array_mut().unwrap();
    let before = results.len();
    results.retain(|r| {
        let base = r["run_base"].as_str().unwrap();
        let below = &base[base.find("eval-runs/").unwrap()..];
        seh_root().join("runs").join(below).is_dir()
    });
    (before, results.len())
}

/// Ingest, expecting no error: (runs regraded, how the batch's runs were graded).
fn ingest_counting(
    ts: &mut TestStore,
    paths: &[std::path::PathBuf],
    allow_scripts: bool,
) -> (usize, batch::GradingCounts) {
    let opts = IngestOptions {
        allow_scripts,
        ..Default::default()
    };
    let s = batch::ingest(&mut ts.store, paths, &opts).expect("ingest");
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    (s.units_regraded, s.grading)
}

/// Run directories under a case folder: the leaves holding an output or metadata.
fn walk_run_dirs(dir: &std::path::Path) -> usize {
    let mut n = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let mut has_subdir = false;
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.path().is_dir() && e.file_name() != "outputs" {
                has_subdir = true;
                stack.push(e.path());
            }
        }
        if !has_subdir {
            n += 1;
        }
    }
    n
}

#[test]
fn process_and_efficiency_assertions_are_graded_like_skill_benchmark() {
    // skill-benchmark 0.6.0's own report over the dev tree with 24 process
    // and efficiency assertions per case (tests/fixtures/seh-process-assertions/README.md).
    let fixture_dir = fixture("seh-process-assertions");
    let (_dir, manifest) = corpus_input_with(&fixture_dir.join("process-benchmark.json"));
    let mut ts = new_store();
    let (_, g) = ingest_counting(
        &mut ts,
        &[seh_root().join("runs/eval-runs"), manifest],
        true,
    );
    assert_eq!((g.graded, g.unavailable), (558, 0), "{g:?}");
    let mut report = read_report(&fixture_dir.join("benchmark-process.json.gz"));
    // README: 576 rows = 558 run directories + 18 phantoms.
    assert_eq!(drop_phantom_rows(&mut report), (576, 558));
    check_every_verdict(&ts, &report, true);
    check_run_rows(&ts, &report);
}

#[test]
fn dataset_templates_fan_out_like_skill_benchmark() {
    // tests/fixtures/seh-dataset-template/README.md: one template case over a
    // two-row dataset, graded by skill-benchmark 0.6.0 into 8 rows of 4.
    let dir = fixture("seh-dataset-template");
    let mut ts = new_store();
    let paths = [dir.join("eval-runs"), dir.join("template-benchmark.json")];
    let (_, g) = ingest_counting(&mut ts, &paths, false);
    assert_eq!(g.graded, 8);
    let report = read_report(&dir.join("benchmark-template.json.gz"));
    assert_eq!(check_every_verdict(&ts, &report, false), 32);
    check_run_rows(&ts, &report);
    let cases = rows(&ts.store, "SELECT case_id FROM case_def ORDER BY case_id");
    let ids: Vec<&str> = cases
        .iter()
        .map(|c| c["case_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["tpl-2", "tpl-status"]);
}

#[test]
fn reconcile_compares_liftdbs_verdicts_with_a_reports_one_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.duckdb");
    // The tune report with one verdict flipped: liftdb's own grading must catch it.
    let mut tampered = reference("benchmark-tune.json.gz");
    let row = &mut tampered["results"][0];
    let run_base = row["run_base"].as_str().unwrap().to_string();
    let flipped = &mut row["assertions"][0];
    let name = flipped["name"].as_str().unwrap().to_string();
    let was = flipped["passed"].as_bool().unwrap();
    flipped["passed"] = Value::Bool(!was);
    flipped["score"] = serde_json::json!(if was { 0.0 } else { 1.0 });
    let tampered_path = dir.path().join("benchmark-tampered.json");
    std::fs::write(&tampered_path, tampered.to_string()).unwrap();
    let root = seh_root();
    crate::common::liftdb_cmd(&db)
        .args(["ingest", "--quiet", "--allow-scripts"])
        .arg(root.join("runs/eval-runs"))
        .arg(root.join("input/evals/shared-benchmark.json"))
        .arg(root.join("reference/benchmark-holdout.json.gz"))
        .arg(&tampered_path)
        .assert()
        .success();
    let out = crate::common::liftdb_cmd(&db)
        .args(["report", "reconcile", "--format", "json"])
        .output()
        .unwrap();
    let rows: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let of = |report: &str, prefix: &str| -> Vec<&Value> {
        rows.iter()
            .filter(|r| r["report"] == report && r["metric"].as_str().unwrap().starts_with(prefix))
            .collect()
    };
    // Compared: every assertion row of each report (counted from the report itself).
    let count = |report: &Value| -> f64 {
        report["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["assertions"].as_array().unwrap().len() as f64)
            .sum()
    };
    let holdout = of("benchmark-holdout.json.gz", "verdicts agreeing");
    let n = count(&reference("benchmark-holdout.json.gz"));
    assert_eq!(
        (f(&holdout[0]["tool_value"]), f(&holdout[0]["liftdb_value"])),
        (n, n)
    );
    let tune = of("benchmark-tampered.json", "verdicts agreeing");
    let n = count(&tampered);
    assert_eq!(
        (f(&tune[0]["tool_value"]), f(&tune[0]["liftdb_value"])),
        (n, n - 1.0)
    );
    let differs = of("benchmark-tampered.json", "verdict differs: ");
    assert_eq!(differs.len(), 1, "{differs:#?}");
    let metric = differs[0]["metric"].as_str().unwrap();
    let tail = &run_base[run_base.len() - 20..];
    assert!(
        metric.contains(tail) && metric.ends_with(&format!("#1 {name}")),
        "{metric}"
    );
    assert_eq!(differs[0]["agrees"], Value::Bool(false));
}

#[test]
fn judge_verdicts_are_merged_like_skill_benchmark() {
    // skill-benchmark 0.6.0 merging 2,016 stored verdicts of every kind into
    // the dev tree's runs (tests/fixtures/seh-judge-verdicts/README.md).
    let fixture_dir = fixture("seh-judge-verdicts");
    let (_dir, manifest) = corpus_input_with(&fixture_dir.join("judge-benchmark.json"));
    let judges = fixture_dir.join("judge-results.jsonl");
    let mut ts = new_store();
    let runs = seh_root().join("runs/eval-runs");
    let (_, g) = ingest_counting(&mut ts, &[runs.clone(), manifest.clone()], true);
    assert_eq!(g.judge_deferred, 558, "no verdicts yet: every run defers");
    // The verdicts ingested afterwards regrade the runs they answer.
    let (regraded, g) = ingest_counting(&mut ts, &[runs, manifest, judges], true);
    assert_eq!((regraded, g.unavailable), (558, 0));
    let mut report = read_report(&fixture_dir.join("benchmark-judge.json.gz"));
    // README: 576 rows, 18 of them phantoms.
    assert_eq!(drop_phantom_rows(&mut report), (576, 558));
    check_every_verdict(&ts, &report, true);
    check_run_rows(&ts, &report);
    let deferred: i64 = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["deferred_judge_tasks"].as_i64().unwrap())
        .sum();
    let ours = rows(
        &ts.store,
        "SELECT sum(deferred_judge_tasks)::BIGINT AS n FROM grading WHERE origin = 'liftdb'",
    );
    assert_eq!(ours[0]["n"].as_i64(), Some(deferred));
}

#[test]
fn tricky_texts_get_the_tools_verdict_or_none() {
    // Eleven answers built to split Python's and Rust's text handling, with
    // skill-benchmark 0.6.0's verdicts on them (tests/fixtures/seh-tricky-texts/README.md):
    // each of liftdb's verdicts equals the tool's, or is marked unavailable —
    // never a different verdict.
    let dir = fixture("seh-tricky-texts");
    let mut ts = new_store();
    let paths = [dir.join("eval-runs"), dir.join("tricky-texts.json")];
    ingest_counting(&mut ts, &paths, false);
    let report = read_report(&dir.join("benchmark-tricky.json.gz"));
    let ours = our_verdicts(&ts);
    let (mut exact, mut unavailable) = (0, 0);
    for row in report["results"].as_array().unwrap() {
        let base = row["run_base"].as_str().unwrap();
        let below = &base[base.find("eval-runs/").unwrap()..];
        for (i, theirs) in row["assertions"].as_array().unwrap().iter().enumerate() {
            let mine = &ours[&(below.to_string(), i as i64 + 1)];
            if mine["availability"] == "unavailable" {
                assert!(mine["passed"].is_null() && mine["score"].is_null());
                // The reason names a code point of the engines' difference
                // tables, and that code point is in this answer.
                let why = mine["evidence"].as_str().unwrap();
                let hex = why
                    .strip_prefix("unavailable: the text holds U+")
                    .and_then(|rest| rest.split(',').next())
                    .unwrap_or_else(|| panic!("{below}: {why}"));
                let c = char::from_u32(u32::from_str_radix(hex, 16).unwrap()).unwrap();
                let text = std::fs::read(dir.join(below).join("output.md")).unwrap();
                assert!(String::from_utf8_lossy(&text).contains(c), "{below}: {why}");
                unavailable += 1;
                continue;
            }
            let what = format!("{below} {}", theirs["name"]);
            assert_eq!(mine["passed"], theirs["passed"], "{what}");
            assert_eq!(mine["evidence"], theirs["evidence"], "{what}");
            exact += 1;
        }
    }
    // README: 506 verdicts.
    assert_eq!(exact + unavailable, 506);
    println!("tricky texts: {exact} exact, {unavailable} unavailable");
}

#[test]
fn a_requested_variant_without_a_folder_is_a_phantom_run_like_the_harness() {
    // skill-benchmark 0.6.0 on the dev tree minus two variant folders
    // (tests/fixtures/seh-phantoms/README.md): a phantom row for each.
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    crate::common::copy_tree(&seh_root().join("runs"), &runs);
    let removed = [
        "eval-runs/enum-add-value/gpt-5-codex/without_skill",
        "eval-runs/fk-not-valid/claude-haiku-4-5/with_skill",
    ];
    for r in removed {
        std::fs::remove_dir_all(runs.join(r)).unwrap();
    }
    let manifest = seh_root().join("input/evals/shared-benchmark.json");
    let paths = [runs.join("eval-runs"), manifest];
    let mut ts = new_store();
    let (_, g) = ingest_counting(&mut ts, &paths, true);
    assert_eq!(g.phantoms, 2);
    let report = read_report(&fixture("seh-phantoms").join("benchmark-phantoms.json.gz"));
    // Every row, the phantoms' included; the default variants only (the
    // ablation runs have no row in this report).
    check_every_verdict(&ts, &report, true);
    check_run_rows(&ts, &report);
    check_paired_summary(&ts, &report, "all");
    let phantoms = rows(
        &ts.store,
        "SELECT run_dir, output_present, scorable FROM runs WHERE run_id IN
           (SELECT run_id FROM run WHERE repetition_source = 'phantom') ORDER BY run_dir",
    );
    assert_eq!(phantoms.len(), 2);
    for (p, r) in phantoms.iter().zip(removed.iter()) {
        assert!(p["run_dir"].as_str().unwrap().ends_with(r), "{p:?}");
        assert_eq!(
            (p["output_present"].as_bool(), p["scorable"].as_bool()),
            (Some(false), Some(false))
        );
    }
    // Re-ingest: nothing new; the folder back: its phantom gives way.
    let (_, g) = ingest_counting(&mut ts, &paths, true);
    assert_eq!(g.phantoms, 0);
    crate::common::copy_tree(
        &seh_root().join("runs").join(removed[0]),
        &runs.join(removed[0]),
    );
    ingest_counting(&mut ts, &paths, true);
    let left = rows(
        &ts.store,
        "SELECT count(*) AS n FROM run WHERE repetition_source = 'phantom'",
    );
    assert_eq!(left[0]["n"].as_i64(), Some(1));
}

#[test]
fn an_embedding_similarity_liftdb_cannot_run_leaves_the_run_to_a_report() {
    // liftdb never calls an embedding command; without one the harness fails
    // the assertion (docs/grading.md §4.7), so liftdb's verdict is the harness's
    // without --embed-cmd — and a report ingested beside it is preferred.
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("embedding-benchmark.json");
    write_manifest_with(
        &seh_root().join("input/evals/shared-benchmark.json"),
        &manifest,
        "enum-add-value",
        serde_json::json!({"type": "similarity", "name": "close-to-reference", "mode": "embedding", "expected": "ADD VALUE is safe"}),
    );
    let (_input, manifest) = corpus_input_with(&manifest);
    let mut ts = new_store();
    let paths = [
        seh_root().join("runs/eval-runs"),
        manifest,
        seh_root().join("reference/benchmark-holdout.json.gz"),
    ];
    ingest_counting(&mut ts, &paths, true);
    let by = rows(
        &ts.store,
        "SELECT case_id = 'enum-add-value' AS embedding_case, graded_by, count(*) AS n
         FROM runs WHERE split = 'holdout' AND arm IN ('with_skill', 'without_skill')
         GROUP BY ALL ORDER BY ALL",
    );
    let graded_by: Vec<(bool, &str)> = by
        .iter()
        .map(|r| {
            (
                r["embedding_case"].as_bool().unwrap(),
                r["graded_by"].as_str().unwrap(),
            )
        })
        .collect();
    // The other holdout cases: liftdb's own grading; the case with the
    // embedding assertion: the holdout report's.
    assert_eq!(graded_by, [(false, "liftdb"), (true, "report")]);
    let evidence = rows(
        &ts.store,
        "SELECT DISTINCT availability, evidence FROM assertion_result WHERE name = 'close-to-reference'",
    );
    assert_eq!(evidence.len(), 1);
    assert_eq!(evidence[0]["availability"], "embedding_not_run");
}

#[test]
fn a_grading_file_in_a_seh_run_folder_never_replaces_liftdbs_grading() {
    // tests/fixtures/seh-run-folder-grading/README.md: single-model run folders
    // holding the grading.json that `grade --write-grading-files` wrote, every
    // judge task deferred; graded.json.gz is the same command's report.
    let dir = fixture("seh-run-folder-grading");
    let report = read_report(&dir.join("graded.json.gz"));
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), 36, "README: 36 results");
    let runs_by_key =
        |ts: &TestStore| -> BTreeMap<(String, String, i64), serde_json::Map<String, Value>> {
            rows(
                &ts.store,
                "SELECT r.case_id, r.arm, r.repetition, r.source_format, r.graded_by,
                    r.objective_pass_rate, r.combined_pass_rate, g.deferred_judge_tasks
             FROM runs r JOIN grading g USING (grading_id)",
            )
            .into_iter()
            .map(|r| {
                let key = (
                    r["case_id"].as_str().unwrap().to_string(),
                    r["arm"].as_str().unwrap().to_string(),
                    r["repetition"].as_i64().unwrap(),
                );
                (key, r)
            })
            .collect()
        };

    // With the manifest: liftdb's own grading, the harness's numbers.
    let mut ts = new_store();
    let (_, g) = ingest_counting(
        &mut ts,
        &[dir.join("runs"), dir.join("manifest.json")],
        false,
    );
    assert_eq!(g.judge_deferred, 36, "no verdicts: every run defers");
    let ours = runs_by_key(&ts);
    assert_eq!(ours.len(), results.len());
    for row in results {
        let key = (
            row["case_id"].as_str().unwrap().to_string(),
            row["variant"].as_str().unwrap().to_string(),
            row["run_number"].as_i64().unwrap(),
        );
        let mine = &ours[&key];
        assert_eq!(mine["source_format"], "C_seh", "{key:?} stays a seh run");
        assert_eq!(mine["graded_by"], "liftdb", "{key:?}");
        for field in ["objective_pass_rate", "combined_pass_rate"] {
            match row[field].as_f64() {
                Some(v) => assert_close(f(&mine[field]), v, 1e-12, &format!("{key:?} {field}")),
                None => assert!(mine[field].is_null(), "{key:?} {field} should be NULL"),
            }
        }
        assert_eq!(
            mine["deferred_judge_tasks"], row["deferred_judge_tasks"],
            "{key:?}"
        );
    }

    // Without it, the grading file is all there is: its summary's rate.
    let ts = store_of(&[dir.join("runs")]);
    let ours = runs_by_key(&ts);
    assert_eq!(ours.len(), results.len());
    for row in results {
        let run_base = std::path::Path::new(row["run_base"].as_str().unwrap());
        let rel: std::path::PathBuf = run_base
            .iter()
            .skip_while(|c| *c != "runs")
            .skip(1)
            .collect();
        let file = read_report(&dir.join("runs").join(&rel).join("grading.json"));
        let key = (
            row["case_id"].as_str().unwrap().to_string(),
            row["variant"].as_str().unwrap().to_string(),
            row["run_number"].as_i64().unwrap(),
        );
        let mine = &ours[&key];
        assert_eq!(mine["source_format"], "C_seh", "{key:?}");
        assert_eq!(mine["graded_by"], "run_folder", "{key:?}");
        assert_close(
            f(&mine["objective_pass_rate"]),
            f(&file["summary"]["pass_rate"]),
            1e-12,
            &format!("{key:?} the file's pass_rate"),
        );
    }
}
