-- `liftdb gate --min-lift`: each skill's lift in the gated release
-- (objective channel, against without_skill, the split gated or every split
-- pooled): the release's experiments pooled ($experiment NULL), or one
-- experiment's own, with its sign-flip p, the p it decides on (p_upper: p
-- itself, or a sampled test's upper bound; docs/metrics.md §M6), its 95%
-- interval and the units it pools.
SELECT skill_name AS skill, experiment, units, eligible_pairs AS pairs,
       with_rate AS with_skill, without_rate AS without_skill,
       absolute_delta AS lift, p_value AS p, p_upper, ci_lower, ci_upper
FROM lift_evidence
WHERE release_label = $release
  AND ($skill IS NULL OR skill_name = $skill)
  AND channel = 'objective' AND control_arm = 'without_skill'
  AND scope = 'overall'
  AND CASE WHEN $experiment IS NULL THEN row_kind = 'release'
           ELSE row_kind = 'experiment' AND experiment = $experiment END
  AND split = coalesce($split, 'all')
ORDER BY skill;
