//! A batch commits whole or not at all: `liftdb ingest` is killed with
//! SIGKILL at spread-out moments and the store must open, hold consistent
//! rows, and contain either all of the batch or none of it.
//! LIFTDB_KILL_TRIALS sets the number of trials (CI default 8;
//! `scripts/kill-test.sh` runs 50).

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

    // How long a full batch takes here, to spread the kills over it.
    let probe = dir.path().join("probe.duckdb");
    std::fs::copy(&template, &probe).unwrap();
    let started = std::time::Instant::now();
    assert!(liftdb(&probe)
        .args(["ingest", "-q"])
        .args(corpus_paths(&seh_root()))
        .status()
        .unwrap()
        .success());
    // Kills land anywhere from the start to past the end (then the batch committed first).
    let full = started.elapsed().as_millis() as u64 * 13 / 10 + 200;

    let (mut committed, mut rolled_back) = (0, 0);
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for trial in 0..trials {
        let db = dir.path().join(format!("t{trial}.duckdb"));
        std::fs::copy(&template, &db).unwrap();
        let mut child = liftdb(&db)
            .args(["ingest", "-q"])
            .args(corpus_paths(&seh_root()))
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
            (14, 1) => {
                rolled_back += 1;
                assert_eq!(
                    counts["gradings"].as_i64(),
                    Some(14),
                    "trial {trial}: nothing of the killed batch"
                );
            }
            (572, 2) => {
                committed += 1;
                assert!(
                    counts["gradings"].as_i64().unwrap() > 14,
                    "trial {trial}: all of the batch"
                );
            }
            other => panic!("trial {trial}: partial batch {other:?}"),
        }
        // The store still takes the next ingest.
        drop(store);
        assert!(liftdb(&db)
            .args(["ingest", "-q"])
            .args(corpus_paths(&seh_root()))
            .status()
            .unwrap()
            .success());
    }
    println!("{trials} kills: {rolled_back} rolled back, {committed} committed");
}
