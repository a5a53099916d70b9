//! The stored aggregates reports read (src/store/aggregates/mod.rs): each holds
//! exactly its live view's rows after every batch, reports over them give
//! what the live views give, and `liftdb check` finds one left stale.

use std::path::PathBuf;

use crate::common::*;

/// The seh corpus (real skill-eval-harness output) with two variant folders
/// removed, as in tests/fixtures/seh-phantoms/README.md (147 eligible and 6
/// blocked pairs there), beside the no-scripts twin: pairs eligible and
/// blocked, several experiments. The paths, in the directory returned.
fn phantom_corpus() -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    copy_tree(&seh_root().join("runs"), &runs);
    for removed in [
        "eval-runs/enum-add-value/gpt-5-codex/without_skill",
        "eval-runs/fk-not-valid/claude-haiku-4-5/with_skill",
    ] {
        std::fs::remove_dir_all(runs.join(removed)).unwrap();
    }
    let manifest = seh_root().join("input/evals/shared-benchmark.json");
    let paths = vec![
        runs.join("eval-runs"),
        manifest,
        fixture("skill-eval-harness-no-scripts"),
    ];
    (dir, paths)
}

fn corpus() -> TestStore {
    let (_dir, paths) = phantom_corpus();
    store_of(&paths)
}

/// Under a memory budget (`ingest --memory-mb`) DuckDB is held to half of it
/// while runs are parsed and to three quarters, on one thread, for the
/// refill: the stored aggregates are still their views' rows, and the
/// parse's limit and the thread count are back once the batch is done.
#[test]
fn a_memory_budget_refills_the_same_aggregates_and_restores_the_settings() {
    let (_dir, paths) = phantom_corpus();
    let mut ts = new_store();
    let setting = |ts: &TestStore, name: &str| {
        scalar(
            &ts.store,
            &format!("SELECT current_setting('{name}')::VARCHAR"),
        )
    };
    let threads = setting(&ts, "threads");
    let opts = liftdb::batch::IngestOptions {
        memory_mb: Some(256),
        ..Default::default()
    };
    let summary = liftdb::batch::ingest(&mut ts.store, &paths, &opts).unwrap();
    assert!(summary.errors.is_empty(), "{:?}", summary.errors);
    assert!(summary.runs_written > 0);
    assert_eq!(setting(&ts, "memory_limit"), "128.0 MiB", "half of 256");
    assert_eq!(setting(&ts, "threads"), threads);
    // The check computes every view whole on two threads: not under the budget.
    ts.store.conn.execute_batch("RESET memory_limit").unwrap();
    assert_aggregates_current(&ts.store);
}

#[test]
fn every_stored_aggregate_holds_its_views_rows() {
    let ts = corpus();
    let checked = liftdb::store::check::check(&ts.store.conn).unwrap();
    for liftdb::store::aggregates::Derived { table, view, .. } in
        liftdb::store::aggregates::DERIVED.iter()
    {
        let stored = f(&scalar(&ts.store, &format!("SELECT count(*) FROM {table}")));
        let live = f(&scalar(&ts.store, &format!("SELECT count(*) FROM {view}")));
        assert!(stored > 0.0, "{table} is empty");
        assert_eq!(stored, live, "{table} against {view}");
        let found = checked
            .iter()
            .find(|c| c.kind == "derived" && c.name == format!("{table} = {view}"))
            .unwrap_or_else(|| panic!("check does not compare {table}"));
        assert_eq!(found.problem, None, "{table}");
    }
}

/// `report pairs` reads the stored units; the pairs view counted directly
/// (the report's query before the units were stored) is the independent
/// computation it must equal, row for row.
#[test]
fn report_pairs_counts_what_the_pairs_view_counts() {
    let ts = corpus();
    let by_view = rows(
        &ts.store,
        "SELECT release_label AS release, skill_name AS skill, experiment, split, case_id AS \"case\",
                model, control_arm AS control,
                count(*) FILTER (WHERE eligible) AS eligible,
                count(*) FILTER (WHERE NOT eligible) AS blocked,
                string_agg(DISTINCT blocked_reason, ', ' ORDER BY blocked_reason) AS blocked_reasons
         FROM pairs WHERE control_arm = 'without_skill'
         GROUP BY ALL
         ORDER BY release, skill, experiment NULLS FIRST, \"case\", model NULLS FIRST",
    );
    let report = liftdb::report::find("pairs").unwrap();
    let rs = liftdb::report::run(&ts.store.conn, &report, &Default::default()).unwrap();
    let by_report = result_rows(&rs);
    assert!(
        by_view.iter().any(|r| !r["blocked_reasons"].is_null()),
        "the corpus has blocked pairs"
    );
    assert_eq!(by_report.len(), by_view.len());
    for (ours, theirs) in by_report.iter().zip(&by_view) {
        assert_eq!(ours, theirs);
    }
}

