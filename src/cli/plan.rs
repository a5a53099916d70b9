//! `liftdb plan`: how many cases and repetitions detect a lift of D at the
//! power wanted, each option priced from the cost ledger.

use std::sync::Arc;

use clap::Args;
use duckdb::arrow::array::{ArrayRef, Float64Array, RecordBatch, UInt64Array};
use duckdb::arrow::datatypes::{DataType, Field, Schema};
use liftdb::output::{self, Format, ResultSet};
use liftdb::plan::{self, Plan, PlanSpec, SkillPlan};
use liftdb::stats::rounding::py_round;
use liftdb::store::Location;

#[derive(Args, Debug)]
pub struct PlanArgs {
    /// The lift to detect (a rate difference, e.g. 0.1).
    #[arg(long, value_name = "D")]
    pub lift: f64,
    /// The release whose runs the plan learns from, its skill and split.
    #[command(flatten)]
    pub scope: super::ReleaseScope,
    /// Power wanted.
    #[arg(long, default_value_t = 0.8)]
    pub power: f64,
    /// Significance level of the two-sided sign-flip test.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// Also run each option: resample the observed cases and pairs
    /// (--replications times) and count the share that detects the lift.
    #[arg(long)]
    pub simulate: bool,
    /// Replications per option for --simulate.
    #[arg(long, default_value_t = 500, value_name = "N")]
    pub replications: u32,
    /// Where and how: --format (json: the plan whole; table, box or markdown:
    /// each skill's sentences and options; csv and the other row formats:
    /// the options), --out, --max-width, as report takes them.
    #[command(flatten)]
    pub output: super::OutputArgs,
}

pub fn run(db: &Location, args: &PlanArgs) -> anyhow::Result<i32> {
    let spec = PlanSpec {
        release: args.scope.release.clone(),
        skill: args.scope.skill.clone(),
        split: args.scope.split.clone(),
        lift: args.lift,
        power: args.power,
        alpha: args.alpha,
        simulate: args.simulate.then_some(args.replications.max(1)),
    };
    let store = super::open_read_after_upkeep(db)?;
    let plan = plan::plan(&store.conn, &spec)?;
    let format = args.output.format_written();
    let render = args.output.render_written();
    let width = render.fit.max_width;
    args.output.emit_streamed(|out| {
        if format == Format::Json {
            writeln!(out, "{}", serde_json::to_string_pretty(&plan)?)?;
            return Ok(plan.skills.len());
        }
        let prose = matches!(format, Format::Table | Format::Box | Format::Markdown);
        for skill in &plan.skills {
            let rs = table(&plan, skill)?;
            if !prose {
                output::render_with(&rs, format, &render, out)?;
                continue;
            }
            for (i, line) in output::wrap(&sentence(&plan, skill), width, 2).iter().enumerate() {
                writeln!(out, "{}{line}", if i == 0 { "" } else { "  " })?;
            }
            if format == Format::Markdown {
                writeln!(out)?;
            }
            output::render_with(&rs, format, &render, out)?;
            if format == Format::Markdown {
                writeln!(out)?;
            }
            for line in output::wrap(&sequential_sentence(&plan, skill), width, 2) {
                writeln!(out, "{line}")?;
            }
            if let Some(x) = skill.options.iter().find(|x| !x.reached) {
                writeln!(
                    out,
                    "note: with {} repetitions per arm even {} cases fall short of the power asked (power {:.3}).",
                    x.repetitions, x.cases, x.power
                )?;
            }
            writeln!(out)?;
        }
        Ok(plan.skills.len())
    })?;
    Ok(liftdb::exit::SUCCESS)
}

/// What `gate --sequential` takes, run after every round of the suite.
fn sequential_sentence(plan: &Plan, s: &SkillPlan) -> String {
    let q = &s.sequential;
    match (q.rounds, q.runs) {
        (Some(rounds), Some(runs)) => format!(
            "sequential (gate --sequential --min-lift 0, run after every round of this suite, {} runs a round): about {rounds} rounds, {runs} runs, to show a lift of {} (median of simulated sequences)",
            q.runs_per_round, plan.lift
        ),
        _ => format!(
            "sequential (gate --sequential --min-lift 0): a lift of {} is not shown within 1000 rounds of this suite in most simulated sequences",
            plan.lift
        ),
    }
}

/// What the plan learned from, and what it plans for, in one sentence.
fn sentence(plan: &Plan, s: &SkillPlan) -> String {
    let o = &s.observed;
    let split = match o.split.as_str() {
        "all" => String::new(),
        x => format!(", split {x}"),
    };
    let within = o.within_unit_sd.map_or(
        "not measured (one pair per unit: the spread between units holds it all)".into(),
        |w| format!("{w:.2}"),
    );
    format!(
        "{}, release {}{split}: {} case×model units ({} cases × {} models, {:.1} pairs each), lift {:+.2}; standard deviation of the units' lifts {:.2}, of one pair around its unit's lift {within}. \
         To detect a lift of {} at {:.0}% power (α {}, two-sided sign-flip test over case×model units){}:",
        o.skill,
        o.release,
        o.units,
        o.cases,
        o.models,
        o.repetitions,
        o.lift,
        o.between_unit_sd,
        plan.lift,
        plan.power * 100.0,
        plan.alpha,
        match plan.replications {
            Some(n) => format!("; simulated: {n} resampled suites per option"),
            None => String::new(),
        }
    )
}

/// The options as a result: repetitions, cases, units, runs, power, cost.
fn table(plan: &Plan, s: &SkillPlan) -> anyhow::Result<ResultSet> {
    let o = &s.options;
    let mut fields = vec![
        Field::new("repetitions", DataType::UInt64, false),
        Field::new("cases", DataType::UInt64, false),
        Field::new("units", DataType::UInt64, false),
        Field::new("runs", DataType::UInt64, false),
        Field::new("power", DataType::Float64, false),
    ];
    let whole = |f: fn(&plan::PlanOption) -> u64| -> ArrayRef {
        Arc::new(UInt64Array::from(o.iter().map(f).collect::<Vec<_>>()))
    };
    let share = |p: f64| py_round(p, 3);
    let mut arrays: Vec<ArrayRef> = vec![
        whole(|x| x.repetitions as u64),
        whole(|x| x.cases as u64),
        whole(|x| x.units as u64),
        whole(|x| x.runs),
        Arc::new(Float64Array::from(
            o.iter().map(|x| share(x.power)).collect::<Vec<_>>(),
        )),
    ];
    if plan.replications.is_some() {
        fields.push(Field::new("simulated_power", DataType::Float64, true));
        arrays.push(Arc::new(Float64Array::from(
            o.iter()
                .map(|x| x.simulated_power.map(share))
                .collect::<Vec<_>>(),
        )));
    }
    // NULL when no cost is known: never a price of 0.
    fields.push(Field::new("cost_usd", DataType::Float64, true));
    arrays.push(Arc::new(Float64Array::from(
        o.iter()
            .map(|x| x.cost_usd.map(|c| py_round(c, 2)))
            .collect::<Vec<_>>(),
    )));
    let schema = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new(schema.clone(), arrays)?;
    Ok(ResultSet {
        schema,
        batches: vec![batch],
    })
}
