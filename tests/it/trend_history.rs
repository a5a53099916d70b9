//! skill-benchmark 0.6.0's `trend` over a history of three reports,
//! reproduced by liftdb from the three run trees taken as three releases:
//! series, variant deltas, case deltas, new and resolved flags, recurring
//! failures with their ranks, prune candidates — each against the tool's
//! own output (tests/fixtures/seh-trend/trend.json, read here).

use liftdb::batch::{self, IngestOptions};
use serde_json::Value;

use crate::common::{f, fixture, generated_tree, new_store, read_report, rows, TestStore};

/// The history: each tree ingested with its manifest as the release the tool
/// names its report (run-001.json, ...), graded by liftdb.
fn history() -> (TestStore, Vec<tempfile::TempDir>) {
    let mut ts = new_store();
    let dirs = add_history(&mut ts, |i| format!("run-{:03}.json", i + 1), |_| None);
    (ts, dirs)
}

/// The three trees as releases named by `release`, each with the extra file
/// `with` gives it (a benchmark report).
fn add_history(
    ts: &mut TestStore,
    release: impl Fn(usize) -> String,
    with: impl Fn(usize) -> Option<std::path::PathBuf>,
) -> Vec<tempfile::TempDir> {
    let mut dirs = Vec::new();
    let trees = [
        (11, fixture("generated-seed11")),
        (23, fixture("generated-seed23")),
        (31, fixture("seh-trend/seed31")),
    ];
    for (i, (seed, fix)) in trees.into_iter().enumerate() {
        let (dir, tree) = generated_tree(seed, &fix);
        let opts = IngestOptions {
            release: Some(release(i)),
            ..Default::default()
        };
        let mut paths = vec![tree.join("eval-runs"), tree.join("manifest.json")];
        paths.extend(with(i));
        let summary = batch::ingest(&mut ts.store, &paths, &opts).unwrap();
        assert!(summary.errors.is_empty(), "{:?}", summary.errors);
        dirs.push(dir);
    }
    dirs
}

/// `report reconcile`'s rows for one report file, as JSON objects.
fn reconcile_rows(ts: &TestStore, report_file: &str) -> Vec<Value> {
    crate::common::reconcile_rows(&ts.store)
        .into_iter()
        .filter(|r| r["report"] == report_file)
        .collect()
}

#[test]
fn the_cli_streams_reconcile_with_its_included_part_as_the_materialized_report_has_it() {
    // The CLI writes a report's rows as DuckDB gives them (report::stream);
    // report::run holds them, and the test below checks its rows against the
    // tool's trend.json. Both must give the same bytes in every streamed
    // format, the included reconcile-trend part after the report's own rows.
    let (mut ts, _dirs) = history();
    ingest_trend(&mut ts);
    assert!(!reconcile_rows(&ts, "trend.json").is_empty());
    let report = liftdb::report::find("reconcile").unwrap();
    let held = liftdb::report::run(&ts.store.conn, &report, &Default::default()).unwrap();
    let db = ts.db.clone();
    drop(ts.store);
    use liftdb::output::Format;
    for (format, name) in [
        (Format::Csv, "csv"),
        (Format::Tsv, "tsv"),
        (Format::Json, "json"),
        (Format::Jsonl, "jsonl"),
    ] {
        let mut expected = Vec::new();
        liftdb::output::render(&held, format, &mut expected).unwrap();
        let out = crate::common::liftdb_cmd(&db)
            .args(["report", "reconcile", "--format", name])
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {out:?}");
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(expected).unwrap(),
            "{name}"
        );
    }
}

