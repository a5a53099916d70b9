-- name: not-counted
-- description: Answer runs that do not count in the lift, with the harness's reason (returncode_1, timed_out, stopped:truncated, served_model_mismatch, provider_error …) and its class (infrastructure error, cut off, served-model mismatch, missing output, not graded …); their pairs are blocked.
-- params: release, skill, split, model, case, arm, experiment
-- compact: case, model, arm, rep, counted_as, reason, run
SELECT
    release_label AS release,
    skill_name AS skill,
    experiment,
    split,
    case_id AS "case",
    model,
    arm,
    repetition AS rep,
    counted_as,
    reason,
    left(run_id, 12) AS run,
    run_id
FROM not_counted_runs
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($split IS NULL OR split = $split)
  AND ($model IS NULL OR model = $model)
  AND ($case IS NULL OR case_id = $case)
  AND ($arm IS NULL OR arm = $arm)
  AND ($experiment IS NULL OR experiment = $experiment)
ORDER BY release, skill, experiment NULLS FIRST, "case", model NULLS FIRST, arm, rep;
