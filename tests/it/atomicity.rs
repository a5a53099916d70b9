//! A batch commits whole or not at all: `liftdb ingest` is killed with
//! SIGKILL at spread-out moments and the store must open, hold consistent
//! rows, and contain either all of the batch or none of it.
//! LIFTDB_KILL_TRIALS sets the number of trials (CI default 8;
//! `scripts/kill-test.sh` runs 50). LIFTDB_KILL_RUNS=N makes the batch a
//! gen-runs tree of N runs with its manifest instead of the dev corpus
//! (`scripts/kill-test.sh --runs 100000`): kills then land in discovery,
//! parsing, appending and the final commit and checkpoint alike. A kill
//! after the commit, in the refill of the stored aggregates, leaves them to
//! the next open, which refills them: each trial's are checked against
//! their views.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::common::{corpus_paths, rows, seh_root};

fn liftdb(db: &Path) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("liftdb"));
    cmd.env_remove("LIFTDB_DB").arg("--db").arg(db);
    cmd
}

#[test]
fn killed_ingest_leaves_all_or_nothing() {
    let trials: u64 = std::env::var("LIFTDB_KILL_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8);
    let base = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "tests/fixtures/seed000-skill-eval/runs/tmp/skills-eval/corpus-claude-sonnet-4-5-single",
    );
    let dir = tempfile::tempdir().unwrap();
    let template = dir.path().join("template.duckdb");
    assert!(liftdb(&template)
        .args(["ingest", "-q", "--release", "v1"])
        .arg(&base)
        .status()
        .unwrap()
        .success());

    // The batch: the dev corpus, or a generated tree of LIFTDB_KILL_RUNS runs.
    let generated: Option<u64> = std::env::var("LIFTDB_KILL_RUNS")
        .ok()
        .and_then(|v| v.parse().ok());
    let batch: Vec<std::path::PathBuf> = match generated {
        Some(runs) => {
            let tree = dir.path().join("tree");
            assert!(Command::new(assert_cmd::cargo::cargo_bin("gen-runs"))
                .args(["--runs", &runs.to_string(), "--out"])
                .arg(&tree)
                .status()
                .unwrap()
                .success());
            vec![tree.join("eval-runs"), tree.join("manifest.json")]
        }
        None => corpus_paths(&seh_root()),
    };
    let count = |db: &Path| -> (i64, i64) {
        let store = liftdb::store::open_write(db).unwrap();
        let c = rows(
            &store,
            "SELECT (SELECT count(*) FROM run) AS runs, (SELECT count(*) FROM grading) AS gradings",
        )
        .remove(0);
        (c["runs"].as_i64().unwrap(), c["gradings"].as_i64().unwrap())
    };
    let (template_runs, template_gradings) = count(&template);

    // How long a full batch takes here, to spread the kills over it.
    let probe = dir.path().join("probe.duckdb");
    std::fs::copy(&template, &probe).unwrap();
    let started = std::time::Instant::now();
    assert!(liftdb(&probe)
        .args(["ingest", "-q"])
        .args(&batch)
        .status()
        .unwrap()
        .success());
    // Kills land anywhere from the start to past the end (then the batch committed first).
    let full = started.elapsed().as_millis() as u64 * 13 / 10 + 200;
    let (all_runs, _) = count(&probe);

    let (mut committed, mut rolled_back) = (0, 0);
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for trial in 0..trials {
        let db = dir.path().join(format!("t{trial}.duckdb"));
        std::fs::copy(&template, &db).unwrap();
        let mut child = liftdb(&db)
            .args(["ingest", "-q"])
            .args(&batch)
            .spawn()
            .unwrap();
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        std::thread::sleep(Duration::from_millis(state % full));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();

        let store = liftdb::store::open_write(&db)
            .unwrap_or_else(|e| panic!("trial {trial}: store does not open: {e}"));
        let counts = rows(
            &store,
            "SELECT (SELECT count(*) FROM run) AS runs, (SELECT count(*) FROM ingest_batch) AS batches,
                    (SELECT count(*) FROM run r WHERE NOT EXISTS (SELECT 1 FROM measurement m WHERE m.run_id = r.run_id)) AS orphan_runs,
                    (SELECT count(*) FROM measurement m WHERE NOT EXISTS (SELECT 1 FROM run r WHERE r.run_id = m.run_id)) AS orphan_measurements,
                    (SELECT count(*) FROM grading) AS gradings,
                    (SELECT count(*) FROM source_file) AS files",
        )
        .remove(0);
        let runs = counts["runs"].as_i64().unwrap();
        let batches = counts["batches"].as_i64().unwrap();
        assert_eq!(counts["orphan_runs"].as_i64(), Some(0), "trial {trial}");
        assert_eq!(
            counts["orphan_measurements"].as_i64(),
            Some(0),
            "trial {trial}"
        );
        match (runs, batches) {
            (r, 1) if r == template_runs => {
                rolled_back += 1;
                assert_eq!(
                    counts["gradings"].as_i64(),
                    Some(template_gradings),
                    "trial {trial}: nothing of the killed batch"
                );
            }
            (r, 2) if r == all_runs => {
                committed += 1;
                assert!(
                    counts["gradings"].as_i64().unwrap() > template_gradings,
                    "trial {trial}: all of the batch"
                );
            }
            other => panic!("trial {trial}: partial batch {other:?}"),
        }
        // Killed after its commit, the batch's aggregates were refilled
        // when the store was opened above: they hold their views' rows.
        // (At scale the full check is minutes a trial: what waited is gone and
        // the stored runs are the runs.)
        match generated {
            None => crate::common::assert_aggregates_current(&store),
            Some(_) => {
                let waiting = liftdb::store::aggregates::refill::waiting(&store.conn).unwrap();
                assert_eq!(
                    waiting,
                    liftdb::store::aggregates::refill::Waiting::Nothing,
                    "trial {trial}"
                );
                let stored = rows(&store, "SELECT count(*) AS n FROM run_rows").remove(0);
                assert_eq!(stored["n"].as_i64(), Some(runs), "trial {trial}: run_rows");
            }
        }
        // The store still takes the next ingest (at scale, on the last trial only).
        drop(store);
        if generated.is_none() || trial + 1 == trials {
            assert!(liftdb(&db)
                .args(["ingest", "-q"])
                .args(&batch)
                .status()
                .unwrap()
                .success());
        }
    }
    println!(
        "{trials} kills over a {} ms batch ({all_runs} runs after it): {rolled_back} rolled back, {committed} committed, 0 partial",
        full
    );
}
