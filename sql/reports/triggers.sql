-- name: triggers
-- description: Does the skill load when it should? Per polarity and per query: observations, trigger rate, pass rate, false-negative (should fire) and false-positive (should not fire) rates. Incomplete observations stay in the denominators, as the harness counts them.
-- params: release, skill, model
WITH obs AS (
    SELECT * FROM trigger_observation
    WHERE ($release IS NULL OR release_label = $release)
      AND ($skill IS NULL OR skill_name = $skill)
      AND ($model IS NULL OR model = $model)
)
SELECT
    release_label AS release, skill_name AS skill, agent, model,
    CASE WHEN should_trigger THEN 'should fire' ELSE 'should not fire' END AS polarity,
    NULL AS query,
    sum(runs) AS observations,
    sum(triggered_runs) AS triggered,
    round(sum(triggered_runs) / sum(runs), 4) AS trigger_rate,
    round(sum(CASE WHEN passed THEN runs ELSE 0 END) / sum(runs), 4) AS pass_rate,
    CASE WHEN should_trigger THEN round(1 - sum(triggered_runs) / sum(runs), 4) END AS false_negative_rate,
    CASE WHEN NOT should_trigger THEN round(sum(triggered_runs) / sum(runs), 4) END AS false_positive_rate,
    count(*) FILTER (WHERE observation_complete IS NOT TRUE) AS incomplete
FROM obs
GROUP BY release_label, skill_name, agent, model, should_trigger
UNION ALL
SELECT
    release_label, skill_name, agent, model,
    CASE WHEN should_trigger THEN 'should fire' ELSE 'should not fire' END,
    query_text,
    sum(runs), sum(triggered_runs),
    round(sum(triggered_runs) / sum(runs), 4),
    round(sum(CASE WHEN passed THEN runs ELSE 0 END) / sum(runs), 4),
    CASE WHEN should_trigger THEN round(1 - sum(triggered_runs) / sum(runs), 4) END,
    CASE WHEN NOT should_trigger THEN round(sum(triggered_runs) / sum(runs), 4) END,
    count(*) FILTER (WHERE observation_complete IS NOT TRUE)
FROM obs
GROUP BY release_label, skill_name, agent, model, should_trigger, query_text
ORDER BY release, skill, agent, model NULLS FIRST, polarity, query NULLS FIRST;
