-- name: lift
-- description: Paired lift of with_skill over the control arm (default without_skill) with sign-flip p, 95% interval and noise verdict: overall, per model, per case.
-- params: release, skill, split, model, case, arm
SELECT
    l.release_label AS release,
    l.skill_name AS skill,
    l.split,
    l.scope,
    l.model,
    l.case_id AS "case",
    l.control_arm AS control,
    l.units,
    l.eligible_pairs AS pairs,
    l.blocked_pairs AS blocked,
    round(l.with_rate, 4) AS with_skill,
    round(l.without_rate, 4) AS control_rate,
    round(l.absolute_delta, 4) AS lift,
    round(l.normalized_gain, 4) AS normalized_gain,
    s.p_value AS p,
    s.method,
    s.ci_lower,
    s.ci_upper,
    s.noise_verdict AS verdict,
    l.negative_delta_units AS negative_units
FROM lift l
LEFT JOIN lift_stats s
    ON s.release_label = l.release_label AND s.skill_name = l.skill_name
   AND s.control_arm = l.control_arm AND s.channel = l.channel AND s.split = l.split AND s.scope = l.scope
   AND s.model IS NOT DISTINCT FROM l.model AND s.case_id IS NOT DISTINCT FROM l.case_id
WHERE l.channel = 'objective'
  AND ($release IS NULL OR l.release_label = $release)
  AND ($skill IS NULL OR l.skill_name = $skill)
  AND l.split = coalesce($split, 'all')
  AND ($model IS NULL OR l.scope = 'overall' OR l.model = $model)
  AND ($case IS NULL OR l.scope = 'overall' OR l.case_id = $case)
  AND l.control_arm = coalesce($arm, 'without_skill')
ORDER BY release, skill, l.split,
    CASE l.scope WHEN 'overall' THEN 0 WHEN 'model' THEN 1 ELSE 2 END,
    l.model NULLS FIRST, "case" NULLS FIRST;
