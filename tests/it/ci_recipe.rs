//! docs/ci.md's recipe runs as written: the workflow file's `run:` steps,
//! read from the YAML, in order, with the workflow's `env:`, against the
//! local PostgreSQL and S3-compatible servers scripts/test starts. Two
//! steps are stood in for (and named so in docs/ci.md): `install` (the
//! liftdb under test goes on the PATH) and `evals` (no model is reachable:
//! gen-runs writes each job's runs where the harness would). It runs
//! offline: the extensions' `pip download` is served from the wheels
//! scripts/test fetched once. The writer's password (PGPASSWORD) is planted
//! and no job's output shows it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use yaml_rust2::{Yaml, YamlLoader};

use crate::lake::{env, file_liftdb, ok, TestLake};

/// The workflow's value of `${{ … }}` expressions: the repository's
/// variables and secrets pointed at the local servers, the matrix, github.
fn expression(name: &str, lake: &TestLake, workspace: &Path, shard: Option<u32>) -> String {
    let pg = |key: &str| crate::lake::setting(key);
    match name {
        "vars.LAKE_DATABASE" => lake.dbname.clone(),
        "vars.LAKE_HOST" => pg("host"),
        "vars.LAKE_PORT" => pg("port"),
        "vars.LAKE_WRITER" => "postgres".into(),
        // The test server trusts the role: the password only has to stay unprinted.
        "secrets.LAKE_WRITER_PASSWORD" => crate::lake::PLANTED_PASSWORD.into(),
        "vars.LAKE_BUCKET" => env("LIFTDB_TEST_S3_BUCKET"),
        "vars.LAKE_REGION" => "us-east-1".into(),
        "vars.LAKE_ENDPOINT_URL" => env("LIFTDB_TEST_S3_ENDPOINT"),
        "secrets.LAKE_AWS_ACCESS_KEY_ID" => env("LIFTDB_TEST_S3_KEY_ID"),
        "secrets.LAKE_AWS_SECRET_ACCESS_KEY" => env("LIFTDB_TEST_S3_SECRET"),
        "github.workspace" => workspace.display().to_string(),
        "github.sha" => format!("ci-{}", std::process::id()),
        "matrix.shard" => shard.expect("a matrix job").to_string(),
        other => panic!("the workflow uses ${{{{ {other} }}}}: give the test its value"),
    }
}

/// `text` with every `${{ … }}` replaced.
fn expand(text: &str, value: &dyn Fn(&str) -> String) -> String {
    let re = regex::Regex::new(r"\$\{\{\s*([^}]+?)\s*\}\}").unwrap();
    re.replace_all(text, |c: &regex::Captures| value(&c[1]))
        .into_owned()
}

/// One job's steps: (id, run script) for each step with `run:`.
fn run_steps(job: &Yaml) -> Vec<(Option<String>, String)> {
    job["steps"]
        .as_vec()
        .unwrap()
        .iter()
        .filter_map(|step| {
            let run = step["run"].as_str()?;
            Some((step["id"].as_str().map(str::to_string), run.to_string()))
        })
        .collect()
}

/// The workflow's `env:` with its expressions filled in.
fn workflow_env(workflow: &Yaml, value: &dyn Fn(&str) -> String) -> Vec<(String, String)> {
    workflow["env"]
        .as_hash()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            let text = match v {
                Yaml::String(s) => s.clone(),
                Yaml::Integer(n) => n.to_string(),
                other => panic!("env value {other:?}"),
            };
            (k.as_str().unwrap().to_string(), expand(&text, value))
        })
        .collect()
}

/// Where a job runs: its checkout, the PATH's liftdb, the step summary.
struct Runner<'a> {
    workspace: &'a Path,
    bin: &'a Path,
    summary: &'a Path,
}

/// Job `name`'s steps run in order in the runner's workspace, each with
/// bash -e as GitHub runs them, under the workflow's `env:`; `stand_in` runs
/// instead of the step whose id it names.
fn run_job(
    workflow: &Yaml,
    name: &str,
    runner: &Runner,
    value: &dyn Fn(&str) -> String,
    stand_in: &dyn Fn(&str) -> Option<()>,
) -> Command {
    let Runner {
        workspace,
        bin,
        summary,
    } = runner;
    let job = &workflow["jobs"][name];
    let env_vars = workflow_env(workflow, value);
    let mut script = String::from("set -eo pipefail\n");
    for (id, run) in run_steps(job) {
        match id.as_deref().and_then(|id| stand_in(id).map(|_| id)) {
            Some(id) => script.push_str(&format!("# step {id}: stood in for by the test\n")),
            None => {
                script.push_str(&expand(&run, value));
                script.push('\n');
            }
        }
    }
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(script)
        .current_dir(workspace)
        .env(
            "PATH",
            format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
        )
        .env("GITHUB_STEP_SUMMARY", summary)
        // Offline: the recipe's `pip download` finds the wheels scripts/test
        // fetched once, and never asks the package index.
        .env("PIP_NO_INDEX", "1")
        .env("PIP_FIND_LINKS", env("LIFTDB_TEST_EXTENSION_WHEELS"))
        .env_remove("LIFTDB_SHARD")
        .env_remove("LIFTDB_HOST");
    for (k, v) in &env_vars {
        cmd.env(k, v);
    }
    cmd
}

