//! Team mode in the field: what a CI fleet meets on its first day. New lakes
//! met by several first writers, a retried job storing the same tree twice,
//! a release sharded across jobs, a read-only analyst, object storage with
//! wrong credentials. The PostgreSQL and S3-compatible servers are the ones
//! scripts/test starts (scripts/lake-services.sh).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::lake::{env, file_liftdb, held_once, ok, tree, walk_runs, TestLake};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `liftdb ingest` of a gen-runs tree (its runs root and manifest) on `lake`.
fn ingest(lake: &TestLake, t: &Path, root: &str) -> Command {
    let mut cmd = lake.liftdb();
    cmd.args(["ingest", "--quiet"])
        .arg(t.join(root))
        .arg(t.join("manifest.json"));
    cmd
}

/// Four jobs meeting a lake that does not exist yet, three new lakes (two
/// with local data, one on S3): all twelve land, every run once.
#[test]
fn first_writers_on_new_lakes_all_land() {
    let dir = tempfile::tempdir().unwrap();
    let trees: Vec<PathBuf> = (0..4)
        .map(|i| tree(dir.path(), &format!("first-{i}"), 48, 300 + i as u64))
        .collect();
    let expected: i64 = trees.iter().map(|t| walk_runs(t)).sum();
    for lake in [
        TestLake::new("first_a"),
        TestLake::new("first_b"),
        TestLake::on_s3("first_c"),
    ] {
        let jobs: Vec<_> = trees
            .iter()
            .enumerate()
            .map(|(i, t)| {
                ingest(&lake, t, &format!("first-{i}"))
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for job in jobs {
            let out = job.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "a first writer failed on {}: {}",
                lake.catalog,
                stderr(&out)
            );
        }
        assert_eq!(lake.count("SELECT count(*) FROM run"), expected);
        for (all, distinct) in held_once(&lake) {
            assert_eq!(all, distinct, "a row held twice on {}", lake.catalog);
        }
    }
}

/// `liftdb lake init` creates a lake on purpose, says what it made, and a
/// second init (or a job meeting the lake) changes nothing.
#[test]
fn lake_init_creates_a_lake_once() {
    let lake = TestLake::new("init");
    let made = lake.liftdb().args(["lake", "init"]).output().unwrap();
    let said = stderr(&made);
    ok(made, "init");
    assert!(said.contains("created the lake"), "{said}");
    let again = lake.liftdb().args(["lake", "init"]).output().unwrap();
    let said = stderr(&again);
    ok(again, "init again");
    assert!(
        said.contains("exists") && said.contains("nothing to do"),
        "{said}"
    );
    assert_eq!(
        lake.count("SELECT count(*) FROM schema_migrations"),
        liftdb::sqlfiles::MIGRATIONS.len() as i64
    );
}

/// The same tree ingested by two jobs at the same moment (a retried CI
/// job), five trials: both exit 0, every run once, `check` passes, and the
/// job that came second says the runs were stored by the other's batch.
#[test]
fn the_same_tree_by_two_jobs_at_once_is_held_once() {
    let dir = tempfile::tempdir().unwrap();
    let lake = TestLake::new("retried");
    ok(
        lake.liftdb().args(["lake", "init"]).output().unwrap(),
        "init",
    );
    let mut expected = 0;
    for trial in 0..5 {
        let root = format!("retried-{trial}");
        let t = tree(dir.path(), &root, 120, 500 + trial);
        expected += walk_runs(&t);
        let jobs: Vec<_> = (0..2)
            .map(|_| {
                let mut cmd = lake.liftdb();
                // A release per trial: each trial's manifest is the one
                // its release is graded by.
                cmd.args(["ingest", "--json", "--release", &root])
                    .arg(t.join(&root))
                    .arg(t.join("manifest.json"))
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped());
                cmd.spawn().unwrap()
            })
            .collect();
        let summaries: Vec<serde_json::Value> = jobs
            .into_iter()
            .map(|job| {
                let out = job.wait_with_output().unwrap();
                serde_json::from_str(&ok(out, "a job of the pair")).unwrap()
            })
            .collect();
        assert_eq!(
            lake.count("SELECT count(*) FROM run"),
            expected,
            "trial {trial}"
        );
        for (all, distinct) in held_once(&lake) {
            assert_eq!(all, distinct, "trial {trial}: a row held twice");
        }
        // One of the two stored the runs; the other stored none of them,
        // and (when it met the first one's commit) names its batch.
        let wrote: Vec<u64> = summaries
            .iter()
            .map(|s| s["runs_written"].as_u64().unwrap())
            .collect();
        assert!(
            wrote.contains(&0) && wrote.iter().sum::<u64>() as i64 == walk_runs(&t),
            "trial {trial}: runs written by the two jobs {wrote:?}: {summaries:?}"
        );
        let first_batch = summaries.iter().find_map(|s| s["batch_id"].as_i64());
        for s in &summaries {
            if let Some(met) = s["stored_meanwhile_by"]
                .as_array()
                .filter(|a| !a.is_empty())
            {
                assert_eq!(
                    met[0].as_i64(),
                    first_batch,
                    "trial {trial}: names the batch"
                );
            }
        }
    }
    let checked = lake.liftdb().arg("check").output().unwrap();
    assert!(checked.status.success(), "check: {}", stderr(&checked));
}

