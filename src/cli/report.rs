//! `liftdb report NAME [filters]` and `liftdb report --list`.

use liftdb::store::Location;

use anyhow::Context;
use clap::Args;
use liftdb::report;

use super::{FilterArgs, OutputArgs};

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Report name (see --list).
    #[arg(required_unless_present = "list")]
    pub name: Option<String>,
    /// List the reports with their parameters.
    #[arg(long)]
    pub list: bool,
    /// Every column, also on a terminal (which shows each report's compact set).
    #[arg(long)]
    pub all_columns: bool,
    #[command(flatten)]
    pub filters: FilterArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// On a lake: read it as it was at this snapshot (the one a report
    /// names), for a report that can be made again.
    #[arg(long, value_name = "N")]
    pub snapshot: Option<i64>,
}

/// The store a report reads, and on a lake the snapshot it reads: every
/// query of the report runs in one transaction, so all of them read that
/// snapshot, which is named on stderr.
fn open_for_report(db: &Location, snapshot: Option<i64>) -> anyhow::Result<liftdb::store::Store> {
    let store = super::naming_store(db, "opening", liftdb::store::open_answer_at(db, snapshot))?;
    if db.file().is_none() {
        let read = store.snapshot()?.unwrap_or_default();
        eprintln!("read lake snapshot {read} (--snapshot {read} reads it again)");
    }
    Ok(store)
}

pub fn run(db: &Location, args: &ReportArgs) -> anyhow::Result<i32> {
    if args.list {
        list(
            args.output
                .max_width
                .or_else(liftdb::output::terminal_width)
                .unwrap_or(0),
        );
        return Ok(liftdb::exit::SUCCESS);
    }
    let name = args.name.as_deref().unwrap_or_default();
    if name == "html" {
        let filters = args.filters.to_filters();
        if let Some(other) = filters
            .keys()
            .find(|k| !["skill", "release"].contains(&k.as_str()))
        {
            anyhow::bail!(
                "report html does not take --{other} (it takes --skill and --release; its page filters models and splits itself)"
            );
        }
        if let Some(format) = args.output.format {
            let format = format!("{format:?}").to_lowercase();
            anyhow::bail!(
                "report html writes one HTML page, not {format}; hint: drop --format, or export a report's rows: liftdb report NAME --format {format} (liftdb report --list)"
            );
        }
        // ./report.html is never replaced unasked: --out names the file to write.
        let out = match &args.output.out {
            Some(out) => out.clone(),
            None => {
                let default = std::path::PathBuf::from("report.html");
                if default.exists() {
                    anyhow::bail!(
                        "report.html exists here and is left as it is; hint: give --out FILE (a file named with --out is replaced)"
                    );
                }
                default
            }
        };
        let store = open_for_report(db, args.snapshot)?;
        let html = report::html::render(
            &store.conn,
            args.filters.skill.as_deref(),
            args.filters.release.as_deref(),
        )?;
        std::fs::write(&out, html).with_context(|| format!("writing {}", out.display()))?;
        eprintln!("wrote {}", out.display());
        return Ok(liftdb::exit::SUCCESS);
    }
    let rep = report::find(name)?;
    let store = open_for_report(db, args.snapshot)?;
    let filters = args.filters.to_filters();
    let format = args.output.format_written();
    if liftdb::output::streams(format) {
        // Written as DuckDB gives the rows: a large report is never held whole.
        return args
            .output
            .emit_streamed(|out| stream(&store.conn, &rep, &filters, format, out))
            .map(|_| 0);
    }
    let how = report::Presentation {
        format,
        render: args.output.render_written(),
        all_columns: args.all_columns,
    };
    let shown = report::run_shown(&rep, &filters, &how, |sql, named| {
        report::query(&store.conn, sql, named)
    })?;
    args.output.emit_streamed(|out| {
        shown.write(&rep, &how, out)?;
        Ok(shown.rows.row_count())
    })?;
    Ok(liftdb::exit::SUCCESS)
}

/// A report's rows to `out` as they come; how many were written.
fn stream(
    conn: &duckdb::Connection,
    rep: &report::Report,
    filters: &report::Filters,
    format: liftdb::output::Format,
    out: &mut dyn std::io::Write,
) -> anyhow::Result<usize> {
    use liftdb::output::RowStream;
    let mut out = Some(out);
    let mut rows = None;
    report::stream(conn, rep, filters, |part| -> anyhow::Result<()> {
        match part {
            report::Streamed::Columns(schema) => {
                let out = out.take().expect("a report's columns come once");
                rows = RowStream::begin(format, schema.clone(), out)?;
            }
            report::Streamed::Rows(batch) => {
                rows.as_mut().expect("columns come first").rows(batch)?;
            }
        }
        Ok(())
    })?;
    Ok(match rows {
        Some(rows) => rows.end()?,
        None => 0,
    })
}

/// `report --list`: each report's description wrapped beside its name.
fn list(width: usize) {
    let mut entries: Vec<(String, String)> = report::all()
        .into_iter()
        .map(|r| {
            let also = match r.aliases.is_empty() {
                true => String::new(),
                false => format!(" (also: {})", r.aliases.join(", ")),
            };
            let text = format!(
                "{}{also} (filters: --{})",
                r.description,
                r.params.join(" --")
            );
            (r.name, text)
        })
        .collect();
    entries.push((
        "html".into(),
        "Self-contained HTML with charts, flags and blocked pairs (--out FILE)".into(),
    ));
    // The longest name and two spaces: a name never runs into its text.
    let name_width = entries.iter().map(|(n, _)| n.len()).max().unwrap_or(0) + 2;
    let text_width = width.saturating_sub(name_width);
    for (name, text) in entries {
        for (i, line) in liftdb::output::wrap(&text, text_width, 0)
            .iter()
            .enumerate()
        {
            let label = if i == 0 { name.as_str() } else { "" };
            println!("{label:<name_width$}{line}");
        }
    }
}
