-- name: cost-per-lift
-- description: Per case and model: objective lift beside comparable cost and token deltas; lift per dollar, per 1k tokens, and dollars per unit of lift (means of per-pair ratios, as the harness computes them).
-- params: release, skill, split, model, case, experiment
-- compact: case, model, pairs, mean_lift, usd_per_unit_lift
-- Means in repetition order (list_avg): avg() would sum in thread order and
-- the last printed digit could change from one run to the next. The pairs are
-- gathered unordered and sorted by their leading fields (repetition, then
-- batch, unknown last), as the lift view's unit lists are.
WITH per_case AS (
    SELECT
        release_label, skill_name, experiment, case_id, model,
        count(*) AS pairs,
        count(cost_delta) AS cost_comparable,
        list_sort(list({'repetition_unknown': repetition IS NULL, 'repetition': repetition,
                        'batch_unknown': native_batch IS NULL, 'batch': native_batch,
                        'lift': objective_delta, 'cost': cost_delta, 'tokens': total_token_delta,
                        'per_dollar': lift_per_dollar, 'per_1k_tokens': lift_per_1k_tokens,
                        'per_unit_lift': cost_per_unit_lift})) AS in_order,
        CASE WHEN count(cost_blocked_reason) > 0
             THEN array_to_string(list_sort(list_distinct(list(cost_blocked_reason))), ', ') END AS cost_blocked
    FROM cost_per_lift_rows
    WHERE ($release IS NULL OR release_label = $release)
      AND ($skill IS NULL OR skill_name = $skill)
      AND ($split IS NULL OR split = $split)
      AND ($model IS NULL OR model = $model)
      AND ($case IS NULL OR case_id = $case)
      AND ($experiment IS NULL OR experiment = $experiment)
    GROUP BY ALL
)
SELECT
    release_label AS release,
    skill_name AS skill,
    experiment,
    case_id AS "case",
    model,
    pairs,
    cost_comparable,
    round(list_avg(list_transform(in_order, lambda p: p.lift)), 4) AS mean_lift,
    round(list_avg(list_transform(in_order, lambda p: p.cost)), 6) AS mean_cost_delta_usd,
    round(list_avg(list_transform(in_order, lambda p: p.tokens)), 1) AS mean_token_delta,
    round(list_avg(list_transform(in_order, lambda p: p.per_dollar)), 2) AS lift_per_dollar,
    round(list_avg(list_transform(in_order, lambda p: p.per_1k_tokens)), 4) AS lift_per_1k_tokens,
    round(list_avg(list_transform(in_order, lambda p: p.per_unit_lift)), 6) AS usd_per_unit_lift,
    cost_blocked
FROM per_case
ORDER BY release, skill, experiment NULLS FIRST, "case", model NULLS FIRST;