/// A retried job on another runner: the same tree at another path (or on
/// another host at the same path) is already stored: exit 0, nothing stored
/// twice, and the summary names the batch that stored it.
#[test]
fn the_same_tree_from_another_runner_is_already_stored() {
    let dir = tempfile::tempdir().unwrap();
    let lake = TestLake::new("rerun");
    let t = tree(dir.path(), "rerun", 96, 42);
    let runs = walk_runs(&t);
    let first = ok(
        ingest(&lake, &t, "rerun").arg("--json").output().unwrap(),
        "first runner",
    );
    let first: serde_json::Value = serde_json::from_str(&first).unwrap();
    // The same bytes at another path, on "another runner".
    let copy = dir.path().join("elsewhere");
    copy_tree(&t, &copy);
    let again = ingest(&lake, &copy, "rerun")
        .arg("--json")
        .env("LIFTDB_HOST", "runner-2")
        .output()
        .unwrap();
    let again: serde_json::Value = serde_json::from_str(&ok(again, "second runner")).unwrap();
    assert_eq!(again["already_stored"].as_i64(), Some(runs));
    assert_eq!(again["already_stored_by"][0], first["batch_id"]);
    // The counts add up: no run added or written; the one unit added is
    // the manifest, at a path the store never read.
    assert_eq!(again["units_added"].as_i64(), Some(1), "{again}");
    assert_eq!(again["runs_written"].as_i64(), Some(0), "{again}");
    assert_eq!(lake.count("SELECT count(*) FROM run"), runs);
    for (all, distinct) in held_once(&lake) {
        assert_eq!(all, distinct);
    }
    ok(lake.liftdb().arg("check").output().unwrap(), "check");
    // A run changed in place and ingested again from its own tree still
    // replaces the stored one.
    let metrics = first_run_dir(&t.join("rerun")).join("metrics.json");
    let text = std::fs::read_to_string(&metrics).unwrap();
    std::fs::write(&metrics, text.replacen('{', "{\"note\": \"edited\", ", 1)).unwrap();
    let replaced = ok(
        ingest(&lake, &t, "rerun").arg("--json").output().unwrap(),
        "changed in place",
    );
    let replaced: serde_json::Value = serde_json::from_str(&replaced).unwrap();
    assert_eq!(replaced["units_replaced"].as_i64(), Some(1), "{replaced}");
    assert_eq!(lake.count("SELECT count(*) FROM run"), runs);
}