/// The listing reports' rows worked out from the live views and sorted by
/// the reports' order: the independent computation they are held to.
const LIVE_LISTINGS: [(&str, &str); 3] = [
    (
        "runs",
        "SELECT release_label AS release, skill_name AS skill, experiment, case_id AS \"case\",
                split, model, arm, repetition AS rep, scorable,
                liftdb_pyround(objective_pass_rate, 4) AS objective_pass_rate, vetoed,
                total_tokens, cost_usd, elapsed_ms, left(run_id, 12) AS run, run_id
         FROM runs
         ORDER BY release, skill, experiment NULLS FIRST, \"case\", model NULLS FIRST, arm, rep, run_id",
    ),
    (
        "ledger",
        "SELECT release, skill, experiment, \"case\",
                split, model, arm, rep, input_tokens, output_tokens,
                total_tokens, tokens_provenance, CAST(cost_usd AS DECIMAL(18, 6)) AS cost_usd,
                cost_currency, cost_availability, cost_provenance, elapsed_ms, started_at
         FROM cost_ledger
         ORDER BY release, skill, experiment NULLS FIRST, \"case\", model NULLS FIRST, arm, rep, run_id",
    ),
    (
        "reliability",
        "SELECT release_label AS release, skill_name AS skill, experiment, split,
                case_id AS \"case\", arm, n, c, k,
                liftdb_pyround(pass_at_k, 6) AS pass_at_k, liftdb_pyround(pass_hat_k, 6) AS pass_hat_k
         FROM reliability
         ORDER BY release, skill, experiment NULLS FIRST, \"case\", arm, k",
    ),
];

/// Reports runs and ledger list run_listing_rows (the runs view stored, in
/// their order): each gives, row for row, what its query over the live views
/// gives (LIVE_LISTINGS: the independent computation).
#[test]
fn the_runs_and_ledger_listings_give_what_the_live_views_give() {
    let ts = corpus();
    for (name, sql) in &LIVE_LISTINGS[..2] {
        let by_view = rows(&ts.store, sql);
        let report = liftdb::report::find(name).unwrap();
        let rs = liftdb::report::run(&ts.store.conn, &report, &Default::default()).unwrap();
        let by_report = result_rows(&rs);
        let runs = scalar(&ts.store, "SELECT count(*) FROM run");
        assert_eq!(
            by_view.len() as i64,
            runs.as_i64().unwrap(),
            "{name}: one row a run"
        );
        assert!(by_report == by_view, "{name} differs from its live view");
    }
}

/// The listing reports (runs, ledger, reliability) print their stored
/// table as it is kept, with no sort: after each batch, whether its release
/// sorts after every other (m, then z), before them (b), or amid them (m
/// again, a run changed), each report streamed as CSV is, byte for byte,
/// its query over the live views sorted by its order (LIVE_LISTINGS), and
/// `liftdb check` finds every table in order.
#[test]
fn listings_stay_in_their_order_whatever_release_a_batch_adds() {
    let dir = tempfile::tempdir().unwrap();
    let (runs_m, manifest) = writable_runs(dir.path(), "runs-m");
    let (runs_z, _) = writable_runs(dir.path(), "runs-z");
    let db = dir.path().join("s.duckdb");
    let csv = |args: &[&str]| {
        let out = succeeded(liftdb_cmd(&db).args(["--format", "csv"]).args(args));
        String::from_utf8(out.stdout).unwrap()
    };
    let batches = [
        ("m", vec![runs_m.clone(), manifest.clone()]),
        ("z", vec![runs_z, manifest.clone()]),
        ("b", vec![fixture("seed000-skill-eval")]),
        ("m", vec![runs_m.clone(), manifest]),
    ];
    let mut releases = Vec::new();
    for (release, paths) in batches {
        if releases.contains(&release) {
            change_run(&runs_m, "enum-add-value/gpt-5-codex/with_skill/run-1");
        }
        let mut ingest = liftdb_cmd(&db);
        ingest
            .args(["ingest", "-q", "--release", release])
            .args(&paths);
        succeeded(&mut ingest);
        releases.push(release);
        for (report, live) in LIVE_LISTINGS {
            let listed = csv(&["report", report]);
            assert!(
                listed.lines().count() > 10,
                "{report} after {releases:?}: rows to list"
            );
            assert!(
                listed == csv(&["sql", live]),
                "{report} after {releases:?}: not its live rows in its order"
            );
        }
        let (code, listing) = check_listing(&db);
        assert_eq!(code, Some(0), "after {releases:?}: {listing}");
        for listed in ["run_listing_rows", "reliability_rows"] {
            assert!(
                listing
                    .lines()
                    .any(|l| l.starts_with("ok") && l.contains("order") && l.contains(listed)),
                "{listed}: {listing}"
            );
        }
    }
}

