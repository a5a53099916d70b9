//! Loose files (not inside a run directory): detect what they are from
//! their content with one table of detectors, and hand them to the matching
//! parser.

use std::path::Path;

use serde_json::Value;

use super::formats::seh::{self, benchmark, judge, manifest, trigger};
use super::formats::{allows, promptfoo, seed, skill_creator, Format};
use super::formats::{PROMPTFOO, SEED_HANDBOOK, SKILL_CREATOR, SKILL_EVALS};
use super::kernel::unit::{DeclaredFile, DeclaredReader};
use super::kernel::{peer, suite_id};
use crate::json::{parse_jsonl, parse_lenient, Get};
use crate::model::records::{CaseRec, ErrorKind, Records, SuiteRec};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LooseKind {
    Manifest,
    Benchmark,
    CostSummary,
    TokenOverhead,
    /// `skill-benchmark trend --out`: series, diffs, recurring failures, prune candidates.
    Trend,
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
    /// No detector claimed the file.
    Unrecognized,
}

impl LooseKind {
    pub fn label(&self) -> &'static str {
        match self {
            LooseKind::Manifest => "manifest",
            LooseKind::Benchmark => "benchmark",
            LooseKind::CostSummary => "cost_summary",
            LooseKind::TokenOverhead => "token_overhead",
            LooseKind::Trend => "trend",
            LooseKind::TriggerReport => "trigger_report",
            LooseKind::JudgeResults => "judge_results",
            LooseKind::HandbookCase => "handbook_case",
            LooseKind::HandbookBenchmark => "handbook_benchmark",
            LooseKind::SkillCreatorBenchmark => "skill_creator_benchmark",
            LooseKind::PromptfooResults => "promptfoo_results",
            LooseKind::Informational => "informational",
            LooseKind::Invalid => "invalid",
            LooseKind::Unrecognized => "unrecognized",
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
    /// Files the parse read besides this one (hashed with it).
    pub declared: Vec<DeclaredFile>,
    /// A report too large to hold: its rows are appended in the write stage.
    pub streamed: Option<seh::benchmark_stream::StreamedReport>,
}

impl LooseParse {
    fn new(kind: LooseKind, source_format: &'static str, records: Records) -> Self {
        LooseParse {
            kind,
            records,
            row_cases: Vec::new(),
            row_suite: None,
            case_skills: Vec::new(),
            streamed: None,
            source_format,
            declared: Vec::new(),
        }
    }
}

/// What a detector and its parser see of a loose file.
struct Input<'a> {
    doc: &'a Value,
    path: &'a str,
    sha256: &'a str,
    release: &'a str,
    /// --release named it (skill-creator iterations then stay in it).
    release_explicit: bool,
    /// Other files the parse reads, recorded into `LooseParse::declared`.
    files: &'a DeclaredReader,
}

/// One kind of loose file: the format that may claim it (None: any, even
/// when another is forced), how it is recognised, and how it is parsed.
struct LooseAdapter {
    format: Option<Format>,
    detect: fn(&Input) -> bool,
    parse: fn(&Input) -> LooseParse,
}

