//! Tab completion in context: after FROM or JOIN the tables and views;
//! `name.` the columns of that table or view; elsewhere the columns of the
//! tables the statement names, keywords and functions; dot-commands, report
//! names and each report's filters (`model=`), and file paths.

use std::collections::{BTreeMap, BTreeSet};

use duckdb::Connection;
use rustyline::completion::{Completer, FilenameCompleter, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};

use super::dot::DOT_COMMANDS;

/// What the store's catalog offers, read once per session.
#[derive(Debug, Default, Clone)]
pub struct Catalog {
    pub keywords: BTreeSet<String>,
    /// Tables and views, each with its columns in order.
    pub relations: BTreeMap<String, Vec<String>>,
    pub functions: BTreeSet<String>,
}

/// The store's catalog: keywords, tables and views with their columns, and
/// the macros and functions an analyst calls.
pub fn catalog(conn: &Connection) -> Catalog {
    let column = |q: &str| -> Vec<(String, String)> {
        let Ok(mut stmt) = conn.prepare(q) else {
            return Vec::new();
        };
        stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))
            .map(|rows| rows.flatten().collect())
            .unwrap_or_default()
    };
    let mut catalog = Catalog::default();
    for (word, _) in column("SELECT keyword_name, '' FROM duckdb_keywords()") {
        catalog.keywords.insert(word);
    }
    for (relation, _) in column(
        "SELECT table_name, '' FROM duckdb_tables() WHERE NOT internal
         UNION SELECT view_name, '' FROM duckdb_views() WHERE NOT internal",
    ) {
        catalog.relations.entry(relation).or_default();
    }
    for (relation, name) in column(
        "SELECT table_name, column_name FROM duckdb_columns() WHERE NOT internal ORDER BY table_name, column_index",
    ) {
        if let Some(columns) = catalog.relations.get_mut(&relation) {
            columns.push(name);
        }
    }
    for (function, _) in column(
        "SELECT DISTINCT function_name, '' FROM duckdb_functions()
         WHERE (function_type IN ('macro', 'table_macro', 'scalar') AND NOT internal)
            OR function_name LIKE 'sign_flip%' OR function_name LIKE 'liftdb_%'",
    ) {
        catalog.functions.insert(function);
    }
    catalog
}

pub struct LiftdbHelper {
    catalog: Catalog,
    /// Each report's name and the filters it takes.
    reports: Vec<(String, Vec<String>)>,
    files: FilenameCompleter,
}

impl LiftdbHelper {
    pub fn new(catalog: Catalog, reports: Vec<(String, Vec<String>)>) -> Self {
        LiftdbHelper {
            catalog,
            reports,
            files: FilenameCompleter::new(),
        }
    }

    /// The candidates for the word before `pos` and where it starts (the
    /// completion without the line editor, for tests).
    pub fn candidates(&self, line: &str, pos: usize) -> (usize, Vec<String>) {
        let head = &line[..pos];
        let trimmed = head.trim_start();
        if trimmed.starts_with('.') {
            // A dot-command's arguments are separated by spaces only.
            let start = head.rfind(char::is_whitespace).map_or(0, |i| i + 1);
            return self.dot_candidates(trimmed, pos, start, &line[start..pos]);
        }
        let start = word_start(line, pos);
        let prefix = &line[start..pos];
        // `name.`: the columns of that table or view.
        if let Some((relation, column)) = prefix.rsplit_once('.') {
            let hits = self
                .catalog
                .relations
                .get(relation)
                .into_iter()
                .flatten()
                .filter(|c| c.starts_with(column))
                .map(|c| format!("{relation}.{c}"))
                .collect();
            return (start, hits);
        }
        if prefix.is_empty() {
            return (start, Vec::new());
        }
        let before = previous_word(&line[..start]).to_ascii_uppercase();
        let names_a_relation = matches!(
            before.as_str(),
            "FROM" | "JOIN" | "INTO" | "TABLE" | "UPDATE" | "DESCRIBE" | "SUMMARIZE"
        );
        let relations = self.catalog.relations.keys();
        if names_a_relation {
            return (start, starting_with(relations, prefix));
        }
        // Elsewhere: the columns of the tables the statement names (all
        // columns when it names none yet), then functions, keywords, tables.
        let named: Vec<&Vec<String>> = line
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter_map(|w| self.catalog.relations.get(w))
            .collect();
        let columns: BTreeSet<&String> = match named.is_empty() {
            true => self.catalog.relations.values().flatten().collect(),
            false => named.into_iter().flatten().collect(),
        };
        let mut hits = starting_with(columns.into_iter(), prefix);
        hits.extend(starting_with(self.catalog.functions.iter(), prefix));
        let upper = prefix.chars().next().is_some_and(char::is_uppercase);
        hits.extend(
            starting_with(self.catalog.keywords.iter(), prefix)
                .into_iter()
                .map(|k| if upper { k.to_uppercase() } else { k }),
        );
        hits.extend(starting_with(relations, prefix));
        let mut seen = BTreeSet::new();
        hits.retain(|h| seen.insert(h.clone()));
        (start, hits)
    }