#[test]
fn export_writes_reconcile_with_its_included_part_as_the_report_prints_it() {
    // `liftdb export reconcile` goes through DuckDB's COPY, not the report's
    // own writer: its rows must still be the report's, the included
    // reconcile-trend rows (those of trend.json) after its own, in order.
    let (mut ts, _dirs) = history();
    ingest_trend(&mut ts);
    let report = liftdb::report::find("reconcile").unwrap();
    let held = liftdb::report::run(&ts.store.conn, &report, &Default::default()).unwrap();
    let mut json = Vec::new();
    liftdb::output::render(&held, liftdb::output::Format::Json, &mut json).unwrap();
    let expected: Vec<Value> = serde_json::from_slice(&json).unwrap();
    assert!(expected.iter().any(|r| r["report"] == "trend.json"));
    let db = ts.db.clone();
    drop(ts.store);
    let out_dir = tempfile::tempdir().unwrap();
    let out = out_dir.path().join("reconcile.jsonl");
    let run = crate::common::liftdb_cmd(&db)
        .args(["export", "reconcile", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(run.status.success(), "{run:?}");
    let exported: Vec<Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(exported.len(), expected.len());
    for (i, (got, want)) in exported.iter().zip(&expected).enumerate() {
        let want = want.as_object().unwrap();
        assert_eq!(got.as_object().unwrap().len(), want.len(), "row {i}");
        for (column, value) in want {
            close(&got[column], value, &format!("row {i} {column}"));
        }
    }
}

fn ingest_trend(ts: &mut TestStore) {
    let summary = batch::ingest(
        &mut ts.store,
        &[fixture("seh-trend/trend.json")],
        &IngestOptions::default(),
    )
    .unwrap();
    assert!(summary.errors.is_empty(), "{:?}", summary.errors);
}

/// The reconcile row whose metric is `metric`.
fn metric<'a>(rows: &'a [Value], metric: &str) -> &'a Value {
    let found: Vec<&Value> = rows.iter().filter(|r| r["metric"] == metric).collect();
    assert_eq!(found.len(), 1, "{metric}: {rows:#?}");
    found[0]
}

fn close(a: &Value, b: &Value, what: &str) {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => assert!((x - y).abs() < 1e-12, "{what}: liftdb {x} vs tool {y}"),
        _ => assert_eq!(a, b, "{what}"),
    }
}

#[test]
fn liftdb_reproduces_skill_benchmark_trend_over_three_releases() {
    let (ts, _dirs) = history();
    assert_trend_is_the_tools(&ts.store);
}

/// The history kept as the three reports alone (the run trees expired):
/// each report ingested as its release defines the runs it carries, and
/// liftdb's trend is the tool's, figure for figure.
#[test]
fn three_archived_reports_give_the_tools_trend() {
    let ts = report_history();
    let defined = rows(
        &ts.store,
        "SELECT count(*) AS runs, count(*) FILTER (WHERE defined_by IS NOT NULL) AS reported,
                count(DISTINCT release_label) AS releases
         FROM runs",
    );
    // 1,500 runs a report (tests/fixtures/seh-trend/README.md), each defined by it.
    assert_eq!(defined[0]["runs"], 4500, "{defined:?}");
    assert_eq!(defined[0]["reported"], 4500);
    assert_eq!(defined[0]["releases"], 3);
    assert_trend_is_the_tools(&ts.store);
    // Reconciled: every figure of the tool's trend beside liftdb's agrees.
    let mut ts = ts;
    ingest_trend(&mut ts);
    let rows = reconcile_rows(&ts, "trend.json");
    assert!(!rows.is_empty());
    let disagreeing: Vec<&Value> = rows.iter().filter(|r| r["agrees"] != true).collect();
    assert!(disagreeing.is_empty(), "{disagreeing:#?}");
}

/// The three reports, each ingested alone as the release the tool names it.
fn report_history() -> TestStore {
    let mut ts = new_store();
    for (i, report) in [
        fixture("generated-seed11/benchmark.json.gz"),
        fixture("generated-seed23/benchmark.json.gz"),
        fixture("seh-trend/seed31/benchmark.json.gz"),
    ]
    .into_iter()
    .enumerate()
    {
        let opts = IngestOptions {
            release: Some(format!("run-{:03}.json", i + 1)),
            ..Default::default()
        };
        let summary = batch::ingest(&mut ts.store, &[report], &opts).unwrap();
        assert!(summary.errors.is_empty(), "{:?}", summary.errors);
        assert_eq!(summary.runs_reported, 1500, "{}", i + 1);
    }
    ts
}

