//! Team mode as a fleet meets it across a network: a writer stalled inside
//! its commit while matrix jobs at the same checkout path wait for their
//! turn, and a connection string that carries a password, printed by no
//! command whether it succeeds or fails. The PostgreSQL and S3-compatible
//! servers are the ones scripts/test starts (scripts/lake-services.sh); one
//! of its roles, liftdb_password_checked, has its password checked.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::lake::{env, no_password, ok, setting, TestLake, PLANTED_PASSWORD};
use crate::run_identity::{assert_each_run_once, harness_run, job_at};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The application_name of the session holding the writers' turn, if any
/// (PostgreSQL's view of liftdb's advisory lock, as sql/lake/writers_turn_holder.sql reads it).
fn turn_holder(lake: &TestLake) -> String {
    lake.psql(
        "postgres",
        "SELECT coalesce(string_agg(a.application_name, ','), '') FROM pg_locks l
           JOIN pg_stat_activity a USING (pid)
         WHERE l.locktype = 'advisory' AND l.granted
           AND l.classid = 27753 AND l.objid = 1718903906",
    )
}

/// The lake's latest snapshot, as its catalog holds it.
fn latest_snapshot(lake: &TestLake) -> String {
    lake.psql("postgres", "SELECT max(snapshot_id) FROM ducklake_snapshot")
}

/// `liftdb` on `lake`'s data and extensions with another connection string.
fn on_catalog(lake: &TestLake, catalog: &str) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("liftdb"));
    cmd.env_remove("LIFTDB_DB")
        .arg("--db")
        .arg(catalog)
        .arg("--data-path")
        .arg(lake.data_path())
        .arg("--extension-dir")
        .arg(env("LIFTDB_TEST_EXTENSION_DIR"));
    cmd
}

fn signal(pid: u32, sig: &str) {
    let sent = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success(), "kill {sig} {pid}");
}

