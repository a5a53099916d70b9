//! The SQL shipped with liftdb, embedded at compile time so the binary is
//! self-contained while analysts can still read every statement in `sql/`.

/// A numbered migration: `sql/migrations/NNNN_name.sql`.
pub struct Migration {
    pub version: i64,
    pub name: &'static str,
    pub sql: &'static str,
}

pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "core",
        sql: include_str!("../sql/migrations/0001_core.sql"),
    },
    Migration {
        version: 2,
        name: "statistics",
        sql: include_str!("../sql/migrations/0002_statistics.sql"),
    },
    Migration {
        version: 3,
        name: "releases",
        sql: include_str!("../sql/migrations/0003_releases.sql"),
    },
    Migration {
        version: 4,
        name: "error_hints",
        sql: include_str!("../sql/migrations/0004_error_hints.sql"),
    },
    Migration {
        version: 5,
        name: "settings",
        sql: include_str!("../sql/migrations/0005_settings.sql"),
    },
    Migration {
        version: 6,
        name: "source_file_owners",
        sql: include_str!("../sql/migrations/0006_source_file_owners.sql"),
    },
    Migration {
        version: 7,
        name: "grading_origin",
        sql: include_str!("../sql/migrations/0007_grading_origin.sql"),
    },
    Migration {
        version: 8,
        name: "grading_key",
        sql: include_str!("../sql/migrations/0008_grading_key.sql"),
    },
    Migration {
        version: 9,
        name: "experiments",
        sql: include_str!("../sql/migrations/0009_experiments.sql"),
    },
    Migration {
        version: 10,
        name: "bootstrap_interval",
        sql: include_str!("../sql/migrations/0010_bootstrap_interval.sql"),
    },
    Migration {
        version: 11,
        name: "case_trend",
        sql: include_str!("../sql/migrations/0011_case_trend.sql"),
    },
    Migration {
        version: 12,
        name: "compact_storage",
        sql: include_str!("../sql/migrations/0012_compact_storage.sql"),
    },
    Migration {
        version: 13,
        name: "unindexed_run_keys",
        sql: include_str!("../sql/migrations/0013_unindexed_run_keys.sql"),
    },
    Migration {
        version: 14,
        name: "file_prints",
        sql: include_str!("../sql/migrations/0014_file_prints.sql"),
    },
    Migration {
        version: 15,
        name: "append_only_bookkeeping",
        sql: include_str!("../sql/migrations/0015_append_only_bookkeeping.sql"),
    },
    Migration {
        version: 16,
        name: "definition_records",
        sql: include_str!("../sql/migrations/0016_definition_records.sql"),
    },
    Migration {
        version: 17,
        name: "refill_turn",
        sql: include_str!("../sql/migrations/0017_refill_turn.sql"),
    },
    Migration {
        version: 18,
        name: "run_folder_grading",
        sql: include_str!("../sql/migrations/0018_run_folder_grading.sql"),
    },
    Migration {
        version: 19,
        name: "batch_release_source",
        sql: include_str!("../sql/migrations/0019_batch_release_source.sql"),
    },
    Migration {
        version: 20,
        name: "release_actions",
        sql: include_str!("../sql/migrations/0020_release_actions.sql"),
    },
    Migration {
        version: 21,
        name: "run_endings",
        sql: include_str!("../sql/migrations/0021_run_endings.sql"),
    },
    Migration {
        version: 22,
        name: "tree_identity",
        sql: include_str!("../sql/migrations/0022_tree_identity.sql"),
    },
    Migration {
        version: 23,
        name: "release_order",
        sql: include_str!("../sql/migrations/0023_release_order.sql"),
    },
    Migration {
        version: 24,
        name: "report_defined_runs",
        sql: include_str!("../sql/migrations/0024_report_defined_runs.sql"),
    },
    Migration {
        version: 25,
        name: "case_names",
        sql: include_str!("../sql/migrations/0025_case_names.sql"),
    },
    Migration {
        version: 26,
        name: "run_start",
        sql: include_str!("../sql/migrations/0026_run_start.sql"),
    },
    Migration {
        version: 27,
        name: "file_scope",
        sql: include_str!("../sql/migrations/0027_file_scope.sql"),
    },
    Migration {
        version: 28,
        name: "run_first_stored",
        sql: include_str!("../sql/migrations/0028_run_first_stored.sql"),
    },
    Migration {
        version: 29,
        name: "p_upper",
        sql: include_str!("../sql/migrations/0029_p_upper.sql"),
    },
];

