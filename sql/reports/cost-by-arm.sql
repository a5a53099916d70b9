-- name: cost-by-arm
-- aliases: cost
-- description: Tokens, cost and time summed per arm and model (runs with a known cost counted; partial when some runs have none).
-- params: release, skill, split, model, case, arm, experiment
-- compact: arm, model, runs, known_total_tokens, known_cost_usd
-- why-null: known_cost_usd = cost_availability
-- From run_total_rows, the runs stored summed per case, arm and model:
-- counts and exact sums add up again.
SELECT
    release_label AS release,
    skill_name AS skill,
    experiment,
    arm,
    model,
    sum(runs)::BIGINT AS runs,
    sum(runs_with_tokens)::BIGINT AS runs_with_tokens,
    CAST(sum(known_total_tokens) AS BIGINT) AS known_total_tokens,
    sum(runs_with_cost)::BIGINT AS runs_with_cost,
    CAST(sum(known_cost_usd) AS DECIMAL(18, 6)) AS known_cost_usd,
    CASE WHEN sum(runs_with_cost) = sum(runs) THEN 'complete'
         WHEN sum(runs_with_cost) = 0 THEN 'unavailable'
         ELSE 'partial' END AS cost_availability,
    liftdb_pyround(sum(known_elapsed_ms) / 1000.0, 3) AS elapsed_s
FROM run_total_rows
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($split IS NULL OR split = $split)
  AND ($model IS NULL OR model = $model)
  AND ($case IS NULL OR case_id = $case)
  AND ($arm IS NULL OR arm = $arm)
  AND ($experiment IS NULL OR experiment = $experiment)
GROUP BY release_label, skill_name, experiment, arm, model
ORDER BY release, skill, experiment NULLS FIRST, arm, model NULLS FIRST;
