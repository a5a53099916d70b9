-- Runs that did not count (not_counted_summary), said under the headline:
-- every split pooled, against without_skill, as the headline's sentences.
SELECT sentence
FROM not_counted_summary_rows
WHERE sentence IS NOT NULL AND split = 'all' AND control_arm = 'without_skill'
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($release IS NULL OR release_label = $release)
ORDER BY release_label, skill_name;