/// The run folders of a release kept as its report, ingested later: each
/// replaces the run its report defined — none doubled — and the release's
/// lift and case flags are what they were (the report graded the same
/// runs); a run now has its output.
#[test]
fn run_folders_arriving_later_replace_their_reports_runs() {
    let mut ts = report_history();
    let before = |ts: &TestStore| {
        (
            rows(&ts.store, "SELECT row_kind, scope, model, case_id, units, eligible_pairs, absolute_delta FROM lift WHERE release_label = 'run-002.json' AND channel = 'objective' AND control_arm = 'without_skill' ORDER BY ALL"),
            rows(&ts.store, "SELECT case_id, experiment, with_skill, without_skill, flags FROM case_flags WHERE release_label = 'run-002.json' ORDER BY ALL"),
        )
    };
    let (lift, flags) = before(&ts);
    assert!(!lift.is_empty() && !flags.is_empty());
    let (_dir, tree) = generated_tree(23, &fixture("generated-seed23"));
    let opts = IngestOptions {
        release: Some("run-002.json".into()),
        ..Default::default()
    };
    let summary = batch::ingest(
        &mut ts.store,
        &[tree.join("eval-runs"), tree.join("manifest.json")],
        &opts,
    )
    .unwrap();
    assert!(summary.errors.is_empty(), "{:?}", summary.errors);
    assert_eq!(summary.reported_replaced, 1500);
    let counts = rows(
        &ts.store,
        "SELECT count(*) AS runs, count(DISTINCT run_id) AS ids,
                count(*) FILTER (WHERE defined_by IS NOT NULL) AS reported,
                count(*) FILTER (WHERE output_text IS NOT NULL) AS with_output
         FROM run WHERE release_label = 'run-002.json'",
    );
    assert_eq!(counts[0]["runs"], 1500, "{counts:?}");
    assert_eq!(counts[0]["ids"], 1500);
    assert_eq!(counts[0]["reported"], 0);
    assert_eq!(counts[0]["with_output"], 1500);
    let (lift_after, flags_after) = before(&ts);
    assert_eq!(lift_after, lift);
    assert_eq!(flags_after, flags);
    // The other releases are still their reports'.
    let others = rows(
        &ts.store,
        "SELECT count(*) AS n FROM run WHERE release_label <> 'run-002.json' AND defined_by IS NOT NULL",
    );
    assert_eq!(others[0]["n"], 3000);
}

