//! Loose files (not inside a run directory): detect what they are from
//! their content and hand them to the matching parser.

use std::path::Path;

use serde_json::Value;

use super::formats::seh::{self, benchmark, judge, manifest, peer, trigger};
use super::formats::{allows, promptfoo, seed, skill_creator, Format};
use super::json::{parse_jsonl, parse_lenient, Get};
use super::records::{CaseRec, Records, SuiteRec};

pub enum LooseKind {
    Manifest,
    Benchmark,
    CostSummary,
    TokenOverhead,
    TriggerReport,
    JudgeResults,
    HandbookCase,
    HandbookBenchmark,
    SkillCreatorBenchmark,
    PromptfooResults,
    /// A known harness file liftdb has nothing to take from (prepared tasks, audits).
    Informational,
    /// Parsing failed; the records hold the error.
    Invalid,
    Unrecognized(String),
}

impl LooseKind {
    pub fn label(&self) -> &'static str {
        match self {
            LooseKind::Manifest => "manifest",
            LooseKind::Benchmark => "benchmark",
            LooseKind::CostSummary => "cost_summary",
            LooseKind::TokenOverhead => "token_overhead",
            LooseKind::TriggerReport => "trigger_report",
            LooseKind::JudgeResults => "judge_results",
            LooseKind::HandbookCase => "handbook_case",
            LooseKind::HandbookBenchmark => "handbook_benchmark",
            LooseKind::SkillCreatorBenchmark => "skill_creator_benchmark",
            LooseKind::PromptfooResults => "promptfoo_results",
            LooseKind::Informational => "informational",
            LooseKind::Invalid => "invalid",
            LooseKind::Unrecognized(_) => "unrecognized",
        }
    }
}

pub struct LooseParse {
    pub kind: LooseKind,
    pub records: Records,
    /// Case definitions from report rows; kept only where no manifest defines the case.
    pub row_cases: Vec<CaseRec>,
    /// A suite implied by a report, kept only if none exists.
    pub row_suite: Option<SuiteRec>,
    /// (case id, skill) pairs a report names, to attribute run trees to a skill.
    pub case_skills: Vec<(String, String)>,
    /// The harness format, for `source_file.source_format`.
    pub source_format: &'static str,
}

fn parsed(kind: LooseKind, records: Records) -> LooseParse {
    LooseParse {
        kind,
        records,
        row_cases: Vec::new(),
        row_suite: None,
        case_skills: Vec::new(),
        source_format: seh::SOURCE_FORMAT,
    }
}

fn with_format(mut p: LooseParse, format: &'static str) -> LooseParse {
    p.source_format = format;
    p
}

const HINT: &str = "not a file liftdb reads (expected a skill-eval-harness manifest, benchmark/grade report, cost-summary, token-overhead, trigger report, judge results, or a run directory)";

