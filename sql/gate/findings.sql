-- `liftdb gate --fail-on`: each case of the gated release (the split gated,
-- or every split) with the harness's findings (case_flags: its labels and
-- order) and its rates, per experiment.
SELECT skill_name AS skill, case_id AS "case", experiment,
       with_skill, without_skill, array_to_string(flags, ' | ') AS flags
FROM case_flag_rows
WHERE release_label = $release
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($split IS NULL OR split = $split)
ORDER BY skill, "case", experiment;
