-- name: cost-per-lift
-- description: Per case and model: objective lift beside comparable cost and token deltas; lift per dollar, per 1k tokens, and dollars per unit of lift (means of per-pair ratios, as the harness computes them).
-- params: release, skill, split, model, case, experiment
-- compact: case, model, pairs, mean_lift, usd_per_unit_lift
-- From cost_per_lift_case_rows: the per-case means stored by every batch
-- (sql/views/63_cost_per_lift_cases.sql says how they are taken).
SELECT
    release_label AS release,
    skill_name AS skill,
    experiment,
    case_id AS "case",
    model,
    pairs,
    cost_comparable,
    mean_lift,
    mean_cost_delta_usd,
    mean_token_delta,
    lift_per_dollar,
    lift_per_1k_tokens,
    usd_per_unit_lift,
    cost_blocked
FROM cost_per_lift_case_rows
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($split IS NULL OR split = $split)
  AND ($model IS NULL OR model = $model)
  AND ($case IS NULL OR case_id = $case)
  AND ($experiment IS NULL OR experiment = $experiment)
ORDER BY release, skill, experiment NULLS FIRST, "case", model NULLS FIRST;
