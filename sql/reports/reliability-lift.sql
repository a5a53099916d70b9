-- name: reliability-lift
-- description: Paired pass@k and pass^k lift (with_skill minus the control arm, default without_skill) per k, overall and per model, as the harness's reliability.paired_lift pools it (the mean over the units that reach k, rounded 6).
-- params: release, skill, split, model, arm, experiment
-- compact: scope, model, k, units, pass_at_k_lift, pass_hat_k_lift
SELECT
    release_label AS release,
    skill_name AS skill,
    experiment,
    split,
    scope,
    model,
    control_arm AS control,
    k,
    units,
    liftdb_pyround(pass_at_k_delta, 6) AS pass_at_k_lift,
    liftdb_pyround(pass_hat_k_delta, 6) AS pass_hat_k_lift
FROM reliability_lift_pooled_rows
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND split = coalesce($split, 'all')
  AND ($model IS NULL OR scope = 'overall' OR model = $model)
  AND control_arm = coalesce($arm, 'without_skill')
  AND ($experiment IS NULL OR experiment = $experiment)
ORDER BY release, skill, experiment NULLS FIRST, CASE scope WHEN 'overall' THEN 0 ELSE 1 END, model NULLS FIRST, k;
