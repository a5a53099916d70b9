//! `script` assertions, run only with `--allow-scripts`, as skill-benchmark
//! 0.6.0 runs them: the command as argv (a string is one program name, never
//! a shell line), `{output_dir}` / `{output_path}` substituted, the manifest's
//! directory as working directory, `timeout_s` (default 30), passed when the
//! exit code is `pass_exit_code` (default 0), the last `{"score": …}` line of
//! stdout as the score.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::pyvalue::str_of;
use super::text::{decode, py_strip};

pub struct ScriptOutcome {
    pub passed: bool,
    pub score: Option<f64>,
    pub evidence: String,
}

/// The argv of a script assertion (`command` as a string or list of strings).
fn argv(a: &Value, run_dir: &Path) -> Result<Vec<String>, String> {
    let parts: Vec<String> = match a.get("command") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<_>>()
            .ok_or("script command list holds a non-string")?,
        _ => return Err("script command must be a non-empty string or list of strings".into()),
    };
    if parts.is_empty() {
        return Err("script command must be a non-empty string or list of strings".into());
    }
    let dir = run_dir
        .canonicalize()
        .unwrap_or_else(|_| run_dir.to_path_buf());
    let output = dir.join("output.md");
    Ok(parts
        .iter()
        .map(|p| {
            p.replace("{output_dir}", &dir.display().to_string())
                .replace("{output_path}", &output.display().to_string())
        })
        .collect())
}

/// The normalized score of the last `{"score": …}` line (clamped to [0, 1]).
fn score_line(stdout: &str) -> Option<f64> {
    stdout.lines().rev().find_map(|line| {
        let line = py_strip(line);
        if !(line.starts_with('{') && line.ends_with('}')) {
            return None;
        }
        let obj: Value = crate::json::parse_lenient(line.as_bytes()).ok()?;
        let score = match obj.get("score")? {
            Value::Bool(b) => f64::from(u8::from(*b)),
            Value::Number(n) => n.as_f64()?,
            _ => return None,
        };
        let max = match obj.get("max_score") {
            None => Some(1.0),
            Some(Value::Bool(b)) => Some(f64::from(u8::from(*b))),
            Some(Value::Number(n)) => n.as_f64(),
            Some(_) => None,
        };
        let score = match max {
            Some(m) if m > 0.0 => score / m,
            _ => score,
        };
        Some(score.clamp(0.0, 1.0))
    })
}

/// Run the assertion's command; Err when the harness itself would stop.
pub fn run(a: &Value, run_dir: &Path, manifest_dir: &Path) -> Result<ScriptOutcome, String> {
    let timeout = match a.get("timeout_s") {
        None => 30.0,
        Some(v) => v
            .as_f64()
            .or_else(|| str_of(v).trim().parse().ok())
            .ok_or("'timeout_s' is not a number: skill-benchmark stops")?,
    };
    let expected = match a.get("pass_exit_code") {
        None => 0,
        Some(Value::Number(n)) => n
            .as_i64()
            .or_else(|| n.as_f64().map(|f| f.trunc() as i64))
            .ok_or("'pass_exit_code' is not an integer")?,
        Some(Value::Bool(b)) => i64::from(*b),
        Some(Value::String(s)) => s
            .trim()
            .parse()
            .map_err(|_| "'pass_exit_code' is not an integer: skill-benchmark stops")?,
        Some(_) => return Err("'pass_exit_code' is not an integer: skill-benchmark stops".into()),
    };
    let argv = argv(a, run_dir)?;
    let spawned = Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(manifest_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            return Ok(ScriptOutcome {
                passed: false,
                score: None,
                evidence: format!("script execution failed: {e}"),
            })
        }
    };
    // Read both pipes on their own threads so a chatty script cannot block.
    let mut out_pipe = child.stdout.take();
    let mut err_pipe = child.stderr.take();
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(p) = out_pipe.as_mut() {
            let _ = p.read_to_end(&mut buf);
        }
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(p) = err_pipe.as_mut() {
            let _ = p.read_to_end(&mut buf);
        }
        buf
    });
    let deadline = Instant::now() + Duration::from_secs_f64(timeout.max(0.0));
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(_) => break None,
        }
    };
    let stdout = decode(&out_reader.join().unwrap_or_default());
    let stderr = decode(&err_reader.join().unwrap_or_default());
    let Some(status) = status else {
        return Ok(ScriptOutcome {
            passed: false,
            score: None,
            evidence: format!("script timed out after {timeout}s"),
        });
    };
    let code = status.code().unwrap_or(-1);
    let mut evidence = format!("exit={code}");
    let head = |s: &str| s.chars().take(4000).collect::<String>();
    if !stdout.is_empty() {
        evidence.push_str(&format!("\nstdout:\n{}", head(&stdout)));
    }
    if !stderr.is_empty() {
        evidence.push_str(&format!("\nstderr:\n{}", head(&stderr)));
    }
    Ok(ScriptOutcome {
        passed: i64::from(code) == expected,
        score: score_line(&stdout),
        evidence,
    })
}

#[cfg(test)]
mod tests {
    use super::score_line;

    #[test]
    fn the_last_score_line_counts() {
        assert_eq!(
            score_line("{\"score\": 1}\n{\"score\": 6, \"max_score\": 8}\nbye"),
            Some(0.75)
        );
        assert_eq!(score_line("{\"score\": 3}"), Some(1.0), "clamped");
        assert_eq!(score_line("{\"note\": 1}\n"), None);
        assert_eq!(score_line("{\"score\": true}"), Some(1.0), "a bool counts");
    }
}