/// In detection order, which matters where shapes overlap: a manifest and a
/// benchmark report both carry `skill_name` + a list (manifests come first,
/// they define the cases); promptfoo results come before skill-creator's
/// trigger output, which also has `results[]`; the handbook's case.json has
/// `checks` the seh detectors ignore; skill-creator's run_eval output
/// (`query`/`trigger_rate` rows) precedes the seh trigger matrix; judge rows
/// and the peer-report shapes (cost, token overhead) are the least specific;
/// informational shapes only after every readable one.
const LOOSE_ADAPTERS: &[LooseAdapter] = &[
    LooseAdapter {
        format: Some(Format::Seh),
        detect: |i| manifest::looks_like_manifest(i.doc),
        parse: |i| {
            let mut records = Records::default();
            manifest::parse(i.doc, i.path, i.sha256, i.release, &mut records);
            LooseParse::new(LooseKind::Manifest, seh::SOURCE_FORMAT, records)
        },
    },
    LooseAdapter {
        format: Some(Format::Seh),
        detect: |i| benchmark::looks_like_report(i.doc),
        parse: parse_seh_benchmark,
    },
    LooseAdapter {
        format: Some(Format::Promptfoo),
        detect: |i| promptfoo::looks_like_results(i.doc),
        parse: |i| {
            let mut records = Records::default();
            promptfoo::parse_results(i.doc, i.path, i.sha256, i.release, i.files, &mut records);
            LooseParse::new(LooseKind::PromptfooResults, PROMPTFOO, records)
        },
    },
    LooseAdapter {
        format: Some(Format::Promptfoo),
        detect: |i| {
            i.doc
                .as_array()
                .is_some_and(|rows| !rows.is_empty() && rows.iter().all(promptfoo::looks_like_row))
        },
        parse: parse_promptfoo_rows,
    },
    LooseAdapter {
        format: Some(Format::Handbook),
        detect: |i| seed::looks_like_case(i.doc),
        parse: |i| {
            let mut records = Records::default();
            seed::parse_case(i.doc, Path::new(i.path), i.release, &mut records);
            LooseParse::new(LooseKind::HandbookCase, SEED_HANDBOOK, records)
        },
    },
    LooseAdapter {
        format: Some(Format::Handbook),
        detect: |i| seed::looks_like_benchmark(i.doc),
        parse: |i| {
            let mut records = Records::default();
            let suite = seed::parse_benchmark(i.doc, i.path, i.sha256, i.release, &mut records);
            let mut p = LooseParse::new(LooseKind::HandbookBenchmark, SEED_HANDBOOK, records);
            p.row_suite = Some(suite);
            p
        },
    },
    LooseAdapter {
        format: Some(Format::SkillCreator),
        detect: |i| skill_creator::looks_like_trigger_eval(i.doc),
        parse: |i| {
            let mut records = Records::default();
            skill_creator::parse_trigger_eval(i.doc, i.path, i.release, &mut records);
            LooseParse::new(LooseKind::TriggerReport, SKILL_CREATOR, records)
        },
    },
    LooseAdapter {
        format: Some(Format::SkillCreator),
        detect: |i| skill_creator::looks_like_benchmark(i.doc),
        parse: parse_skill_creator_benchmark,
    },
    LooseAdapter {
        format: Some(Format::Seh),
        detect: |i| trigger::looks_like_trigger_report(i.doc),
        parse: |i| {
            let mut records = Records::default();
            trigger::parse(i.doc, i.path, i.release, &mut records);
            LooseParse::new(LooseKind::TriggerReport, seh::SOURCE_FORMAT, records)
        },
    },
    LooseAdapter {
        format: Some(Format::Seh),
        detect: |i| judge::verdict_rows(i.doc).is_some(),
        parse: |i| {
            let mut records = Records::default();
            let rows = judge::verdict_rows(i.doc).unwrap_or_default();
            judge::parse(&rows, i.path, &mut records);
            LooseParse::new(LooseKind::JudgeResults, seh::SOURCE_FORMAT, records)
        },
    },
    LooseAdapter {
        format: Some(Format::Seh),
        detect: |i| i.doc.get("runs_root").is_some() && i.doc.get("top_expensive_cases").is_some(),
        parse: |i| flattened(i, LooseKind::CostSummary),
    },
    LooseAdapter {
        format: Some(Format::Seh),
        detect: |i| {
            i.doc
                .get("reports")
                .and_then(Value::as_array)
                .is_some_and(|r| {
                    r.iter()
                        .any(|x| x.get("pairs").is_some() || x.get("profile").is_some())
                })
        },
        parse: |i| flattened(i, LooseKind::TokenOverhead),
    },
    LooseAdapter {
        format: Some(Format::Seh),
        detect: |i| is_seh_trend(i.doc),
        parse: |i| flattened(i, LooseKind::Trend),
    },
    LooseAdapter {
        // Agent Skill Evals evidence / meta files are read through the results row that points to them.
        format: None,
        detect: |i| {
            i.doc
                .str_at("schemaVersion")
                .is_some_and(|v| v.starts_with("agent-skill-evals.evidence"))
                || i.doc.get("evidencePath").is_some()
        },
        parse: |_| LooseParse::new(LooseKind::Informational, SKILL_EVALS, Records::default()),
    },
    LooseAdapter {
        // Prepared tasks, manifest audits and ablation materialization records:
        // real harness output with nothing for the store.
        format: None,
        detect: |i| is_seh_informational(i.doc),
        parse: |_| {
            LooseParse::new(
                LooseKind::Informational,
                seh::SOURCE_FORMAT,
                Records::default(),
            )
        },
    },
];

