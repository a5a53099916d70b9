//! Dot-commands: single-line session commands in the style of the DuckDB shell.

use std::path::PathBuf;

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
        ".report NAME [skill=… model=… split=… case=… arm=… release=…]  run a canned report",
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

fn list(session: &mut Session, sql: &str) -> Result<()> {
    let rs = session.query(sql, &Filters::new())?;
    session.show(&rs)
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
            eprintln!("SQL statements end with ';' and may span lines. Ctrl-C cancels a running query.");
        }
        ".tables" => list(
            session,
            "SELECT table_name AS name, 'table' AS kind FROM duckdb_tables() WHERE NOT internal AND NOT temporary
             UNION ALL SELECT view_name, 'view' FROM duckdb_views() WHERE NOT internal AND NOT temporary
             ORDER BY kind, name",
        )?,
        ".views" => list(
            session,
            "SELECT view_name AS view, coalesce(comment, '') AS answers FROM duckdb_views()
             WHERE NOT internal AND NOT temporary ORDER BY view_name",
        )?,
        ".schema" => {
            let filter = match arg {
                Some(_) => "WHERE name = $name",
                None => "",
            };
            let sql = format!(
                "SELECT sql FROM (SELECT table_name AS name, sql FROM duckdb_tables() WHERE NOT internal AND NOT temporary
                 UNION ALL SELECT view_name, sql FROM duckdb_views() WHERE NOT internal AND NOT temporary) {filter} ORDER BY name"
            );
            let params: Filters = arg.map(|a| [("name".to_string(), a.to_string())].into()).unwrap_or_default();
            let rs = session.query(&sql, &params)?;
            for batch in &rs.batches {
                for i in 0..batch.num_rows() {
                    if let Some(text) = crate::output::cell_text(batch.column(0), i) {
                        println!("{};", text.trim_end_matches(';'));
                    }
                }
            }
        }
        ".reports" => {
            for r in report::all() {
                println!("{:<14} {}  (filters: {})", r.name, r.description, r.params.join(", "));
            }
        }
        ".report" => {
            let name = arg.ok_or_else(|| Error::Invalid(".report NAME [k=v …]".into()))?;
            let rep = report::find(name)?;
            let mut filters = Filters::new();
            for kv in &args[1..] {
                let (k, v) = kv
                    .split_once('=')
                    .ok_or_else(|| Error::Invalid(format!("filter '{kv}' is not key=value")))?;
                filters.insert(k.to_string(), v.to_string());
            }
            let rs = report::run_via(&rep, &filters, |sql, named| session.query(sql, named))?;
            session.show(&rs)?;
        }
        ".mode" => {
            session.mode = arg
                .ok_or_else(|| Error::Invalid(".mode table|box|csv|tsv|json|jsonl|markdown|line".into()))?
                .parse::<Format>()
                .map_err(Error::Invalid)?;
        }
        ".output" => session.output = arg.map(PathBuf::from),
        ".once" => {
            session.once = Some(PathBuf::from(arg.ok_or_else(|| Error::Invalid(".once FILE".into()))?));
        }
        ".export" => {
            let Some((file, source)) = args.split_last().filter(|(_, rest)| !rest.is_empty()) else {
                return Err(Error::Invalid(".export NAME_OR_SELECT FILE".into()));
            };
            let rows = crate::export::export(session.conn()?, &source.join(" "), std::path::Path::new(file), &Default::default())?;
            eprintln!("wrote {rows} rows to {file}");
        }
        ".maxrows" => {
            session.render.fit.max_rows = arg
                .and_then(|a| a.parse().ok())
                .ok_or_else(|| Error::Invalid(".maxrows N".into()))?;
        }
        ".maxwidth" => {
            session.max_width = match arg {
                None => None,
                Some(a) => Some(a.parse().map_err(|_| Error::Invalid(".maxwidth [N]".into()))?),
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
            return Err(Error::Invalid(format!("unknown command {other} (see .help)")));
        }
    }
    Ok(Flow::Continue)
}
