-- name: lift
-- description: Paired lift of with_skill over the control arm (default without_skill) with sign-flip p, 95% interval and noise verdict: overall, per model, per case. kind 'release' pools the release's experiments (each case and model one unit); kind 'experiment' is one tool run (a seh runs root, a handbook run id, a skill-creator iteration, a promptfoo eval), equal to its own report: its overall and per-model rows when the release has several, all its rows with --experiment NAME.
-- params: release, skill, split, model, case, arm, experiment
-- compact: row_label, units, with_skill, control_rate, lift, p
WITH shown AS (
    SELECT l.*,
           count(DISTINCT l.experiment) FILTER (WHERE l.row_kind = 'experiment')
               OVER (PARTITION BY l.release_label, l.skill_name, l.control_arm, l.channel, l.split) AS experiments
    FROM lift_evidence l
    WHERE l.channel = 'objective'
      -- The filters on the window's partition keys keep or drop whole
      -- partitions, so they apply before it (DuckDB does not push them
      -- through a window).
      AND ($release IS NULL OR l.release_label = $release)
      AND ($skill IS NULL OR l.skill_name = $skill)
      AND l.split = coalesce($split, 'all')
      AND l.control_arm = coalesce($arm, 'without_skill')
)
SELECT
    l.release_label AS release,
    l.skill_name AS skill,
    l.row_kind AS kind,
    l.experiment,
    l.split,
    l.scope,
    l.model,
    l.case_id AS "case",
    l.control_arm AS control,
    l.units,
    l.eligible_pairs AS pairs,
    l.blocked_pairs AS blocked,
    -- Runs of each arm that did not count (not_counted_runs), on the
    -- release's overall row.
    nc.with_not_counted,
    nc.control_not_counted,
    liftdb_pyround(l.with_rate, 4) AS with_skill,
    liftdb_pyround(l.without_rate, 4) AS control_rate,
    liftdb_pyround(l.absolute_delta, 4) AS lift,
    liftdb_pyround(l.normalized_gain, 4) AS normalized_gain,
    l.p_value AS p,
    -- The p the test decides on (p itself, or a sampled test's upper bound)
    -- and liftdb's significance, p_upper <= 0.05 (docs/metrics.md §M6).
    l.p_upper,
    l.significant,
    l.method,
    -- Each interval named for what it bounds, to 4 places as the rates.
    liftdb_round4(l.ci_lower) AS lift_ci_lower,
    liftdb_round4(l.ci_upper) AS lift_ci_upper,
    l.noise_verdict AS verdict,
    l.negative_delta_units AS negative_units,
    -- Beside the harness-equal columns (docs/metrics.md §M3a).
    l.units_won AS wins,
    l.units_tied AS ties,
    l.units_lost AS losses,
    -- Wilson 95% of the share of pairs whose run passed every check, per arm
    -- (not of the mean pass rate beside it).
    liftdb_round4(l.with_wilson_lower) AS with_all_passed_share_lower,
    liftdb_round4(l.with_wilson_upper) AS with_all_passed_share_upper,
    liftdb_round4(l.control_wilson_lower) AS control_all_passed_share_lower,
    liftdb_round4(l.control_wilson_upper) AS control_all_passed_share_upper,
    -- Case-clustered bootstrap 95% of the lift.
    liftdb_round4(l.bootstrap_lower) AS lift_bootstrap_lower,
    liftdb_round4(l.bootstrap_upper) AS lift_bootstrap_upper,
    l.bh_q AS q,
    -- What the row is, in one short cell (the compact table's first column).
    CASE WHEN l.row_kind = 'experiment' THEN l.experiment || ': ' ELSE '' END
        || CASE l.scope WHEN 'overall' THEN 'overall' WHEN 'model' THEN 'model ' || l.model
                        ELSE liftdb_case_label(l.case_id, n.case_name) END AS row_label
FROM shown l
-- A case's name beside its id (skill-creator: `6 run-as-non-root`).
LEFT JOIN case_names n
    ON l.scope = 'case' AND n.release_label = l.release_label
   AND n.skill_name = l.skill_name AND n.case_id = l.case_id
LEFT JOIN not_counted_summary_rows nc
    ON l.row_kind = 'release' AND l.scope = 'overall'
   AND nc.release_label = l.release_label AND nc.skill_name = l.skill_name
   AND nc.split = l.split AND nc.control_arm = l.control_arm
WHERE ($release IS NULL OR l.release_label = $release)
  AND ($skill IS NULL OR l.skill_name = $skill)
  AND l.split = coalesce($split, 'all')
  AND ($model IS NULL OR l.scope = 'overall' OR l.model = $model)
  AND ($case IS NULL OR l.scope = 'overall' OR l.case_id = $case)
  AND l.control_arm = coalesce($arm, 'without_skill')
  AND CASE WHEN $experiment IS NOT NULL THEN l.experiment = $experiment
           WHEN l.row_kind = 'release' THEN true
           -- several experiments: each one's overall and per-model rows
           -- (--experiment NAME shows its case rows too)
           ELSE l.experiments > 1 AND l.scope <> 'case' END
ORDER BY release, skill, l.split, CASE l.row_kind WHEN 'release' THEN 0 ELSE 1 END, l.experiment NULLS FIRST,
    CASE l.scope WHEN 'overall' THEN 0 WHEN 'model' THEN 1 ELSE 2 END,
    l.model NULLS FIRST, try_cast("case" AS BIGINT) NULLS LAST, "case" NULLS FIRST;
