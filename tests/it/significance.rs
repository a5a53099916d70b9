//! One significance everywhere (#71): a test is significant when the p it
//! decides on, `p_upper`, is at most 0.05 — for an exact test its p, for a
//! sampled one (n > 14) the upper confidence bound of its Monte-Carlo
//! estimate, min(1, hits/4096 + sqrt(ln(1000)/8192)) (docs/metrics.md §M6).
//! Checked on every row of every tool corpus the tests use (the five tool
//! corpora, the demo's sample as its two releases, the seh-trend history and
//! the seh-trend-shapes releases): the stored p_upper against one computed
//! here from p, and the one boolean in lift_evidence, lift_summary, the
//! headline sentence, `report lift`, the exports, the HTML headline, the
//! trend views and `gate --significant`. `significant_at_0_05` stays
//! skill-eval-harness 0.6.0's own flag (p <= 0.05), anchored on the tool's
//! report read at test time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use liftdb::batch::{self, IngestOptions};
use liftdb::store::Store;
use serde_json::{Map, Value};

use crate::common::{
    corpus_store, fixture, liftdb_cmd, reference, rows, store_of, succeeded, tool_corpora,
    TestStore,
};

const ALPHA: f64 = 0.05;
const SAMPLED: &str = "sign-flip-sampled";

/// p_upper computed here, apart from liftdb's code, from a test's method and
/// p: for a sampled test p = (hits + 1)/4097 (docs/metrics.md §M6), so hits
/// is p·4097 − 1 (an integer; within `slack` when p is rounded: 6 places
/// move p·4097 by at most 0.002), and p_upper = min(1, hits/4096 +
/// sqrt(ln(1/0.001)/(2·4096))) (skill-eval-harness main's 99.9% bound).
fn p_upper_from_p(method: &str, p: f64, slack: f64) -> f64 {
    if method != SAMPLED {
        return p;
    }
    let hits = p * 4097.0 - 1.0;
    assert!(
        (hits - hits.round()).abs() <= slack,
        "a sampled p of {p} is not (hits + 1)/4097"
    );
    (hits.round() / 4096.0 + (1000f64.ln() / 8192.0).sqrt()).min(1.0)
}

fn opt_f(v: &Value) -> Option<f64> {
    v.as_f64()
}

/// Releases ingested one batch each, in order, with no ingest error.
fn releases_of(batches: &[(&str, Vec<PathBuf>)]) -> TestStore {
    let mut ts = crate::common::new_store();
    for (release, paths) in batches {
        let opts = IngestOptions {
            release: Some(release.to_string()),
            ..Default::default()
        };
        let summary = batch::ingest(&mut ts.store, paths, &opts).unwrap();
        assert!(summary.errors.is_empty(), "{release}: {:?}", summary.errors);
    }
    ts
}

/// The demo's sample as `liftdb demo` ingests it (src/cli/demo.rs): an early
/// single-iteration handbook run as 2026.10, then every other corpus as
/// 2026.11.
fn demo_store() -> TestStore {
    let seed = fixture("seed000-skill-eval/runs/tmp/skills-eval");
    let seh = fixture("skill-eval-harness");
    releases_of(&[
        (
            "2026.10",
            vec![seed.join("corpus-claude-sonnet-4-5-single")],
        ),
        (
            "2026.11",
            vec![
                seh.join("runs/eval-runs"),
                seh.join("input/evals/shared-benchmark.json"),
                seh.join("reference"),
                seed.join("corpus-claude-sonnet-4-5"),
                seed.join("corpus-claude-haiku-4-5"),
                fixture("skill-creator/runs"),
                fixture("promptfoo/runs"),
            ],
        ),
    ])
}

/// The seh-trend history (tests/fixtures/seh-trend/README.md): the three
/// reports of the tool's trend, each as the release the tool names it.
fn seh_trend_store() -> TestStore {
    releases_of(&[
        (
            "run-001.json",
            vec![fixture("generated-seed11/benchmark.json.gz")],
        ),
        (
            "run-002.json",
            vec![fixture("generated-seed23/benchmark.json.gz")],
        ),
        (
            "run-003.json",
            vec![fixture("seh-trend/seed31/benchmark.json.gz")],
        ),
    ])
}

