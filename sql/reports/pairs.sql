-- name: pairs
-- description: Pairing diagnostics per case and model: eligible and blocked pairs with the named reasons.
-- params: release, skill, split, model, case, arm, experiment
-- compact: case, model, eligible, blocked, blocked_reasons
-- From lift_unit_rows, the stored units (one per experiment, case and model on
-- the objective channel, each pair validated once): counting the pairs view
-- would join every run of the store again.
SELECT
    release_label AS release,
    skill_name AS skill,
    experiment,
    split,
    case_id AS "case",
    model,
    control_arm AS control,
    eligible_pairs AS eligible,
    blocked_pairs AS blocked,
    nullif(array_to_string(blocked_reasons, ', '), '') AS blocked_reasons
FROM lift_unit_rows
WHERE channel = 'objective' AND row_kind = 'experiment'
  AND ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($split IS NULL OR split = $split)
  AND ($model IS NULL OR model = $model)
  AND ($case IS NULL OR case_id = $case)
  AND control_arm = coalesce($arm, 'without_skill')
  AND ($experiment IS NULL OR experiment = $experiment)
ORDER BY release, skill, experiment NULLS FIRST, "case", model NULLS FIRST;