/// A report's `-- lists:` table is a stored table kept in order, release
/// first (what its refill's "every release after the first" relies on),
/// which the report's statement ends by sorting on (a lake runs it whole)
/// and a DuckDB file reads without that ORDER BY; and every table kept in
/// order is listed by a report (else keeping it so is for nothing).
#[test]
fn each_listing_report_reads_a_table_kept_in_its_order() {
    use liftdb::store::aggregates::DERIVED;
    let reports = liftdb::report::all();
    for d in DERIVED.iter() {
        let Some(order) = d.listed_in else { continue };
        assert!(order.starts_with("release_label,"), "{}: {order}", d.table);
        assert!(
            reports.iter().any(|r| r.lists == Some(d.table)),
            "{} is kept in order for no report",
            d.table
        );
    }
    let listing: Vec<_> = reports.iter().filter(|r| r.lists.is_some()).collect();
    assert_eq!(listing.len(), 3, "runs, ledger, reliability");
    for r in listing {
        let table = r.lists.unwrap();
        assert!(
            DERIVED
                .iter()
                .any(|d| d.table == table && d.listed_in.is_some()),
            "{}: {table} is not kept in order",
            r.name
        );
        let query: String = r
            .sql
            .lines()
            .filter(|l| !l.trim_start().starts_with("--"))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(query.contains(&format!("FROM {table}\n")), "{}", r.name);
        let order = DERIVED
            .iter()
            .find_map(|d| (d.table == table).then_some(d.listed_in).flatten())
            .unwrap();
        assert!(
            query.trim_end().ends_with(&format!("\nORDER BY {order};")),
            "{}: ends with ORDER BY {order}",
            r.name
        );
        let as_stored = r.as_stored.unwrap();
        assert!(r.sql.starts_with(as_stored), "{}", r.name);
        let as_stored_query: String = as_stored
            .lines()
            .filter(|l| !l.trim_start().starts_with("--"))
            .collect();
        assert!(
            !as_stored_query.to_uppercase().contains("ORDER BY"),
            "{}",
            r.name
        );
    }
}

/// A listed table whose rows hold their view's rows but not in their order
/// (rewritten by hand, release by release in reverse) is found by `liftdb
/// check`: its reports, which print it as stored, would list it so.
#[test]
fn check_finds_a_listed_table_out_of_order() {
    let ts = corpus();
    let TestStore { _dir, db, store } = ts;
    store
        .conn
        .execute_batch(
            "CREATE TEMP TABLE kept AS SELECT * FROM run_listing_rows;
             DELETE FROM run_listing_rows;
             INSERT INTO run_listing_rows SELECT * FROM kept ORDER BY case_id DESC;",
        )
        .unwrap();
    drop(store);
    let (code, listing) = check_listing(&db);
    assert_eq!(code, Some(1), "{listing}");
    assert_damaged(
        &listing,
        "order   run_listing_rows",
        "rows out of the order its reports list it in",
    );
    // Its rows are still its view's: only the order is wrong.
    assert!(
        !listing
            .lines()
            .any(|l| l.starts_with("DAMAGED") && l.contains("run_listing_rows = run_listing")),
        "{listing}"
    );
}

/// A store whose views an older liftdb wrote (no run_rows, its views' hash
/// another's): the first reader brings them up to date, saying so once, and
/// the report it runs reads what this binary's SQL expects.
#[test]
fn a_reader_brings_views_another_liftdb_wrote_up_to_date_once() {
    let ts = corpus();
    let runs = scalar(&ts.store, "SELECT count(*) FROM run")
        .as_i64()
        .unwrap();
    ts.store
        .conn
        .execute_batch(
            "INSERT INTO setting_record VALUES ('views_sha256', 'written by another liftdb', now()::TIMESTAMP, 0);
             DROP TABLE run_rows;",
        )
        .unwrap();
    let TestStore { _dir, db, store } = ts;
    drop(store);
    let report = |db: &std::path::Path| {
        let out = succeeded(liftdb_cmd(db).args(["report", "runs", "--format", "csv"]));
        let lines = String::from_utf8(out.stdout).unwrap().lines().count() as i64;
        (lines, String::from_utf8(out.stderr).unwrap())
    };
    let (lines, said) = report(&db);
    assert_eq!(lines, runs + 1, "a header and a line a run");
    assert!(
        said.contains("bringing its views and stored aggregates up to date"),
        "{said}"
    );
    let (again, said) = report(&db);
    assert_eq!(again, lines);
    assert!(said.is_empty(), "said once: {said}");
    let store = liftdb::store::open_read_after_upkeep(&db).unwrap();
    assert_aggregates_current(&store);
}