pub fn parse(
    path: &str,
    bytes: &[u8],
    sha256: &str,
    release: &str,
    forced: Option<Format>,
) -> LooseParse {
    use Format::{Handbook, Promptfoo, Seh, SkillCreator};
    let allow = |f: Format| allows(forced, f);
    let mut records = Records::default();
    let is_jsonl = path.ends_with(".jsonl");
    let doc = if is_jsonl {
        match parse_jsonl(bytes) {
            Ok(rows) => Value::Array(rows),
            Err(e) => {
                records.error(path, "parse", format!("invalid JSON Lines: {e}"));
                return parsed(LooseKind::Invalid, records);
            }
        }
    } else {
        match parse_lenient(bytes) {
            Ok(v) => v,
            Err(e) => {
                records.error(path, "parse", format!("invalid JSON: {e}"));
                return parsed(LooseKind::Invalid, records);
            }
        }
    };

    if allow(Seh) && manifest::looks_like_manifest(&doc) {
        manifest::parse(&doc, path, sha256, release, &mut records);
        return parsed(LooseKind::Manifest, records);
    }
    if allow(Seh) && benchmark::looks_like_report(&doc) {
        let report = benchmark::parse(&doc, path, release);
        let skill = doc.str_at("skill_name").unwrap_or("(unknown skill)");
        let suite = SuiteRec {
            suite_id: manifest::suite_id(release, skill),
            release_label: release.to_string(),
            skill_name: skill.to_string(),
            source_format: seh::SOURCE_FORMAT.into(),
            harness_name: Some("skill-eval-harness".into()),
            harness_version: None,
            manifest_path: Some(path.to_string()),
            manifest_sha256: Some(sha256.to_string()),
            skill_tree_hash: None,
            variants: None,
            ablations: None,
        };
        return LooseParse {
            kind: LooseKind::Benchmark,
            records: report.records,
            row_cases: report.row_cases,
            row_suite: Some(suite),
            case_skills: Vec::new(),
            source_format: seh::SOURCE_FORMAT,
        };
    }
    if allow(Promptfoo) && promptfoo::looks_like_results(&doc) {
        promptfoo::parse_results(&doc, path, sha256, release, &mut records);
        return with_format(
            parsed(LooseKind::PromptfooResults, records),
            super::formats::PROMPTFOO,
        );
    }
    if let Some(rows) = doc
        .as_array()
        .filter(|r| allow(Promptfoo) && !r.is_empty() && r.iter().all(promptfoo::looks_like_row))
    {
        if promptfoo::has_json_sibling(Path::new(path)) {
            return with_format(
                parsed(LooseKind::Informational, records),
                super::formats::PROMPTFOO,
            );
        }
        let src = promptfoo::Source {
            path,
            sha256,
            release,
            eval_id: None,
            config: None,
        };
        promptfoo::parse_rows(rows, &src, &mut records);
        return with_format(
            parsed(LooseKind::PromptfooResults, records),
            super::formats::PROMPTFOO,
        );
    }
    if allow(Handbook) && seed::looks_like_case(&doc) {
        seed::parse_case(&doc, Path::new(path), release, &mut records);
        return with_format(
            parsed(LooseKind::HandbookCase, records),
            super::formats::SEED_HANDBOOK,
        );
    }
    if allow(Handbook) && seed::looks_like_benchmark(&doc) {
        let suite = seed::parse_benchmark(&doc, path, sha256, release, &mut records);
        let mut p = with_format(
            parsed(LooseKind::HandbookBenchmark, records),
            super::formats::SEED_HANDBOOK,
        );
        p.row_suite = Some(suite);
        return p;
    }
    if allow(SkillCreator) && skill_creator::looks_like_trigger_eval(&doc) {
        skill_creator::parse_trigger_eval(&doc, path, release, &mut records);
        return with_format(
            parsed(LooseKind::TriggerReport, records),
            super::formats::SKILL_CREATOR,
        );
    }
    if allow(SkillCreator) && skill_creator::looks_like_benchmark(&doc) {
        let suite = skill_creator::parse_benchmark(&doc, path, sha256, release, &mut records);
        let skill = suite.skill_name.clone();
        let mut p = with_format(
            parsed(LooseKind::SkillCreatorBenchmark, records),
            super::formats::SKILL_CREATOR,
        );
        p.case_skills = skill_creator::benchmark_cases(&doc)
            .into_iter()
            .map(|c| (c, skill.clone()))
            .collect();
        p.row_suite = Some(suite);
        return p;
    }
    if allow(Seh) && trigger::looks_like_trigger_report(&doc) {
        trigger::parse(&doc, path, release, &mut records);
        return parsed(LooseKind::TriggerReport, records);
    }
    if let Some(rows) = judge::verdict_rows(&doc).filter(|_| allow(Seh)) {
        judge::parse(&rows, path, &mut records);
        return parsed(LooseKind::JudgeResults, records);
    }
    let skill = doc.str_at("skill_name");
    let flatten_as = |kind: &str, records: &mut Records| {
        let src = peer::PeerSource {
            path,
            report_kind: kind,
            release,
            skill_name: skill,
        };
        peer::flatten(&doc, &src, &[], &mut records.peer_metrics);
    };
    if allow(Seh) && doc.get("runs_root").is_some() && doc.get("top_expensive_cases").is_some() {
        flatten_as("cost_summary", &mut records);
        return parsed(LooseKind::CostSummary, records);
    }
    if allow(Seh)
        && doc
            .get("reports")
            .and_then(Value::as_array)
            .is_some_and(|r| {
                r.iter()
                    .any(|x| x.get("pairs").is_some() || x.get("profile").is_some())
            })
    {
        flatten_as("token_overhead", &mut records);
        return parsed(LooseKind::TokenOverhead, records);
    }
    let is_task_list = doc.as_array().is_some_and(|rows| {
        !rows.is_empty()
            && rows
                .iter()
                .all(|r| r.get("run_dir").is_some() && r.get("case_id").is_some())
    });
    let is_evidence = doc
        .str_at("schemaVersion")
        .is_some_and(|v| v.starts_with("agent-skill-evals.evidence"))
        || doc.get("evidencePath").is_some();
    if is_evidence {
        // Agent Skill Evals evidence / meta files are read through the results row that points to them.
        return with_format(
            parsed(LooseKind::Informational, records),
            super::formats::SKILL_EVALS,
        );
    }
    // Prepared tasks, manifest audits and ablation materialization records:
    // real harness output with nothing for the store.
    let is_materialization = doc
        .get("ablations")
        .and_then(Value::as_array)
        .is_some_and(|a| a.iter().any(|x| x.get("skill_hash").is_some()));
    if is_task_list || doc.get("readiness").is_some() || is_materialization {
        return parsed(LooseKind::Informational, records);
    }
    if let Some(problem) = near_miss(&doc) {
        records.error(path, "parse", problem);
        return parsed(LooseKind::Invalid, records);
    }
    parsed(LooseKind::Unrecognized(HINT.to_string()), records)
}

/// A file shaped like a report liftdb reads except for the one field that
/// makes it readable: say what is wrong instead of skipping it silently.
fn near_miss(doc: &Value) -> Option<String> {
    let not_list = |v: Option<&Value>| v.is_some_and(|v| !v.is_array());
    if doc.get("skill_name").is_some() && not_list(doc.get("cases")) {
        return Some("looks like a manifest, but 'cases' is not a list".into());
    }
    if doc.get("skill_name").is_some() && not_list(doc.get("results")) {
        return Some("looks like a benchmark report, but 'results' is not a list".into());
    }
    let inner = doc.get("results").and_then(|r| r.get("results"));
    if (doc.get("evalId").is_some() || inner.is_some()) && not_list(inner) {
        return Some("looks like promptfoo results, but 'results.results' is not a list".into());
    }
    if not_list(doc.get("expectations")) {
        return Some("looks like a skill-creator grading, but 'expectations' is not a list".into());
    }
    None
}