/// tests/fixtures/seh-trend-shapes: r1 (one model, single-model layout),
/// then r2 as its two runs roots (one model each).
fn seh_trend_shapes_store() -> TestStore {
    let root = fixture("seh-trend-shapes");
    releases_of(&[
        ("r1", vec![root.join("r1/benchmark.json.gz")]),
        (
            "r2",
            vec![
                root.join("r2/benchmark-runs-a.json.gz"),
                root.join("r2/benchmark-runs-b.json.gz"),
            ],
        ),
    ])
}

/// Every stored test follows the one rule, and each place that says
/// whether a lift or a change is significant says what the rule says.
/// Returns how many sampled lift rows had p <= 0.05 but were not
/// significant (where 0.6.0's flag and liftdb's rule part).
fn one_rule_on_every_row(store: &Store, what: &str) -> usize {
    // lift_evidence: every row of lift_stats, beside its lift row.
    let evidence = rows(
        store,
        "SELECT release_label, skill_name, channel, split, row_kind, experiment, scope, model,
                case_id, control_arm, method, p_value, p_value_unrounded, p_upper, significant
         FROM lift_evidence",
    );
    assert!(!evidence.is_empty(), "{what}: no lift row");
    let (mut sampled, mut parted) = (0, 0);
    for row in &evidence {
        let p = opt_f(&row["p_value_unrounded"]);
        let upper = opt_f(&row["p_upper"]);
        let significant = row["significant"].as_bool();
        let Some(p) = p else {
            assert_eq!(
                (upper, significant),
                (None, None),
                "{what}: untested {row:?}"
            );
            continue;
        };
        let upper = upper.unwrap_or_else(|| panic!("{what}: tested, no p_upper: {row:?}"));
        assert_eq!(significant, Some(upper <= ALPHA), "{what}: {row:?}");
        let method = row["method"].as_str().unwrap();
        if method == SAMPLED {
            sampled += 1;
            let expected = p_upper_from_p(method, p, 1e-6);
            assert!(
                (upper - expected).abs() <= 1e-12,
                "{what}: p_upper {upper}, from p {expected}: {row:?}"
            );
            if p <= ALPHA && upper > ALPHA {
                parted += 1;
            }
        } else {
            assert_eq!(upper, p, "{what}: an exact test decides on its p: {row:?}");
        }
    }
    eprintln!(
        "{what}: {} lift rows, {sampled} sampled, {parted} where p <= 0.05 is not significant",
        evidence.len()
    );

    // lift_summary: the release row's boolean, on every row.
    let summary = rows(
        store,
        "SELECT s.release, s.skill, s.split, s.significant AS summary, s.p_upper AS summary_upper,
                e.significant AS evidence, e.p_upper AS evidence_upper
         FROM lift_summary s
         LEFT JOIN lift_evidence e
           ON e.release_label = s.release AND e.skill_name = s.skill AND e.split = s.split
          AND e.channel = 'objective' AND e.control_arm = 'without_skill'
          AND e.row_kind = 'release' AND e.scope = 'overall'",
    );
    assert!(!summary.is_empty(), "{what}: no lift_summary row");
    for row in &summary {
        assert_eq!(row["summary"], row["evidence"], "{what}: {row:?}");
        assert_eq!(
            row["summary_upper"], row["evidence_upper"],
            "{what}: {row:?}"
        );
    }

    // lift_headline: the sentence says significant exactly when the row is.
    let headlines = rows(
        store,
        "SELECT h.sentence, h.significant AS said, h.p_upper AS said_upper,
                e.significant, e.p_upper, e.p_value, e.method
         FROM lift_headline h
         LEFT JOIN lift_evidence e
           ON e.release_label = h.release_label AND e.skill_name = h.skill_name
          AND e.split = h.split AND e.control_arm = h.control_arm AND e.channel = 'objective'
          AND e.row_kind = 'release' AND e.scope = 'overall'",
    );
    assert!(!headlines.is_empty(), "{what}: no headline");
    for row in &headlines {
        let sentence = row["sentence"].as_str().unwrap();
        assert_eq!(row["said"], row["significant"], "{what}: {row:?}");
        assert_eq!(row["said_upper"], row["p_upper"], "{what}: {row:?}");
        match row["significant"].as_bool() {
            None => assert!(sentence.contains("— significance not tested"), "{sentence}"),
            Some(true) => assert!(sentence.contains("— significant ("), "{sentence}"),
            Some(false) => assert!(sentence.contains("— not significant ("), "{sentence}"),
        }
        if row["method"] == SAMPLED
            && row["p_value"].as_f64().is_some_and(|p| p <= ALPHA)
            && row["significant"] == false
        {
            let bound = format!(
                "but allowing for the sampling up to {:.3}, above 0.05",
                f64_of(&row["p_upper"])
            );
            assert!(sentence.contains(&bound), "{what}: {sentence}");
        }
        // A significant sampled test names the bound it was decided on too.
        if row["method"] == SAMPLED && row["significant"] == true {
            let bound = format!(
                "allowing for the sampling up to {:.3})",
                f64_of(&row["p_upper"])
            );
            assert!(sentence.contains(&bound), "{what}: {sentence}");
        }
    }

    // trend_stats: its p_upper from its p (rounded 6: hits within 0.01).
    let trend_stats = rows(
        store,
        "SELECT method, p_value, p_upper, significant, significant_at_0_05 FROM trend_stats",
    );
    for row in &trend_stats {
        let Some(p) = opt_f(&row["p_value"]) else {
            assert_eq!(row["p_upper"], Value::Null, "{what}: {row:?}");
            continue;
        };
        let upper = f64_of(&row["p_upper"]);
        let expected = p_upper_from_p(row["method"].as_str().unwrap(), p, 0.01);
        // An exact p_upper is the unrounded p; p_value is it rounded 6.
        assert!((upper - expected).abs() <= 5e-7 + 1e-12, "{what}: {row:?}");
        assert_eq!(row["significant"], upper <= ALPHA, "{what}: {row:?}");
    }
    // trend and case_trend: the change's boolean is the rule on its p_upper.
    for view in ["trend", "case_trend"] {
        let off = rows(
            store,
            &format!(
                "SELECT * FROM {view}
                 WHERE change_significant IS DISTINCT FROM (change_p_upper <= 0.05)"
            ),
        );
        assert!(off.is_empty(), "{what}: {view}: {off:?}");
    }
    // case_trend: regressed / improved exactly where the change is significant.
    let directions = rows(
        store,
        "SELECT direction, change_significant FROM case_trend
         WHERE previous_lift IS NOT NULL AND direction <> 'unchanged'",
    );
    for row in &directions {
        let decided = matches!(row["direction"].as_str(), Some("regressed" | "improved"));
        assert_eq!(
            decided,
            row["change_significant"] == true,
            "{what}: {row:?}"
        );
    }
    // report trend-cases carries the same boolean.
    let report = liftdb::report::find("trend-cases").unwrap();
    let rs = liftdb::report::run(&store.conn, &report, &Default::default()).unwrap();
    for row in crate::common::result_rows(&rs) {
        let upper = row["change_p_upper"].as_f64();
        assert_eq!(
            row["significant"].as_bool(),
            upper.map(|u| u <= ALPHA),
            "{what}: {row:?}"
        );
    }
    parted
}

