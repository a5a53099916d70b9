-- name: lift
-- description: Paired lift of with_skill over the control arm (default without_skill): overall, per model, per case, per split.
-- params: release, skill, split, model, case, arm
SELECT
    release_label AS release,
    skill_name AS skill,
    split,
    scope,
    model,
    case_id AS "case",
    control_arm AS control,
    units,
    eligible_pairs AS pairs,
    blocked_pairs AS blocked,
    round(with_rate, 4) AS with_skill,
    round(without_rate, 4) AS control_rate,
    round(absolute_delta, 4) AS lift,
    round(normalized_gain, 4) AS normalized_gain,
    negative_delta_units AS negative_units
FROM lift
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND split = coalesce($split, 'all')
  AND ($model IS NULL OR scope = 'overall' OR model = $model)
  AND ($case IS NULL OR scope = 'overall' OR case_id = $case)
  AND control_arm = coalesce($arm, 'without_skill')
ORDER BY release, skill, split,
    CASE scope WHEN 'overall' THEN 0 WHEN 'model' THEN 1 ELSE 2 END,
    model NULLS FIRST, "case" NULLS FIRST;