/// Two and four shards of a release split by repetition (each job
/// numbering its runs from run-1), ingested at once with --shard, land as
/// one release whose report lift equals the same runs gathered into one
/// tree on a file store; without --shard the second shard is refused whole,
/// naming --shard, and nothing of it is stored.
#[test]
fn a_release_sharded_by_repetition_lands_as_one() {
    let dir = tempfile::tempdir().unwrap();
    // 8 repetitions of every (case, model, arm): the gathered tree.
    let gathered = dir.path().join("gathered");
    let made = Command::new(assert_cmd::cargo::cargo_bin("gen-runs"))
        .args(["--runs", "384", "--reps", "8", "--seed", "77", "--out"])
        .arg(&gathered)
        .output()
        .unwrap();
    ok(made, "gen-runs");
    let file = dir.path().join("gathered.duckdb");
    ok(
        file_liftdb(&file)
            .args(["ingest", "--quiet", "--release", "r1"])
            .arg(gathered.join("eval-runs"))
            .arg(gathered.join("manifest.json"))
            .output()
            .unwrap(),
        "gathered ingest",
    );
    let lift = |cmd: &mut Command| {
        ok(
            cmd.args(["report", "lift", "--format", "csv", "--release", "r1"])
                .output()
                .unwrap(),
            "report lift",
        )
    };
    let on_file = lift(&mut file_liftdb(&file));
    assert!(on_file.lines().count() > 3);
    for shards in [2u32, 4] {
        let lake = TestLake::new(&format!("shards{shards}"));
        ok(
            lake.liftdb().args(["lake", "init"]).output().unwrap(),
            "init",
        );
        let trees: Vec<PathBuf> = (0..shards)
            .map(|k| {
                shard_of(
                    &gathered,
                    &dir.path().join(format!("s{shards}-{k}")),
                    k,
                    8 / shards,
                )
            })
            .collect();
        let jobs: Vec<_> = trees
            .iter()
            .enumerate()
            .map(|(k, t)| {
                let mut cmd = lake.liftdb();
                cmd.args(["ingest", "--quiet", "--release", "r1", "--shard"])
                    .arg(format!("job-{k}"))
                    .arg(t.join("eval-runs"))
                    .arg(t.join("manifest.json"))
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for job in jobs {
            ok(job.wait_with_output().unwrap(), "a shard");
        }
        assert_eq!(
            lake.count("SELECT count(*) FROM run"),
            walk_runs(&gathered),
            "{shards} shards"
        );
        assert_eq!(lift(&mut lake.liftdb()), on_file, "{shards} shards");
    }
    // Without --shard: the second job's runs collide with the first's.
    let lake = TestLake::new("unsharded");
    let a = shard_of(&gathered, &dir.path().join("u-0"), 0, 4);
    let b = shard_of(&gathered, &dir.path().join("u-1"), 1, 4);
    ok(
        ingest(&lake, &a, "eval-runs").output().unwrap(),
        "first job",
    );
    let held = lake.count("SELECT count(*) FROM run");
    let refused = ingest(&lake, &b, "eval-runs").output().unwrap();
    let said = stderr(&refused);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(
        said.contains("--shard") && said.contains("--release"),
        "{said}"
    );
    assert!(
        said.lines().count() < 5,
        "one message, not one a run: {said}"
    );
    assert_eq!(
        lake.count("SELECT count(*) FROM run"),
        held,
        "nothing stored"
    );
}

/// A role that may only SELECT reads every canned report as the writer
/// does; while a batch waits for its refill it answers from the last
/// refilled snapshot (never trying the refill it may not write), naming the
/// waiting release; a write is refused.
#[test]
fn a_read_only_role_reads_everything_and_writes_nothing() {
    let lake = TestLake::new("readonly");
    let dir = tempfile::tempdir().unwrap();
    let t = tree(dir.path(), "ro", 96, 9);
    ok(
        ingest(&lake, &t, "ro")
            .args(["--release", "v1"])
            .output()
            .unwrap(),
        "writer",
    );
    // The team's reader role, as docs/guide.md sets it up.
    let role = format!("analyst_{}", std::process::id());
    lake.reader_role(&role);
    let reader = || lake.liftdb_as(&role);
    for report in liftdb::report::all() {
        let args = ["report", report.name.as_str(), "--format", "csv"];
        let as_writer = ok(lake.liftdb().args(args).output().unwrap(), &report.name);
        let as_reader = ok(reader().args(args).output().unwrap(), &report.name);
        assert_eq!(as_reader, as_writer, "report {}", report.name);
    }
    // The other reading commands under that role.
    let out = tempfile::tempdir().unwrap();
    let html = out.path().join("page.html");
    let ledger = out.path().join("ledger.csv");
    for args in [
        vec!["sql".to_string(), "SELECT count(*) FROM pairs".into()],
        vec![
            "export".into(),
            "cost_ledger".into(),
            "--out".into(),
            ledger.display().to_string(),
        ],
        vec![
            "report".into(),
            "html".into(),
            "--out".into(),
            html.display().to_string(),
        ],
        vec!["plan".into(), "--lift".into(), "0.2".into()],
        vec!["lake".into(), "snapshots".into()],
    ] {
        ok(reader().args(&args).output().unwrap(), &args.join(" "));
    }
    let gate = reader().args(["gate", "--min-lift", "0"]).output().unwrap();
    let by_writer = lake
        .liftdb()
        .args(["gate", "--min-lift", "0"])
        .output()
        .unwrap();
    assert_eq!(
        gate.status.code(),
        by_writer.status.code(),
        "{}",
        stderr(&gate)
    );
    assert_eq!(gate.stdout, by_writer.stdout);
    let before = ok(
        reader()
            .args(["report", "lift", "--format", "csv"])
            .output()
            .unwrap(),
        "lift",
    );
    // A writer's batch of a second release, its refill deferred.
    let t2 = tree(dir.path(), "ro2", 48, 10);
    ok(
        ingest(&lake, &t2, "ro2")
            .args(["--release", "v2", "--defer-refill"])
            .output()
            .unwrap(),
        "deferred batch",
    );
    let waiting = reader()
        .args(["report", "lift", "--format", "csv"])
        .output()
        .unwrap();
    let said = stderr(&waiting);
    assert_eq!(
        ok(waiting, "reader while v2 waits"),
        before,
        "the last refilled state"
    );
    assert!(
        said.contains("'v2'") && said.contains("lake refresh"),
        "names the waiting release and who brings it in: {said}"
    );
    // The snapshot the reader names is the one it read: before the deferred
    // batch (the lake's latest is later), and --snapshot reads it again.
    let named: i64 = said
        .split("read lake snapshot ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("names the snapshot it read: {said}"));
    let latest: i64 = lake
        .psql("postgres", "SELECT max(snapshot_id) FROM ducklake_snapshot")
        .parse()
        .unwrap();
    assert!(named < latest, "read {named}, the latest {latest}: {said}");
    let again = reader()
        .args(["report", "lift", "--format", "csv", "--snapshot"])
        .arg(named.to_string())
        .output()
        .unwrap();
    assert_eq!(ok(again, "--snapshot the named one"), before);
    // The waiting release is named as waiting, not as missing.
    let asked = reader()
        .args(["report", "lift", "--release", "v2"])
        .output()
        .unwrap();
    let said = stderr(&asked);
    assert_eq!(asked.status.code(), Some(2), "{said}");
    assert!(
        said.contains("--release v2: this release waits for the refill")
            && said.contains(&format!("snapshot {named}"))
            && !said.contains("matches nothing"),
        "{said}"
    );
    // A release with one shard refilled and another waiting answers from
    // the refilled part, saying it waits.
    let v1_alone = ok(
        reader()
            .args(["report", "lift", "--release", "v1", "--format", "csv"])
            .output()
            .unwrap(),
        "v1 before its second shard",
    );
    let t3 = tree(dir.path(), "ro3", 48, 11);
    ok(
        ingest(&lake, &t3, "ro3")
            .args(["--release", "v1", "--shard", "second", "--defer-refill"])
            .output()
            .unwrap(),
        "v1's deferred second shard",
    );
    let part = reader()
        .args(["report", "lift", "--release", "v1", "--format", "csv"])
        .output()
        .unwrap();
    let said = stderr(&part);
    assert_eq!(ok(part, "v1 while a shard waits"), v1_alone);
    assert!(
        said.contains("'v1'") && said.contains("last refilled"),
        "{said}"
    );
    let refused = reader()
        .args(["ingest", "--quiet"])
        .arg(t2.join("ro2"))
        .output()
        .unwrap();
    let said = stderr(&refused);
    assert_eq!(refused.status.code(), Some(2), "{said}");
    assert!(said.contains(&role) && said.contains("not write"), "{said}");
    ok(
        lake.liftdb().args(["lake", "refresh"]).output().unwrap(),
        "refresh",
    );
    let after = ok(
        reader()
            .args(["report", "lift", "--format", "csv"])
            .output()
            .unwrap(),
        "after refresh",
    );
    assert!(after.contains("v2"), "the refreshed release is read");
    assert_ne!(
        ok(
            reader()
                .args(["report", "lift", "--release", "v1", "--format", "csv"])
                .output()
                .unwrap(),
            "v1 after refresh",
        ),
        v1_alone,
        "v1's second shard is read after the refresh"
    );
}

/// Object storage that refuses: wrong credentials, a missing bucket, an
/// unreachable endpoint. Each is one message naming which, exit 2, the
/// secret never printed, and no lake made.
#[test]
fn object_storage_failures_are_named_and_store_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let t = tree(dir.path(), "s3bad", 24, 3);
    let secret = env("LIFTDB_TEST_S3_SECRET");
    let cases: [(&str, Change, &str); 4] = [
        (
            "wrong secret",
            Box::new(|c: &mut Command| {
                c.env("AWS_SECRET_ACCESS_KEY", "wrong-secret-value-123");
            }),
            "credentials were refused",
        ),
        (
            "unknown key",
            Box::new(|c: &mut Command| {
                c.env("AWS_ACCESS_KEY_ID", "AKIAUNKNOWNKEY000000");
            }),
            "credentials were refused",
        ),
        (
            "no credentials",
            Box::new(|c: &mut Command| {
                c.env_remove("AWS_ACCESS_KEY_ID")
                    .env_remove("AWS_SECRET_ACCESS_KEY");
            }),
            "no credentials are set",
        ),
        (
            "unreachable endpoint",
            Box::new(|c: &mut Command| {
                c.env("AWS_ENDPOINT_URL", "http://127.0.0.1:9");
            }),
            "endpoint could not be reached",
        ),
    ];
    for (what, change, expected) in cases {
        let lake = TestLake::on_s3("s3bad");
        let mut cmd = ingest(&lake, &t, "s3bad");
        change(&mut cmd);
        let out = cmd.output().unwrap();
        let said = format!("{}{}", stderr(&out), String::from_utf8_lossy(&out.stdout));
        assert_eq!(out.status.code(), Some(2), "{what}: {said}");
        assert!(said.contains(expected), "{what}: {said}");
        assert!(
            !said.contains(&secret) && !said.contains("wrong-secret-value-123"),
            "{what}: a secret printed"
        );
        assert_eq!(
            lake.psql(
                "postgres",
                "SELECT to_regclass('ducklake_snapshot') IS NULL"
            ),
            "t",
            "{what}: no lake made"
        );
    }
    let lake = TestLake {
        s3: Some("s3://no-such-bucket-liftdb/x/".into()),
        ..TestLake::new("s3nobucket")
    };
    let out = ingest(&lake, &t, "s3bad").output().unwrap();
    let said = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("bucket does not exist"), "{said}");
}

/// What a case changes in the job's environment.
type Change = Box<dyn Fn(&mut Command)>;

/// The first `run-N` folder under `root`.
fn first_run_dir(root: &Path) -> PathBuf {
    walkdir::WalkDir::new(root)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .find(|e| e.file_type().is_dir() && e.file_name().to_string_lossy().starts_with("run-"))
        .unwrap()
        .into_path()
}

fn copy_tree(from: &Path, to: &Path) {
    let copied = Command::new("cp")
        .arg("-r")
        .arg(from)
        .arg(to)
        .output()
        .unwrap();
    ok(copied, "cp -r");
}

/// Shard `k` of `gathered` split by repetition, `per` repetitions a shard:
/// a copy holding runs k·per+1 … (k+1)·per, numbered from run-1 as its job
/// would have numbered them.
pub fn shard_of(gathered: &Path, out: &Path, k: u32, per: u32) -> PathBuf {
    copy_tree(gathered, out);
    let runs: Vec<(PathBuf, u32)> = walkdir::WalkDir::new(out)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_dir())
        .filter_map(|e| {
            let n = e
                .file_name()
                .to_string_lossy()
                .strip_prefix("run-")?
                .parse()
                .ok()?;
            Some((e.into_path(), n))
        })
        .collect();
    let (mine, others): (Vec<_>, Vec<_>) = runs
        .into_iter()
        .partition(|(_, n)| (k * per + 1..=(k + 1) * per).contains(n));
    for (path, _) in others {
        std::fs::remove_dir_all(path).unwrap();
    }
    for (path, n) in mine {
        let renamed = path.with_file_name(format!("run-{}", n - k * per));
        std::fs::rename(&path, renamed).unwrap();
    }
    out.to_path_buf()
}