fn f64_of(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn one_rule_on_every_row_of_the_tool_corpora() {
    let ts = store_of(&tool_corpora());
    // The corpora hold the demo's case (skill-eval-harness, split tune, 21
    // units): a sampled p under 0.05 whose upper bound is not.
    assert!(one_rule_on_every_row(&ts.store, "tool corpora") >= 1);
}

#[test]
fn one_rule_on_every_row_of_the_demo_sample() {
    let ts = demo_store();
    assert!(one_rule_on_every_row(&ts.store, "demo") >= 1);
    // Two releases: the changes between them are tested too.
    let changes = rows(
        &ts.store,
        "SELECT count(*) AS n FROM trend_stats WHERE p_upper IS NOT NULL",
    );
    assert!(changes[0]["n"].as_i64().unwrap() > 0, "{changes:?}");
}

#[test]
fn one_rule_on_every_row_of_the_seh_trend_histories() {
    for (what, ts) in [
        ("seh-trend", seh_trend_store()),
        ("seh-trend-shapes", seh_trend_shapes_store()),
    ] {
        one_rule_on_every_row(&ts.store, what);
        let changes = rows(
            &ts.store,
            "SELECT count(*) AS n FROM trend WHERE change_p_upper IS NOT NULL",
        );
        assert!(changes[0]["n"].as_i64().unwrap() > 0, "{what}: {changes:?}");
    }
}

/// The anchor, from the tool's own report (read at test time):
/// skill-eval-harness 0.6.0's benchmark-tune.json `paired_summary.significance`
/// is a sampled test of 21 units with p 0.040762, `significant_at_0_05` true.
/// hits = 0.040762·4097 − 1 = 166, so p_upper = 166/4096 + sqrt(ln(1000)/8192)
/// = 0.0405273 + 0.0290385 = 0.0695658 (by hand, §M6): above 0.05, so
/// liftdb's tune lift is not significant while the tool's flag stays true;
/// the headline says why, and `gate --significant` does not pass it.
#[test]
fn the_tools_sampled_tune_p_under_0_05_is_not_significant_by_its_upper_bound() {
    let tool = &reference("benchmark-tune.json.gz")["paired_summary"]["significance"];
    assert_eq!(tool["method"], SAMPLED);
    assert_eq!(tool["n"], 21);
    assert_eq!(tool["significant_at_0_05"], true);
    let p = f64_of(&tool["p_value"]);
    let expected = p_upper_from_p(SAMPLED, p, 0.01);
    assert!((expected - 0.0695658).abs() < 5e-7, "{expected}");

    let ts = corpus_store();
    let summary = rows(
        &ts.store,
        "SELECT p, p_upper, significant FROM lift_summary WHERE split = 'tune'",
    );
    assert_eq!(summary.len(), 1, "{summary:?}");
    assert_eq!(f64_of(&summary[0]["p"]), p);
    assert!((f64_of(&summary[0]["p_upper"]) - expected).abs() < 1e-12);
    assert_eq!(summary[0]["significant"], false);
    // The tool's own flag, kept beside it, on the runs root's experiment row
    // (the tool's report) and on the release row alike.
    let stats = rows(
        &ts.store,
        "SELECT row_kind, significant_at_0_05, significant FROM lift_stats
         WHERE channel = 'objective' AND control_arm = 'without_skill' AND split = 'tune'
           AND scope = 'overall'",
    );
    assert!(!stats.is_empty());
    for row in &stats {
        assert_eq!(
            row["significant_at_0_05"], tool["significant_at_0_05"],
            "{row:?}"
        );
        assert_eq!(row["significant"], false, "{row:?}");
    }
    let sentence = rows(
        &ts.store,
        "SELECT sentence FROM lift_headline WHERE split = 'tune' AND control_arm = 'without_skill'",
    );
    let sentence = sentence[0]["sentence"].as_str().unwrap();
    assert!(
        sentence.contains(&format!(
            "not significant (sampled p {p:.3}, but allowing for the sampling up to {expected:.3}, above 0.05)"
        )),
        "{sentence}"
    );
    let TestStore { _dir, db, store } = ts;
    drop(store);
    let (code, verdict) = gate_json(
        &db,
        &["--split", "tune", "--min-lift", "0", "--significant"],
    );
    let check = &verdict["checks"][0];
    assert_ne!(check["outcome"], "pass", "{verdict}");
    assert_eq!(
        code,
        Some(3),
        "lift above 0, not significant: undecided: {verdict}"
    );
    let measured = check["measured"].as_str().unwrap();
    assert!(
        measured.contains(&format!(
            "p {p} (sampled; allowing for the sampling up to {expected:.6})"
        )),
        "{measured}"
    );
    assert!(
        check["required"]
            .as_str()
            .unwrap()
            .contains("p (its upper bound when sampled) <= 0.05"),
        "{check}"
    );
}

/// `liftdb gate --format json ARGS` on `db`: exit code and verdict.
fn gate_json(db: &Path, args: &[&str]) -> (Option<i32>, Value) {
    let out = liftdb_cmd(db)
        .args(["gate", "--format", "json"])
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let verdict = serde_json::from_str(&text)
        .unwrap_or_else(|_| panic!("{text}{}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), verdict)
}

/// A row's key values, as JSON text (a map key).
type Key = String;

fn key(row: &Map<String, Value>, columns: &[&str]) -> Key {
    key_of(columns.iter().map(|c| row[*c].clone()).collect())
}

fn key_of(values: Vec<Value>) -> Key {
    Value::Array(values).to_string()
}

/// The key of a release's overall row of a skill.
fn overall_key(release: &Value, skill: &Value) -> Key {
    key_of(vec![
        release.clone(),
        skill.clone(),
        "release".into(),
        Value::Null,
        "overall".into(),
        Value::Null,
        Value::Null,
    ])
}

/// What the CLI prints — `report lift --format json`, the exports of the
/// lift report and of lift_headline, the HTML report's headline table and
/// `gate --min-lift 0 --significant` — carries lift_evidence's boolean, on
/// the five tool corpora and on the demo's two releases.
#[test]
fn every_surface_says_the_rows_significance() {
    for (what, ts) in [
        ("tool corpora", store_of(&tool_corpora())),
        ("demo", demo_store()),
    ] {
        surfaces_say_the_rule(ts, what);
    }
}

fn surfaces_say_the_rule(ts: TestStore, what: &str) {
    // lift_evidence's boolean and lift, per row of the lift report's keys.
    let evidence: BTreeMap<Key, (Value, Value)> = rows(
        &ts.store,
        "SELECT release_label AS release, skill_name AS skill, row_kind AS kind, experiment,
                scope, model, case_id AS \"case\", significant, absolute_delta
         FROM lift_evidence
         WHERE channel = 'objective' AND split = 'all' AND control_arm = 'without_skill'",
    )
    .into_iter()
    .map(|r| {
        let k = key(
            &r,
            &[
                "release",
                "skill",
                "kind",
                "experiment",
                "scope",
                "model",
                "case",
            ],
        );
        (k, (r["significant"].clone(), r["absolute_delta"].clone()))
    })
    .collect();
    let latest = rows(
        &ts.store,
        "SELECT release_label FROM releases ORDER BY ordinal DESC LIMIT 1",
    )[0]["release_label"]
        .as_str()
        .unwrap()
        .to_string();
    let skills: Vec<String> = rows(
        &ts.store,
        &format!(
            "SELECT DISTINCT skill_name FROM lift_rows WHERE release_label = {} ORDER BY 1",
            crate::common::sql_str(&latest)
        ),
    )
    .iter()
    .map(|r| r["skill_name"].as_str().unwrap().to_string())
    .collect();
    let TestStore { _dir, db, store } = ts;
    drop(store);
    let dir = tempfile::tempdir().unwrap();

    // report lift --format json: p_upper and significant on every row.
    let out = succeeded(liftdb_cmd(&db).args(["report", "lift", "--format", "json"]));
    let lift: Vec<Map<String, Value>> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!lift.is_empty());
    let keys = [
        "release",
        "skill",
        "kind",
        "experiment",
        "scope",
        "model",
        "case",
    ];
    for row in &lift {
        let (significant, _) = &evidence[&key(row, &keys)];
        assert_eq!(&row["significant"], significant, "{what}: {row:?}");
        assert_eq!(
            row["significant"].as_bool(),
            row["p_upper"].as_f64().map(|u| u <= ALPHA),
            "{what}: {row:?}"
        );
    }
    // lift_summary exported as a file: every split pooled, the release row's.
    let exported = dir.path().join("summary.json");
    succeeded(
        liftdb_cmd(&db)
            .args(["export", "lift_summary", "--out"])
            .arg(&exported),
    );
    let summary: Vec<Map<String, Value>> =
        serde_json::from_slice(&std::fs::read(&exported).unwrap()).unwrap();
    let pooled: Vec<_> = summary.iter().filter(|r| r["split"] == "all").collect();
    assert!(!pooled.is_empty(), "{what}");
    for row in pooled {
        let k = overall_key(&row["release"], &row["skill"]);
        assert_eq!(row["significant"], evidence[&k].0, "{what}: {row:?}");
    }

    // The headline: exported, and as the HTML report tabulates it.
    let overall = |release: &Value, skill: &Value| evidence[&overall_key(release, skill)].clone();
    let headline = dir.path().join("headline.json");
    succeeded(
        liftdb_cmd(&db)
            .args([
                "export",
                "SELECT * FROM lift_headline WHERE split = 'all' AND control_arm = 'without_skill'",
                "--out",
            ])
            .arg(&headline),
    );
    let headline: Vec<Map<String, Value>> =
        serde_json::from_slice(&std::fs::read(&headline).unwrap()).unwrap();
    assert!(!headline.is_empty());
    for row in &headline {
        let (significant, _) = overall(&row["release"], &row["skill"]);
        assert_eq!(row["significant"], significant, "{what}: {row:?}");
        let sentence = row["sentence"].as_str().unwrap();
        assert_eq!(
            sentence.contains("— significant ("),
            significant == true,
            "{what}: {sentence}"
        );
    }
    let page = dir.path().join("report.html");
    succeeded(liftdb_cmd(&db).args(["report", "html", "--out"]).arg(&page));
    let html = std::fs::read_to_string(&page).unwrap();
    let table = html
        .split("The numbers behind each sentence</summary>")
        .nth(1)
        .and_then(|rest| rest.split("</table>").next())
        .unwrap_or_else(|| panic!("{what}: no headline table"));
    let cells = |row: &str| -> Vec<String> {
        row.split(['<', '>'])
            .collect::<Vec<_>>()
            .windows(3)
            .filter(|w| w[0] == "td" || w[0] == "th")
            .map(|w| {
                if w[1].starts_with('/') {
                    String::new()
                } else {
                    w[1].to_string()
                }
            })
            .collect()
    };
    let mut lines = table.split("<tr>").skip(1);
    let header = cells(lines.next().unwrap());
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (release, skill, significant) = (at("release"), at("skill"), at("significant"));
    let mut seen = 0;
    for line in lines {
        let c = cells(line);
        let (expected, _) = overall(&c[release].as_str().into(), &c[skill].as_str().into());
        let shown = match expected.as_bool() {
            Some(b) => b.to_string(),
            None => String::new(),
        };
        assert_eq!(c[significant], shown, "{what}: {c:?}");
        seen += 1;
    }
    assert!(seen > 0, "{what}: {table}");

    // gate --min-lift 0 --significant on the latest release: passes exactly
    // when the skill's lift is at least 0 and significant.
    assert!(!skills.is_empty());
    for skill in &skills {
        let skill = skill.as_str();
        let (significant, lift) = overall(&latest.as_str().into(), &skill.into());
        let (_, verdict) = gate_json(
            &db,
            &[
                "--release",
                &latest,
                "--skill",
                skill,
                "--min-lift",
                "0",
                "--significant",
            ],
        );
        let check = &verdict["checks"][0];
        assert_eq!(check["check"], "min-lift", "{verdict}");
        let passes = significant == true && lift.as_f64().is_some_and(|l| l >= -1e-12);
        assert_eq!(
            check["outcome"] == "pass",
            passes,
            "{what} {skill}: {verdict}"
        );
    }
}
