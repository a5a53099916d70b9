//! Dot-commands: single-line session commands in the style of the DuckDB shell.

use std::path::PathBuf;

use crate::gate::present::GateFormat;
use crate::output::Format;
use crate::report::{self, Filters};
use crate::{Error, Result};

use super::session::Session;

pub const DOT_COMMANDS: &[(&str, &str)] = &[
    (".help", "show this help"),
    (".tables", "list tables and views"),
    (
        ".schema",
        ".schema [NAME]  CREATE statements of the store (or of one table/view)",
    ),
    (".views", "list views with what each answers"),
    (".reports", "list canned reports and their filters"),
    (
        ".report",
        ".report NAME [skill=… model=… release=… …] [--all-columns]  run a canned report as `liftdb report` shows it",
    ),
    (
        ".gate",
        ".gate KEY=VALUE …  the CI gate as `liftdb gate` decides it, keys as a gate file's (min-lift=0.1 sequential=true fail-on=outcome release=… …)",
    ),
    (
        ".mode",
        ".mode table|box|csv|tsv|json|jsonl|markdown|line  result format",
    ),
    (
        ".output",
        ".output [FILE]  send results to FILE (no FILE: back to stdout)",
    ),
    (".once", ".once FILE  send the next result to FILE"),
    (
        ".export",
        ".export NAME_OR_SELECT FILE  write a view, table or query to .csv/.parquet/.json",
    ),
    (
        ".maxrows",
        ".maxrows N  table modes show the first and last N/2 rows past N (0 = all)",
    ),
    (
        ".maxwidth",
        ".maxwidth [N]  fit tables to N columns, eliding middle ones (0 = no limit; no N: the terminal)",
    ),
    (".timer", ".timer on|off  print each statement's run time"),
    (".nullvalue", ".nullvalue TEXT  how NULL is shown"),
    (".read", ".read FILE  run the statements in FILE"),
    (".bail", ".bail on|off  stop at the first error"),
    (
        ".release",
        ".release  let ingests in now, dropping temp objects or an open transaction",
    ),
    (".quit", "leave (also .exit or Ctrl-D)"),
];

pub enum Flow {
    Continue,
    Quit,
}

/// `.gate`'s KEY=VALUE words as a gate file would hold them: flags as
/// booleans, `fail-on` a comma-separated list, names as text, the rest
/// numbers.
fn gate_spec(args: &[&str]) -> Result<crate::gate::GateSpec> {
    const USAGE: &str = ".gate KEY=VALUE … (min-lift=0.1 sequential=true fail-on=outcome …)";
    const FLAGS: &[&str] = &[
        "significant",
        "sequential",
        "no-significant-regression",
        "family-wise",
    ];
    const NAMES: &[&str] = &[
        "release",
        "baseline",
        "skill",
        "split",
        "experiment",
        "undecided",
        "infra-errors",
    ];
    let mut table = toml::Table::new();
    for word in args {
        let (key, value) = word
            .split_once('=')
            .ok_or_else(|| Error::Invalid(format!("'{word}' is not KEY=VALUE; {USAGE}")))?;
        let value = if FLAGS.contains(&key) {
            toml::Value::Boolean(on_off(Some(match value {
                "true" | "on" => "on",
                "false" | "off" => "off",
                other => other,
            }))?)
        } else if key == "fail-on" {
            toml::Value::Array(
                value
                    .split(',')
                    .map(|v| toml::Value::String(v.to_string()))
                    .collect(),
            )
        } else if NAMES.contains(&key) {
            toml::Value::String(value.to_string())
        } else {
            toml::Value::Float(
                value
                    .parse()
                    .map_err(|_| Error::Invalid(format!("{key}={value}: not a number; {USAGE}")))?,
            )
        };
        table.insert(key.to_string(), value);
    }
    toml::Value::Table(table)
        .try_into()
        .map_err(|e| Error::Invalid(format!("{e}; {USAGE}")))
}

fn on_off(arg: Option<&str>) -> Result<bool> {
    match arg {
        Some("on") => Ok(true),
        Some("off") => Ok(false),
        other => Err(Error::Invalid(format!(
            "expected on or off, got {}",
            other.unwrap_or("nothing")
        ))),
    }
}

