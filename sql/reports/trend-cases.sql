-- name: trend-cases
-- description: How each case moved since the previous release, largest drop first: per case and per (case, model), the lift before and after, the change and its sign-flip p over matched models or repetitions (regressed / improved only when significant). Default: the latest release.
-- params: skill, release, model, case
-- compact: scope, model, case, previous_lift, lift, lift_change, change_p
SELECT
    skill_name AS skill,
    release_label AS release,
    previous_release AS previous,
    scope,
    model,
    case_id AS "case",
    liftdb_pyround(previous_lift, 4) AS previous_lift,
    liftdb_pyround(lift, 4) AS lift,
    liftdb_pyround(lift_change, 4) AS lift_change,
    direction,
    change_matched AS matched,
    change_p_value AS change_p,
    -- p_upper <= 0.05, what direction decides on (docs/metrics.md §M6)
    change_p_upper AS change_p_upper,
    change_significant AS significant
FROM case_trend
WHERE previous_lift IS NOT NULL
  AND release_label = coalesce($release, (SELECT release_label FROM releases ORDER BY ordinal DESC LIMIT 1))
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($model IS NULL OR scope = 'case' OR model = $model)
  AND ($case IS NULL OR case_id = $case)
ORDER BY skill, lift_change, scope, "case", model NULLS FIRST;
