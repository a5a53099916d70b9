//! `liftdb report NAME [filters]` and `liftdb report --list`.

use std::path::Path;

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
    #[command(flatten)]
    pub filters: FilterArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

pub fn run(db: &Path, args: &ReportArgs) -> anyhow::Result<i32> {
    if args.list {
        for r in report::all() {
            println!("{:<12} {}", r.name, r.description);
            println!("{:<12} filters: --{}", "", r.params.join(" --"));
        }
        println!(
            "{:<12} self-contained HTML with charts, flags and blocked pairs (--out FILE)",
            "html"
        );
        return Ok(0);
    }
    let name = args.name.as_deref().unwrap_or_default();
    if name == "html" {
        let out = args
            .output
            .out
            .clone()
            .unwrap_or_else(|| "report.html".into());
        let store = super::open_read(db)?;
        let html = report::html::render(&store.conn, args.filters.skill.as_deref())?;
        std::fs::write(&out, html).with_context(|| format!("writing {}", out.display()))?;
        eprintln!("wrote {}", out.display());
        return Ok(0);
    }
    let rep = report::find(name)?;
    let store = super::open_read(db)?;
    let rs = report::run(&store.conn, &rep, &args.filters.to_filters())?;
    args.output.emit(&rs)?;
    Ok(0)
}