/// Names in columns down the page, fitted to `width` (0: one column).
fn in_columns(names: &[String], width: usize) -> String {
    let cell = names.iter().map(|n| n.chars().count()).max().unwrap_or(0) + 2;
    let columns = (width / cell.max(1)).max(1);
    let rows = names.len().div_ceil(columns);
    let mut out = String::new();
    for row in 0..rows {
        let line: String = (0..columns)
            .filter_map(|c| names.get(c * rows + row))
            .map(|n| format!("{n:<cell$}"))
            .collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Each name with its description wrapped beside it to `width` (0: unwrapped).
fn described(items: &[(String, String)], width: usize) -> String {
    let indent = items
        .iter()
        .map(|(n, _)| n.chars().count())
        .max()
        .unwrap_or(0)
        + 2;
    let room = width.saturating_sub(indent).max(20);
    let mut out = String::new();
    for (name, text) in items {
        let mut lines: Vec<String> = Vec::new();
        for word in text.split_whitespace() {
            match lines.last_mut() {
                Some(line)
                    if width == 0 || line.chars().count() + 1 + word.chars().count() <= room =>
                {
                    line.push(' ');
                    line.push_str(word);
                }
                _ => lines.push(word.to_string()),
            }
        }
        let mut lines = lines.into_iter();
        out.push_str(format!("{name:<indent$}{}", lines.next().unwrap_or_default()).trim_end());
        out.push('\n');
        for line in lines {
            out.push_str(&format!("{:indent$}{line}\n", ""));
        }
    }
    out
}

pub fn run(
    session: &mut Session,
    line: &str,
    read_file: &mut dyn FnMut(&mut Session, &str) -> Result<()>,
) -> Result<Flow> {
    let mut parts = line.split_whitespace();
    let cmd = parts.next().unwrap_or("");
    let args: Vec<&str> = parts.collect();
    let arg = args.first().copied();
    match cmd {
        ".quit" | ".exit" => return Ok(Flow::Quit),
        ".help" => {
            for (c, help) in DOT_COMMANDS {
                eprintln!("{c:<12} {help}");
            }
            eprintln!(
                "SQL statements end with ';' and may span lines. Ctrl-C cancels a running query."
            );
        }
        ".tables" => {
            let rs = session.query(
                "SELECT table_name AS name, 'table' AS kind FROM duckdb_tables() WHERE NOT internal AND NOT temporary
                 UNION ALL SELECT view_name, 'view' FROM duckdb_views() WHERE NOT internal AND NOT temporary
                 ORDER BY kind, name",
                &Filters::new(),
            )?;
            if session.shows_on_terminal() {
                // Every name, in columns down the page as DuckDB's shell
                // lists them: a table would elide the middle of 60 names.
                let names: Vec<String> = rs
                    .batches
                    .iter()
                    .flat_map(|b| {
                        (0..b.num_rows()).filter_map(|i| crate::output::cell_text(b.column(0), i))
                    })
                    .collect();
                print!("{}", in_columns(&names, session.width()));
            } else {
                session.show(&rs)?;
            }
        }
        ".views" => {
            let rs = session.query(
                "SELECT view_name AS view, coalesce(comment, '') AS answers FROM duckdb_views()
                 WHERE NOT internal AND NOT temporary ORDER BY view_name",
                &Filters::new(),
            )?;
            if session.shows_on_terminal() {
                // Each view's whole description, wrapped beside its name: a
                // fitted table would cut it.
                let text = |b: &duckdb::arrow::record_batch::RecordBatch, col: usize, i: usize| {
                    crate::output::cell_text(b.column(col), i).unwrap_or_default()
                };
                let views: Vec<(String, String)> = rs
                    .batches
                    .iter()
                    .flat_map(|b| (0..b.num_rows()).map(move |i| (text(b, 0, i), text(b, 1, i))))
                    .collect();
                print!("{}", described(&views, session.width()));
            } else {
                session.show(&rs)?;
            }
        }
        ".schema" => {
            let filter = match arg {
                Some(_) => "WHERE name = $name",
                None => "",
            };
            let sql = format!(
                "SELECT sql FROM (SELECT table_name AS name, sql FROM duckdb_tables() WHERE NOT internal AND NOT temporary
                 UNION ALL SELECT view_name, sql FROM duckdb_views() WHERE NOT internal AND NOT temporary) {filter} ORDER BY name"
            );
            let params: Filters = arg
                .map(|a| [("name".to_string(), a.to_string())].into())
                .unwrap_or_default();
            let rs = session.query(&sql, &params)?;
            for batch in &rs.batches {
                for i in 0..batch.num_rows() {
                    if let Some(text) = crate::output::cell_text(batch.column(0), i) {
                        println!("{};", text.trim_end_matches(';'));
                    }
                }
            }
            if arg.is_some() {
                // A view's columns and what each holds (its COMMENTs).
                let columns = session.query(
                    "SELECT column_name, data_type, coalesce(comment, '') FROM duckdb_columns()
                     WHERE table_name = $name AND NOT internal ORDER BY column_index",
                    &params,
                )?;
                for batch in &columns.batches {
                    for i in 0..batch.num_rows() {
                        let cell = |c: usize| {
                            crate::output::cell_text(batch.column(c), i).unwrap_or_default()
                        };
                        let comment = cell(2);
                        let comment = if comment.is_empty() {
                            String::new()
                        } else {
                            format!(": {comment}")
                        };
                        println!("-- {} {}{comment}", cell(0), cell(1));
                    }
                }
            }
        }
        ".reports" => {
            for r in report::all() {
                println!(
                    "{:<14} {}  (filters: {})",
                    r.name,
                    r.description,
                    r.params.join(", ")
                );
            }
        }
        ".report" => {
            let usage = ".report NAME [k=v …] [--all-columns]";
            let name = arg.ok_or_else(|| Error::Invalid(usage.into()))?;
            let rep = report::find(name)?;
            let mut filters = Filters::new();
            let mut all_columns = false;
            for kv in &args[1..] {
                if *kv == "--all-columns" {
                    all_columns = true;
                    continue;
                }
                let (k, v) = kv.split_once('=').ok_or_else(|| {
                    Error::Invalid(format!("filter '{kv}' is not key=value ({usage})"))
                })?;
                filters.insert(k.to_string(), v.to_string());
            }
            let how = session.presentation(all_columns);
            let shown =
                report::run_shown(&rep, &filters, &how, |sql, named| session.query(sql, named))?;
            session.write(|out, _| shown.write(&rep, &how, out))?;
        }
        ".gate" => {
            let spec = gate_spec(&args)?;
            let verdict = crate::gate::evaluate(session.conn()?, &spec)?;
            let format = match session.mode {
                Format::Json | Format::Jsonl => GateFormat::Json,
                Format::Csv | Format::Tsv => GateFormat::Csv,
                Format::Markdown => GateFormat::Markdown,
                _ => GateFormat::Table,
            };
            session.write(|out, render| {
                crate::gate::present::write(&verdict, format, render.fit.max_width, out)
            })?;
            session.gate_exit = Some(verdict.exit_code());
        }
        ".mode" => {
            session.mode = arg
                .ok_or_else(|| {
                    Error::Invalid(".mode table|box|csv|tsv|json|jsonl|markdown|line".into())
                })?
                .parse::<Format>()
                .map_err(Error::Invalid)?;
        }
        ".output" => session.output = arg.map(PathBuf::from),
        ".once" => {
            session.once = Some(PathBuf::from(
                arg.ok_or_else(|| Error::Invalid(".once FILE".into()))?,
            ));
        }
        ".export" => {
            let Some((file, source)) = args.split_last().filter(|(_, rest)| !rest.is_empty())
            else {
                return Err(Error::Invalid(".export NAME_OR_SELECT FILE".into()));
            };
            let exported = crate::export::export(
                session.conn()?,
                &source.join(" "),
                std::path::Path::new(file),
                &Default::default(),
            )?;
            if let Some(note) = &exported.note {
                eprintln!("note: {note}");
            }
            eprintln!("wrote {} rows to {file}", exported.rows);
        }
        ".maxrows" => {
            session.render.fit.max_rows = arg
                .and_then(|a| a.parse().ok())
                .ok_or_else(|| Error::Invalid(".maxrows N".into()))?;
        }
        ".maxwidth" => {
            session.max_width = match arg {
                None => None,
                Some(a) => Some(
                    a.parse()
                        .map_err(|_| Error::Invalid(".maxwidth [N]".into()))?,
                ),
            };
        }
        ".timer" => session.timer = on_off(arg)?,
        ".bail" => session.bail = on_off(arg)?,
        ".release" => match session.release() {
            Some(what) => eprintln!("(store released; {what} is gone)"),
            None => eprintln!("(the store is held only while a statement runs)"),
        },
        ".nullvalue" => session.render.null_value = args.join(" "),
        ".read" => {
            let file = arg.ok_or_else(|| Error::Invalid(".read FILE".into()))?;
            read_file(session, file)?;
        }
        other => {
            return Err(Error::Invalid(format!(
                "unknown command {other} (see .help)"
            )));
        }
    }
    Ok(Flow::Continue)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_listed_in_columns_down_the_page() {
        let names: Vec<String> = (1..=7).map(|i| format!("name{i}")).collect();
        // 7 names of 5 characters, cells of 7: two columns fit in 16.
        assert_eq!(
            in_columns(&names, 16),
            "name1  name5\nname2  name6\nname3  name7\nname4\n"
        );
        assert_eq!(in_columns(&names, 0).lines().count(), 7);
    }

    #[test]
    fn descriptions_wrap_whole_beside_their_names() {
        let long = "one two three four five six seven eight nine ten eleven twelve".to_string();
        let text = described(
            &[("v".into(), long.clone()), ("view2".into(), "short".into())],
            30,
        );
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.iter().all(|l| l.chars().count() <= 30), "{text}");
        let words: Vec<&str> = text.split_whitespace().collect();
        assert_eq!(
            words.len(),
            long.split_whitespace().count() + 3,
            "nothing cut: {text}"
        );
        assert!(lines[0].starts_with("v      one"), "{text}");
    }
}
