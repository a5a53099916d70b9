//! Secrets planted across the formats never reach the store or an export;
//! with --no-redact they do (which shows the check can see them).

use std::path::PathBuf;

use crate::common::{copy_tree, new_store, rows, scalar};

const SECRETS: &[&str] = &[
    "sk-ant-api03-PLANTEDPLANTEDPLANTED00",
    "AKIAPLANTED000000000",
    "ghp_PLANTEDplantedPLANTEDplanted0123456789",
    "hunter2planted",
    "plantedBearerToken123456",
];

/// A tree holding runs of every harness format, each carrying the planted secrets.
fn planted_tree() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let root = dir.path().join("tree");
    let seh = root.join("eval-runs/add-not-null-column/gpt-5-codex/with_skill/run-1");
    copy_tree(
        &fixtures.join(
            "skill-eval-harness/runs/eval-runs/add-not-null-column/gpt-5-codex/with_skill/run-1",
        ),
        &seh,
    );
    let secret_text = format!(
        "key {} and {} and {} password={} Authorization: Bearer {}",
        SECRETS[0], SECRETS[1], SECRETS[2], SECRETS[3], SECRETS[4]
    );
    std::fs::write(seh.join("output.md"), &secret_text).unwrap();
    let mut meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(seh.join("metadata.json")).unwrap()).unwrap();
    meta["stderr"] = serde_json::Value::String(secret_text.clone());
    meta["api_key"] = serde_json::Value::String(SECRETS[0].to_string());
    std::fs::write(seh.join("metadata.json"), meta.to_string()).unwrap();
    let trace = format!("{{\"type\":\"message\",\"text\":\"{secret_text}\"}}\n");
    std::fs::write(seh.join("trace.jsonl"), trace).unwrap();

    let pf = root.join("promptfoo");
    std::fs::create_dir_all(&pf).unwrap();
    let mut results: serde_json::Value = serde_json::from_slice(
        &std::fs::read(fixtures.join("promptfoo/runs/results.json")).unwrap(),
    )
    .unwrap();
    results["results"]["results"][0]["response"]["output"] =
        serde_json::Value::String(secret_text.clone());
    std::fs::write(pf.join("results.json"), results.to_string()).unwrap();

    let seed_src =
        fixtures.join("seed000-skill-eval/runs/tmp/skills-eval/corpus-claude-sonnet-4-5-single");
    let seed = root.join("skills-eval/corpus-x");
    copy_tree(&seed_src, &seed);
    let out = seed.join("sql-migration-review/iteration-1/eval-1/with_skill/output.txt");
    std::fs::write(&out, &secret_text).unwrap();

    // skill-creator (its own scripts' workspace): a grading's evidence and
    // the answer it graded.
    let eval = "dockerfile-hardening-workspace/iteration-1/eval-7-pin-base-image-digest";
    copy_tree(
        &fixtures.join("skill-creator-anthropic/runs").join(eval),
        &root.join("creator").join(eval),
    );
    let creator = root.join("creator").join(eval).join("with_skill/run-3");
    let mut grading: serde_json::Value =
        serde_json::from_slice(&std::fs::read(creator.join("grading.json")).unwrap()).unwrap();
    grading["expectations"][0]["evidence"] = serde_json::Value::String(secret_text.clone());
    std::fs::write(creator.join("grading.json"), grading.to_string()).unwrap();
    std::fs::write(creator.join("outputs/transcript.md"), &secret_text).unwrap();
    (dir, root)
}

fn leaked(store: &liftdb::store::Store) -> Vec<String> {
    let tables: Vec<String> = rows(
        store,
        "SELECT table_name FROM duckdb_tables() WHERE NOT internal AND NOT temporary",
    )
    .into_iter()
    .map(|r| r["table_name"].as_str().unwrap().to_string())
    .collect();
    let mut found = Vec::new();
    for t in tables {
        for s in SECRETS {
            let n = scalar(
                store,
                &format!("SELECT count(*) FROM \"{t}\" x WHERE CAST(x AS VARCHAR) LIKE '%{s}%'"),
            );
            if n.as_i64() != Some(0) {
                found.push(format!("{t}: {s}"));
            }
        }
    }
    found
}

#[test]
fn planted_secrets_are_redacted_everywhere() {
    let (dir, root) = planted_tree();
    let mut ts = new_store();
    let summary = liftdb::batch::ingest(
        &mut ts.store,
        std::slice::from_ref(&root),
        &Default::default(),
    )
    .unwrap();
    assert!(summary.errors.is_empty(), "{:?}", summary.errors);
    assert!(summary.runs_written >= 60);
    assert_eq!(
        scalar(&ts.store, "SELECT count(DISTINCT source_format) FROM run").as_i64(),
        Some(4),
        "secrets planted in all four harness formats"
    );
    assert_eq!(leaked(&ts.store), Vec::<String>::new());
    let redacted = scalar(
        &ts.store,
        "SELECT count(*) FROM run WHERE output_text LIKE '%[REDACTED]%'",
    );
    assert!(
        redacted.as_i64().unwrap() >= 3,
        "one planted output per format"
    );

    // Exports carry only what the store holds.
    for view in ["runs", "cost_ledger", "run_provenance"] {
        let out = dir.path().join(format!("{view}.json"));
        liftdb::export::export(&ts.store.conn, view, &out, &Default::default()).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        for s in SECRETS {
            assert!(!text.contains(s), "{view} export leaks {s}");
        }
    }
    // And the file's bytes.
    let db = ts.db.clone();
    ts.store.conn.execute_batch("CHECKPOINT").unwrap();
    drop(ts.store);
    let bytes = std::fs::read(&db).unwrap();
    for s in SECRETS {
        assert!(
            !bytes.windows(s.len()).any(|w| w == s.as_bytes()),
            "database file holds {s}"
        );
    }
}

#[test]
fn no_redact_keeps_them() {
    let (_dir, root) = planted_tree();
    let mut ts = new_store();
    let opts = liftdb::batch::IngestOptions {
        no_redact: true,
        ..Default::default()
    };
    liftdb::batch::ingest(&mut ts.store, &[root], &opts).unwrap();
    let found = leaked(&ts.store);
    for s in SECRETS {
        assert!(
            found.iter().any(|f| f.ends_with(s)),
            "{s} kept with --no-redact: {found:?}"
        );
    }
}
