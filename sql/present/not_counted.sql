-- Under `report lift`'s sentence on a terminal: why runs of the releases
-- and skills it shows did not count, one sentence per release and skill
-- (split and control arm as the lift's). Column: sentence.
SELECT sentence FROM not_counted_summary_rows
WHERE sentence IS NOT NULL
  AND ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND split = coalesce($split, 'all')
  AND control_arm = coalesce($arm, 'without_skill')
ORDER BY release_label, skill_name;
