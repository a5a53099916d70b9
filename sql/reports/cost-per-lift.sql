-- name: cost-per-lift
-- description: What lift costs: overall, per model, then per case and model: objective lift beside comparable cost and token deltas; lift per dollar, per 1k tokens, and dollars per unit of lift (means of per-pair ratios, as the harness computes them).
-- params: release, skill, split, model, case, experiment
-- compact: row_label, model, pairs, mean_lift, usd_per_unit_lift
-- why-null: usd_per_unit_lift = usd_per_unit_lift_unavailable
-- From cost_per_lift_case_rows: the means stored by every batch
-- (sql/views/63_cost_per_lift_cases.sql says how they are taken). The
-- overall and per-model rows pool every split unless --split names one;
-- --case keeps the case rows only, --model that model's rows. An overall
-- row over models of which only some are priced is those models' figure:
-- its label names them.
WITH priced AS (
    SELECT release_label, skill_name, experiment, split,
           count(*) AS models,
           list_sort(list(model) FILTER (WHERE cost_comparable > 0 AND model IS NOT NULL)) AS priced_models
    FROM cost_per_lift_case_rows
    WHERE scope = 'model'
    GROUP BY release_label, skill_name, experiment, split
)
SELECT
    release_label AS release,
    skill_name AS skill,
    experiment,
    split,
    scope,
    -- What the row is, in one short cell (the compact table's first column).
    CASE scope WHEN 'overall' THEN
                   CASE WHEN len(p.priced_models) BETWEEN 1 AND p.models - 1
                        THEN printf('all cases, priced models (%d of %d: %s)', len(p.priced_models), p.models,
                                    array_to_string(p.priced_models, ', '))
                        ELSE 'all cases, all models' END
               WHEN 'model' THEN 'all cases'
               ELSE liftdb_case_label(case_id, n.case_name) END AS row_label,
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
    cost_blocked,
    -- Why usd_per_unit_lift is NULL: no pair's cost was comparable (the
    -- reasons), or none of the comparable pairs gained (it is taken over
    -- pairs with a positive lift only).
    CASE WHEN usd_per_unit_lift IS NULL THEN
        CASE WHEN cost_comparable = 0 THEN 'cost not comparable: ' || coalesce(cost_blocked, 'no cost')
             ELSE 'no comparable pair with a positive lift' END
    END AS usd_per_unit_lift_unavailable
FROM cost_per_lift_case_rows
-- A case's name beside its id (skill-creator: `6 run-as-non-root`).
LEFT JOIN case_names n USING (release_label, skill_name, case_id)
LEFT JOIN priced p USING (release_label, skill_name, experiment, split)
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND (CASE WHEN $split IS NULL THEN scope = 'case' OR split = 'all' ELSE split = $split END)
  AND ($model IS NULL OR (scope <> 'overall' AND model = $model))
  AND ($case IS NULL OR (scope = 'case' AND case_id = $case))
  AND ($experiment IS NULL OR experiment = $experiment)
ORDER BY release, skill, experiment NULLS FIRST,
         CASE scope WHEN 'overall' THEN 0 WHEN 'model' THEN 1 ELSE 2 END,
         try_cast("case" AS BIGINT) NULLS LAST, "case", model NULLS FIRST;
