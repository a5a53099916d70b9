-- name: lift-headline
-- description: The release lift of each skill in one sentence (with, without, lift, 95% interval, units, significant or not with its p, noise check); report lift prints it above its table on a terminal.
-- params: release, skill, split, arm
-- compact: sentence
-- The sentence first (report lift and the HTML report print column 0; a
-- terminal shows it alone, whole), then what it decided on: significant is
-- p_upper <= 0.05 (docs/metrics.md §M6).
SELECT sentence, p, p_upper, significant
FROM lift_headline
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND split = coalesce($split, 'all')
  AND control_arm = coalesce($arm, 'without_skill')
ORDER BY release_label, skill_name;