/// liftdb's trend over the store's three releases against the tool's
/// `trend --out` over the same history (tests/fixtures/seh-trend/trend.json).
fn assert_trend_is_the_tools(store: &liftdb::store::Store) {
    let tool = read_report(&fixture("seh-trend/trend.json"));

    // Series: one entry per report.
    let series = tool["series"].as_array().unwrap();
    assert_eq!(series.len(), 3);
    for entry in series {
        let label = entry["label"].as_str().unwrap();
        let ours = rows(
            store,
            &format!("SELECT * FROM trend_series WHERE release_label = '{label}' ORDER BY arm"),
        );
        assert!(!ours.is_empty(), "{label}");
        for k in ["with_skill", "without_skill", "lift"] {
            close(&ours[0][k], &entry[k], &format!("{label} {k}"));
        }
        for k in ["saturated_cases", "flagged_cases"] {
            assert_eq!(ours[0][k].as_i64(), entry[k].as_i64(), "{label} {k}");
        }
        for arm in &ours {
            let name = arm["arm"].as_str().unwrap();
            close(
                &arm["median_total_tokens"],
                &entry["median_total_tokens"][name],
                &format!("{label} {name} median tokens"),
            );
        }
    }

    // Diffs between successive reports.
    for diff in tool["diffs"].as_array().unwrap() {
        let (from, to) = (diff["from"].as_str().unwrap(), diff["to"].as_str().unwrap());
        let d = &diff["diff"];
        let arms = rows(
            store,
            &format!(
                "SELECT * FROM trend_arm_changes
                  WHERE previous_release = '{from}' AND release_label = '{to}' AND scope = 'release'"
            ),
        );
        let variants = d["variant_deltas"].as_object().unwrap();
        assert_eq!(arms.len(), variants.len(), "{to}: arms");
        for a in &arms {
            assert_eq!(a["previous_release"].as_str(), Some(from));
            let v = &variants[a["arm"].as_str().unwrap()];
            for (metric, ours) in [
                ("mean_objective_pass_rate", "objective"),
                ("mean_combined_pass_rate", "combined"),
            ] {
                close(
                    &a[&format!("{ours}_before")],
                    &v[metric]["before"],
                    &format!("{to} {metric} before"),
                );
                close(
                    &a[&format!("{ours}_after")],
                    &v[metric]["after"],
                    &format!("{to} {metric} after"),
                );
                assert_eq!(
                    a[&format!("{ours}_change")].as_f64(),
                    v[metric]["delta"].as_f64(),
                    "{to} {metric} delta"
                );
            }
        }
        // The tool's case deltas: the release's cases with a rate on both sides.
        let ours = rows(
            store,
            &format!(
                "SELECT * FROM trend_case_changes
                  WHERE previous_release = '{from}' AND release_label = '{to}' AND scope = 'release'
                    AND change_kind = 'moved' ORDER BY case_id, arm"
            ),
        );
        let theirs = d["case_deltas"].as_array().unwrap();
        assert_eq!(ours.len(), theirs.len(), "{to}: case deltas");
        for (o, t) in ours.iter().zip(theirs) {
            assert_eq!(o["case_id"], t["case_id"]);
            assert_eq!(o["arm"], t["variant"]);
            close(&o["before"], &t["before"], "case before");
            close(&o["after"], &t["after"], "case after");
            assert_eq!(
                o["change"].as_f64(),
                t["delta"].as_f64(),
                "{} delta",
                t["case_id"]
            );
        }
        for (change, key) in [("new", "new_flags"), ("resolved", "resolved_flags")] {
            let ours: Vec<Value> = rows(
                store,
                &format!(
                    "SELECT flag FROM trend_flag_changes
                      WHERE previous_release = '{from}' AND release_label = '{to}' AND scope = 'release'
                        AND change = '{change}' ORDER BY flag"
                ),
            )
            .into_iter()
            .map(|r| r["flag"].clone())
            .collect();
            assert_eq!(&Value::Array(ours), &d[key], "{to}: {key}");
        }
    }

    // Recurring failures: the tool's first 50, rank by rank.
    let theirs = tool["recurring_failures"].as_array().unwrap();
    let ours = rows(
        store,
        "SELECT * FROM recurring_failures WHERE place <= 50 ORDER BY place",
    );
    assert_eq!(ours.len(), theirs.len());
    for (o, t) in ours.iter().zip(theirs) {
        for (a, b) in [
            ("case_id", "case_id"),
            ("assertion", "assertion"),
            ("severity", "severity"),
        ] {
            assert_eq!(o[a], t[b], "place {}", o["place"]);
        }
        assert_eq!(o["prevalence"].as_f64(), t["prevalence"].as_f64());
        assert_eq!(o["rank"].as_f64(), t["rank"].as_f64());
    }
    // Prune candidates (none in this history: every case failed somewhere).
    let ours = rows(store, "SELECT case_id, releases_observed AS runs_observed, reason FROM prune_candidates ORDER BY case_id");
    let theirs = tool["prune_candidates"].as_array().unwrap();
    assert_eq!(ours.len(), theirs.len());
    for (o, t) in ours.iter().zip(theirs) {
        for k in ["case_id", "runs_observed", "reason"] {
            assert_eq!(o[k], t[k]);
        }
    }
}

#[test]
fn two_releases_of_the_dev_corpus_give_the_tools_15_recurring_failures_and_one_prune_candidate() {
    // #17 quotes the tool on two reports of the dev corpus: 15 recurring
    // failures and one prune candidate, rename-typo-small-table (with =
    // without = 1.0 in both).
    let mut ts = new_store();
    let mut dirs = Vec::new();
    for release in ["first", "second"] {
        let dir = tempfile::tempdir().unwrap();
        let runs = dir.path().join("eval-runs");
        crate::common::copy_tree(&crate::common::seh_root().join("runs/eval-runs"), &runs);
        let manifest = crate::common::seh_root().join("input/evals/shared-benchmark.json");
        let opts = IngestOptions {
            release: Some(release.into()),
            ..Default::default()
        };
        batch::ingest(&mut ts.store, &[runs, manifest], &opts).unwrap();
        dirs.push(dir);
    }
    let candidates = rows(
        &ts.store,
        "SELECT case_id, releases_observed, reason FROM prune_candidates",
    );
    assert_eq!(candidates.len(), 1, "{candidates:?}");
    assert_eq!(candidates[0]["case_id"], "rename-typo-small-table");
    assert_eq!(candidates[0]["releases_observed"], 2);
    assert_eq!(
        candidates[0]["reason"],
        "never failed and never showed lift across the history"
    );
}

