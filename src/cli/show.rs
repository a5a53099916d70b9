//! `liftdb show RUN`: one run whole — identity, rates, tokens and cost, each
//! failing assertion with its evidence, the start of its output.

use std::io::Write;

use clap::Args;
use liftdb::output::Format;
use liftdb::report::run_card::{self, RunCard};
use liftdb::store::Location;

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The run: its id (`report runs` lists them), a prefix of one (6
    /// characters or more), or its folder.
    pub run: String,
    /// Every assertion, not only the failing ones.
    #[arg(long)]
    pub all: bool,
    /// The same as --format json.
    #[arg(long, hide = true)]
    pub json: bool,
    /// Where and how, as report takes them: --format (table or box: the run
    /// whole, its text wrapped to the width; json: the run as one object,
    /// run and assertions; csv and the other row formats: its assertions),
    /// --out, --max-width (0 = no wrapping).
    #[command(flatten)]
    pub output: super::OutputArgs,
}

pub fn run(db: &Location, args: &ShowArgs) -> anyhow::Result<i32> {
    let store = super::open_read_after_upkeep(db)?;
    let run_id = run_card::find(&store.conn, &args.run)?;
    let card = run_card::load(&store.conn, &run_id)?;
    let format = match args.json {
        true => Format::Json,
        false => args.output.format_written(),
    };
    let render = args.output.render_written();
    args.output.emit_streamed(|out| {
        match format {
            Format::Json => writeln!(out, "{}", serde_json::to_string_pretty(&card.to_json())?)?,
            Format::Table | Format::Box => write_card(&card, args.all, render.fit.max_width, out)?,
            rows => liftdb::output::render_with(&card.assertions, rows, &render, out)?,
        }
        Ok(card.assertions.row_count())
    })?;
    Ok(liftdb::exit::SUCCESS)
}

/// "name value" pairs of the fields present, joined by " · ".
fn line(card: &RunCard, parts: &[(&str, &str)]) -> String {
    parts
        .iter()
        .filter_map(|(label, field)| card.get(field).map(|v| format!("{label} {v}")))
        .collect::<Vec<_>>()
        .join(" · ")
}

fn write_card(card: &RunCard, all: bool, width: usize, out: &mut dyn Write) -> std::io::Result<()> {
    let wrapped = |out: &mut dyn Write, text: &str, indent: usize| -> std::io::Result<()> {
        let pad = " ".repeat(indent);
        for l in liftdb::output::wrap(text, width.saturating_sub(indent), 0) {
            writeln!(out, "{pad}{l}")?;
        }
        Ok(())
    };
    let unavailable = |field: &str| card.get(field).unwrap_or("unavailable").to_string();
    writeln!(out, "run {}", unavailable("run_id"))?;
    let identity = [
        line(
            card,
            &[
                ("release", "release"),
                ("skill", "skill"),
                ("experiment", "experiment"),
                ("format", "format"),
            ],
        ),
        line(
            card,
            &[
                ("case", "case"),
                ("named", "case_name"),
                ("split", "split"),
                ("model", "model"),
                ("arm", "arm"),
                ("rep", "rep"),
            ],
        ),
    ];
    for text in identity {
        wrapped(out, &text, 2)?;
    }
    if let Some(folder) = card.get("folder") {
        writeln!(out, "  folder {folder}")?;
    }
    writeln!(out)?;
    match card.get("scorable") {
        Some("false") => wrapped(
            out,
            &format!("not scorable: {}", unavailable("unscorable_reason")),
            2,
        )?,
        _ => {
            let rate = unavailable("objective_pass_rate");
            let count = |passed: &str, total: &str| match (card.get(passed), card.get(total)) {
                (Some(p), Some(t)) if t != "0" => Some((p.to_string(), t.to_string())),
                _ => None,
            };
            // A rate taken from a tool's summary counts that tool's expectations
            // (skill-creator: "3 of 4 expectations passed"), not gate assertions.
            let objective = match (
                card.get("rate_basis"),
                count("expectations_passed", "expectations_total"),
            ) {
                (Some("summary"), Some((p, t))) => {
                    format!("{p} of {t} expectations passed ({rate})")
                }
                _ => match count("objective_passed", "objective_total") {
                    Some((p, t)) => format!("objective {p} of {t} passed ({rate})"),
                    None => format!("objective pass rate {rate}"),
                },
            };
            let rest = line(
                card,
                &[
                    ("combined", "combined_pass_rate"),
                    ("vetoed", "vetoed"),
                    ("critical failures", "critical_failures"),
                    ("graded by", "graded_by"),
                ],
            );
            wrapped(out, &format!("{objective} · {rest}"), 2)?;
        }
    }
    let spend = format!(
        "tokens {} in, {} out, {} total · cost USD {} · {} ms",
        unavailable("input_tokens"),
        unavailable("output_tokens"),
        unavailable("total_tokens"),
        unavailable("cost_usd"),
        unavailable("elapsed_ms")
    );
    wrapped(out, &spend, 2)?;
    writeln!(out)?;

    // Each assertion: its outcome, name, kind, then its evidence indented.
    let rs = &card.assertions;
    let total = rs.row_count();
    let mut failed = 0;
    let mut passed_names = Vec::new();
    let mut shown = Vec::new();
    for batch in &rs.batches {
        for i in 0..batch.num_rows() {
            let cell = |c: usize| liftdb::output::cell_text(batch.column(c), i);
            let outcome = cell(1).unwrap_or_default();
            if outcome == "FAILED" {
                failed += 1;
            }
            if outcome == "passed" && !all {
                passed_names.push(cell(0).unwrap_or_default());
                continue;
            }
            let kind: Vec<String> = [cell(2), cell(3), cell(4)].into_iter().flatten().collect();
            shown.push((
                format!(
                    "{outcome} {} ({})",
                    cell(0).unwrap_or_default(),
                    kind.join(", ")
                ),
                cell(5),
            ));
        }
    }
    match (total, failed) {
        (0, _) => writeln!(out, "no assertions graded")?,
        (t, 0) => writeln!(out, "no assertion failed ({t} graded)")?,
        (t, f) => writeln!(out, "{f} of {t} assertions failed:")?,
    }
    for (head, evidence) in shown {
        wrapped(out, &head, 2)?;
        if let Some(evidence) = evidence.filter(|e| !e.trim().is_empty()) {
            wrapped(out, &format!("evidence: {evidence}"), 6)?;
        }
    }
    if !passed_names.is_empty() {
        wrapped(
            out,
            &format!(
                "passed: {} (--all shows their evidence)",
                passed_names.join(", ")
            ),
            2,
        )?;
    }
    writeln!(out)?;

    match (card.get("output_start"), card.get("output_chars")) {
        (Some(text), Some(chars)) => {
            let shown = text.chars().count();
            match chars.parse::<usize>().is_ok_and(|n| n > shown) {
                true => writeln!(out, "output (the first {shown} of {chars} characters):")?,
                false => writeln!(out, "output ({chars} characters):")?,
            }
            for l in text.lines() {
                for part in liftdb::output::wrap(l, width.saturating_sub(4), 0) {
                    writeln!(out, "  │ {part}")?;
                }
            }
        }
        _ => writeln!(out, "no output stored")?,
    }
    Ok(())
}