    fn dot_candidates(
        &self,
        trimmed: &str,
        pos: usize,
        start: usize,
        prefix: &str,
    ) -> (usize, Vec<String>) {
        let words: Vec<&str> = trimmed.split_whitespace().collect();
        let cmd = words.first().copied().unwrap_or("");
        if !trimmed.contains(char::is_whitespace) {
            let hits = DOT_COMMANDS
                .iter()
                .filter(|(c, _)| c.starts_with(cmd))
                .map(|(c, _)| c.to_string())
                .collect();
            return (pos - trimmed.len(), hits);
        }
        // Which argument the cursor is in (0: the first after the command).
        let argument = match trimmed.ends_with(char::is_whitespace) {
            true => words.len() - 1,
            false => words.len() - 2,
        };
        let relations = self.catalog.relations.keys();
        match (cmd, argument) {
            (".report", 0) => (
                start,
                starting_with(self.reports.iter().map(|(n, _)| n), prefix),
            ),
            (".report", _) => {
                // The filters the report takes, not given yet, as `name=`.
                let given: Vec<&str> = words[2..]
                    .iter()
                    .filter_map(|w| w.split_once('=').map(|(k, _)| k))
                    .collect();
                let params = self
                    .reports
                    .iter()
                    .find(|(n, _)| n == words[1])
                    .map(|(_, p)| p.clone())
                    .unwrap_or_default();
                let mut hits: Vec<String> = params
                    .iter()
                    .filter(|p| !given.contains(&p.as_str()))
                    .map(|p| format!("{p}="))
                    .filter(|p| p.starts_with(prefix))
                    .collect();
                if "--all-columns".starts_with(prefix) && !prefix.is_empty() {
                    hits.push("--all-columns".into());
                }
                (start, hits)
            }
            (".schema" | ".export", 0) => (start, starting_with(relations, prefix)),
            _ => (start, Vec::new()),
        }
    }
}

/// The words of `words` starting with `prefix` (case-insensitive).
fn starting_with<'a>(words: impl Iterator<Item = &'a String>, prefix: &str) -> Vec<String> {
    let lower = prefix.to_lowercase();
    words
        .filter(|w| w.to_lowercase().starts_with(&lower))
        .cloned()
        .collect()
}

fn word_start(line: &str, pos: usize) -> usize {
    line[..pos]
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .map_or(0, |i| i + 1)
}

/// The last whole word of `text` (before the word being completed).
fn previous_word(text: &str) -> &str {
    text.split(|c: char| c.is_whitespace() || c == ',' || c == '(')
        .rfind(|w| !w.is_empty())
        .unwrap_or("")
}

impl Completer for LiftdbHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let trimmed = line[..pos].trim_start();
        let cmd = trimmed.split_whitespace().next().unwrap_or("");
        let files = matches!(cmd, ".read" | ".output" | ".once")
            || (cmd == ".export" && trimmed.split_whitespace().count() > 2);
        if files && trimmed.contains(char::is_whitespace) {
            return self.files.complete(line, pos, ctx);
        }
        let (start, hits) = self.candidates(line, pos);
        let pairs = hits
            .into_iter()
            .map(|s| Pair {
                display: s.clone(),
                replacement: s,
            })
            .collect();
        Ok((start, pairs))
    }
}

impl Hinter for LiftdbHelper {
    type Hint = String;
}
impl Highlighter for LiftdbHelper {}
impl Validator for LiftdbHelper {}
impl Helper for LiftdbHelper {}

#[cfg(test)]
mod tests {
    use super::*;

    fn helper() -> LiftdbHelper {
        let mut catalog = Catalog::default();
        catalog
            .keywords
            .extend(["select".into(), "from".into(), "where".into()]);
        catalog.relations.insert(
            "lift".into(),
            vec!["release_label".into(), "scope".into(), "p_value".into()],
        );
        catalog.relations.insert(
            "lift_summary".into(),
            vec!["release".into(), "lift".into(), "p".into()],
        );
        catalog
            .relations
            .insert("runs".into(), vec!["run_id".into(), "release_label".into()]);
        catalog.functions.insert("sign_flip_p".into());
        let reports = vec![(
            "lift".to_string(),
            vec![
                "release".to_string(),
                "model".to_string(),
                "split".to_string(),
            ],
        )];
        LiftdbHelper::new(catalog, reports)
    }

    /// The candidates at `|` (the end of the line when there is none).
    fn complete(marked: &str) -> Vec<String> {
        let pos = marked.find('|').unwrap_or(marked.len());
        let line = marked.replacen('|', "", 1);
        helper().candidates(&line, pos).1
    }

    #[test]
    fn after_from_only_tables_and_views() {
        assert_eq!(complete("SELECT * FROM li"), ["lift", "lift_summary"]);
        assert_eq!(
            complete("SELECT * FROM runs r JOIN li"),
            ["lift", "lift_summary"]
        );
    }

    #[test]
    fn columns_of_the_tables_the_statement_names() {
        // lift_summary's columns, not runs' run_id or lift's release_label.
        assert_eq!(complete("SELECT rel| FROM lift_summary"), vec!["release"]);
        let hits = complete("SELECT r| FROM runs");
        assert!(
            hits.contains(&"run_id".to_string()) && hits.contains(&"release_label".to_string())
        );
        assert!(!hits.contains(&"release".to_string()), "{hits:?}");
        assert_eq!(complete("SELECT lift.p_"), vec!["lift.p_value"]);
    }

    #[test]
    fn keywords_follow_the_case_typed() {
        assert!(complete("SEL").contains(&"SELECT".to_string()));
        assert!(complete("sel").contains(&"select".to_string()));
    }

    #[test]
    fn a_reports_filters_after_its_name() {
        assert_eq!(complete(".report li"), vec!["lift"]);
        assert_eq!(complete(".report lift mo"), vec!["model="]);
        assert_eq!(
            complete(".report lift model=x "),
            vec!["release=", "split="]
        );
        assert_eq!(complete(".schema lift_s"), vec!["lift_summary"]);
    }
}