/// Views, created in this order (later views read earlier ones).
pub const VIEWS: &[(&str, &str)] = &[
    ("macros", include_str!("../sql/views/00_macros.sql")),
    (
        "bookkeeping",
        include_str!("../sql/views/05_bookkeeping.sql"),
    ),
    (
        "definitions",
        include_str!("../sql/views/06_definitions.sql"),
    ),
    ("runs", include_str!("../sql/views/10_runs.sql")),
    ("run_totals", include_str!("../sql/views/15_run_totals.sql")),
    (
        "run_listing",
        include_str!("../sql/views/16_run_listing.sql"),
    ),
    ("pairs", include_str!("../sql/views/20_pairs.sql")),
    (
        "blocked_pairs",
        include_str!("../sql/views/21_blocked_pairs.sql"),
    ),
    ("lift_units", include_str!("../sql/views/30_lift_units.sql")),
    ("lift", include_str!("../sql/views/31_lift.sql")),
    (
        "lift_headline",
        include_str!("../sql/views/32_lift_headline.sql"),
    ),
    (
        "lift_evidence",
        include_str!("../sql/views/33_lift_evidence.sql"),
    ),
    (
        "lift_summary",
        include_str!("../sql/views/34_lift_summary.sql"),
    ),
    ("case_flags", include_str!("../sql/views/40_case_flags.sql")),
    (
        "case_flags_release",
        include_str!("../sql/views/41_case_flags_release.sql"),
    ),
    (
        "reliability",
        include_str!("../sql/views/50_reliability.sql"),
    ),
    (
        "reliability_lift",
        include_str!("../sql/views/51_reliability_lift.sql"),
    ),
    (
        "cost_ledger",
        include_str!("../sql/views/60_cost_ledger.sql"),
    ),
    ("cost_pairs", include_str!("../sql/views/61_cost_pairs.sql")),
    (
        "cost_per_lift",
        include_str!("../sql/views/62_cost_per_lift.sql"),
    ),
    (
        "cost_per_lift_cases",
        include_str!("../sql/views/63_cost_per_lift_cases.sql"),
    ),
    (
        "trigger_rates",
        include_str!("../sql/views/65_trigger_rates.sql"),
    ),
    (
        "ablation_evidence",
        include_str!("../sql/views/70_ablation_evidence.sql"),
    ),
    (
        "run_provenance",
        include_str!("../sql/views/80_run_provenance.sql"),
    ),
    ("trend", include_str!("../sql/views/90_trend.sql")),
    (
        "failing_assertions",
        include_str!("../sql/views/91_failing_assertions.sql"),
    ),
    ("case_trend", include_str!("../sql/views/92_case_trend.sql")),
    (
        "trend_history",
        include_str!("../sql/views/93_trend_history.sql"),
    ),
    (
        "suspect_measurements",
        include_str!("../sql/views/95_suspect_measurements.sql"),
    ),
    (
        "not_counted",
        include_str!("../sql/views/96_not_counted.sql"),
    ),
];