/// Why an unclaimed file is not read (the hint says what to do).
pub const UNRECOGNIZED: &str = "not a file liftdb reads (expected a skill-eval-harness manifest, benchmark/grade report, cost-summary, token-overhead, trend, trigger report, judge results, or a run directory)";

pub fn parse(
    path: &str,
    bytes: &[u8],
    sha256: &str,
    release: &str,
    release_explicit: bool,
    forced: Option<Format>,
) -> LooseParse {
    let doc = if path.ends_with(".jsonl") {
        parse_jsonl(bytes).map(Value::Array).map_err(|e| {
            (
                ErrorKind::InvalidJsonLines,
                format!("invalid JSON Lines: {e}"),
            )
        })
    } else {
        parse_lenient(bytes).map_err(|e| (ErrorKind::InvalidJson, format!("invalid JSON: {e}")))
    };
    let doc = match doc {
        Ok(doc) => doc,
        Err((kind, reason)) => return invalid(path, kind, reason),
    };
    let files = DeclaredReader::default();
    let input = Input {
        doc: &doc,
        path,
        sha256,
        release,
        release_explicit,
        files: &files,
    };
    let claimed = LOOSE_ADAPTERS
        .iter()
        .filter(|a| a.format.is_none_or(|f| allows(forced, f)))
        .find(|a| (a.detect)(&input));
    if let Some(adapter) = claimed {
        let mut parsed = (adapter.parse)(&input);
        parsed.declared = files.into_files();
        return parsed;
    }
    match near_miss(&doc) {
        Some(problem) => invalid(path, ErrorKind::WrongShape, problem),
        None => LooseParse::new(
            LooseKind::Unrecognized,
            seh::SOURCE_FORMAT,
            Records::default(),
        ),
    }
}

fn invalid(path: &str, kind: ErrorKind, reason: String) -> LooseParse {
    let mut records = Records::default();
    records.error(path, kind, reason);
    LooseParse::new(LooseKind::Invalid, seh::SOURCE_FORMAT, records)
}

fn parse_seh_benchmark(i: &Input) -> LooseParse {
    let report = benchmark::parse(i.doc, i.path, i.release);
    let mut p = LooseParse::new(LooseKind::Benchmark, seh::SOURCE_FORMAT, report.records);
    p.row_cases = report.row_cases;
    p.row_suite = Some(report_suite(i.doc, i.path, i.sha256, i.release));
    p
}

/// A large skill-eval-harness report, read row by row
/// (`benchmark_stream`): its blocks now, its rows in the write stage. None
/// when it is not one (the caller reads the file whole).
pub fn parse_streamed_benchmark(
    file: &Path,
    path: &str,
    sha256: &str,
    release: &str,
) -> Option<LooseParse> {
    let first = seh::benchmark_stream::first_pass(file, path, release)?;
    let mut records = first.errors;
    let skill = first
        .doc
        .str_at("skill_name")
        .unwrap_or_default()
        .to_string();
    let src = peer::PeerSource {
        path,
        report_kind: "benchmark",
        release,
        skill_name: Some(&skill),
    };
    peer::flatten(&first.doc, &src, &["results"], &mut records.peer_metrics);
    let mut p = LooseParse::new(LooseKind::Benchmark, seh::SOURCE_FORMAT, records);
    p.row_cases = first.row_cases;
    p.row_suite = Some(report_suite(&first.doc, path, sha256, release));
    p.streamed = Some(seh::benchmark_stream::StreamedReport {
        path: path.to_string(),
        release: release.to_string(),
        generated_at: first.doc.f64_at("generated_at"),
        skill,
    });
    Some(p)
}

