//! A run is its identity (release, experiment, shard, skill, case, model,
//! arm, repetition), never the path it was read from. Specs on the shapes a
//! team makes every day (docs/guide.md "What a run is"): one folder re-used
//! for each release, on a file store and on a lake read by one host; matrix
//! jobs checking out at one path, each its own tree, into one lake at once.
//! After each step: every release holds the runs its tree had (counted on
//! disk), no identity is held twice, no content twice in one release, and
//! `liftdb check` passes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{check_listing, liftdb_cmd};
use crate::lake::{ok, walk_runs, TestLake};

/// Write a new gen-runs tree of `runs` runs at `at`, as a harness re-run
/// writes its folder anew: its runs root `eval-runs` and `manifest.json`.
pub fn harness_run(at: &Path, runs: usize, seed: u64) {
    if at.exists() {
        std::fs::remove_dir_all(at).unwrap();
    }
    let made = Command::new(assert_cmd::cargo::cargo_bin("gen-runs"))
        .args(["--runs", &runs.to_string(), "--seed", &seed.to_string()])
        .arg("--out")
        .arg(at)
        .output()
        .unwrap();
    assert!(made.status.success(), "gen-runs: {made:?}");
}

fn ingest_args(at: &Path, release: &str) -> Vec<std::ffi::OsString> {
    vec![
        "ingest".into(),
        "--json".into(),
        "--release".into(),
        release.into(),
        at.join("eval-runs").into(),
        at.join("manifest.json").into(),
    ]
}

fn summary(out: &Output, what: &str) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{what}: exit {:?}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// What every step must leave: each release its tree's runs, no identity
/// twice, no content twice under one release. `count` answers one query's
/// single number from the store.
pub fn assert_each_run_once(count: &dyn Fn(&str) -> i64, expected: &[(&str, i64)], step: &str) {
    for (release, runs) in expected {
        assert_eq!(
            count(&format!(
                "SELECT count(*) FROM run WHERE release_label = '{release}'"
            )),
            *runs,
            "{step}: release {release} holds its tree's runs"
        );
    }
    assert_eq!(
        count("SELECT count(*) - count(DISTINCT run_id) FROM run"),
        0,
        "{step}: an identity held twice"
    );
    assert_eq!(
        count(
            "SELECT count(*) FROM (SELECT release_label, content_sha256 FROM run
             WHERE content_sha256 IS NOT NULL GROUP BY ALL HAVING count(*) > 1)"
        ),
        0,
        "{step}: the same content twice in one release"
    );
    assert_eq!(
        count(
            "SELECT count(*) FROM (SELECT 1 FROM source_file
             GROUP BY path, owner_key, release_label, shard HAVING count(*) > 1)"
        ),
        0,
        "{step}: a file row held twice"
    );
}

/// One number from a file store.
fn file_count(db: &Path) -> impl Fn(&str) -> i64 + '_ {
    move |sql: &str| {
        crate::common::sql_column(db, sql)[0]
            .trim()
            .parse()
            .unwrap()
    }
}

/// The usual eval-runs folder, written anew by the harness for each release
/// and ingested under each release's label: no release loses a run, each
/// holds exactly its tree's. The same tree under a new label stores
/// nothing and names `release rename`; a run changed in place replaces its
/// own release's run only.
#[test]
fn a_folder_reused_for_three_releases_keeps_every_release() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.duckdb");
    let at = dir.path().join("eval-runs-folder");
    let count = file_count(&db);
    let mut expected: Vec<(&str, i64)> = Vec::new();
    for (seed, release) in [(11, "r1"), (12, "r2"), (13, "r3")] {
        harness_run(&at, 120, seed);
        let runs = walk_runs(&at.join("eval-runs"));
        let out = liftdb_cmd(&db)
            .args(ingest_args(&at, release))
            .output()
            .unwrap();
        let s = summary(&out, release);
        assert_eq!(
            s["units_replaced"], 0,
            "{release}: nothing of another release replaced: {s}"
        );
        expected.push((release, runs));
        assert_each_run_once(&count, &expected, release);
        let (code, listing) = check_listing(&db);
        assert_eq!(code, Some(0), "{release}: {listing}");
    }

    // The same tree under a new label: the relabel case, nothing stored.
    let out = liftdb_cmd(&db)
        .args(ingest_args(&at, "r4"))
        .output()
        .unwrap();
    let s = summary(&out, "r4");
    assert_eq!(s["runs_stored_in"], serde_json::json!(["r3"]), "{s}");
    assert_eq!(
        count("SELECT count(*) FROM run WHERE release_label = 'r4'"),
        0
    );

    // A run of r3 changed in place: r3's run replaced, r1's and r2's kept.
    let metrics = walkdir::WalkDir::new(at.join("eval-runs"))
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.file_name() == "metrics.json")
        .unwrap()
        .into_path();
    let text = std::fs::read_to_string(&metrics).unwrap();
    std::fs::write(&metrics, text.replacen('{', "{\"note\": \"edited\", ", 1)).unwrap();
    let out = liftdb_cmd(&db)
        .args(ingest_args(&at, "r3"))
        .output()
        .unwrap();
    let s = summary(&out, "r3 again");
    assert_eq!(s["units_replaced"], 1, "{s}");
    assert_each_run_once(&count, &expected, "r3 changed in place");
    let (code, listing) = check_listing(&db);
    assert_eq!(code, Some(0), "{listing}");
}

