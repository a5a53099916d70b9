-- name: cost-per-lift
-- description: Per case and model: objective lift beside comparable cost and token deltas; lift per dollar, per 1k tokens, and dollars per unit of lift (means of per-pair ratios, as the harness computes them).
-- params: release, skill, split, model, case, experiment
-- compact: case, model, pairs, mean_lift, usd_per_unit_lift
-- Means in repetition order (list_avg): avg() would sum in thread order and
-- the last printed digit could change from one run to the next.
SELECT
    release_label AS release,
    skill_name AS skill,
    experiment,
    case_id AS "case",
    model,
    count(*) AS pairs,
    count(cost_delta) AS cost_comparable,
    round(list_avg(list(objective_delta ORDER BY repetition, native_batch)), 4) AS mean_lift,
    round(list_avg(list(cost_delta ORDER BY repetition, native_batch)), 6) AS mean_cost_delta_usd,
    round(list_avg(list(total_token_delta ORDER BY repetition, native_batch)), 1) AS mean_token_delta,
    round(list_avg(list(lift_per_dollar ORDER BY repetition, native_batch)), 2) AS lift_per_dollar,
    round(list_avg(list(lift_per_1k_tokens ORDER BY repetition, native_batch)), 4) AS lift_per_1k_tokens,
    round(list_avg(list(cost_per_unit_lift ORDER BY repetition, native_batch)), 6) AS usd_per_unit_lift,
    string_agg(DISTINCT cost_blocked_reason, ', ' ORDER BY cost_blocked_reason) AS cost_blocked
FROM cost_per_lift_rows
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($split IS NULL OR split = $split)
  AND ($model IS NULL OR model = $model)
  AND ($case IS NULL OR case_id = $case)
  AND ($experiment IS NULL OR experiment = $experiment)
GROUP BY ALL
ORDER BY release, skill, experiment NULLS FIRST, "case", model NULLS FIRST;