#[test]
fn reconcile_puts_the_tools_trend_beside_liftdbs_and_they_agree() {
    let tool = read_report(&fixture("seh-trend/trend.json"));
    let (mut ts, _dirs) = history();
    ingest_trend(&mut ts);
    let rows = reconcile_rows(&ts, "trend.json");
    let disagreeing: Vec<&Value> = rows.iter().filter(|r| r["agrees"] != true).collect();
    assert!(disagreeing.is_empty(), "{disagreeing:#?}");

    // Every figure of the tool's output is compared, counted from the file:
    // per report 7 series figures (3 rates, 2 counts, 2 medians), per diff 12
    // variant figures (2 arms x 2 rates x before/after/delta), case deltas and
    // new/resolved flags each as a count and as given alike; the two lists as
    // a count and as given alike; the reports matched.
    let series = tool["series"].as_array().unwrap().len();
    let diffs = tool["diffs"].as_array().unwrap().len();
    assert_eq!(rows.len(), 7 * series + diffs * (12 + 2 + 4) + 4 + 1);
    // The skill: the one the history's reports name.
    let skill = read_report(&fixture("generated-seed11/benchmark.json.gz"))["skill_name"].clone();
    assert!(rows.iter().all(|r| r["skill"] == skill), "{rows:#?}");

    // The counts the tool's README gives (tests/fixtures/seh-trend/README.md).
    for (from, cases, new, resolved) in [
        ("run-001.json", 98.0, 15.0, 21.0),
        ("run-002.json", 92.0, 20.0, 19.0),
    ] {
        let at = |what: &str| {
            f(&metric(&rows, &format!("trend change from {from}: {what}"))["tool_value"])
        };
        assert_eq!(at("case deltas"), cases);
        assert_eq!(at("case deltas (given alike)"), cases);
        assert_eq!(at("new flags (given alike)"), new);
        assert_eq!(at("resolved flags (given alike)"), resolved);
    }
    assert_eq!(
        f(&metric(&rows, "trend recurring failures (given alike)")["liftdb_value"]),
        50.0
    );
    assert_eq!(
        f(&metric(&rows, "trend prune candidates")["tool_value"]),
        0.0
    );
    let coverage = metric(&rows, "trend: reports matched to releases of the skill");
    assert_eq!(
        (f(&coverage["tool_value"]), f(&coverage["liftdb_value"])),
        (3.0, 3.0)
    );
    assert_eq!(
        coverage["release"], "run-003.json",
        "shown under the last release"
    );
}

#[test]
fn a_trend_over_releases_named_otherwise_is_matched_by_report_time_then_by_position() {
    // Before any release: nothing to match, and reconcile says so.
    let mut ts = new_store();
    ingest_trend(&mut ts);
    let rows = reconcile_rows(&ts, "trend.json");
    let coverage = metric(&rows, "trend: reports matched to releases of the skill");
    assert_eq!(
        (f(&coverage["tool_value"]), f(&coverage["liftdb_value"])),
        (3.0, 0.0)
    );
    assert_eq!(coverage["agrees"], false);

    // Releases v1..v3; the third with the tool's own report of its tree,
    // whose generated_at is the third entry's of the trend's series.
    let _dirs = add_history(
        &mut ts,
        |i| format!("v{}", i + 1),
        |i| (i == 2).then(|| fixture("seh-trend/seed31/benchmark.json.gz")),
    );
    let rows = reconcile_rows(&ts, "trend.json");
    let disagreeing: Vec<&Value> = rows.iter().filter(|r| r["agrees"] != true).collect();
    assert!(disagreeing.is_empty(), "{disagreeing:#?}");
    let coverage = metric(&rows, "trend: reports matched to releases of the skill");
    assert_eq!(f(&coverage["liftdb_value"]), 3.0);
    assert_eq!(coverage["release"], "v3");
    // run-001.json -> v1 by position: the second diff goes from it to v2's successor.
    let from_second = rows
        .iter()
        .filter(|r| {
            r["metric"]
                .as_str()
                .unwrap()
                .starts_with("trend change from run-002.json")
        })
        .count();
    assert_eq!(from_second, 18);
    assert!(rows
        .iter()
        .filter(|r| r["metric"]
            .as_str()
            .unwrap()
            .starts_with("trend change from run-002.json"))
        .all(|r| r["release"] == "v3"));
}
