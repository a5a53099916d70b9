-- Cases with a flag.
SELECT release_label AS release, skill_name AS skill, split, case_id AS "case",
       liftdb_pyround(with_skill, 4) AS with_skill, liftdb_pyround(without_skill, 4) AS without_skill,
       eligible_pairs AS pairs, array_to_string(flags, '; ') AS flags
FROM case_flag_rows
WHERE len(flags) > 0 AND ($skill IS NULL OR skill_name = $skill)
  AND ($release IS NULL OR release_label = $release)
ORDER BY release, skill, "case";