/// Canned reports: `sql/reports/NAME.sql`, each with a header comment.
pub const REPORTS: &[(&str, &str)] = &[
    ("lift", include_str!("../sql/reports/lift.sql")),
    (
        "lift-headline",
        include_str!("../sql/reports/lift-headline.sql"),
    ),
    ("pairs", include_str!("../sql/reports/pairs.sql")),
    ("blocked", include_str!("../sql/reports/blocked.sql")),
    (
        "not-counted",
        include_str!("../sql/reports/not-counted.sql"),
    ),
    ("flags", include_str!("../sql/reports/flags.sql")),
    (
        "reliability",
        include_str!("../sql/reports/reliability.sql"),
    ),
    (
        "reliability-lift",
        include_str!("../sql/reports/reliability-lift.sql"),
    ),
    (
        "cost-by-arm",
        include_str!("../sql/reports/cost-by-arm.sql"),
    ),
    ("ledger", include_str!("../sql/reports/ledger.sql")),
    (
        "cost-per-lift",
        include_str!("../sql/reports/cost-per-lift.sql"),
    ),
    ("triggers", include_str!("../sql/reports/triggers.sql")),
    ("trend", include_str!("../sql/reports/trend.sql")),
    (
        "trend-cases",
        include_str!("../sql/reports/trend-cases.sql"),
    ),
    (
        "recurring-failures",
        include_str!("../sql/reports/recurring-failures.sql"),
    ),
    (
        "prune-candidates",
        include_str!("../sql/reports/prune-candidates.sql"),
    ),
    ("idle-spend", include_str!("../sql/reports/idle-spend.sql")),
    ("runs", include_str!("../sql/reports/runs.sql")),
    ("formats", include_str!("../sql/reports/formats.sql")),
    ("failures", include_str!("../sql/reports/failures.sql")),
    ("reconcile", include_str!("../sql/reports/reconcile.sql")),
    (
        "reconcile-trend",
        include_str!("../sql/reports/reconcile-trend.sql"),
    ),
];

/// The HTML report's own queries: `sql/reports/html/NAME.sql` (it runs
/// canned reports too, from `REPORTS`).
pub const HTML_QUERIES: &[(&str, &str)] = &[
    ("headline", include_str!("../sql/reports/html/headline.sql")),
    ("per_case", include_str!("../sql/reports/html/per_case.sql")),
    ("releases", include_str!("../sql/reports/html/releases.sql")),
    (
        "cost_lift",
        include_str!("../sql/reports/html/cost_lift.sql"),
    ),
    ("flags", include_str!("../sql/reports/html/flags.sql")),
    ("blocked", include_str!("../sql/reports/html/blocked.sql")),
    ("cases", include_str!("../sql/reports/html/cases.sql")),
    ("runs", include_str!("../sql/reports/html/runs.sql")),
    ("failing", include_str!("../sql/reports/html/failing.sql")),
    ("changes", include_str!("../sql/reports/html/changes.sql")),
    (
        "new_flags",
        include_str!("../sql/reports/html/new_flags.sql"),
    ),
    (
        "recurring",
        include_str!("../sql/reports/html/recurring.sql"),
    ),
    ("prune", include_str!("../sql/reports/html/prune.sql")),
    ("suspect", include_str!("../sql/reports/html/suspect.sql")),
    (
        "not_counted",
        include_str!("../sql/reports/html/not_counted.sql"),
    ),
];

/// An ingest's own statement `sql/batch/NAME.sql` (`BATCH_QUERIES`).
pub fn batch_sql(name: &str) -> &'static str {
    named(BATCH_QUERIES, name)
}

