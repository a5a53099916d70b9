-- name: formats
-- description: Runs per harness format and native batch, with how many are scorable and graded.
-- params: release, skill, experiment
-- compact: format, experiment, runs, scorable, graded, cases
-- From run_total_rows (the runs summed per case, arm and model).
SELECT
    release_label AS release,
    source_format AS format,
    experiment,
    skill_name AS skill,
    sum(runs)::BIGINT AS runs,
    sum(scorable_runs)::BIGINT AS scorable,
    sum(graded_runs)::BIGINT AS graded,
    count(DISTINCT case_id) AS cases,
    string_agg(DISTINCT arm, ', ' ORDER BY arm) AS arms
FROM run_total_rows
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($experiment IS NULL OR experiment = $experiment)
GROUP BY release_label, source_format, experiment, skill_name
ORDER BY release, format, experiment;