/// Reports that read the stored totals (run_total_rows, blocked_pair_rows,
/// cost_per_lift_case_rows) instead of every run or pair: each gives, row for row, what its former query over
/// the live runs and pairs views gave (the independent computation, kept here).
#[test]
fn reports_over_stored_totals_give_what_the_live_views_give() {
    let ts = corpus();
    let former = [
        (
            "cost-by-arm",
            "SELECT release_label AS release, skill_name AS skill, experiment, arm, model,
                    count(*) AS runs, count(total_tokens) AS runs_with_tokens,
                    CAST(sum(total_tokens) AS BIGINT) AS known_total_tokens,
                    count(cost_usd) AS runs_with_cost,
                    CAST(sum(cost_usd) AS DECIMAL(18, 6)) AS known_cost_usd,
                    CASE WHEN count(cost_usd) = count(*) THEN 'complete'
                         WHEN count(cost_usd) = 0 THEN 'unavailable'
                         ELSE 'partial' END AS cost_availability,
                    liftdb_pyround(sum(elapsed_ms) / 1000.0, 3) AS elapsed_s
             FROM cost_ledger_compat GROUP BY ALL
             ORDER BY release, skill, experiment NULLS FIRST, arm, model NULLS FIRST",
        ),
        (
            "formats",
            "SELECT release_label AS release, source_format AS format, experiment,
                    skill_name AS skill, count(*) AS runs,
                    count(*) FILTER (WHERE scorable) AS scorable,
                    count(*) FILTER (WHERE graded) AS graded,
                    count(DISTINCT case_id) AS cases,
                    string_agg(DISTINCT arm, ', ' ORDER BY arm) AS arms
             FROM runs GROUP BY ALL ORDER BY release, format, experiment",
        ),
        (
            "blocked",
            "SELECT release_label AS release, skill_name AS skill, experiment, split,
                    case_id AS \"case\", model, repetition AS rep, control_arm AS control,
                    blocked_reason AS reason, arm_reasons AS why, with_run_id, control_run_id
             FROM pairs WHERE NOT eligible AND control_arm = 'without_skill'
             ORDER BY release, skill, experiment NULLS FIRST, \"case\", model NULLS FIRST, rep",
        ),
        (
            "reliability-lift",
            "SELECT release_label AS release, skill_name AS skill, experiment, split, scope, model,
                    control_arm AS control, k, units,
                    liftdb_pyround(pass_at_k_delta, 6) AS pass_at_k_lift,
                    liftdb_pyround(pass_hat_k_delta, 6) AS pass_hat_k_lift
             FROM reliability_lift
             WHERE scope IN ('overall', 'model') AND split = 'all' AND control_arm = 'without_skill'
             ORDER BY release, skill, experiment NULLS FIRST,
                      CASE scope WHEN 'overall' THEN 0 ELSE 1 END, model NULLS FIRST, k",
        ),
        (
            "cost-per-lift",
            r#"WITH per_scope AS (
                 SELECT
                     release_label, skill_name, experiment,
                     CASE WHEN grouping(split) = 1 THEN 'all' ELSE split END AS split,
                     CASE WHEN grouping(case_id) = 0 THEN 'case'
                          WHEN grouping(model) = 0 THEN 'model' ELSE 'overall' END AS scope,
                     case_id, model,
                     count(*) AS pairs,
                     count(cost_delta) AS cost_comparable,
                     list(objective_delta) AS lifts, list(cost_delta) AS costs,
                     list(total_token_delta) AS tokens, list(lift_per_dollar) AS per_dollar,
                     list(lift_per_1k_tokens) AS per_1k_tokens, list(cost_per_unit_lift) AS per_unit_lift,
                     CASE WHEN count(cost_blocked_reason) > 0
                          THEN array_to_string(list_sort(list_distinct(list(cost_blocked_reason))), ', ') END AS cost_blocked
                 FROM cost_per_lift
                 GROUP BY GROUPING SETS (
                     (release_label, skill_name, experiment, split, case_id, model),
                     (release_label, skill_name, experiment, model),
                     (release_label, skill_name, experiment))
             )
             SELECT
                 release_label AS release,
                 skill_name AS skill,
                 experiment,
                 split,
                 scope,
                 CASE scope WHEN 'overall' THEN 'all cases, all models'
                            WHEN 'model' THEN 'all cases' ELSE case_id END AS row_label,
                 case_id AS "case",
                 model,
                 pairs,
                 cost_comparable,
                 liftdb_pyround(liftdb_mean_signed_bounded(lifts), 4) AS mean_lift,
                 liftdb_pyround(liftdb_mean_signed_bounded(costs), 6) AS mean_cost_delta_usd,
                 liftdb_pyround(liftdb_mean_signed_bounded(tokens), 1) AS mean_token_delta,
                 liftdb_pyround(liftdb_mean_signed_bounded(per_dollar), 2) AS lift_per_dollar,
                 liftdb_pyround(liftdb_mean_signed_bounded(per_1k_tokens), 4) AS lift_per_1k_tokens,
                 liftdb_pyround(liftdb_mean_signed_bounded(per_unit_lift), 6) AS usd_per_unit_lift,
                 cost_blocked,
                 CASE WHEN usd_per_unit_lift IS NULL THEN
                     CASE WHEN cost_comparable = 0 THEN 'cost not comparable: ' || coalesce(cost_blocked, 'no cost')
                          ELSE 'no comparable pair with a positive lift' END
                 END AS usd_per_unit_lift_unavailable
             FROM per_scope
             ORDER BY release, skill, experiment NULLS FIRST,
                      CASE scope WHEN 'overall' THEN 0 WHEN 'model' THEN 1 ELSE 2 END,
                      "case", model NULLS FIRST;"#,
        ),
    ];
    for (name, sql) in former {
        let mut live = rows(&ts.store, sql);
        let report = liftdb::report::find(name).unwrap();
        let rs = liftdb::report::run(&ts.store.conn, &report, &Default::default()).unwrap();
        let mut stored = result_rows(&rs);
        // The label is words (it names the priced models), not a stored figure.
        for row in stored.iter_mut().chain(live.iter_mut()) {
            row.remove("row_label");
        }
        assert!(!live.is_empty(), "{name}: the corpus has rows");
        assert_eq!(stored.len(), live.len(), "{name}");
        for (ours, theirs) in stored.iter().zip(&live) {
            assert_eq!(ours, theirs, "{name}");
        }
    }
}

