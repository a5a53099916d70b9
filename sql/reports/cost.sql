-- name: cost
-- description: Cost ledger totals per arm and model; partial when some runs have no cost (known subtotal shown).
-- params: release, skill, split, model, case, arm, experiment
-- compact: arm, model, runs, known_total_tokens, known_cost_usd
SELECT
    release_label AS release,
    skill_name AS skill,
    experiment,
    arm,
    model,
    count(*) AS runs,
    count(total_tokens) AS runs_with_tokens,
    CAST(sum(total_tokens) AS BIGINT) AS known_total_tokens,
    count(cost_usd) AS runs_with_cost,
    CAST(sum(cost_usd) AS DECIMAL(18, 6)) AS known_cost_usd,
    CASE WHEN count(cost_usd) = count(*) THEN 'complete'
         WHEN count(cost_usd) = 0 THEN 'unavailable'
         ELSE 'partial' END AS cost_availability,
    round(sum(elapsed_ms) / 1000.0, 3) AS elapsed_s
FROM cost_ledger
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($split IS NULL OR split = $split)
  AND ($model IS NULL OR model = $model)
  AND ($case IS NULL OR case_id = $case)
  AND ($arm IS NULL OR arm = $arm)
  AND ($experiment IS NULL OR experiment = $experiment)
GROUP BY ALL
ORDER BY release, skill, experiment NULLS FIRST, arm, model NULLS FIRST;
