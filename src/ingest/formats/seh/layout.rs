//! Run identity from the directory layout
//! `<case>/[<model>/]<variant>/[run-<n>/]` (docs/harnesses.md §C.3). The layout wins
//! over metadata; metadata only breaks the tie between "case/variant" and
//! "case/model/variant" (its case_id names the case folder, or its model the
//! folder above the variant), and disagreements are recorded. Without metadata or
//! a manifest to tell, a folder given to ingest that holds case folders is
//! read as the harness reads `--runs`; deeper than that nothing tells, and
//! the single-model reading is taken and announced.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::is_known_arm;
use crate::ingest::kernel::{name_of, parse_run_segment};

#[derive(Debug, Clone, PartialEq)]
pub struct LayoutIdentity {
    pub case_id: String,
    pub model: Option<String>,
    pub arm: String,
    pub repetition: i64,
    pub repetition_source: &'static str,
    /// Name of the runs root (the directory holding the case directories).
    pub runs_root: Option<String>,
    pub reading: Reading,
}

/// What told `<case>/<variant>` from `<case>/<model>/<variant>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// metadata.json's case_id.
    Metadata,
    /// A manifest's case id.
    Manifest,
    /// The folder given to ingest, read as the harness's `--runs`: its
    /// children are cases, a level between case and variant is the model.
    RunsRoot,
    /// Nothing: the harness's single-model layout was assumed.
    Guessed,
}

impl Reading {
    pub fn label(self) -> &'static str {
        match self {
            Reading::Metadata => "metadata",
            Reading::Manifest => "manifest",
            Reading::RunsRoot => "runs root",
            Reading::Guessed => "guessed",
        }
    }
}

/// How many folders lie between a given ingest root and the variant folder
/// (1: `<root>/<case>/<variant>`, 2: `<root>/<case>/<model>/<variant>`).
fn depth_below_root(variant_dir: &Path, roots: &[PathBuf]) -> Option<usize> {
    roots
        .iter()
        .filter_map(|r| variant_dir.strip_prefix(r).ok())
        .map(|rel| rel.components().count().saturating_sub(1))
        .min()
}

/// What a run's metadata.json says about where the run sits.
#[derive(Debug, Clone, Copy, Default)]
pub struct MetadataSays<'a> {
    pub case_id: Option<&'a str>,
    pub model: Option<&'a str>,
}

