//! A large `benchmark.json` read in bounded memory: never whole. Pass 1
//! (with the other loose files) keeps everything but `results[]` — the
//! blocks that become peer metrics and the suite — and, row by row, only
//! what the resolve stage needs (case definitions, errors). Pass 2 (in the
//! write stage) reads the rows again and appends their gradings chunk by
//! chunk. A file this reader cannot stream (not a report, NaN tokens, a
//! syntax error) is read whole as before.

use std::fmt;
use std::io::Read;
use std::path::Path;

use serde::de::{DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::benchmark::RowReader;
use crate::json::Get;
use crate::model::records::{CaseRec, Records};

/// Loose files from this size are streamed (smaller ones are parsed whole):
/// 64 MB, or `LIFTDB_STREAM_FROM_BYTES` (tests set it low to stream the corpus).
pub fn stream_from_bytes() -> u64 {
    static AT: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *AT.get_or_init(|| {
        std::env::var("LIFTDB_STREAM_FROM_BYTES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(64 << 20)
    })
}

/// Results rows built into records and appended at a time in pass 2.
const ROWS_PER_CHUNK: usize = 2_000;

/// What pass 1 found: the report without its rows, and what the rows define.
pub struct FirstPass {
    /// The top-level object, `results` left out.
    pub doc: Value,
    pub row_cases: Vec<CaseRec>,
    /// Rows that cannot be read, as error rows (pass 2 skips them alike).
    pub errors: Records,
}

/// A report to append in pass 2.
#[derive(Debug, Clone)]
pub struct StreamedReport {
    pub path: String,
    pub release: String,
    pub skill: String,
    pub generated_at: Option<f64>,
}

fn open(path: &Path) -> std::io::Result<Box<dyn Read>> {
    let file = std::io::BufReader::with_capacity(1 << 20, std::fs::File::open(path)?);
    Ok(match path.extension().is_some_and(|e| e == "gz") {
        true => Box::new(std::io::BufReader::new(flate2::read::GzDecoder::new(file))),
        false => Box::new(file),
    })
}

/// Read the top-level object, handing each `results[]` row to `on_row`.
/// Err when the file is not an object with a `results` array, or not JSON
/// serde reads (NaN tokens): the caller then reads it whole.
fn visit(path: &Path, on_row: &mut dyn FnMut(usize, Value)) -> Result<Map<String, Value>, String> {
    let reader = open(path).map_err(|e| e.to_string())?;
    let mut de = serde_json::Deserializer::from_reader(reader);
    let top = TopLevel { on_row }
        .deserialize(&mut de)
        .map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(top)
}

struct TopLevel<'a> {
    on_row: &'a mut dyn FnMut(usize, Value),
}

impl<'de> DeserializeSeed<'de> for TopLevel<'_> {
    type Value = Map<String, Value>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TopLevel<'_> {
    type Value = Map<String, Value>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a benchmark report object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut top = Map::new();
        let mut saw_results = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "results" {
                map.next_value_seed(Rows {
                    on_row: &mut *self.on_row,
                })?;
                saw_results = true;
            } else {
                let value: Value = map.next_value()?;
                top.insert(key, value);
            }
        }
        if !saw_results {
            return Err(serde::de::Error::custom("no results array"));
        }
        Ok(top)
    }
}

struct Rows<'a> {
    on_row: &'a mut dyn FnMut(usize, Value),
}

impl<'de> DeserializeSeed<'de> for Rows<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Rows<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a results array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0;
        while let Some(row) = seq.next_element::<Value>()? {
            (self.on_row)(i, row);
            i += 1;
        }
        Ok(())
    }
}

/// Pass 1: the report's blocks and what its rows define, or None when the
/// file is not a skill-eval-harness report this reader streams.
pub fn first_pass(path: &Path, display: &str, release: &str) -> Option<FirstPass> {
    let mut rows_ok = true;
    let mut errors = Records::default();
    // The skill is read after the rows in some files: a placeholder keys the
    // rows' checks here (their outcome does not depend on it); the cases are
    // re-keyed once the skill is known.
    let mut reader = RowReader::new(display, release, "", None);
    let mut scratch = Records::default();
    let top = visit(path, &mut |i, row| {
        rows_ok &= row.get("run_base").is_some() || row.get("case_id").is_some();
        reader.row(i, &row, &mut scratch);
        errors.errors.append(&mut scratch.errors);
        scratch = Records::default();
    })
    .ok()?;
    let doc = Value::Object(top);
    let is_report = rows_ok
        && doc.str_at("skill_name").is_some()
        && (doc.get("paired_summary").is_some()
            || doc.get("judge_task_count").is_some()
            || doc.get("population").is_some());
    if !is_report {
        return None;
    }
    let skill = doc.str_at("skill_name").unwrap_or_default().to_string();
    let row_cases = reader
        .row_cases
        .into_iter()
        .map(|mut c| {
            c.case_pk = crate::ingest::kernel::case_pk(release, &skill, &c.case_id);
            c.suite_id = crate::ingest::kernel::suite_id(release, &skill);
            c.skill_name = skill.clone();
            c
        })
        .collect();
    Some(FirstPass {
        doc,
        row_cases,
        errors,
    })
}

/// A streamed report that changed between its two passes.
#[derive(Debug)]
pub struct ReportChanged {
    pub path: String,
    pub detail: String,
}

/// Pass 2: the rows' gradings, handed to `append` a chunk at a time; the
/// caller's error type says how the report changing between passes is told.
pub fn append_rows<E: From<ReportChanged>>(
    report: &StreamedReport,
    append: &mut dyn FnMut(Records) -> Result<(), E>,
) -> Result<(), E> {
    let mut reader = RowReader::new(
        &report.path,
        &report.release,
        &report.skill,
        report.generated_at,
    );
    let mut chunk = Records::default();
    let mut in_chunk = 0;
    let mut failed: Option<E> = None;
    let visited = visit(Path::new(&report.path), &mut |i, row| {
        if failed.is_some() {
            return;
        }
        reader.row(i, &row, &mut chunk);
        in_chunk += 1;
        if in_chunk == ROWS_PER_CHUNK {
            // Its errors were recorded in pass 1.
            chunk.errors.clear();
            if let Err(e) = append(std::mem::take(&mut chunk)) {
                failed = Some(e);
            }
            in_chunk = 0;
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    visited.map_err(|detail| ReportChanged {
        path: report.path.clone(),
        detail,
    })?;
    chunk.errors.clear();
    append(chunk)
}