#[test]
fn check_finds_a_stale_aggregate_and_the_next_batch_refills_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("s.duckdb");
    liftdb_cmd(&db)
        .args(["ingest", "-q"])
        .args(corpus_paths(&seh_root()))
        .assert()
        .success();
    liftdb_cmd(&db)
        .args(["sql", "DELETE FROM lift_rows WHERE scope = 'case'"])
        .assert()
        .success();
    let (code, listing) = check_listing(&db);
    assert_eq!(code, Some(1), "{listing}");
    assert_damaged(&listing, "lift_rows = lift", "rows differ");
    liftdb_cmd(&db)
        .args(["ingest", "-q"])
        .arg(fixture("skill-eval-harness-no-scripts"))
        .assert()
        .success();
    let (code, listing) = check_listing(&db);
    assert_eq!(code, Some(0), "{listing}");
}

/// The one number a statement gives, through `liftdb sql` (CSV when piped).
fn number(db: &std::path::Path, sql: &str) -> i64 {
    let out = liftdb_cmd(db).args(["sql", sql]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let value = text
        .lines()
        .nth(1)
        .unwrap_or_else(|| panic!("{sql}: {text}"));
    value.trim().parse().unwrap()
}

/// Rows of `table` that differ from `view`'s for one release (both ways).
fn differing(db: &std::path::Path, table: &str, view: &str, release: &str) -> i64 {
    // The view's rows as its table holds them: its macro's columns (the view
    // adds the reports' names of some after them).
    let view = format!("{view}_in(NULL)");
    let view = view.as_str();
    let of = |from: &str| format!("SELECT * FROM {from} WHERE release_label = '{release}'");
    number(
        db,
        &format!(
            "SELECT count(*) FROM (({} EXCEPT ALL {}) UNION ALL ({} EXCEPT ALL {}))",
            of(table),
            of(view),
            of(view),
            of(table)
        ),
    )
}

/// A writable copy of the corpus's run tree under `dir` (as `name`), and its manifest.
fn writable_runs(dir: &std::path::Path, name: &str) -> (PathBuf, PathBuf) {
    let runs = dir.join(name);
    copy_tree(&seh_root().join("runs/eval-runs"), &runs);
    (runs, seh_root().join("input/evals/shared-benchmark.json"))
}

/// Rewrite one run's metadata.json (a newline more): its run directory changed.
fn change_run(runs: &std::path::Path, run: &str) {
    let file = runs.join(run).join("metadata.json");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push('\n');
    std::fs::write(&file, text).unwrap();
}

/// A batch recomputes the stored aggregates of the releases it changed and
/// leaves every other release's rows as they were: a release damaged by hand
/// stays damaged (to the row) while another release is ingested beside it,
/// and is whole again once a batch changes one of its runs.
#[test]
fn a_batch_refills_only_the_releases_it_changed() {
    let dir = tempfile::tempdir().unwrap();
    let (runs, manifest) = writable_runs(dir.path(), "runs");
    let db = dir.path().join("s.duckdb");
    let ingest = |release: &str, paths: &[&std::path::Path]| {
        liftdb_cmd(&db)
            .args(["ingest", "-q", "--release", release])
            .args(paths)
            .assert()
            .success();
    };
    ingest("a", &[&runs, &manifest]);
    let removed = number(
        &db,
        "DELETE FROM lift_rows WHERE release_label = 'a' AND scope = 'case'",
    );
    assert!(removed > 0, "release a has case rows");

    ingest("b", &[&fixture("seed000-skill-eval")]);
    let b_rows = number(
        &db,
        "SELECT count(*) FROM lift_rows WHERE release_label = 'b'",
    );
    assert!(b_rows > 0, "release b has lift rows");
    assert_eq!(differing(&db, "lift_rows", "lift", "b"), 0);
    assert_eq!(differing(&db, "lift_rows", "lift", "a"), removed);
    let (code, listing) = check_listing(&db);
    assert_eq!(code, Some(1), "{listing}");

    // One run of release a changes: its batch refills release a whole.
    change_run(&runs, "enum-add-value/gpt-5-codex/with_skill/run-1");
    ingest("a", &[&runs, &manifest]);
    assert_eq!(differing(&db, "lift_rows", "lift", "a"), 0);
    let (code, listing) = check_listing(&db);
    assert_eq!(code, Some(0), "{listing}");
}

/// Every statistic a batch stores for the releases it changed (lift_stats,
/// ablation_stats, trend_stats across consecutive releases) equals what a
/// refresh of the whole store computes, after batches of two releases and
/// a change to the first.
#[test]
fn statistics_refilled_per_release_equal_a_whole_refresh() {
    let dir = tempfile::tempdir().unwrap();
    let (runs, manifest) = writable_runs(dir.path(), "runs");
    // Release b: the same runs again, from another folder.
    let (runs_b, _) = writable_runs(dir.path(), "runs-b");
    let mut ts = new_store();
    let ingest = |ts: &mut TestStore, release: &str, paths: &[PathBuf]| {
        let opts = liftdb::batch::IngestOptions {
            release: Some(release.into()),
            ..Default::default()
        };
        liftdb::batch::ingest(&mut ts.store, paths, &opts).unwrap();
    };
    ingest(&mut ts, "a", &[runs.clone(), manifest.clone()]);
    ingest(&mut ts, "b", &[runs_b, manifest.clone()]);
    ingest(&mut ts, "c", &[fixture("seed000-skill-eval")]);
    change_run(&runs, "enum-add-value/gpt-5-codex/without_skill/run-2");
    ingest(&mut ts, "a", &[runs.clone(), manifest.clone()]);

    let tables = ["lift_stats", "ablation_stats", "trend_stats"];
    let snapshot = |ts: &TestStore| -> Vec<Vec<serde_json::Map<String, serde_json::Value>>> {
        tables
            .iter()
            .map(|t| rows(&ts.store, &format!("SELECT * FROM {t} ORDER BY ALL")))
            .collect()
    };
    let incremental = snapshot(&ts);
    assert!(!incremental[0].is_empty() && !incremental[2].is_empty());
    let releases: Vec<_> = incremental[2]
        .iter()
        .map(|r| (r["release_label"].clone(), r["previous_release"].clone()))
        .collect();
    assert!(releases.contains(&("b".into(), "a".into())), "{releases:?}");
    let tx = ts.store.conn.unchecked_transaction().unwrap();
    liftdb::store::aggregates::refill::everything(&tx).unwrap();
    tx.commit().unwrap();
    let whole = snapshot(&ts);
    for ((table, ours), theirs) in tables.iter().zip(&incremental).zip(&whole) {
        assert_eq!(ours.len(), theirs.len(), "{table}");
        assert!(ours == theirs, "{table} differs from a whole refresh");
    }
}

/// A batch commits before its aggregates are refilled (store/aggregates/refill.rs): an
/// ingest killed between the two leaves its releases recorded as waiting,
/// and the next open, for reading or writing, refills them before anything
/// reads them. The state a kill there leaves is made by hand: aggregates
/// emptied, their releases recorded (or the record unreadable: every
/// release). The live views are the independent computation.
#[test]
fn aggregates_left_waiting_are_refilled_by_the_next_open() {
    use liftdb::store::aggregates::refill::{self, Waiting};
    let ts = corpus();
    let runs = f(&scalar(&ts.store, "SELECT count(*) FROM runs"));
    let releases: Vec<String> = rows(&ts.store, "SELECT DISTINCT release_label FROM run")
        .iter()
        .map(|r| r["release_label"].as_str().unwrap().to_string())
        .collect();
    let TestStore { _dir, db, store } = ts;
    drop(store);
    let waiting_record = [
        Some(releases),
        None, // unreadable: "every release"
    ];
    for (open, record) in [("read", &waiting_record[0]), ("write", &waiting_record[1])] {
        {
            let store = liftdb::store::open_write(&db).unwrap();
            store
                .conn
                .execute_batch(
                    "DELETE FROM run_rows; DELETE FROM lift_rows; DELETE FROM lift_stats",
                )
                .unwrap();
            match record {
                Some(labels) => refill::mark_waiting(&store.conn, labels, 1).unwrap(),
                None => refill::mark_every_waiting(&store.conn).unwrap(),
            }
            assert_ne!(refill::waiting(&store.conn).unwrap(), Waiting::Nothing);
        }
        let reopened = match open {
            "read" => liftdb::store::open_read_after_upkeep(&db).unwrap(),
            _ => liftdb::store::open_write(&db).unwrap(),
        };
        assert_eq!(
            refill::waiting(&reopened.conn).unwrap(),
            Waiting::Nothing,
            "{open}"
        );
        assert_eq!(
            f(&scalar(&reopened, "SELECT count(*) FROM run_rows")),
            runs,
            "{open}"
        );
        assert!(f(&scalar(&reopened, "SELECT count(*) FROM lift_stats")) > 0.0);
        drop(reopened);
        let writable = liftdb::store::open_write(&db).unwrap();
        assert_aggregates_current(&writable);
    }
}

/// An open that cannot finish a refill left waiting says so, without
/// claiming nothing was written, and stops no command: the store stays
/// writable, the runs are kept, the record of what waits stays, the
/// message names the command that finishes it, and the next open tries
/// again. The failure is made by hand: the statistics table of the
/// refill's last step dropped, so that step fails after the others committed.
#[test]
fn a_refill_on_open_that_fails_keeps_the_runs_and_the_record() {
    use liftdb::store::aggregates::refill::{self, Waiting};
    let ts = corpus();
    let runs = f(&scalar(&ts.store, "SELECT count(*) FROM run"));
    let TestStore { _dir, db, store } = ts;
    store
        .conn
        .execute_batch(
            "DROP TABLE ablation_stats;
             INSERT INTO refill_mark VALUES (NULL, 1, 'waiting', now()::TIMESTAMP)",
        )
        .unwrap();
    drop(store);
    // Still writable: an ingest is never refused for a refill it can redo.
    drop(liftdb::store::open_write(&db).expect("a failed refill on open stops no writer"));
    let conn = duckdb::Connection::open(&db).unwrap();
    let kept: i64 = conn
        .query_row("SELECT count(*) FROM run", [], |r| r.get(0))
        .unwrap();
    assert_eq!(kept as f64, runs);
    assert_eq!(refill::waiting(&conn).unwrap(), Waiting::Every);
    drop(conn);
    // A report tries the refill, says why it failed once, and reads on.
    let out = succeeded(liftdb_cmd(&db).args(["report", "runs", "--format", "csv"]));
    let said = String::from_utf8(out.stderr).unwrap();
    assert!(
        said.contains("wait for a refill") && said.contains("its runs are kept"),
        "{said}"
    );
    assert!(said.contains("ablation_stats"), "DuckDB's reason: {said}");
    assert!(
        said.contains("`liftdb check` does it now"),
        "the command: {said}"
    );
    assert!(!said.contains("nothing was written"), "{said}");
    assert!(!said.contains("left as it is"), "{said}");
    assert_eq!(
        said.matches("its runs are kept").count(),
        1,
        "said once: {said}"
    );
}

/// Rows of `table` that differ from `view`'s for one case of a release (both ways).
fn differing_case(db: &std::path::Path, table: &str, view: &str, release: &str, case: &str) -> i64 {
    let of = |from: &str| {
        format!("SELECT * FROM {from} WHERE release_label = '{release}' AND case_id = '{case}'")
    };
    let view = format!("{view}_in(NULL)");
    number(
        db,
        &format!(
            "SELECT count(*) FROM (({} EXCEPT ALL {}) UNION ALL ({} EXCEPT ALL {}))",
            of(table),
            of(&view),
            of(&view),
            of(table)
        ),
    )
}

/// A batch that changes a few cases of a release refills the case-grained
/// stored aggregates (`-- stored grain: case`) for those cases alone and
/// every other aggregate for the release whole: rows of another case deleted
/// by hand stay deleted in the case-grained tables, while the changed case
/// equals its view again and a release-grained table is whole again. A
/// changed manifest (the release's case definitions) refills every case.
/// The live views are the independent computation.
#[test]
fn a_batch_refills_only_the_cases_it_changed_where_a_table_is_kept_per_case() {
    let dir = tempfile::tempdir().unwrap();
    let (runs, fixture_manifest) = writable_runs(dir.path(), "runs");
    let manifest = dir.path().join("manifest.json");
    std::fs::copy(&fixture_manifest, &manifest).unwrap();
    let db = dir.path().join("s.duckdb");
    let ingest = |paths: &[&std::path::Path]| {
        liftdb_cmd(&db)
            .args(["ingest", "-q", "--release", "a"])
            .args(paths)
            .assert()
            .success();
    };
    ingest(&[&runs, &manifest]);
    // Every case-grained table the view files declare, with its view.
    let case_grained: Vec<(&str, &str)> = liftdb::store::aggregates::DERIVED
        .iter()
        .filter(|d| d.case_grained)
        .map(|d| (d.table, d.view))
        .collect();
    for table in [
        "run_rows",
        "case_flag_rows",
        "cost_per_lift_rows",
        "blocked_pair_rows",
    ] {
        assert!(
            case_grained.iter().any(|(t, _)| *t == table),
            "{table} is kept per case"
        );
    }
    let (changed, untouched) = ("enum-add-value", "fk-not-valid");
    let damage = |case: &str| -> Vec<i64> {
        case_grained
            .iter()
            .map(|(table, _)| {
                number(
                    &db,
                    &format!(
                        "DELETE FROM {table} WHERE release_label = 'a' AND case_id = '{case}'"
                    ),
                )
            })
            .collect()
    };
    let removed = damage(untouched);
    assert!(
        removed.iter().filter(|n| **n > 0).count() >= 4,
        "{removed:?}"
    );
    damage(changed);
    number(
        &db,
        "DELETE FROM lift_rows WHERE release_label = 'a' AND scope = 'case'",
    );

    change_run(&runs, &format!("{changed}/gpt-5-codex/with_skill/run-1"));
    ingest(&[&runs, &manifest]);
    for ((table, view), removed) in case_grained.iter().zip(&removed) {
        assert_eq!(
            differing_case(&db, table, view, "a", changed),
            0,
            "{table}: the changed case refilled"
        );
        let left = number(
            &db,
            &format!("SELECT count(*) FROM {table} WHERE release_label = 'a' AND case_id = '{untouched}'"),
        );
        assert_eq!(
            left, 0,
            "{table}: the untouched case's {removed} rows still gone"
        );
    }
    assert_eq!(
        differing(&db, "lift_rows", "lift", "a"),
        0,
        "lift_rows refilled whole"
    );

    // The manifest changed (a newline more): its case definitions are
    // stored anew, and every case of the release refilled.
    let mut text = std::fs::read_to_string(&manifest).unwrap();
    text.push('\n');
    std::fs::write(&manifest, text).unwrap();
    ingest(&[&runs, &manifest]);
    for (table, view) in &case_grained {
        assert_eq!(
            differing(&db, table, view, "a"),
            0,
            "{table}: refilled whole"
        );
    }
    let (code, listing) = check_listing(&db);
    assert_eq!(code, Some(0), "{listing}");
}