/// Resolve identity from the path. `metadata` is what metadata.json names;
/// `known_cases` maps manifest case ids to skills.
pub fn resolve(
    run_dir: &Path,
    metadata: MetadataSays,
    known_cases: &HashMap<String, String>,
    declared_arms: &HashSet<String>,
    roots: &[PathBuf],
) -> Result<LayoutIdentity, String> {
    let leaf = name_of(run_dir).ok_or("run directory has no name")?;
    let (variant_dir, repetition, repetition_source) = match parse_run_segment(&leaf) {
        Some(n) => (
            run_dir.parent().ok_or("no variant directory")?,
            n,
            "run_dir",
        ),
        None => (run_dir, 1, "single"),
    };
    let arm = name_of(variant_dir).ok_or("no variant directory")?;
    if !is_known_arm(&arm, declared_arms) {
        return Err(format!(
            "directory '{arm}' is not an arm (expected <case>/[<model>/]<variant>/[run-N] with variant with_skill, without_skill, old_skill or ablation:<id>)"
        ));
    }
    let above = variant_dir.parent().ok_or("no case directory")?;
    let above_name = name_of(above).ok_or("no case directory")?;
    let above2_name = above.parent().and_then(name_of);

    let metadata_case = metadata.case_id;
    let depth = depth_below_root(variant_dir, roots);
    let is_case = |name: &str| metadata_case == Some(name) || known_cases.contains_key(name);
    let told_by = |name: &str| match metadata_case == Some(name) {
        true => Reading::Metadata,
        false => Reading::Manifest,
    };
    let (case_id, model, case_dir, reading) =
        if is_case(&above_name) && metadata_case != above2_name.as_deref() {
            let reading = told_by(&above_name);
            (above_name, None, above, reading)
        } else if let Some(case) = above2_name.clone().filter(|n| is_case(n)) {
            let reading = told_by(&case);
            (
                case,
                Some(above_name),
                above.parent().unwrap_or(above),
                reading,
            )
        } else if let Some(case) = above2_name
            .clone()
            .filter(|_| metadata.model == Some(above_name.as_str()) && depth != Some(1))
        {
            // The folder above the variant is the model the run names (its
            // case folder renamed, or its case_id absent): the one above is
            // the case, as the harness's fanned layout has it.
            (
                case,
                Some(above_name),
                above.parent().unwrap_or(above),
                Reading::Metadata,
            )
        } else {
            match (depth, above2_name) {
                (Some(1), _) => (above_name, None, above, Reading::RunsRoot),
                (Some(2), Some(case)) => (
                    case,
                    Some(above_name),
                    above.parent().unwrap_or(above),
                    Reading::RunsRoot,
                ),
                // Nothing tells us: the harness's single-model layout.
                _ => (above_name, None, above, Reading::Guessed),
            }
        };
    let runs_root = case_dir.parent().and_then(name_of);
    Ok(LayoutIdentity {
        case_id,
        model,
        arm,
        repetition,
        repetition_source,
        runs_root,
        reading,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cases(ids: &[&str]) -> HashMap<String, String> {
        ids.iter()
            .map(|c| (c.to_string(), "s".to_string()))
            .collect()
    }

    #[test]
    fn multi_model_with_repetitions() {
        let id = resolve(
            Path::new("/r/eval-runs/add-col/claude-haiku-4-5/ablation:no-severity/run-3"),
            MetadataSays {
                case_id: Some("add-col"),
                model: None,
            },
            &HashMap::new(),
            &HashSet::new(),
            &[],
        )
        .unwrap();
        assert_eq!(id.case_id, "add-col");
        assert_eq!(id.model.as_deref(), Some("claude-haiku-4-5"));
        assert_eq!(id.arm, "ablation:no-severity");
        assert_eq!(id.repetition, 3);
    }

    #[test]
    fn single_model_single_run_is_repetition_one() {
        let id = resolve(
            Path::new("/r/latest/add-col/with_skill"),
            MetadataSays::default(),
            &cases(&["add-col"]),
            &HashSet::new(),
            &[],
        )
        .unwrap();
        assert_eq!(
            (id.case_id.as_str(), id.model, id.repetition),
            ("add-col", None, 1)
        );
        assert_eq!(id.repetition_source, "single");
    }

    #[test]
    fn unknown_arm_is_rejected() {
        assert!(resolve(
            Path::new("/t/query-001-x/run-1"),
            MetadataSays::default(),
            &HashMap::new(),
            &HashSet::new(),
            &[],
        )
        .is_err());
    }

    #[test]
    fn the_folder_given_reads_as_the_harness_runs_root() {
        let roots = [PathBuf::from("/r/latest")];
        let read = |path: &str| {
            resolve(
                Path::new(path),
                MetadataSays::default(),
                &HashMap::new(),
                &HashSet::new(),
                &roots,
            )
            .unwrap()
        };
        // One model per case: <case>/<model>/<variant> below the root, as skill-benchmark --runs reads it.
        let fanned = read("/r/latest/add-col/claude-haiku-4-5/with_skill/run-2");
        assert_eq!(fanned.case_id, "add-col");
        assert_eq!(fanned.model.as_deref(), Some("claude-haiku-4-5"));
        assert_eq!(
            (fanned.runs_root.as_deref(), fanned.reading),
            (Some("latest"), Reading::RunsRoot)
        );
        let single = read("/r/latest/add-col/with_skill");
        assert_eq!((single.case_id.as_str(), single.model), ("add-col", None));
        // Deeper below the root nothing tells: single-model reading, announced.
        let deep = read("/r/latest/x/add-col/claude/with_skill/run-1");
        assert_eq!(
            (deep.case_id.as_str(), deep.reading),
            ("claude", Reading::Guessed)
        );
    }

    #[test]
    fn the_model_metadata_names_settles_a_level_the_root_cannot() {
        // One folder above the runs root, case folders renamed after the run
        // (a metadata case_id that names no folder): the model tells.
        let roots = [PathBuf::from("/r")];
        let id = resolve(
            Path::new("/r/latest/tpl-status/gpt-5-codex/with_skill/run-2"),
            MetadataSays {
                case_id: Some("add-not-null-column"),
                model: Some("gpt-5-codex"),
            },
            &HashMap::new(),
            &HashSet::new(),
            &roots,
        )
        .unwrap();
        assert_eq!(
            (id.case_id.as_str(), id.model.as_deref(), id.reading),
            ("tpl-status", Some("gpt-5-codex"), Reading::Metadata)
        );
        assert_eq!(id.runs_root.as_deref(), Some("latest"));
    }
}
