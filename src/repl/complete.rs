//! Tab completion: SQL keywords, tables, views, columns, macros, dot-commands,
//! report names and file paths.

use std::collections::BTreeSet;

use duckdb::Connection;
use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};

use super::dot::DOT_COMMANDS;

pub struct LiftdbHelper {
    words: BTreeSet<String>,
    reports: Vec<String>,
    files: FilenameCompleter,
}

/// Names worth completing, read from the catalog once per session.
pub fn catalog_words(conn: &Connection) -> BTreeSet<String> {
    let mut words = BTreeSet::new();
    let queries = [
        "SELECT keyword_name FROM duckdb_keywords()",
        "SELECT table_name FROM duckdb_tables() WHERE NOT internal",
        "SELECT view_name FROM duckdb_views() WHERE NOT internal",
        "SELECT DISTINCT column_name FROM duckdb_columns() WHERE NOT internal",
        "SELECT DISTINCT function_name FROM duckdb_functions() WHERE function_type IN ('macro', 'table_macro', 'scalar') AND NOT internal",
        "SELECT DISTINCT function_name FROM duckdb_functions() WHERE function_name LIKE 'sign_flip%' OR function_name LIKE 'liftdb_%'",
    ];
    for q in queries {
        if let Ok(mut stmt) = conn.prepare(q) {
            if let Ok(rows) = stmt.query_map([], |r| r.get::<_, String>(0)) {
                words.extend(rows.flatten());
            }
        }
    }
    words
}

impl LiftdbHelper {
    pub fn new(words: BTreeSet<String>, reports: Vec<String>) -> Self {
        LiftdbHelper {
            words,
            reports,
            files: FilenameCompleter::new(),
        }
    }
}

fn word_start(line: &str, pos: usize) -> usize {
    line[..pos]
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .map_or(0, |i| i + 1)
}

impl Completer for LiftdbHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let head = &line[..pos];
        let trimmed = head.trim_start();
        let pair = |s: &str| Pair {
            display: s.to_string(),
            replacement: s.to_string(),
        };
        if trimmed.starts_with('.') {
            let mut parts = trimmed.split_whitespace();
            let cmd = parts.next().unwrap_or("");
            let has_arg = trimmed.contains(char::is_whitespace);
            if !has_arg {
                let start = pos - trimmed.len();
                let hits = DOT_COMMANDS
                    .iter()
                    .filter(|(c, _)| c.starts_with(cmd))
                    .map(|(c, _)| pair(c))
                    .collect();
                return Ok((start, hits));
            }
            if cmd == ".report" {
                let start = word_start(line, pos);
                let prefix = &line[start..pos];
                let hits = self
                    .reports
                    .iter()
                    .filter(|r| r.starts_with(prefix))
                    .map(|r| pair(r))
                    .collect();
                return Ok((start, hits));
            }
            if matches!(cmd, ".read" | ".output" | ".once" | ".export") {
                return self.files.complete(line, pos, ctx);
            }
        }
        let start = word_start(line, pos);
        let prefix = &line[start..pos];
        if prefix.is_empty() {
            return Ok((start, Vec::new()));
        }
        let lower = prefix.to_lowercase();
        let upper_case = prefix.chars().next().is_some_and(char::is_uppercase);
        let hits = self
            .words
            .iter()
            .filter(|w| w.to_lowercase().starts_with(&lower))
            .map(|w| {
                let is_keyword =
                    w.chars().all(|c| c.is_ascii_lowercase() || c == '_') && upper_case;
                pair(&if is_keyword {
                    w.to_uppercase()
                } else {
                    w.clone()
                })
            })
            .collect();
        Ok((start, hits))
    }
}

impl Hinter for LiftdbHelper {
    type Hint = String;
}
impl Highlighter for LiftdbHelper {}
impl Validator for LiftdbHelper {}
impl Helper for LiftdbHelper {}