#[test]
fn the_ci_recipe_runs_as_written() {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/ci/skill-evals.yml");
    let text = std::fs::read_to_string(&file).unwrap();
    let workflow = &YamlLoader::load_from_str(&text).unwrap()[0];
    // The workflow's data path (LIFTDB_DATA_PATH: s3://BUCKET/liftdb/).
    let lake = TestLake {
        s3: Some(format!("s3://{}/liftdb/", env("LIFTDB_TEST_S3_BUCKET"))),
        ..TestLake::new("ci")
    };
    let dir = tempfile::tempdir().unwrap();
    // The liftdb under test, on the PATH (the `install` step's stand-in).
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("liftdb"), bin.join("liftdb")).unwrap();
    // The suite as the harness would run it whole: 2 jobs × 4 repetitions.
    let gathered = dir.path().join("gathered");
    ok(
        Command::new(assert_cmd::cargo::cargo_bin("gen-runs"))
            .args(["--runs", "240", "--reps", "8", "--seed", "5", "--out"])
            .arg(&gathered)
            .output()
            .unwrap(),
        "gen-runs",
    );
    let jobs = &workflow["jobs"];
    let shards: Vec<u32> = jobs["evals"]["strategy"]["matrix"]["shard"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|s| s.as_i64().unwrap() as u32)
        .collect();
    assert_eq!(shards, [1, 2], "the recipe's matrix");
    let summary = dir.path().join("summary.md");
    let mut running = Vec::new();
    for &shard in &shards {
        // Each job's checkout: the manifest and, where the harness writes
        // them, its 4 repetitions numbered from run-1.
        let workspace = dir.path().join(format!("job-{shard}"));
        std::fs::create_dir_all(workspace.join("evals")).unwrap();
        std::fs::copy(
            gathered.join("manifest.json"),
            workspace.join("evals/manifest.json"),
        )
        .unwrap();
        let value = |name: &str| expression(name, &lake, &workspace, Some(shard));
        let stand_in = |id: &str| match id {
            "install" => Some(()),
            "evals" => {
                let shard_tree = crate::team_field::shard_of(
                    &gathered,
                    &dir.path().join(format!("runs-{shard}")),
                    shard - 1,
                    4,
                );
                std::fs::rename(shard_tree.join("eval-runs"), workspace.join("eval-runs")).unwrap();
                Some(())
            }
            _ => None,
        };
        let runner = Runner {
            workspace: &workspace,
            bin: &bin,
            summary: &summary,
        };
        let mut cmd = run_job(workflow, "evals", &runner, &value, &stand_in);
        running.push(
            cmd.stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap(),
        );
    }
    for job in running {
        ok(job.wait_with_output().unwrap(), "an evals job");
    }
    let workspace = dir.path().join("gate");
    std::fs::create_dir_all(&workspace).unwrap();
    let value = |name: &str| expression(name, &lake, &workspace, None);
    let stand_in = |id: &str| (id == "install").then_some(());
    let runner = Runner {
        workspace: &workspace,
        bin: &bin,
        summary: &summary,
    };
    let gate = run_job(workflow, "gate", &runner, &value, &stand_in)
        .output()
        .unwrap();
    crate::lake::no_password(&gate, "the gate job");
    // The gate's verdict is the data's (0 pass, 1 fail, 3 undecided); 2
    // is the recipe failing.
    assert!(
        matches!(gate.status.code(), Some(0 | 1 | 3)),
        "the gate job: {:?}\n{}",
        gate.status.code(),
        String::from_utf8_lossy(&gate.stderr)
    );
    // Every run once, and the release is the whole suite: its lift equals
    // the gathered tree's on a file store.
    assert_eq!(
        lake.count("SELECT count(*) FROM run"),
        crate::lake::walk_runs(&gathered)
    );
    let release = value("github.sha");
    let store = dir.path().join("gathered.duckdb");
    ok(
        file_liftdb(&store)
            .args(["ingest", "--quiet", "--release", &release])
            .arg(gathered.join("eval-runs"))
            .arg(gathered.join("manifest.json"))
            .output()
            .unwrap(),
        "gathered",
    );
    let lift = |mut cmd: Command| {
        ok(
            cmd.args(["report", "lift", "--format", "csv"])
                .output()
                .unwrap(),
            "lift",
        )
    };
    assert_eq!(lift(lake.liftdb()), lift(file_liftdb(&store)));
    let junit = std::fs::read_to_string(workspace.join("gate.xml")).unwrap();
    assert!(junit.contains("<testsuite"), "{junit}");
    let summary = std::fs::read_to_string(&summary).unwrap();
    assert!(
        !summary.contains(crate::lake::PLANTED_PASSWORD),
        "the step summary shows the password: {summary}"
    );
    assert!(
        summary.contains(&release) && summary.contains("### liftdb gate: "),
        "{summary}"
    );
    // The annotations, one a line, each a workflow command.
    let annotations = String::from_utf8_lossy(&gate.stdout);
    assert!(
        annotations.lines().any(|l| l.starts_with("::"))
            && annotations
                .lines()
                .filter(|l| l.starts_with("::"))
                .all(|l| l.starts_with("::error ")
                    || l.starts_with("::warning ")
                    || l.starts_with("::notice ")),
        "{annotations}"
    );
}