/// The same on a lake, every ingest from one host (a self-hosted runner, or
/// `LIFTDB_HOST` fixed as the guide suggests for containers).
#[test]
fn a_folder_reused_for_three_releases_keeps_every_release_on_a_lake() {
    let dir = tempfile::tempdir().unwrap();
    let lake = TestLake::new("reused");
    let at = dir.path().join("eval-runs-folder");
    let count = |sql: &str| lake.count(sql);
    let mut expected: Vec<(&str, i64)> = Vec::new();
    for (seed, release) in [(21, "r1"), (22, "r2"), (23, "r3")] {
        harness_run(&at, 120, seed);
        let runs = walk_runs(&at.join("eval-runs"));
        let out = lake
            .liftdb()
            .env("LIFTDB_HOST", "self-hosted-runner")
            .args(ingest_args(&at, release))
            .output()
            .unwrap();
        let s = summary(&out, release);
        assert_eq!(s["units_replaced"], 0, "{release}: {s}");
        expected.push((release, runs));
        assert_each_run_once(&count, &expected, release);
        ok(lake.liftdb().arg("check").output().unwrap(), release);
    }
}

/// Where the mount namespaces are made: each job sees its own tree at
/// `at`, as every GitHub runner checks a repository out at one path; its
/// ingest (release `matrix`, shard job-N, `--json`) takes `extra` too. The
/// process is the ingest itself once the mount is made (`exec`).
pub fn job_at(tree: &Path, at: &Path, lake: &TestLake, job: usize, extra: &[&str]) -> Command {
    let ingest = lake.liftdb();
    let mut line: Vec<String> = vec![ingest.get_program().to_string_lossy().into_owned()];
    line.extend(ingest.get_args().map(|a| a.to_string_lossy().into_owned()));
    line.extend(
        [
            "ingest",
            "--json",
            "--release",
            "matrix",
            "--shard",
            &format!("job-{job}"),
        ]
        .map(str::to_string),
    );
    line.extend(extra.iter().map(|a| a.to_string()));
    line.push(at.join("eval-runs").display().to_string());
    line.push(at.join("manifest.json").display().to_string());
    let quoted: Vec<String> = line
        .iter()
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect();
    let script = format!(
        "mount --bind '{}' '{}' && exec {}",
        tree.display(),
        at.display(),
        quoted.join(" ")
    );
    let mut cmd = Command::new("unshare");
    cmd.args(["--mount", "--propagation", "private", "sh", "-c", &script]);
    for (key, value) in ingest.get_envs() {
        match value {
            Some(v) => cmd.env(key, v),
            None => cmd.env_remove(key),
        };
    }
    cmd.env("LIFTDB_HOST", format!("runner-{job}"));
    cmd
}

