//! Every other harness, ingested from the tools' real output and checked
//! against the numbers those tools wrote themselves.

use std::path::PathBuf;

use serde_json::Value;

use crate::common::{
    assert_close, f, fixture, ingest_paths, new_store, reconcile_rows, rows, scalar, sql_str,
    store_of, tool_corpora,
};

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// docs/metrics.md §M12 (A): middle value, or mean of the two middles.
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// docs/metrics.md §M12 (A): sorted[max(0, ceil(0.95 n) - 1)].
fn p95(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let i = ((0.95 * v.len() as f64).ceil() as usize).max(1) - 1;
    v[i]
}

#[test]
fn seed_handbook_runs_match_each_benchmark() {
    let root = fixture("seed000-skill-eval/runs");
    let ts = store_of(std::slice::from_ref(&root));
    for path in crate::common::seed_benchmarks() {
        let b = read_json(&path);
        let run_id = b["run_id"].as_str().unwrap();
        let batch = sql_str(run_id);
        for mode in ["with_skill", "without_skill"] {
            let m = &b[mode];
            let r = rows(
                &ts.store,
                &format!(
                    "SELECT count(*) AS total, count(*) FILTER (WHERE objective_pass_rate = 1) AS passed,
                            avg(objective_pass_rate) AS pass_rate, sum(cost_usd)::DOUBLE AS cost,
                            sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens,
                            list(elapsed_ms / 1000.0) AS durations
                     FROM runs WHERE source_format = 'A_handbook' AND native_batch = {batch} AND arm = '{mode}'"
                ),
            )
            .remove(0);
            let what = format!("{run_id} {mode}");
            assert_eq!(r["total"].as_i64(), m["total"].as_i64(), "{what} total");
            assert_eq!(r["passed"].as_i64(), m["passed"].as_i64(), "{what} passed");
            assert_close(
                f(&r["pass_rate"]),
                f(&m["pass_rate"]),
                1e-12,
                &format!("{what} pass_rate"),
            );
            let usage = &m["usage_totals"];
            assert_close(
                f(&r["cost"]),
                f(&usage["cost_usd"]),
                1e-9,
                &format!("{what} cost"),
            );
            assert_eq!(
                r["input_tokens"].as_f64(),
                usage["input_tokens"].as_f64(),
                "{what} input tokens"
            );
            assert_eq!(
                r["output_tokens"].as_f64(),
                usage["output_tokens"].as_f64(),
                "{what} output tokens"
            );
            let durations: Vec<f64> = r["durations"].as_array().unwrap().iter().map(f).collect();
            assert_close(
                median(durations.clone()),
                f(&m["median_duration_seconds"]),
                1e-9,
                &format!("{what} median"),
            );
            assert_close(
                p95(durations.clone()),
                f(&m["p95_duration_seconds"]),
                1e-9,
                &format!("{what} p95"),
            );
            assert_close(
                durations.iter().sum(),
                f(&m["duration_seconds"]),
                1e-6,
                &format!("{what} duration sum"),
            );
        }
        let lift = rows(
            &ts.store,
            &format!(
                "SELECT avg(with_rate) - avg(control_rate) AS lift,
                        avg(CASE WHEN with_rate = 1 AND control_rate = 0 THEN 1.0 ELSE 0.0 END) AS win_rate
                 FROM pairs WHERE native_batch = {batch} AND control_arm = 'without_skill' AND eligible"
            ),
        )
        .remove(0);
        assert_close(
            f(&lift["lift"]),
            f(&b["pass_rate_lift"]),
            1e-12,
            &format!("{run_id} pass_rate_lift"),
        );
        assert_close(
            f(&lift["win_rate"]),
            f(&b["paired_win_rate"]),
            1e-12,
            &format!("{run_id} paired_win_rate"),
        );
        let activation = scalar(
            &ts.store,
            &format!("SELECT avg(skill_invoked::INTEGER) FROM runs WHERE native_batch = {batch} AND arm = 'with_skill'"),
        );
        match b["activation_rate"].as_f64() {
            Some(a) => assert_close(
                f(&activation),
                a,
                1e-12,
                &format!("{run_id} activation_rate"),
            ),
            None => assert!(activation.is_null(), "{run_id} activation unavailable"),
        }
    }
}

