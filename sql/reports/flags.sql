-- name: flags
-- description: Case flags with the harness's labels (saturated, no lift, with-skill failure, flaky, critical failures).
-- params: release, skill, split, case, experiment
-- compact: case, case_name?, with_skill, without_skill, pairs, flags
SELECT
    release_label AS release,
    skill_name AS skill,
    experiment,
    split,
    case_id AS "case",
    n.case_name,
    liftdb_pyround(with_skill, 4) AS with_skill,
    liftdb_pyround(without_skill, 4) AS without_skill,
    eligible_pairs AS pairs,
    array_to_string(flags, '; ') AS flags
FROM case_flag_rows
LEFT JOIN case_names n USING (release_label, skill_name, case_id)
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($split IS NULL OR split = $split)
  AND ($case IS NULL OR case_id = $case)
  AND ($experiment IS NULL OR experiment = $experiment)
ORDER BY release, skill, experiment NULLS FIRST, split, try_cast("case" AS BIGINT) NULLS LAST, "case";