/// The query `name` of one of the lists below (`HTML_QUERIES`,
/// `SHOW_QUERIES`, `GATE_QUERIES`): a name its code spells, so a missing one
/// is a bug, found by the tests that run it.
pub fn named(queries: &[(&str, &'static str)], name: &str) -> &'static str {
    queries
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, sql)| *sql)
        .unwrap_or_else(|| panic!("no query {name} in its sql/ folder"))
}

/// An ingest's own SQL: what its plan reads of the store (`stored_*`,
/// batch/state.rs) and the statements its writer runs in the batch's
/// transaction (store/writer.rs): `sql/batch/NAME.sql`.
pub const BATCH_QUERIES: &[(&str, &str)] = &[
    (
        "carried_by_folders",
        include_str!("../sql/batch/carried_by_folders.sql"),
    ),
    (
        "define_reported",
        include_str!("../sql/batch/define_reported.sql"),
    ),
    (
        "delete_case_definitions",
        include_str!("../sql/batch/delete_case_definitions.sql"),
    ),
    (
        "delete_replaced_reported",
        include_str!("../sql/batch/delete_replaced_reported.sql"),
    ),
    (
        "delete_suite_definitions",
        include_str!("../sql/batch/delete_suite_definitions.sql"),
    ),
    (
        "delete_units",
        include_str!("../sql/batch/delete_units.sql"),
    ),
    ("doomed_rows", include_str!("../sql/batch/doomed_rows.sql")),
    (
        "duplicate_grading_keys",
        include_str!("../sql/batch/duplicate_grading_keys.sql"),
    ),
    (
        "duplicate_run_keys",
        include_str!("../sql/batch/duplicate_run_keys.sql"),
    ),
    (
        "grading_key_holders",
        include_str!("../sql/batch/grading_key_holders.sql"),
    ),
    (
        "other_batches_of_run",
        include_str!("../sql/batch/other_batches_of_run.sql"),
    ),
    (
        "record_stored_runs",
        include_str!("../sql/batch/record_stored_runs.sql"),
    ),
    (
        "reported_fate",
        include_str!("../sql/batch/reported_fate.sql"),
    ),
    (
        "reports_without_runs",
        include_str!("../sql/batch/reports_without_runs.sql"),
    ),
    (
        "run_key_holders",
        include_str!("../sql/batch/run_key_holders.sql"),
    ),
    (
        "sort_reported_release",
        include_str!("../sql/batch/sort_reported_release.sql"),
    ),
    (
        "stage_reported",
        include_str!("../sql/batch/stage_reported.sql"),
    ),
    (
        "stored_case_skills",
        include_str!("../sql/batch/stored_case_skills.sql"),
    ),
    (
        "stored_definition_sources",
        include_str!("../sql/batch/stored_definition_sources.sql"),
    ),
    (
        "stored_graded_case_keys",
        include_str!("../sql/batch/stored_graded_case_keys.sql"),
    ),
    (
        "stored_graded_runs",
        include_str!("../sql/batch/stored_graded_runs.sql"),
    ),
    (
        "stored_judge_verdicts",
        include_str!("../sql/batch/stored_judge_verdicts.sql"),
    ),
    (
        "stored_manifest_cases",
        include_str!("../sql/batch/stored_manifest_cases.sql"),
    ),
    (
        "stored_manifest_releases",
        include_str!("../sql/batch/stored_manifest_releases.sql"),
    ),
    (
        "stored_manifest_variants",
        include_str!("../sql/batch/stored_manifest_variants.sql"),
    ),
    (
        "stored_phantoms",
        include_str!("../sql/batch/stored_phantoms.sql"),
    ),
    (
        "stored_release_exists",
        include_str!("../sql/batch/stored_release_exists.sql"),
    ),
    (
        "stored_run_dirs_of_release",
        include_str!("../sql/batch/stored_run_dirs_of_release.sql"),
    ),
    (
        "stored_runs_of_release",
        include_str!("../sql/batch/stored_runs_of_release.sql"),
    ),
    (
        "touched_by_deletes",
        include_str!("../sql/batch/touched_by_deletes.sql"),
    ),
    (
        "touched_by_replaced_reported",
        include_str!("../sql/batch/touched_by_replaced_reported.sql"),
    ),
    (
        "touched_by_writes",
        include_str!("../sql/batch/touched_by_writes.sql"),
    ),
    (
        "touched_nothing",
        include_str!("../sql/batch/touched_nothing.sql"),
    ),
];

/// `liftdb show RUN`'s queries: `sql/show/NAME.sql`.
pub const SHOW_QUERIES: &[(&str, &str)] = &[
    ("find", include_str!("../sql/show/find.sql")),
    ("run", include_str!("../sql/show/run.sql")),
    ("assertions", include_str!("../sql/show/assertions.sql")),
];

/// `liftdb gate`'s queries: `sql/gate/NAME.sql`.
pub const GATE_QUERIES: &[(&str, &str)] = &[
    ("releases", include_str!("../sql/gate/releases.sql")),
    ("lift", include_str!("../sql/gate/lift.sql")),
    ("findings", include_str!("../sql/gate/findings.sql")),
    (
        "matched_units",
        include_str!("../sql/gate/matched_units.sql"),
    ),
    ("invalid", include_str!("../sql/gate/invalid.sql")),
    ("experiments", include_str!("../sql/gate/experiments.sql")),
    ("infra_errors", include_str!("../sql/gate/infra_errors.sql")),
    ("round_pairs", include_str!("../sql/gate/round_pairs.sql")),
    ("suite_cases", include_str!("../sql/gate/suite_cases.sql")),
    ("changed_runs", include_str!("../sql/gate/changed_runs.sql")),
];

/// The check of each report filter's value: `sql/filters/NAME.sql`, NAME
/// the filter (`--NAME`).
pub const FILTER_QUERIES: &[(&str, &str)] = &[
    ("arm", include_str!("../sql/filters/arm.sql")),
    ("case", include_str!("../sql/filters/case.sql")),
    ("model", include_str!("../sql/filters/model.sql")),
    ("release", include_str!("../sql/filters/release.sql")),
    ("rep", include_str!("../sql/filters/rep.sql")),
    ("skill", include_str!("../sql/filters/skill.sql")),
    ("split", include_str!("../sql/filters/split.sql")),
];

/// What the report presenter says under `report lift`'s sentence:
/// `sql/present/NAME.sql`.
pub const PRESENT_QUERIES: &[(&str, &str)] = &[
    (
        "listing_sorted",
        include_str!("../sql/present/listing_sorted.sql"),
    ),
    (
        "not_counted",
        include_str!("../sql/present/not_counted.sql"),
    ),
    ("suspect", include_str!("../sql/present/suspect.sql")),
];

/// `liftdb release`'s queries: `sql/release/NAME.sql`.
pub const RELEASE_QUERIES: &[(&str, &str)] = &[("list", include_str!("../sql/release/list.sql"))];

/// `liftdb plan`'s queries: `sql/plan/NAME.sql`.
pub const PLAN_QUERIES: &[(&str, &str)] = &[
    ("pairs", include_str!("../sql/plan/pairs.sql")),
    ("cost", include_str!("../sql/plan/cost.sql")),
];

/// `liftdb check`'s questions of what the rows mean (beside its reads of
/// every table and view): `sql/check/NAME.sql`, each listing what is wrong.
pub const CHECK_QUERIES: &[(&str, &str)] = &[
    (
        "doubled_runs",
        include_str!("../sql/check/doubled_runs.sql"),
    ),
    (
        "emptied_releases",
        include_str!("../sql/check/emptied_releases.sql"),
    ),
];

/// A lake's own questions (`liftdb lake`, a reader's last refilled
/// snapshot): `sql/lake/NAME.sql`.
pub const LAKE_QUERIES: &[(&str, &str)] = &[
    (
        "last_refilled",
        include_str!("../sql/lake/last_refilled.sql"),
    ),
    (
        "release_waiting",
        include_str!("../sql/lake/release_waiting.sql"),
    ),
    ("snapshots", include_str!("../sql/lake/snapshots.sql")),
    (
        "writers_turn_holder",
        include_str!("../sql/lake/writers_turn_holder.sql"),
    ),
];

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    /// Each `.sql` file of `dir`, relative to sql/.
    fn files_in(dir: &str) -> BTreeSet<String> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sql");
        std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "sql"))
            .map(|p| format!("{dir}/{}", p.file_name().unwrap().to_string_lossy()))
            .collect()
    }

    /// This file's `include_str!` paths under `dir`, in order.
    fn listed_in(dir: &str) -> Vec<String> {
        let source = include_str!("sqlfiles.rs");
        let prefix = format!("include_str!(\"../sql/{dir}/");
        source
            .lines()
            .filter_map(|l| l.split_once(prefix.as_str()).map(|(_, rest)| rest))
            .filter_map(|rest| rest.split_once('"').map(|(file, _)| file))
            .filter(|file| !file.contains('/'))
            .map(|file| format!("{dir}/{file}"))
            .collect()
    }

    /// Every folder under sql/ that holds a `.sql` file, relative to sql/,
    /// found by walking it (a new folder is checked without being named).
    fn sql_folders() -> Vec<String> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("sql");
        let mut found = Vec::new();
        let mut pending = vec![root.clone()];
        while let Some(dir) = pending.pop() {
            let mut has_sql = false;
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                match path.is_dir() {
                    true => pending.push(path),
                    false => has_sql |= path.extension().is_some_and(|e| e == "sql"),
                }
            }
            if has_sql {
                let rel = dir.strip_prefix(&root).unwrap();
                found.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
        found.sort();
        found
    }

    /// Every SQL file the repository ships is embedded exactly once, and
    /// nothing embedded is missing: a new file, or a new folder, fails here
    /// until it is listed.
    #[test]
    fn every_sql_file_is_listed_once() {
        let folders = sql_folders();
        assert!(folders.len() >= 12, "{folders:?}");
        for dir in &folders {
            let dir = dir.as_str();
            let listed = listed_in(dir);
            let unique: BTreeSet<String> = listed.iter().cloned().collect();
            assert_eq!(unique.len(), listed.len(), "{dir}: a file listed twice");
            assert_eq!(
                unique,
                files_in(dir),
                "{dir}: sqlfiles.rs and sql/{dir} differ"
            );
        }
    }

    /// A value a report prints rounded is rounded as Python's `round` rounds
    /// it (the tools print that): never DuckDB's `round`, which rounds a
    /// binary tie away from zero (0.78125 to 0.7813, where Python prints
    /// 0.7812). The one exception is an exact DECIMAL sum of money.
    #[test]
    fn reports_round_as_python_does() {
        let duckdb_round = regex::Regex::new(r"(^|[^_a-z])round(_even)?\(").unwrap();
        let sources = super::REPORTS
            .iter()
            .chain(super::HTML_QUERIES)
            .chain(super::SHOW_QUERIES)
            .chain(super::GATE_QUERIES)
            .chain(super::VIEWS.iter().filter(|(name, _)| *name != "macros"));
        for (name, sql) in sources {
            for line in sql.lines().filter(|l| duckdb_round.is_match(l)) {
                assert!(
                    line.contains("round(sum(l.cost_usd), 6)"),
                    "{name}: DuckDB's rounding in `{}`: use liftdb_pyround",
                    line.trim()
                );
            }
        }
    }

    /// Names follow the files (refinery's rule: the filename is the data):
    /// NNNN_name for a migration, NN_name for a view, the header's name for
    /// a report.
    #[test]
    fn names_follow_the_files() {
        for (n, m) in super::MIGRATIONS.iter().enumerate() {
            assert_eq!(m.version, n as i64 + 1, "migrations numbered without gaps");
            let file = format!("migrations/{:04}_{}.sql", m.version, m.name);
            assert!(listed_in("migrations").contains(&file), "{file}");
        }
        let views = listed_in("views");
        assert!(
            views.windows(2).all(|w| w[0] < w[1]),
            "views listed in file order"
        );
        for ((name, _), file) in super::VIEWS.iter().zip(&views) {
            assert!(file.ends_with(&format!("_{name}.sql")), "{name}: {file}");
        }
        for ((name, sql), file) in super::REPORTS.iter().zip(listed_in("reports")) {
            assert_eq!(file, format!("reports/{name}.sql"));
            assert!(sql.starts_with(&format!("-- name: {name}\n")), "{file}");
        }
        for ((name, _), file) in super::HTML_QUERIES.iter().zip(listed_in("reports/html")) {
            assert_eq!(file, format!("reports/html/{name}.sql"));
        }
        for ((name, _), file) in super::SHOW_QUERIES.iter().zip(listed_in("show")) {
            assert_eq!(file, format!("show/{name}.sql"));
        }
        for (queries, dir) in [
            (super::GATE_QUERIES, "gate"),
            (super::PLAN_QUERIES, "plan"),
            (super::LAKE_QUERIES, "lake"),
            (super::FILTER_QUERIES, "filters"),
            (super::RELEASE_QUERIES, "release"),
            (super::PRESENT_QUERIES, "present"),
            (super::CHECK_QUERIES, "check"),
        ] {
            for ((name, _), file) in queries.iter().zip(listed_in(dir)) {
                assert_eq!(file, format!("{dir}/{name}.sql"));
            }
        }
    }
}