#[test]
fn promptfoo_results_match_its_stats_and_prompt_metrics() {
    let dir = fixture("promptfoo/runs");
    let ts = store_of(std::slice::from_ref(&dir));
    let doc = read_json(&dir.join("results.json"));
    let stats = &doc["results"]["stats"];
    let outcome = rows(
        &ts.store,
        "SELECT count(*) FILTER (WHERE peer_pass) AS passed, count(*) FILTER (WHERE NOT peer_pass) AS failed,
                count(*) FILTER (WHERE NOT execution_valid) AS errors, count(*) AS n
         FROM runs WHERE source_format = 'E_promptfoo'",
    )
    .remove(0);
    assert_eq!(outcome["passed"].as_i64(), stats["successes"].as_i64());
    assert_eq!(outcome["failed"].as_i64(), stats["failures"].as_i64());
    assert_eq!(outcome["errors"].as_i64(), stats["errors"].as_i64());
    assert_eq!(
        outcome["n"].as_u64(),
        Some(doc["results"]["results"].as_array().unwrap().len() as u64)
    );

    let mut rates = std::collections::BTreeMap::new();
    for prompt in doc["results"]["prompts"].as_array().unwrap() {
        let arm = prompt["provider"].as_str().unwrap();
        let m = &prompt["metrics"];
        let r = rows(
            &ts.store,
            &format!(
                "SELECT count(*) FILTER (WHERE peer_pass) AS pass, count(*) FILTER (WHERE NOT peer_pass) AS fail,
                        avg(objective_pass_rate) AS rate, sum(cost_usd)::DOUBLE AS cost,
                        sum(total_tokens) AS total, sum(input_tokens) AS prompt, sum(output_tokens) AS completion,
                        sum(cache_read_tokens) AS cached
                 FROM runs WHERE arm = {}",
                sql_str(arm)
            ),
        )
        .remove(0);
        assert_eq!(
            r["pass"].as_i64(),
            m["testPassCount"].as_i64(),
            "{arm} passes"
        );
        assert_eq!(
            r["fail"].as_i64(),
            m["testFailCount"].as_i64(),
            "{arm} failures"
        );
        assert_close(f(&r["cost"]), f(&m["cost"]), 1e-9, &format!("{arm} cost"));
        for (ours, theirs) in [
            ("total", "total"),
            ("prompt", "prompt"),
            ("completion", "completion"),
            ("cached", "cached"),
        ] {
            assert_eq!(
                r[ours].as_f64(),
                m["tokenUsage"][theirs].as_f64(),
                "{arm} {theirs} tokens"
            );
        }
        rates.insert(arm.to_string(), f(&r["rate"]));
    }
    // The paired lift over (case, model) units equals the pass-rate difference here (balanced design).
    let lift = scalar(
        &ts.store,
        "SELECT absolute_delta FROM lift WHERE channel = 'objective' AND control_arm = 'without_skill'
           AND scope = 'overall' AND split = 'all' AND row_kind = 'experiment'",
    );
    assert_close(
        f(&lift),
        rates["with_skill"] - rates["without_skill"],
        1e-12,
        "lift",
    );
}

#[test]
fn skill_creator_runs_and_expectations_match() {
    let root = fixture("skill-creator/runs");
    let ts = store_of(std::slice::from_ref(&root));
    let gradings: Vec<PathBuf> = walkdir::WalkDir::new(root.join("workspace"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_name() == "grading.json")
        .map(|e| e.path().to_path_buf())
        .collect();
    assert_eq!(gradings.len(), 54);
    for g in &gradings {
        let doc = read_json(g);
        let run_dir = std::fs::canonicalize(g.parent().unwrap()).unwrap();
        let r = rows(
            &ts.store,
            &format!(
                "SELECT r.objective_pass_rate, r.source_format,
                        (SELECT count(*) FROM assertion_result a WHERE a.grading_id = r.grading_id) AS expectations,
                        (SELECT count(*) FILTER (WHERE passed) FROM assertion_result a WHERE a.grading_id = r.grading_id) AS met
                 FROM runs r WHERE run_dir = {}",
                sql_str(&run_dir.display().to_string())
            ),
        )
        .remove(0);
        assert_eq!(
            r["source_format"].as_str(),
            Some("C_seh"),
            "a seh run folder stays one"
        );
        assert_close(
            f(&r["objective_pass_rate"]),
            f(&doc["summary"]["pass_rate"]),
            1e-12,
            "pass_rate",
        );
        let expectations = doc["expectations"].as_array().unwrap();
        assert_eq!(r["expectations"].as_u64(), Some(expectations.len() as u64));
        let met = expectations.iter().filter(|e| e["passed"] == true).count();
        assert_eq!(r["met"].as_u64(), Some(met as u64));
    }
    // benchmark.json runs[]: the export drops the model, so compare multisets.
    let bench = read_json(&root.join("benchmark.json"));
    let mut theirs: Vec<(String, String, i64, String)> = bench["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["eval_id"].as_str().unwrap().to_string(),
                r["configuration"].as_str().unwrap().to_string(),
                r["run_number"].as_i64().unwrap(),
                format!("{:.4}", f(&r["result"]["pass_rate"])),
            )
        })
        .collect();
    let mut ours: Vec<(String, String, i64, String)> = rows(
        &ts.store,
        "SELECT case_id, arm, repetition, objective_pass_rate FROM runs",
    )
    .into_iter()
    .map(|r| {
        (
            r["case_id"].as_str().unwrap().to_string(),
            r["arm"].as_str().unwrap().to_string(),
            r["repetition"].as_i64().unwrap(),
            format!("{:.4}", f(&r["objective_pass_rate"])),
        )
    })
    .collect();
    theirs.sort();
    ours.sort();
    assert_eq!(ours, theirs);
    let skill = scalar(&ts.store, "SELECT DISTINCT skill_name FROM runs");
    assert_eq!(skill.as_str(), bench["metadata"]["skill_name"].as_str());
}

