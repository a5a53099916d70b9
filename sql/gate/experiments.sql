-- `liftdb gate`: the experiments of the gated release (runs.experiment: a seh
-- runs root, a handbook run id …), one row per experiment and skill, and
-- whether the release's experiments pool into one release lift (lift
-- row_kind 'release': one experiment, or units whose model is known).
--   experiment   the experiment (NULL: runs no tool named)
--   skill        a skill run in it
--   pooled       the release has a pooled lift row
SELECT r.native_batch AS experiment, r.skill_name AS skill,
       EXISTS (SELECT 1 FROM lift_evidence l
               WHERE l.release_label = $release AND l.row_kind = 'release'
                 AND ($skill IS NULL OR l.skill_name = $skill)) AS pooled
FROM run_rows r
WHERE r.release_label = $release
  AND ($skill IS NULL OR r.skill_name = $skill)
  AND ($split IS NULL OR r.split = $split)
  AND r.population = 'answer'
GROUP BY ALL
ORDER BY experiment NULLS FIRST, skill;
