-- `liftdb gate --min-lift`: each skill's release lift in the gated release
-- (objective channel, against without_skill, the split gated or every split
-- pooled), with its sign-flip p and the units it pools.
SELECT skill_name AS skill, units, eligible_pairs AS pairs,
       with_rate AS with_skill, without_rate AS without_skill,
       absolute_delta AS lift, p_value AS p, ci_lower, ci_upper
FROM lift_evidence
WHERE release_label = $release
  AND ($skill IS NULL OR skill_name = $skill)
  AND channel = 'objective' AND control_arm = 'without_skill'
  AND scope = 'overall' AND row_kind = 'release'
  AND split = coalesce($split, 'all')
ORDER BY skill;