#[test]
fn one_ingest_of_all_corpora_detects_every_format() {
    // The harness corpora in one call (tests/fixtures/bad/ is not one);
    // skill-creator/ is seh runs with the harness's skill-creator shaped
    // files, skill-creator-anthropic/ Anthropic's own scripts' output.
    let ts = store_of(&tool_corpora());
    let formats: Vec<String> = rows(
        &ts.store,
        "SELECT source_format, count(*) AS n FROM runs GROUP BY 1 ORDER BY 1",
    )
    .into_iter()
    .map(|r| r["source_format"].as_str().unwrap().to_string())
    .collect();
    assert_eq!(
        formats,
        ["A_handbook", "C_seh", "D_skill_creator", "E_promptfoo"]
    );
    let files: Vec<String> = rows(
        &ts.store,
        "SELECT DISTINCT source_format FROM source_file ORDER BY 1",
    )
    .into_iter()
    .map(|r| r["source_format"].as_str().unwrap().to_string())
    .collect();
    assert_eq!(
        files,
        ["A_handbook", "C_seh", "D_skill_creator", "E_promptfoo"]
    );
}

#[test]
fn an_undetectable_file_given_explicitly_is_an_error_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mystery.json");
    std::fs::write(&path, r#"{"hello": "world"}"#).unwrap();
    let mut ts = new_store();
    let summary = ingest_paths(&mut ts, &[path]);
    assert_eq!(summary.errors.len(), 1);
    assert_eq!(summary.errors[0].stage, "detect");
    assert!(summary.errors[0]
        .reason
        .contains("expected a skill-eval-harness manifest"));
}