/// The suite a report implies, kept only where no manifest defines it.
fn report_suite(doc: &Value, path: &str, sha256: &str, release: &str) -> SuiteRec {
    let skill = doc.str_at("skill_name").unwrap_or("(unknown skill)");
    SuiteRec {
        suite_id: suite_id(release, skill),
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
    }
}

/// promptfoo's results.jsonl: read only when no results.json sits beside it
/// (the JSON has everything the lines have, and more).
fn parse_promptfoo_rows(i: &Input) -> LooseParse {
    let mut records = Records::default();
    if promptfoo::has_json_sibling(Path::new(i.path)) {
        return LooseParse::new(LooseKind::Informational, PROMPTFOO, records);
    }
    let src = promptfoo::Source {
        path: i.path,
        sha256: i.sha256,
        release: i.release,
        eval_id: None,
        started_at: None,
        config: None,
        files: i.files,
    };
    promptfoo::parse_rows(
        i.doc.as_array().map_or(&[], Vec::as_slice),
        &src,
        &mut records,
    );
    LooseParse::new(LooseKind::PromptfooResults, PROMPTFOO, records)
}

fn parse_skill_creator_benchmark(i: &Input) -> LooseParse {
    let mut records = Records::default();
    let release = skill_creator::release_of(
        std::path::Path::new(i.path).parent(),
        i.release,
        i.release_explicit,
    );
    let suite = skill_creator::parse_benchmark(i.doc, i.path, i.sha256, &release, &mut records);
    skill_creator::define_reported(i.doc, i.path, &release, &mut records);
    let skill = suite.skill_name.clone();
    let mut p = LooseParse::new(LooseKind::SkillCreatorBenchmark, SKILL_CREATOR, records);
    p.case_skills = skill_creator::benchmark_cases(i.doc)
        .into_iter()
        .map(|c| (c, skill.clone()))
        .collect();
    p.row_suite = Some(suite);
    p
}

/// A skill-eval-harness report kept whole in `peer_metric`.
fn flattened(i: &Input, kind: LooseKind) -> LooseParse {
    let mut records = Records::default();
    let src = peer::PeerSource {
        path: i.path,
        report_kind: kind.label(),
        release: i.release,
        skill_name: i.doc.str_at("skill_name"),
    };
    peer::flatten(i.doc, &src, &[], &mut records.peer_metrics);
    LooseParse::new(kind, seh::SOURCE_FORMAT, records)
}

/// `skill-benchmark trend --out`: the three lists every trend writes, even
/// over a history of one report.
fn is_seh_trend(doc: &Value) -> bool {
    ["series", "diffs", "recurring_failures"]
        .iter()
        .all(|k| doc.get(*k).is_some_and(Value::is_array))
}

/// Prepared task lists, readiness audits, ablation materialization records.
fn is_seh_informational(doc: &Value) -> bool {
    let is_task_list = doc.as_array().is_some_and(|rows| {
        !rows.is_empty()
            && rows
                .iter()
                .all(|r| r.get("run_dir").is_some() && r.get("case_id").is_some())
    });
    let is_materialization = doc
        .get("ablations")
        .and_then(Value::as_array)
        .is_some_and(|a| a.iter().any(|x| x.get("skill_hash").is_some()));
    is_task_list || doc.get("readiness").is_some() || is_materialization
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