/// A process's output, waiting at most `limit`: a command that would wait
/// past it is killed and the test fails (the wait is promised bounded).
fn output_within(mut child: Child, limit: Duration, what: &str) -> Output {
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("{what}: still waiting after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    child.wait_with_output().unwrap()
}

/// Matrix jobs at one checkout path, one of them stalled (SIGSTOP) inside
/// its commit holding the writers' turn: the other two, with `--wait 7`,
/// each say who holds the turn while they wait (the stalled job's command,
/// pid and runner), give up with exit 2 and nothing of theirs stored; a
/// reader is not held up meanwhile. Continued, the stalled job lands, the
/// two land when run again, every run is stored once and `check` passes;
/// no output shows the connection string's password.
#[test]
fn a_writer_stalled_in_its_commit_is_named_and_no_one_waits_past_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path().join("checkout");
    std::fs::create_dir_all(&at).unwrap();
    // One suite of 5 repetitions, one repetition a job (each numbering its
    // runs from run-1), the manifest the same in every checkout.
    let gathered = dir.path().join("gathered");
    harness_run(&gathered, 1500, 47);
    let trees: Vec<PathBuf> = (0..4)
        .map(|k| crate::team_field::shard_of(&gathered, &dir.path().join(format!("job-{k}")), k, 1))
        .collect();
    let runs_of = |t: &Path| crate::lake::walk_runs(&t.join("eval-runs"));
    let spawn = |lake: &TestLake, k: usize, extra: &[&str]| {
        job_at(&trees[k], &at, lake, k + 1, extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // The stall must land while the job holds the turn (its commit takes a
    // fraction of a second): watch for it, stop it, and see that it still
    // holds the turn; a try that missed starts again on a new lake.
    let (lake, stalled, before) = (0..8)
        .find_map(|_| {
            let lake = TestLake::new("stalled");
            ok(
                lake.liftdb().args(["lake", "init"]).output().unwrap(),
                "lake init",
            );
            // A job that landed before: what a reader reads meanwhile.
            ok(
                job_at(&trees[3], &at, &lake, 4, &[]).output().unwrap(),
                "job-4",
            );
            let before = ok(
                lake.liftdb()
                    .args(["report", "lift", "--format", "csv"])
                    .output()
                    .unwrap(),
                "report before",
            );
            let landed = latest_snapshot(&lake);
            let mut job = spawn(&lake, 0, &[]);
            let own = format!("liftdb ingest pid {}", job.id());
            while job.try_wait().unwrap().is_none() {
                if turn_holder(&lake).contains(&own) {
                    signal(job.id(), "-STOP");
                    // Still holding the turn, its batch not yet committed
                    // (the turn is held a moment past the commit too).
                    if turn_holder(&lake).contains(&own) && latest_snapshot(&lake) == landed {
                        return Some((lake, job, before));
                    }
                    signal(job.id(), "-CONT");
                }
            }
            let _ = job.wait_with_output();
            None
        })
        .expect("the job was caught holding its turn in one of 8 tries");
    let stalled_pid = stalled.id();
    let waiting: Vec<Child> = (1..3).map(|k| spawn(&lake, k, &["--wait", "7"])).collect();
    // A reader meanwhile: not held up, and reads what was there.
    let read = lake
        .liftdb()
        .args(["report", "lift", "--format", "csv"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    assert_eq!(
        ok(
            output_within(read, Duration::from_secs(120), "a reader"),
            "reader"
        ),
        before
    );
    for (k, job) in waiting.into_iter().enumerate() {
        let what = format!("job-{}", k + 2);
        let out = output_within(job, Duration::from_secs(120), &what);
        let said = stderr(&out);
        no_password(&out, &what);
        assert_eq!(out.status.code(), Some(2), "{what}: {said}");
        assert!(
            said.contains("liftdb: waiting for the writers' turn")
                && said.contains("gave up waiting for the writers' turn after 7 s"),
            "{what} says it waits, then gives up: {said}"
        );
        assert!(
            said.contains(&format!("'liftdb ingest pid {stalled_pid} batch "))
                && said.contains("on runner-1'"),
            "{what} names the holder (command, pid, batch, runner): {said}"
        );
    }
    assert_eq!(
        lake.count("SELECT count(*) FROM run WHERE shard IN ('job-2', 'job-3')"),
        0,
        "nothing of the waiting jobs is stored"
    );
    signal(stalled_pid, "-CONT");
    let out = output_within(stalled, Duration::from_secs(300), "the stalled job");
    ok(out, "the stalled job, continued");
    for (k, tree) in trees.iter().enumerate().take(3).skip(1) {
        ok(
            job_at(tree, &at, &lake, k + 1, &[]).output().unwrap(),
            "a waiting job, run again",
        );
    }
    let count = |sql: &str| lake.count(sql);
    let runs: i64 = trees.iter().map(|t| runs_of(t)).sum();
    assert_each_run_once(&count, &[("matrix", runs)], "after the stall");
    ok(lake.liftdb().arg("check").output().unwrap(), "check");
}

/// A connection string's password appears in no output of any command, on
/// success and on failure: the lake's commands, reports, exports, the page,
/// the gate, plan, check, rebuild; a wrong password, a missing database, a
/// refused port; PGPASSWORD and an S3 endpoint URL carrying credentials.
#[test]
fn no_output_of_any_command_shows_a_password() {
    let lake = TestLake::new("secret");
    let dir = tempfile::tempdir().unwrap();
    let t = crate::lake::tree(dir.path(), "sec", 120, 3);
    let pg_password = "PLANTEDpgpassword42";
    let endpoint_secret = "PLANTEDuserinfo99";
    let planted = [PLANTED_PASSWORD, pg_password, endpoint_secret];
    let shows_none = |out: &Output, what: &str| {
        for (stream, bytes) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
            let text = String::from_utf8_lossy(bytes);
            for secret in planted {
                assert!(
                    !text.contains(secret),
                    "{what}: {stream} shows {secret}:\n{text}"
                );
            }
        }
    };
    let with_env = |mut cmd: Command| {
        cmd.env("PGPASSWORD", pg_password);
        cmd
    };
    let run = |args: &[&str]| -> Output {
        let out = with_env(lake.liftdb()).args(args).output().unwrap();
        shows_none(&out, &args.join(" "));
        out
    };
    let succeeds = |args: &[&str]| {
        let out = run(args);
        assert!(out.status.success(), "{}: {}", args.join(" "), stderr(&out));
    };
    let root = t.join("sec").display().to_string();
    let manifest = t.join("manifest.json").display().to_string();
    let page = dir.path().join("page.html").display().to_string();
    let ledger = dir.path().join("ledger.csv").display().to_string();
    let rebuilt = dir.path().join("rebuilt.duckdb").display().to_string();
    succeeds(&["lake", "init"]);
    succeeds(&["ingest", &root, &manifest, "--release", "r1"]);
    succeeds(&["ingest", &root, &manifest, "--release", "r1", "--json"]);
    for report in liftdb::report::all() {
        succeeds(&["report", report.name.as_str()]);
    }
    for args in [
        vec!["sql", "SELECT count(*) FROM run"],
        vec!["export", "cost_ledger", "--out", &ledger],
        vec!["report", "html", "--out", &page],
        vec!["plan", "--lift", "0.2"],
        vec!["check"],
        vec!["schema"],
        vec!["release", "list"],
        vec!["lake", "snapshots"],
        vec!["lake", "refresh"],
        vec!["lake", "maintain"],
        vec!["rebuild", "--out", &rebuilt],
    ] {
        succeeds(&args);
    }
    let gate = run(&["gate", "--min-lift", "0"]);
    assert!(
        matches!(gate.status.code(), Some(0 | 1 | 3)),
        "{}",
        stderr(&gate)
    );
    // The page written is read by whoever opens it.
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains(PLANTED_PASSWORD));

    // Failures: each exits 2, naming the lake without its password.
    let host = setting("host");
    let port = setting("port");
    let failing = [
        (
            "a wrong password",
            format!(
                "ducklake:postgres:dbname={} host={host} port={port} user=liftdb_password_checked password={PLANTED_PASSWORD}",
                lake.dbname
            ),
            "password authentication failed",
        ),
        (
            "a missing database",
            format!("ducklake:postgres:dbname=no_such_lake host={host} port={port} user=postgres password={PLANTED_PASSWORD}"),
            "does not exist",
        ),
        (
            "a refused port",
            format!("ducklake:postgres:dbname={} host={host} port=1 user=postgres password='{PLANTED_PASSWORD} x'", lake.dbname),
            "Connection refused",
        ),
        (
            "a URL with its userinfo",
            format!("ducklake:postgres:postgresql://postgres:{PLANTED_PASSWORD}@{host}:1/{}", lake.dbname),
            "Connection refused",
        ),
    ];
    // liftdb_password_checked exists with another password.
    lake.psql(
        "postgres",
        "DO $$ BEGIN CREATE ROLE liftdb_password_checked LOGIN PASSWORD 'the-right-one';
         EXCEPTION WHEN duplicate_object THEN NULL; END $$",
    );
    for (what, catalog, expected) in failing {
        for args in [
            vec!["report", "lift"],
            vec!["ingest", &root, &manifest],
            vec!["lake", "init"],
        ] {
            let out = with_env(on_catalog(&lake, &catalog))
                .args(&args)
                .output()
                .unwrap();
            let said = stderr(&out);
            shows_none(&out, &format!("{what}: {}", args.join(" ")));
            assert_eq!(out.status.code(), Some(2), "{what}: {said}");
            assert!(said.contains(expected), "{what}: {said}");
        }
    }

    // An S3 endpoint whose URL carries credentials: unused (and unprinted)
    // when the server answers; named as the endpoint when it does not.
    let s3 = TestLake::on_s3("secret_s3");
    let endpoint = env("LIFTDB_TEST_S3_ENDPOINT");
    let with_userinfo = endpoint.replacen("://", &format!("://AKIAUSER:{endpoint_secret}@"), 1);
    let out = with_env(s3.liftdb())
        .env("AWS_ENDPOINT_URL", &with_userinfo)
        .args(["ingest", "--quiet", &root, &manifest])
        .output()
        .unwrap();
    shows_none(&out, "an endpoint URL with credentials");
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("carries credentials in its address"));
    let refused = TestLake::on_s3("secret_s3_down");
    let out = with_env(refused.liftdb())
        .env(
            "AWS_ENDPOINT_URL",
            format!("http://AKIAUSER:{endpoint_secret}@127.0.0.1:9"),
        )
        .args(["ingest", "--quiet", &root, &manifest])
        .output()
        .unwrap();
    let said = stderr(&out);
    shows_none(&out, "an unreachable endpoint URL with credentials");
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("the endpoint could not be reached") && !said.contains("bucket"),
        "{said}"
    );
}