#[test]
fn a_partial_handbook_tree_without_benchmark_still_ingests() {
    // After an adapter failure the harness writes no benchmark.json.
    let dir = tempfile::tempdir().unwrap();
    let src = fixture("seed000-skill-eval/runs/tmp/skills-eval/corpus-claude-sonnet-4-5-single");
    for entry in walkdir::WalkDir::new(&src)
        .into_iter()
        .filter_map(Result::ok)
    {
        let target = dir
            .path()
            .join("corpus-x")
            .join(entry.path().strip_prefix(&src).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else if entry.file_name() != "benchmark.json" {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
    let ts = store_of(&[dir.path().to_path_buf()]);
    let n = scalar(
        &ts.store,
        "SELECT count(*) FROM runs WHERE source_format = 'A_handbook' AND model IS NULL",
    );
    assert_eq!(n.as_i64(), Some(14));
    assert_eq!(
        scalar(&ts.store, "SELECT count(*) FROM peer_metric").as_i64(),
        Some(0)
    );
}

/// No Agent Skill Evals or run_eval.py output exists among the corpora, so
/// these two are exercised on small files shaped exactly as docs/harnesses.md §B and
/// §D describe them.
#[test]
fn agent_skill_evals_rows_follow_their_evidence_and_skill_creator_trigger_evals_load() {
    let dir = tempfile::tempdir().unwrap();
    let evidence = dir.path().join("evidence.json");
    std::fs::write(
        &evidence,
        serde_json::json!({
            "schemaVersion": "agent-skill-evals.evidence.v2", "output": "done",
            "commands": [{"command": "codex", "args": ["exec", "x"], "exitCode": 0, "durationMs": 0, "startedAt": 1}],
            "toolCalls": [{"tool": "read_file", "args": {"path": "SKILL.md"}, "durationMs": 12, "startedAt": 2}],
            "filesWritten": [{"path": "review.md", "op": "create"}],
            "skillsLoaded": [{"skill": "sql-migration-review", "delivery": "mcp", "startedAt": 3}],
            "usage": {"inputTokens": 100, "outputTokens": 20, "totalTokens": 120}
        })
        .to_string(),
    )
    .unwrap();
    let row = |label: &str, idx: i64, success: bool| {
        serde_json::json!({
            "id": format!("r{idx}"), "testIdx": idx, "promptIdx": 0, "success": success, "score": 1, "cost": 0, "latencyMs": 0,
            "provider": {"id": "file://agent.js", "label": label},
            "vars": {"mode": "routing", "expect": [{"skill.loaded": "sql-migration-review"}], "prompt": "review this migration"},
            "testCase": {"description": "routes-migration", "metadata": {"agentSkillEvals": {"mode": "routing", "skill": "sql-migration-review"}},
                         "assert": [{"type": "javascript", "metric": "skill.test"}]},
            "response": {"output": "done", "tokenUsage": {"total": 120, "prompt": 100, "completion": 20},
                         "metadata": {"evidencePath": evidence.display().to_string(), "preconditionsPassed": true, "durationMs": 900}},
            "gradingResult": {"pass": success, "score": 1, "componentResults": [{"pass": success, "score": 1, "reason": "1 check(s) passed"}]}
        })
    };
    let results = serde_json::json!({
        "evalId": "eval-b", "config": {"description": "routing pack"},
        "results": {"version": 3, "results": [row("codex-real-agent", 0, true)], "prompts": [], "stats": {"successes": 1, "failures": 0, "errors": 0}}
    });
    std::fs::write(dir.path().join("results.json"), results.to_string()).unwrap();
    std::fs::write(
        dir.path().join("trigger-eval.json"),
        serde_json::json!({"skill_name": "sql-migration-review", "description": "d",
            "results": [{"query": "review my migration", "should_trigger": true, "trigger_rate": 0.67, "triggers": 2, "runs": 3, "pass": true}],
            "summary": {"total": 1, "passed": 1, "failed": 0}})
        .to_string(),
    )
    .unwrap();

    let ts = store_of(&[dir.path().to_path_buf()]);
    let run = rows(&ts.store, "SELECT * FROM runs").remove(0);
    assert_eq!(run["source_format"].as_str(), Some("B_skill_evals"));
    assert_eq!(run["skill_name"].as_str(), Some("sql-migration-review"));
    assert_eq!(
        run["skill_invoked"].as_bool(),
        Some(true),
        "MCP load observed in evidence.json"
    );
    assert!(
        run["cost_usd"].is_null(),
        "row cost 0 is 'not reported', not free"
    );
    assert_eq!(run["elapsed_ms"].as_f64(), Some(900.0));
    let events: Vec<String> = rows(&ts.store, "SELECT event_type FROM trace_event ORDER BY seq")
        .into_iter()
        .map(|r| r["event_type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(events, ["command", "tool_call", "file_write"]);
    assert!(scalar(
        &ts.store,
        "SELECT duration_ms FROM trace_event WHERE event_type = 'command'"
    )
    .is_null());
    let trig = rows(
        &ts.store,
        "SELECT * FROM trigger_observation ORDER BY evidence_class",
    );
    assert_eq!(trig.len(), 2);
    assert_eq!(trig[0]["should_trigger"].as_bool(), Some(true));
    assert_eq!(trig[0]["triggered"].as_bool(), Some(true));
    assert_eq!(
        trig[1]["runs"].as_i64(),
        Some(3),
        "run_eval.py rows are pre-aggregated"
    );
    assert_eq!(trig[1]["triggered_runs"].as_i64(), Some(2));
}

#[test]
fn handbook_cache_read_tokens_are_kept() {
    // The Anthropic usage block reports cache reads as
    // cache_read_input_tokens; a handbook run whose response.json carries
    // them keeps them in the cost ledger (the value written here).
    let dir = tempfile::tempdir().unwrap();
    let src = fixture("seed000-skill-eval/runs/tmp/skills-eval/corpus-claude-sonnet-4-5-single");
    crate::common::copy_tree(&src, &dir.path().join("corpus-cache"));
    let response = dir
        .path()
        .join("corpus-cache/sql-migration-review/iteration-1/eval-3/with_skill/response.json");
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&response).unwrap()).unwrap();
    doc["usage"]["cache_read_input_tokens"] = serde_json::json!(640);
    std::fs::write(&response, doc.to_string()).unwrap();
    let ts = store_of(&[dir.path().to_path_buf()]);
    let cached = crate::common::rows(
        &ts.store,
        "SELECT run_dir, cache_read_tokens FROM cost_ledger WHERE cache_read_tokens IS NOT NULL",
    );
    assert_eq!(cached.len(), 1, "{cached:?}");
    assert!(cached[0]["run_dir"]
        .as_str()
        .unwrap()
        .ends_with("eval-3/with_skill"));
    assert_eq!(cached[0]["cache_read_tokens"].as_f64(), Some(640.0));
}

#[test]
fn a_promptfoo_error_row_keeps_its_providers_model() {
    // A provider error leaves a row without a response, so without the
    // model the response names; it keeps the model its provider's other
    // rows report (claude-sonnet-4-5 on every row of this corpus file).
    let dir = tempfile::tempdir().unwrap();
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(fixture("promptfoo/runs/results.json")).unwrap())
            .unwrap();
    let row = &mut doc["results"]["results"][0];
    row["response"] = serde_json::Value::Null;
    row["error"] = serde_json::json!("provider timed out");
    row["success"] = serde_json::json!(false);
    if let Some(m) = row["metadata"].as_object_mut() {
        m.remove("model");
    }
    let label = row["provider"]["label"].as_str().unwrap().to_string();
    std::fs::write(dir.path().join("results.json"), doc.to_string()).unwrap();
    let ts = store_of(&[dir.path().join("results.json")]);
    let models = crate::common::rows(
        &ts.store,
        &format!(
            "SELECT model, model_source, count(*) AS n FROM run WHERE arm = {} GROUP BY ALL ORDER BY ALL",
            crate::common::sql_str(&label)
        ),
    );
    let got: Vec<(Option<&str>, Option<&str>, i64)> = models
        .iter()
        .map(|r| {
            (
                r["model"].as_str(),
                r["model_source"].as_str(),
                r["n"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (Some("claude-sonnet-4-5"), Some("provider"), 1),
            (Some("claude-sonnet-4-5"), Some("runtime"), 29)
        ]
    );
}

#[test]
fn reconcile_over_every_corpus_in_one_call_agrees_or_names_its_definition() {
    // The five tool corpora in one call: seh runs in two runs roots of one
    // release (eval-runs/ and skill-creator's workspace/ copy), the
    // harness's export-anthropic benchmark.json beside that copy, and
    // Anthropic's own skill-creator output. Each reconciled report is
    // compared over the runs it describes, by its writer's definition.
    let ts = store_of(&tool_corpora());
    let all = reconcile_rows(&ts.store);
    let disagreeing: Vec<&serde_json::Value> = all.iter().filter(|r| r["agrees"] != true).collect();
    assert!(disagreeing.is_empty(), "{disagreeing:#?}");
    // Every kind of report is among them.
    for name in [
        "cost-summary.json",
        "token-overhead.json.gz",
        "benchmark-tune.json.gz",
        "results.json",
        "trigger-matrix-stub.json",
        "run_eval-v1.json",
    ] {
        assert!(all.iter().any(|r| r["report"] == name), "no row for {name}");
    }
    // The export's stats follow its own definition and say so; its runs are
    // the 27 per configuration it lists (README: 3 cases x 3 models x 3 runs).
    let export: Vec<&serde_json::Value> = all
        .iter()
        .filter(|r| r["report"] == "benchmark.json" && r["folder"] == "runs")
        .collect();
    assert!(export
        .iter()
        .filter(|r| r["metric"].as_str().unwrap().starts_with("/run_summary/"))
        .all(|r| r["definition"]
            .as_str()
            .unwrap()
            .starts_with("export-anthropic")));
    let listed = export
        .iter()
        .find(|r| r["metric"] == "runs of with_skill")
        .unwrap();
    assert_eq!(
        (f(&listed["tool_value"]), f(&listed["liftdb_value"])),
        (27.0, 27.0)
    );
}

/// Release r2 of tests/fixtures/seh-trend-shapes: another suite's report
/// (its runs root also named eval-runs) defining 200 runs, then, when
/// `with_tree`, r2's tree from its folders; then the tool's cost summary and
/// token overhead of that tree. The store and the two reports' paths.
fn folder_reports_beside_another_report(
    with_tree: bool,
) -> (
    crate::common::TestStore,
    Vec<tempfile::TempDir>,
    [PathBuf; 2],
) {
    let shapes = fixture("seh-trend-shapes");
    let reports = [
        shapes.join("r2/cost-summary.json.gz"),
        shapes.join("r2/token-overhead.json.gz"),
    ];
    let mut ts = new_store();
    let opts = liftdb::batch::IngestOptions {
        release: Some("r2".into()),
        ..Default::default()
    };
    let mut ingest = |paths: &[PathBuf]| {
        let summary = liftdb::batch::ingest(&mut ts.store, paths, &opts).unwrap();
        assert!(summary.errors.is_empty(), "{:?}", summary.errors);
    };
    ingest(&[shapes.join("other/benchmark.json.gz")]);
    let mut dirs = Vec::new();
    let mut paths = reports.to_vec();
    if with_tree {
        let (dir, tree) = crate::common::gen_runs_tree(
            &[
                "--runs",
                "400",
                "--models",
                "claude-a,gpt-b",
                "--reps",
                "2",
                "--seed",
                "5",
            ],
            &shapes.join("r2/tree.sha256"),
        );
        paths.extend([tree.join("eval-runs"), tree.join("manifest.json")]);
        dirs.push(dir);
    }
    ingest(&paths);
    (ts, dirs, reports)
}

#[test]
fn a_folder_report_is_compared_with_the_runs_on_disk_not_runs_another_report_defined() {
    // The cost summary and token overhead read r2's tree (400 runs); the
    // release also holds 200 runs another report defined, in an experiment
    // of the same name. Each report is compared with its own runs: the
    // figures are the files' own, read here.
    let (ts, _dirs, [cost, tokens]) = folder_reports_beside_another_report(true);
    let all = reconcile_rows(&ts.store);
    let rows_of = |path: &PathBuf| -> Vec<&Value> {
        let name = path.file_name().unwrap().to_str().unwrap();
        all.iter().filter(|r| r["report"] == name).collect()
    };
    let (cost_rows, token_rows) = (rows_of(&cost), rows_of(&tokens));
    assert!(!cost_rows.is_empty() && !token_rows.is_empty(), "{all:#?}");
    let disagreeing: Vec<&&Value> = cost_rows
        .iter()
        .chain(&token_rows)
        .filter(|r| r["agrees"] != true)
        .collect();
    assert!(disagreeing.is_empty(), "{disagreeing:#?}");
    let ours = |rows: &[&Value], metric: &str| -> f64 {
        f(&rows
            .iter()
            .find(|r| r["metric"] == metric)
            .unwrap_or_else(|| panic!("{metric}"))["liftdb_value"])
    };
    let summary = crate::common::read_report(&cost);
    assert_eq!(
        ours(&cost_rows, "/coverage/runs_seen"),
        f(&summary["coverage"]["runs_seen"])
    );
    for arm in ["with_skill", "without_skill"] {
        let metric = format!("/by_variant/{arm}/runs");
        assert_eq!(
            ours(&cost_rows, &metric),
            f(&summary["by_variant"][arm]["runs"]),
            "{arm}"
        );
    }
    let overhead = crate::common::read_report(&tokens);
    let listed = &overhead["reports"][0]["summary"];
    for delta in ["cost_delta_usd", "total_token_delta"] {
        for stat in ["n", "mean"] {
            let metric = format!("/reports/0/summary/{delta}/{stat}");
            assert_close(
                ours(&token_rows, &metric),
                f(&listed[delta][stat]),
                1e-12,
                &metric,
            );
        }
    }
}

#[test]
fn a_folder_report_whose_runs_are_not_held_says_so_in_one_row() {
    // The same reports with no run of their tree read from its folders: one
    // row each says so (the runs or pairs the file lists as tool_value, no
    // value of liftdb's), instead of figures over another report's runs.
    let (ts, _dirs, [cost, tokens]) = folder_reports_beside_another_report(false);
    let all = reconcile_rows(&ts.store);
    for (path, tool) in [
        (
            &cost,
            f(&crate::common::read_report(&cost)["coverage"]["runs_seen"]),
        ),
        (
            &tokens,
            crate::common::read_report(&tokens)["reports"][0]["pairs"]
                .as_array()
                .unwrap()
                .len() as f64,
        ),
    ] {
        let name = path.file_name().unwrap().to_str().unwrap();
        let rows: Vec<&Value> = all.iter().filter(|r| r["report"] == name).collect();
        assert_eq!(rows.len(), 1, "{rows:#?}");
        assert!(rows[0]["liftdb_value"].is_null(), "{rows:#?}");
        assert_eq!(f(&rows[0]["tool_value"]), tool, "{name}");
        let definition = rows[0]["definition"].as_str().unwrap();
        assert!(
            definition.starts_with("not in the store") && definition.contains("eval-runs"),
            "{definition}"
        );
    }
}

#[test]
fn a_cost_summary_counts_the_runs_on_disk_of_the_cases_it_walked() {
    // tests/fixtures/seh-cost-shapes: one arm's folder removed before the
    // tool read the tree (liftdb records that requested variant as a
    // missing run, as the benchmark grades it; the cost summary never saw
    // it), a summary over a manifest of 4 of the cases, and one run with
    // `--runs .`. Each agrees, at the figures the files hold (read here).
    let shapes = fixture("seh-cost-shapes");
    let (_dir, tree) = crate::common::gen_runs_tree(
        &[
            "--runs", "40", "--models", "claude-a", "--reps", "2", "--seed", "7",
        ],
        &shapes.join("tree.sha256"),
    );
    std::fs::remove_dir_all(tree.join("eval-runs/add-not-null-column-000000/claude-a/with_skill"))
        .unwrap();
    let reports = [
        "cost-summary.json",
        "cost-summary-subset.json",
        "cost-summary-dot.json",
    ];
    let mut paths = vec![tree.join("eval-runs"), tree.join("manifest.json")];
    paths.extend(reports.iter().map(|r| shapes.join(r)));
    let ts = store_of(&paths);
    let all = reconcile_rows(&ts.store);
    for report in reports {
        let rows: Vec<&Value> = all.iter().filter(|r| r["report"] == report).collect();
        let bad: Vec<&&Value> = rows.iter().filter(|r| r["agrees"] != true).collect();
        assert!(!rows.is_empty() && bad.is_empty(), "{report}: {bad:#?}");
        let file = read_json(&shapes.join(report));
        let ours =
            |metric: &str| f(&rows.iter().find(|r| r["metric"] == metric).unwrap()["liftdb_value"]);
        assert_eq!(
            ours("/coverage/runs_seen"),
            f(&file["coverage"]["runs_seen"]),
            "{report}"
        );
        for arm in ["with_skill", "without_skill"] {
            let metric = format!("/by_variant/{arm}/runs");
            assert_eq!(
                ours(&metric),
                f(&file["by_variant"][arm]["runs"]),
                "{report} {arm}"
            );
        }
    }
}

#[test]
fn promptfoo_incurred_cost_and_error_rows_are_read_as_promptfoo_counts_them() {
    // tests/fixtures/promptfoo-cached/README.md: cached answers carry
    // incurredCost 0 beside their cost, one provider error row.
    let results = fixture("promptfoo-cached/runs/results.json");
    let doc = read_json(&results);
    let ts = store_of(std::slice::from_ref(&results));
    // Per row: what it spent is its incurredCost, else its cost.
    let ours: std::collections::HashMap<String, (Option<f64>, Option<f64>)> = rows(
        &ts.store,
        "SELECT run_dir, cost_amount::DOUBLE AS cost, incurred_cost_amount::DOUBLE AS incurred FROM cost_ledger_compat",
    )
    .into_iter()
    .map(|r| {
        let id = r["run_dir"].as_str().unwrap().rsplit('#').next().unwrap().to_string();
        (id, (r["cost"].as_f64(), r["incurred"].as_f64()))
    })
    .collect();
    let rows_of_file = doc["results"]["results"].as_array().unwrap();
    let cached = rows_of_file
        .iter()
        .filter(|r| r.get("incurredCost").is_some())
        .count();
    assert!(cached > 0, "the fixture has cached rows");
    for row in rows_of_file {
        let (cost, incurred) = ours[row["id"].as_str().unwrap()];
        let theirs_cost = row["cost"].as_f64().filter(|c| *c > 0.0);
        assert_eq!(cost, theirs_cost, "{}", row["id"]);
        let theirs_incurred = row["incurredCost"].as_f64().or(theirs_cost);
        assert_eq!(incurred, theirs_incurred, "{}", row["id"]);
    }
    // Reconcile: prompt totals and the error count as promptfoo reports them.
    let all = reconcile_rows(&ts.store);
    for (metric, expected) in [
        ("/stats/errors", &doc["results"]["stats"]["errors"]),
        ("/stats/failures", &doc["results"]["stats"]["failures"]),
        (
            "/prompts/0/metrics/incurredCost",
            &doc["results"]["prompts"][0]["metrics"]["incurredCost"],
        ),
        (
            "/prompts/1/metrics/cost",
            &doc["results"]["prompts"][1]["metrics"]["cost"],
        ),
    ] {
        let row = all
            .iter()
            .find(|r| r["metric"] == metric)
            .unwrap_or_else(|| panic!("no reconcile row {metric}"));
        assert_close(f(&row["liftdb_value"]), f(expected), 1e-9, metric);
        assert_eq!(row["agrees"], true, "{row}");
    }
    assert!(f(&doc["results"]["stats"]["errors"]) > 0.0);
}

#[test]
fn promptfoo_skill_used_assertions_are_trigger_observations() {
    // tests/fixtures/promptfoo-cached/README.md: skill-used / not-skill-used
    // assertions graded by promptfoo on the provider's metadata.skillCalls.
    // Expected: the file's own verdicts, tallied per provider and polarity.
    let results = fixture("promptfoo-cached/runs/results.json");
    let doc = read_json(&results);
    let ts = store_of(std::slice::from_ref(&results));
    let mut theirs: std::collections::BTreeMap<(String, &str), (u32, u32, u32)> =
        Default::default();
    for row in doc["results"]["results"].as_array().unwrap() {
        let components = row["gradingResult"]["componentResults"].as_array();
        for c in components.into_iter().flatten() {
            let should = match c["assertion"]["type"].as_str() {
                Some("skill-used") => true,
                Some("not-skill-used") => false,
                _ => continue,
            };
            let pass = c["pass"].as_bool().unwrap();
            let polarity = if should {
                "should fire"
            } else {
                "should not fire"
            };
            let label = row["provider"]["label"].as_str().unwrap().to_string();
            let cell = theirs.entry((label, polarity)).or_default();
            cell.0 += 1;
            cell.1 += u32::from(pass == should);
            cell.2 += u32::from(pass);
        }
    }
    assert_eq!(
        theirs.len(),
        4,
        "two providers x two polarities: {theirs:?}"
    );
    for ((agent, polarity), (n, fired, passed)) in &theirs {
        let ours = rows(
            &ts.store,
            &format!(
                "SELECT observations, triggered, pass_rate, incomplete FROM trigger_rates
                 WHERE agent = {} AND polarity = {} AND scope = 'polarity'",
                sql_str(agent),
                sql_str(polarity)
            ),
        );
        assert_eq!(ours.len(), 1, "{agent} {polarity}: {ours:?}");
        assert_eq!(f(&ours[0]["observations"]), f64::from(*n));
        assert_eq!(f(&ours[0]["triggered"]), f64::from(*fired));
        assert_close(
            f(&ours[0]["pass_rate"]),
            f64::from(*passed) / f64::from(*n),
            5e-5,
            "pass_rate (4 places)",
        );
        assert_eq!(f(&ours[0]["incomplete"]), 0.0);
    }
    // A run's skill loaded when its provider reports a call of it that did not fail.
    let invoked = rows(
        &ts.store,
        "SELECT run_dir, skill_invoked FROM runs WHERE skill_invoked IS NOT NULL",
    );
    let by_id: std::collections::HashMap<String, bool> = invoked
        .into_iter()
        .map(|r| {
            let id = r["run_dir"]
                .as_str()
                .unwrap()
                .rsplit('#')
                .next()
                .unwrap()
                .to_string();
            (id, r["skill_invoked"].as_bool().unwrap())
        })
        .collect();
    let mut checked = 0;
    for row in doc["results"]["results"].as_array().unwrap() {
        let Some(calls) = row["response"]["metadata"]["skillCalls"].as_array() else {
            continue;
        };
        let called = calls
            .iter()
            .any(|c| c["name"] == "sql-migration-review" && c["is_error"] != true);
        assert_eq!(by_id[row["id"].as_str().unwrap()], called, "{}", row["id"]);
        checked += 1;
    }
    assert!(checked > 60, "{checked}");
}

#[test]
fn promptfoo_trace_spans_become_their_runs_trace_events() {
    // tests/fixtures/promptfoo-cached/README.md: written with tracing on,
    // results.json's traces[] holds each row's spans under the row's traceId.
    let results = fixture("promptfoo-cached/runs/results.json");
    let doc = read_json(&results);
    let ts = store_of(std::slice::from_ref(&results));
    let row_of_trace: std::collections::HashMap<&str, &str> = doc["results"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["traceId"].as_str().unwrap(), r["id"].as_str().unwrap()))
        .collect();
    let traces = doc["traces"].as_array().unwrap();
    assert!(!traces.is_empty());
    for trace in traces {
        let row_id = row_of_trace[trace["traceId"].as_str().unwrap()];
        let mut theirs: Vec<(String, String)> = trace["spans"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let status = match s["statusCode"].as_i64() {
                    Some(1) => "ok",
                    Some(2) => "error",
                    _ => "unset",
                };
                (s["name"].as_str().unwrap().to_string(), status.to_string())
            })
            .collect();
        theirs.sort();
        let ours: Vec<(String, String)> = rows(
            &ts.store,
            &format!(
                "SELECT e.name, e.status FROM trace_event e JOIN run r USING (run_id)
                 WHERE r.run_dir LIKE {} ORDER BY ALL",
                sql_str(&format!("%#{row_id}"))
            ),
        )
        .into_iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_string(),
                r["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
        assert_eq!(ours, theirs, "row {row_id}");
    }
}

/// The held-out shape: an export of a single-model runs root beside two
/// other roots holding the same (case, arm, run) for three models, every
/// tool corpus in the same call. Reconcile finds the export's runs by what
/// it says: one run per triple it lists, the rates it gives
/// (tests/fixtures/seh-single-model-export/README.md); 0 disagreeing rows.
#[test]
fn an_export_of_one_models_root_reconciles_beside_roots_of_three() {
    let mut paths = tool_corpora();
    paths.push(fixture("seh-single-model-export"));
    let ts = store_of(&paths);
    let all = reconcile_rows(&ts.store);
    let disagreeing: Vec<&serde_json::Value> = all.iter().filter(|r| r["agrees"] != true).collect();
    assert!(disagreeing.is_empty(), "{disagreeing:#?}");
    let export = read_json(&fixture("seh-single-model-export/runs/benchmark.json"));
    let listed = export["runs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["configuration"] == "with_skill")
        .count() as f64;
    let row = all
        .iter()
        .find(|r| {
            r["report"] == "benchmark.json"
                && r["folder"] == "runs"
                && r["metric"] == "runs of with_skill"
                && r["tool_value"].as_f64() == Some(listed)
        })
        .expect("the single-model export's row");
    assert_eq!(f(&row["liftdb_value"]), listed);
}