/// Everything that works on a local data path works with the data on S3,
/// the extensions loaded from the wheels `pip download` wrote: ingest,
/// reports, sql, export, the HTML page, show, gate, plan, check, the lake's
/// upkeep, and a rebuild from the S3 lake into a file.
#[test]
fn every_command_works_on_an_s3_lake_from_pips_wheels() {
    let lake = TestLake::on_s3("s3all");
    let dir = tempfile::tempdir().unwrap();
    let wheels = env("LIFTDB_TEST_EXTENSION_WHEELS");
    let liftdb = || lake.command("postgres", &wheels);
    let paths = crate::common::corpus_paths(&crate::common::seh_root());
    ok(
        liftdb()
            .args(["ingest", "--quiet", "--release", "v1"])
            .args(&paths)
            .output()
            .unwrap(),
        "ingest",
    );
    let html = dir.path().join("report.html");
    let run = lake.sql("SELECT run_id FROM run ORDER BY run_id LIMIT 1");
    let run = run.lines().nth(1).unwrap().to_string();
    let ledger = dir.path().join("ledger.csv");
    let steps: Vec<(&str, Vec<String>)> = vec![
        ("report", vec!["report".into(), "flags".into()]),
        (
            "sql",
            vec!["sql".into(), "SELECT count(*) FROM runs".into()],
        ),
        (
            "export",
            vec![
                "export".into(),
                "cost_ledger".into(),
                "--out".into(),
                ledger.display().to_string(),
            ],
        ),
        (
            "html",
            vec![
                "report".into(),
                "html".into(),
                "--out".into(),
                html.display().to_string(),
            ],
        ),
        ("show", vec!["show".into(), run]),
        ("plan", vec!["plan".into(), "--lift".into(), "0.2".into()]),
        ("check", vec!["check".into()]),
        ("snapshots", vec!["lake".into(), "snapshots".into()]),
        ("refresh", vec!["lake".into(), "refresh".into()]),
        (
            "maintain",
            vec![
                "lake".into(),
                "maintain".into(),
                "--grace".into(),
                "0 seconds".into(),
            ],
        ),
    ];
    for (what, args) in steps {
        ok(liftdb().args(&args).output().unwrap(), what);
    }
    assert!(std::fs::read_to_string(&html).unwrap().contains("<svg"));
    assert!(std::fs::read_to_string(&ledger).unwrap().lines().count() > 10);
    // The gate decides (pass, fail or undecided), it does not fail to run.
    let gate = liftdb().args(["gate", "--min-lift", "0"]).output().unwrap();
    assert!(
        matches!(gate.status.code(), Some(0..=2)) && !stderr(&gate).contains("error"),
        "{}",
        stderr(&gate)
    );
    let back = dir.path().join("back.duckdb");
    ok(
        liftdb()
            .args(["rebuild", "--out"])
            .arg(&back)
            .output()
            .unwrap(),
        "rebuild to a file",
    );
    let runs = "SELECT release_label, count(*) FROM run GROUP BY ALL ORDER BY ALL";
    assert_eq!(
        ok(
            file_liftdb(&back).args(["sql", runs]).output().unwrap(),
            "file"
        ),
        lake.sql(runs)
    );
}