/// benches/netproxy.py in front of the test server: counts the catalog's
/// round trips of each command sent through it.
struct Proxy {
    child: Child,
    port: u16,
    control: u16,
}

impl Proxy {
    fn start() -> Proxy {
        let free = || {
            std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port()
        };
        let (port, control) = (free(), free());
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/netproxy.py");
        let child = Command::new("python3")
            .arg(script)
            .args([
                "--listen",
                &port.to_string(),
                "--control",
                &control.to_string(),
            ])
            .arg("--to")
            .arg(format!("{}:{}", setting("host"), setting("port")))
            .spawn()
            .unwrap();
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", control)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the proxy did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Proxy {
            child,
            port,
            control,
        }
    }

    /// Round trips since the last call.
    fn round_trips(&self) -> u64 {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(("127.0.0.1", self.control)).unwrap();
        s.write_all(b"count\n").unwrap();
        let mut answer = String::new();
        s.read_to_string(&mut answer).unwrap();
        answer.split_whitespace().next().unwrap().parse().unwrap()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// A reader whose role may only read answers at once while a batch waits
/// for its refill: from the last refilled snapshot, with the catalog round
/// trips of a few opens, not a refill's nor a wait's. Counted (not timed)
/// through a proxy: the same report when nothing waits is the anchor
/// (measured about 2.8×; a reader that tried the refill, or waited for the
/// writers' turn, asked thousands).
#[test]
fn a_read_only_answer_while_a_batch_waits_costs_a_few_opens() {
    let lake = TestLake::new("rowait");
    let dir = tempfile::tempdir().unwrap();
    let t1 = crate::lake::tree(dir.path(), "w1", 96, 5);
    let t2 = crate::lake::tree(dir.path(), "w2", 96, 6);
    let ingest = |t: &Path, root: &str, extra: &[&str]| {
        ok(
            lake.liftdb()
                .args(["ingest", "--quiet"])
                .args(extra)
                .arg(t.join(root))
                .arg(t.join("manifest.json"))
                .output()
                .unwrap(),
            root,
        )
    };
    ingest(&t1, "w1", &["--release", "v1"]);
    let role = format!("rowait_{}", std::process::id());
    lake.reader_role(&role);
    let proxy = Proxy::start();
    let through_proxy = lake.catalog_as(&role).replace(
        &format!("port={}", setting("port")),
        &format!("port={}", proxy.port),
    );
    let report = || {
        proxy.round_trips();
        let out = on_catalog(&lake, &through_proxy)
            .args(["report", "lift", "--format", "csv"])
            .output();
        (out.unwrap(), proxy.round_trips())
    };
    let (out, idle) = report();
    let before = ok(out, "reader, nothing waits");
    ingest(&t2, "w2", &["--release", "v2", "--defer-refill"]);
    let (out, waiting) = report();
    assert_eq!(ok(out, "reader while v2 waits"), before);
    assert!(
        waiting <= 4 * idle,
        "a waiting batch made the reader ask {waiting} round trips against {idle}"
    );
}
