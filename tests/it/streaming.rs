//! A report too large to hold is read row by row (`benchmark_stream`): the
//! store it leaves equals the one a whole read leaves. Streaming is forced
//! on the corpus by `LIFTDB_STREAM_FROM_BYTES=1` (every loose file is then
//! only hashed when planned; reports stream, the others fall back to a
//! whole read).

use std::path::Path;

use crate::common::{corpus_paths, liftdb_cmd, seh_root, succeeded};

/// Ingest the whole seh corpus (tree, manifest, the three gzipped reports,
/// cost and token reports) into `db`, streaming from `threshold` bytes.
fn ingest(db: &Path, threshold: &str) {
    liftdb_cmd(db)
        .env("LIFTDB_STREAM_FROM_BYTES", threshold)
        .args(["ingest", "--quiet"])
        .args(corpus_paths(&seh_root()))
        .assert()
        .success();
}

/// Every stored row that a report's parse writes, as order-free digests.
const DIGESTS: &str = "SELECT
    (SELECT count(*) FROM grading) AS gradings,
    (SELECT sum(hash(grading_id, run_id, report_path, peer_objective_pass_rate, peer_graded_score, deferred_judge_tasks, origin)) FROM grading)::VARCHAR AS grading_digest,
    (SELECT count(*) FROM assertion_result) AS assertions,
    (SELECT sum(hash(grading_id, seq, name, type, channel, severity, passed, score, evidence, availability)) FROM assertion_result)::VARCHAR AS assertion_digest,
    (SELECT count(*) FROM peer_metric) AS peer_metrics,
    (SELECT sum(hash(source_path, json_path, value, value_text)) FROM peer_metric)::VARCHAR AS peer_digest,
    (SELECT sum(hash(case_pk, split, kind, source_path)) FROM case_def)::VARCHAR AS case_digest,
    (SELECT sum(hash(suite_id, manifest_path, manifest_sha256)) FROM suite)::VARCHAR AS suite_digest,
    (SELECT sum(hash(path, sha256, kind, owner_key)) FROM source_file)::VARCHAR AS file_digest,
    (SELECT count(*) FROM ingest_error) AS errors,
    (SELECT string_agg(DISTINCT release_label, ',') FROM ingest_batch) AS releases";

#[test]
fn a_report_read_row_by_row_stores_what_a_whole_read_stores() {
    let dir = tempfile::tempdir().unwrap();
    let (whole, streamed) = (
        dir.path().join("whole.duckdb"),
        dir.path().join("streamed.duckdb"),
    );
    ingest(&whole, "1000000000000");
    ingest(&streamed, "1");
    let digest = |db: &Path| {
        let out = succeeded(liftdb_cmd(db).args(["sql", "--format", "json", DIGESTS]));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let (a, b) = (digest(&whole), digest(&streamed));
    assert_eq!(a, b);
    // The digests cover the reports' rows: docs/grading.md §0 counts 2,016
    // assertion rows over the three reports (liftdb's own grading adds more).
    assert!(a[0]["assertions"].as_i64().unwrap() >= 2016, "{a}");
    // And the streamed store still reconciles with every report.
    let out = liftdb_cmd(&streamed)
        .args(["report", "reconcile", "--format", "json"])
        .output()
        .unwrap();
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        !rows.is_empty() && rows.iter().all(|r| r["agrees"] == true),
        "{rows:#?}"
    );
}