/// Four matrix jobs, each on its own runner with its own tree (a shard of
/// one suite by repetition) at the same checkout path, started together
/// into one lake: every job lands on its
/// first try (no job meets another's runs, so none says it did), every run
/// once, and `check` passes.
#[test]
fn matrix_jobs_at_one_checkout_path_land_once_without_retries() {
    let dir = tempfile::tempdir().unwrap();
    let lake = TestLake::new("onepath");
    let at = dir.path().join("checkout");
    std::fs::create_dir_all(&at).unwrap();
    // One suite, its repetitions split across four jobs (each numbering
    // its runs from run-1), the manifest the same in every checkout.
    let gathered = dir.path().join("gathered");
    harness_run(&gathered, 600, 41);
    let trees: Vec<PathBuf> = (0..4)
        .map(|k| crate::team_field::shard_of(&gathered, &dir.path().join(format!("job-{k}")), k, 1))
        .collect();
    let runs: i64 = trees.iter().map(|t| walk_runs(&t.join("eval-runs"))).sum();
    let jobs: Vec<_> = trees
        .iter()
        .enumerate()
        .map(|(i, tree)| {
            job_at(tree, &at, &lake, i + 1, &[])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (i, job) in jobs.into_iter().enumerate() {
        let out = job.wait_with_output().unwrap();
        let s = summary(&out, &format!("job-{}", i + 1));
        assert_eq!(
            s["tries"],
            1,
            "job-{}: {s}\n{}",
            i + 1,
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(s["stored_meanwhile_by"], serde_json::json!([]), "{s}");
        assert_eq!(s["already_stored"], 0, "{s}");
    }
    let count = |sql: &str| lake.count(sql);
    assert_each_run_once(&count, &[("matrix", runs)], "four jobs at one path");
    ok(lake.liftdb().arg("check").output().unwrap(), "check");
}

/// The tool corpora, each report ingested beside the runs it describes
/// (seh benchmark, grade and per-split reports, cost summary, token
/// overhead; skill-creator's benchmarks; an Anthropic-format export of a
/// single-model root): no report defines a run, every run is one the trees
/// hold on disk, and the export's rows are the folders' runs (no
/// experiment named after its folder).
#[test]
fn reports_beside_their_runs_define_no_run() {
    let mut paths = crate::common::tool_corpora();
    paths.push(crate::common::fixture("seh-single-model-export"));
    let ts = crate::common::store_of(&paths);
    let count = |sql: &str| {
        crate::common::scalar(&ts.store, sql)
            .as_i64()
            .unwrap_or_else(|| panic!("{sql}"))
    };
    assert_eq!(
        count("SELECT count(*) FROM run WHERE defined_by IS NOT NULL"),
        0,
        "a report beside its runs defined runs"
    );
    assert_eq!(
        count("SELECT count(*) FROM run WHERE native_batch = 'runs' AND source_format = 'D_skill_creator'"),
        0,
        "an experiment named after the export's folder"
    );
    assert_eq!(
        count("SELECT count(*) - count(DISTINCT run_id) FROM run"),
        0
    );
    let db = ts.db.clone();
    drop(ts.store);
    let (code, listing) = check_listing(&db);
    assert_eq!(code, Some(0), "{listing}");
}

/// A tree partly lost beside the report that graded it whole: the
/// skill-eval-harness corpus's runs without one holdout case's folders,
/// with its holdout report. The report defines none of the missing runs
/// (it is a reference beside its runs) and the summary counts them, read
/// from the report's own rows; `--define-reported` defines exactly them.
#[test]
fn a_report_listing_runs_its_tree_lacks_defines_them_only_when_asked() {
    use liftdb::batch::IngestOptions;
    let root = crate::common::seh_root();
    let report_path = root.join("reference/benchmark-holdout.json.gz");
    let report = crate::common::read_report(&report_path);
    let lost_case = "fk-not-valid";
    let listed_lost = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["case_id"] == lost_case)
        .count() as u64;
    assert!(listed_lost > 0);
    for define_reported in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let runs = dir.path().join("eval-runs");
        crate::common::copy_tree(&root.join("runs/eval-runs"), &runs);
        std::fs::remove_dir_all(runs.join(lost_case)).unwrap();
        let on_disk = walk_runs(&runs);
        let mut ts = crate::common::new_store();
        let opts = IngestOptions {
            define_reported,
            ..Default::default()
        };
        let paths = [
            runs.clone(),
            root.join("input/evals/shared-benchmark.json"),
            report_path.clone(),
        ];
        let s = liftdb::batch::ingest(&mut ts.store, &paths, &opts).unwrap();
        let count = |sql: &str| crate::common::scalar(&ts.store, sql).as_i64().unwrap();
        let folder_runs = count("SELECT count(*) FROM run WHERE defined_by IS NULL");
        assert_eq!(folder_runs, on_disk, "every folder's run, once");
        let defined = count("SELECT count(*) FROM run WHERE defined_by IS NOT NULL") as u64;
        match define_reported {
            false => {
                assert_eq!(defined, 0);
                assert_eq!(s.runs_reported_not_in_tree, listed_lost, "{s:?}");
                // Asked afterwards, for the report alone: it is read again.
                let asked = IngestOptions {
                    define_reported: true,
                    ..Default::default()
                };
                let again = liftdb::batch::ingest(&mut ts.store, &paths[2..], &asked).unwrap();
                assert_eq!(again.runs_reported, listed_lost, "{again:?}");
            }
            true => {
                assert_eq!(defined, listed_lost);
                assert_eq!(s.runs_reported, listed_lost, "{s:?}");
                assert_eq!(
                    count(&format!(
                        "SELECT count(*) FROM run WHERE defined_by IS NOT NULL AND case_id <> '{lost_case}'"
                    )),
                    0
                );
            }
        }
    }
}

/// `liftdb ingest --json` of `at`'s runs root and manifest on a file store,
/// `extra` flags and `host` as the place it is read from: its summary.
fn ingest_at(db: &Path, at: &Path, extra: &[&str], host: &str) -> serde_json::Value {
    let mut cmd = liftdb_cmd(db);
    cmd.env("LIFTDB_HOST", host)
        .args(["ingest", "--json"])
        .args(extra)
        .arg(at.join("eval-runs"))
        .arg(at.join("manifest.json"));
    let out = cmd.output().unwrap();
    summary(&out, &format!("ingest {extra:?} on {host}"))
}

/// The content digests a release holds, sorted.
fn contents_of(db: &Path, release: &str) -> Vec<String> {
    crate::common::sql_column(
        db,
        &format!("SELECT content_sha256 FROM run WHERE release_label = '{release}' ORDER BY 1"),
    )
}

/// A harness re-run that rewrites part of the folder (one case) is a new
/// release holding every folder on disk; a later full rewrite ingested
/// without `--release` goes to the release liftdb derives (the latest that
/// read the folder) and never takes the runs of the one before it.
#[test]
fn a_partial_rewrite_and_a_derived_release_keep_every_release() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.duckdb");
    let (first, second, third) = (
        dir.path().join("g1"),
        dir.path().join("g2"),
        dir.path().join("g3"),
    );
    for (at, seed) in [(&first, 31), (&second, 32), (&third, 33)] {
        harness_run(at, 120, seed);
    }
    let ws = dir.path().join("ws");
    crate::common::copy_tree(&first, &ws);
    let runs = walk_runs(&ws.join("eval-runs"));
    ingest_at(&db, &ws, &["--release", "r1"], "runner");
    let r1 = contents_of(&db, "r1");
    assert_eq!(r1.len() as i64, runs);
    // One case rewritten by the harness.
    let case = std::fs::read_dir(ws.join("eval-runs"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .min()
        .unwrap();
    std::fs::remove_dir_all(ws.join("eval-runs").join(&case)).unwrap();
    crate::common::copy_tree(
        &second.join("eval-runs").join(&case),
        &ws.join("eval-runs").join(&case),
    );
    let s = ingest_at(&db, &ws, &["--release", "r2"], "runner");
    assert_eq!(s["units_replaced"], 0, "{s}");
    let count = file_count(&db);
    let on_disk = walk_runs(&ws.join("eval-runs"));
    assert_each_run_once(
        &count,
        &[("r1", runs), ("r2", on_disk)],
        "a partial rewrite",
    );
    assert_eq!(contents_of(&db, "r1"), r1, "r1's runs as they were");
    // The whole folder rewritten, no --release: the latest release's.
    std::fs::remove_dir_all(&ws).unwrap();
    crate::common::copy_tree(&third, &ws);
    let s = ingest_at(&db, &ws, &[], "runner");
    assert_eq!(s["release"], "r2", "{s}");
    assert_each_run_once(
        &count,
        &[("r1", runs), ("r2", walk_runs(&ws.join("eval-runs")))],
        "derived",
    );
    assert_eq!(contents_of(&db, "r1"), r1, "r1's runs as they were");
    let (code, listing) = check_listing(&db);
    assert_eq!(code, Some(0), "{listing}");
}

/// Two shards' jobs at one checkout path, one after the other on a file
/// store, each with the release's manifest: the manifest is read once for
/// the release, every shard's runs land, `check` passes.
#[test]
fn shards_at_one_path_share_their_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.duckdb");
    let ck = dir.path().join("checkout");
    let mut total = 0;
    for (job, seed) in [(1, 51), (2, 52)] {
        harness_run(&ck, 120, seed);
        total += walk_runs(&ck.join("eval-runs"));
        let shard = format!("job-{job}");
        ingest_at(
            &db,
            &ck,
            &["--release", "r1", "--shard", &shard],
            &format!("runner-{job}"),
        );
    }
    assert_each_run_once(&file_count(&db), &[("r1", total)], "two shards at one path");
    let (code, listing) = check_listing(&db);
    assert_eq!(code, Some(0), "{listing}");
}

/// The same unchanged tree under a new label read on another runner is the
/// relabel case too (the host is provenance); the same tree retried on
/// another runner without `--release` is already stored; `--prune` on a
/// folder re-used for another release removes none of the earlier
/// release's runs and says so.
#[test]
fn another_runner_relabels_retries_and_prunes_by_identity() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.duckdb");
    let ws = dir.path().join("ws");
    harness_run(&ws, 120, 61);
    let runs = walk_runs(&ws.join("eval-runs"));
    ingest_at(&db, &ws, &["--release", "r1"], "runner-1");
    let s = ingest_at(&db, &ws, &["--release", "r2"], "runner-2");
    assert_eq!(s["runs_stored_in"], serde_json::json!(["r1"]), "{s}");
    let s = ingest_at(&db, &ws, &[], "runner-2");
    assert_eq!(s["release"], "r1", "{s}");
    assert_eq!(s["runs_written"], 0, "{s}");
    let count = file_count(&db);
    assert_each_run_once(&count, &[("r1", runs), ("r2", 0)], "another runner");
    // Re-used for r2 with one case fewer, pruned: r1 keeps every run.
    harness_run(&ws, 120, 62);
    let case = std::fs::read_dir(ws.join("eval-runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .min()
        .unwrap();
    std::fs::remove_dir_all(case).unwrap();
    let s = ingest_at(&db, &ws, &["--release", "r2", "--prune"], "runner-1");
    assert_eq!(s["units_missing"], serde_json::json!([]), "{s}");
    assert_eq!(s["pruned"], false, "{s}");
    assert_each_run_once(
        &count,
        &[("r1", runs), ("r2", walk_runs(&ws.join("eval-runs")))],
        "pruned",
    );
}

/// An Anthropic-format export ingested alone defines its runs (archived
/// history); its run folders read later, in the same release, are those
/// runs: each is held once, by its folder.
#[test]
fn an_exports_runs_are_replaced_by_their_folders_read_later() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.duckdb");
    let runs = dir.path().join("runs");
    crate::common::copy_tree(
        &crate::common::fixture("seh-single-model-export/runs"),
        &runs,
    );
    let on_disk = walk_runs(&runs);
    let export = crate::common::read_report(&runs.join("benchmark.json"));
    let listed = export["runs"].as_array().unwrap().len() as i64;
    let ingest = |path: &Path| {
        let out = liftdb_cmd(&db)
            .args(["ingest", "--json", "--release", "v1"])
            .arg(path)
            .output()
            .unwrap();
        summary(&out, &path.display().to_string())
    };
    let alone = ingest(&runs.join("benchmark.json"));
    assert_eq!(alone["runs_reported"].as_i64(), Some(listed), "{alone}");
    ingest(&runs);
    let count = file_count(&db);
    assert_each_run_once(&count, &[("v1", on_disk)], "the export's folders");
    assert_eq!(
        count("SELECT count(*) FROM run WHERE defined_by IS NOT NULL"),
        0
    );
    let (code, listing) = check_listing(&db);
    assert_eq!(code, Some(0), "{listing}");
}

/// A store an earlier liftdb left with a release emptied by a later batch
/// (a re-used folder's runs deleted) or with runs an Anthropic-format
/// report defined beside the folders' own (the same runs twice): `check`
/// names each, with what to do, and exits 1. Both shapes are made here as
/// that build left them, by deleting and copying rows.
#[test]
fn check_names_a_release_emptied_and_runs_held_twice() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.duckdb");
    let ws = dir.path().join("ws");
    harness_run(&ws, 120, 71);
    ingest_at(&db, &ws, &["--release", "r1"], "runner");
    harness_run(&ws, 120, 72);
    ingest_at(&db, &ws, &["--release", "r2"], "runner");
    let (code, listing) = check_listing(&db);
    assert_eq!(code, Some(0), "{listing}");
    {
        let conn = duckdb::Connection::open(&db).unwrap();
        conn.execute_batch(
            "DELETE FROM run WHERE release_label = 'r1';
             INSERT INTO run SELECT * REPLACE (md5(run_id) AS run_id, 'ws/benchmark.json' AS defined_by,
                 'D_skill_creator' AS source_format, NULL AS model, 'ws' AS native_batch)
             FROM run WHERE release_label = 'r2' ORDER BY run_id LIMIT 3;",
        )
        .unwrap();
    }
    let (code, listing) = check_listing(&db);
    assert_eq!(code, Some(1), "{listing}");
    crate::common::assert_damaged(&listing, "emptied releases", "'r1'");
    crate::common::assert_damaged(
        &listing,
        "runs held twice",
        "3 of ws/benchmark.json in 'r2'",
    );
}
