-- name: formats
-- description: Runs per harness format and native batch, with how many are scorable and graded.
-- params: release, skill, experiment
SELECT
    release_label AS release,
    source_format AS format,
    experiment,
    skill_name AS skill,
    count(*) AS runs,
    count(*) FILTER (WHERE scorable) AS scorable,
    count(*) FILTER (WHERE graded) AS graded,
    count(DISTINCT case_id) AS cases,
    string_agg(DISTINCT arm, ', ' ORDER BY arm) AS arms
FROM runs
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($experiment IS NULL OR experiment = $experiment)
GROUP BY ALL
ORDER BY release, format, experiment;
