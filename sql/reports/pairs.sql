-- name: pairs
-- description: Pairing diagnostics per case and model: eligible and blocked pairs with the named reasons.
-- params: release, skill, split, model, case, arm, experiment
-- compact: case, model, eligible, blocked, blocked_reasons
SELECT
    release_label AS release,
    skill_name AS skill,
    experiment,
    split,
    case_id AS "case",
    model,
    control_arm AS control,
    count(*) FILTER (WHERE eligible) AS eligible,
    count(*) FILTER (WHERE NOT eligible) AS blocked,
    string_agg(DISTINCT blocked_reason, ', ' ORDER BY blocked_reason) AS blocked_reasons
FROM pairs
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($split IS NULL OR split = $split)
  AND ($model IS NULL OR model = $model)
  AND ($case IS NULL OR case_id = $case)
  AND control_arm = coalesce($arm, 'without_skill')
  AND ($experiment IS NULL OR experiment = $experiment)
GROUP BY ALL
ORDER BY release, skill, experiment NULLS FIRST, "case", model NULLS FIRST;
