//! `gen-runs`: write a realistic skill-eval-harness run tree of any size, and
//! the manifest that matches it, for benchmarks and scale tests.
//!
//! Layout and file shapes follow skill-eval-harness 0.6.0 (docs/harnesses.md §C):
//! `eval-runs/<case>/<model>/<arm>/run-<n>/` with metadata.json and
//! metrics.json (telemetry v3), environment.json, events.json, output.md, and
//! for codex-runner models a JSONL trace. Deterministic for a given seed.

mod content;
mod plan;

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Parser;
use rayon::prelude::*;

use plan::{Plan, RunSpec};

#[derive(Parser, Debug)]
#[command(
    name = "gen-runs",
    about = "Generate a realistic skill-eval-harness run tree and its manifest"
)]
struct Args {
    /// Total number of run directories to write.
    #[arg(long, default_value_t = 10_000)]
    runs: u64,
    /// Output folder (gets manifest.json and eval-runs/).
    #[arg(long)]
    out: PathBuf,
    /// Models, comma-separated. Names starting with "claude" use the claude
    /// runner (provider-reported cost, no trace); others the codex runner
    /// (JSONL trace, events, no cost).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "claude-sonnet-4-5,claude-haiku-4-5,gpt-5-codex"
    )]
    models: Vec<String>,
    /// Repetitions per (case, model, arm).
    #[arg(long, default_value_t = 5)]
    reps: u64,
    /// Ablation arms (`ablation:<id>`) besides with_skill / without_skill.
    #[arg(long, default_value_t = 0)]
    ablations: u64,
    /// Seed of the generator; the same seed writes the same bytes.
    #[arg(long, default_value_t = 7)]
    seed: u32,
    /// Also write what the runs were drawn from to FILE (JSON, outside the
    /// tree): each case's pass probability per arm, for tests that check a
    /// statistic against the truth.
    #[arg(long, value_name = "FILE")]
    truth: Option<PathBuf>,
}

fn main() -> Result<()> {
    let args = Args::parse();
    let plan = Plan::new(
        args.runs,
        args.models.clone(),
        args.reps,
        args.ablations,
        args.seed,
    );
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let manifest = args.out.join("manifest.json");
    std::fs::write(
        &manifest,
        content::sorted_keys(&content::manifest(&plan)).to_string(),
    )
    .with_context(|| format!("cannot write {}", manifest.display()))?;

    write_fixtures(&args.out, &plan)?;
    if let Some(path) = &args.truth {
        std::fs::write(path, content::truth(&plan).to_string())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }

    let root = args.out.join("eval-runs");
    let specs: Vec<RunSpec> = plan.runs().collect();
    let bytes: u64 = specs
        .par_iter()
        .map(|spec| write_run(&root, &plan, spec))
        .collect::<Result<Vec<u64>>>()?
        .into_iter()
        .sum();
    println!(
        "wrote {} runs ({} cases x {} models x {} arms x {} reps, {:.1} MB) and {} under {}",
        specs.len(),
        plan.cases.len(),
        plan.models.len(),
        plan.arms.len(),
        plan.reps,
        bytes as f64 / 1e6,
        manifest.display(),
        args.out.display()
    );
    Ok(())
}

/// The migration files the manifest's cases point at (graders check they exist).
fn write_fixtures(out: &std::path::Path, plan: &Plan) -> Result<()> {
    let dir = out.join("fixtures").join("migrations");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    for case in &plan.cases {
        let path = dir.join(&case.file);
        std::fs::write(&path, content::migration(case))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Write one run directory; returns the bytes written.
fn write_run(root: &std::path::Path, plan: &Plan, spec: &RunSpec) -> Result<u64> {
    let dir = root
        .join(&plan.cases[spec.case].id)
        .join(&plan.models[spec.model])
        .join(&plan.arms[spec.arm])
        .join(format!("run-{}", spec.rep));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut total = 0;
    for (name, body) in content::run_files(plan, spec) {
        total += body.len() as u64;
        std::fs::write(dir.join(name), body)
            .with_context(|| format!("cannot write {}", dir.join(name).display()))?;
    }
    Ok(total)
}
