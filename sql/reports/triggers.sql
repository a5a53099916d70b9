-- name: triggers
-- description: Does the skill load when it should? Per polarity and per query: observations, trigger rate, pass rate, false-negative (should fire) and false-positive (should not fire) rates. Incomplete observations stay in the denominators, as the harness counts them.
-- params: release, skill, model, experiment
-- compact: polarity, query, observations, trigger_rate
SELECT
    release_label AS release, skill_name AS skill, experiment, agent, model, polarity,
    query_text AS query, observations, triggered, trigger_rate, pass_rate,
    false_negative_rate, false_positive_rate, incomplete
FROM trigger_rates
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($model IS NULL OR model = $model)
  AND ($experiment IS NULL OR experiment = $experiment)
ORDER BY release, skill, experiment, agent, model NULLS FIRST, polarity, query NULLS FIRST;
