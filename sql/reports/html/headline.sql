-- The HTML report's headline: the release lift of each skill (objective
-- channel, every split pooled, against without_skill); significant is
-- p_upper <= 0.05 (docs/metrics.md §M6), what the sentence above says.
SELECT release_label AS release, skill_name AS skill, units, eligible_pairs AS pairs,
       liftdb_pyround(with_rate, 4) AS with_skill, liftdb_pyround(without_rate, 4) AS without_skill,
       liftdb_pyround(absolute_delta, 4) AS lift, p_value AS p, p_upper, significant, ci_lower, ci_upper,
       liftdb_pyround(bootstrap_lower, 4) AS bootstrap_lower, liftdb_pyround(bootstrap_upper, 4) AS bootstrap_upper,
       units_won AS wins, units_tied AS ties, units_lost AS losses, noise_verdict AS verdict
FROM lift_evidence
WHERE channel = 'objective' AND control_arm = 'without_skill' AND split = 'all'
  AND scope = 'overall' AND row_kind = 'release'
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($release IS NULL OR release_label = $release)
ORDER BY release, skill;
