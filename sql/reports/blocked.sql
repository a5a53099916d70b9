-- name: blocked
-- description: Pairs that could not be compared, with the harness's reason (missing arm, unscorable arm, missing or invalid rate, effort mismatch) and, for an unscorable arm, why that run does not count (stopped:truncated, served_model_mismatch …).
-- params: release, skill, split, model, case, arm, experiment
-- compact: case, model, rep, reason, why
SELECT
    release_label AS release,
    skill_name AS skill,
    experiment,
    split,
    case_id AS "case",
    model,
    repetition AS rep,
    control_arm AS control,
    blocked_reason AS reason,
    arm_reasons AS why,
    with_run_id,
    control_run_id
FROM blocked_pair_rows
WHERE NOT eligible
  AND ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($split IS NULL OR split = $split)
  AND ($model IS NULL OR model = $model)
  AND ($case IS NULL OR case_id = $case)
  AND control_arm = coalesce($arm, 'without_skill')
  AND ($experiment IS NULL OR experiment = $experiment)
ORDER BY release, skill, experiment NULLS FIRST, "case", model NULLS FIRST, rep;
