-- stored: cost_per_lift_case_rows
-- cost_per_lift_cases: per experiment, overall, per model and per case and
-- model, the means of cost_per_lift's per-pair values, as report
-- cost-per-lift prints them (rounded as the harness rounds them): objective
-- lift beside comparable cost and token deltas, lift per dollar, per 1k
-- tokens and dollars per unit of lift (means of per-pair ratios, as the
-- harness computes them: the overall row is skill-eval-harness
-- token-overhead's summary). Overall and per-model rows come for each split
-- and for every split pooled (split 'all'). Read from cost_per_lift_rows, the
-- stored pairs.
-- Means exact, as statistics.mean takes them (liftdb_mean_signed_bounded):
-- they do not depend on the order the pairs are summed in (avg() sums in
-- thread order, and the last printed digit could change from one run to the
-- next).
-- cost_per_lift_cases_in(releases): those of the releases listed (NULL: every release).
CREATE OR REPLACE MACRO cost_per_lift_cases_in(releases) AS TABLE
WITH per_scope AS (
    SELECT
        release_label, skill_name, experiment,
        CASE WHEN grouping(split) = 1 THEN 'all' ELSE split END AS split,
        CASE WHEN grouping(case_id) = 0 THEN 'case'
             WHEN grouping(model) = 0 THEN 'model'
             ELSE 'overall' END AS scope,
        case_id, model,
        count(*) AS pairs,
        count(cost_delta) AS cost_comparable,
        -- Each quantity's values, in no order: their means are exact
        -- (liftdb_mean_signed_bounded), whatever order they come in.
        list(objective_delta) AS lifts,
        list(cost_delta) AS costs,
        list(total_token_delta) AS tokens,
        list(lift_per_dollar) AS per_dollar,
        list(lift_per_1k_tokens) AS per_1k_tokens,
        list(cost_per_unit_lift) AS per_unit_lift,
        CASE WHEN count(cost_blocked_reason) > 0
             THEN array_to_string(list_sort(list_distinct(list(cost_blocked_reason))), ', ') END AS cost_blocked
    FROM cost_per_lift_rows
    WHERE releases IS NULL OR list_contains(releases, release_label)
    -- split follows the case: grouping a case by it keeps the case's group
    -- and lets a report filter on it
    GROUP BY GROUPING SETS (
        (release_label, skill_name, experiment, split, case_id, model),
        (release_label, skill_name, experiment, split, model),
        (release_label, skill_name, experiment, split),
        (release_label, skill_name, experiment, model),
        (release_label, skill_name, experiment))
),
-- The means first, then rounded: a macro's argument is computed again
-- wherever the macro names it.
means AS (
    SELECT
        release_label, skill_name, experiment, split, scope, case_id, model,
        pairs, cost_comparable, cost_blocked,
        liftdb_mean_signed_bounded(lifts) AS lift,
        liftdb_mean_signed_bounded(costs) AS cost,
        liftdb_mean_signed_bounded(tokens) AS tokens,
        liftdb_mean_signed_bounded(per_dollar) AS per_dollar,
        liftdb_mean_signed_bounded(per_1k_tokens) AS per_1k_tokens,
        liftdb_mean_signed_bounded(per_unit_lift) AS per_unit_lift
    FROM per_scope
)
SELECT
    release_label,
    skill_name,
    experiment,
    split,
    scope,
    case_id,
    model,
    pairs,
    cost_comparable,
    liftdb_pyround(lift, 4) AS mean_lift,
    liftdb_pyround(cost, 6) AS mean_cost_delta_usd,
    liftdb_pyround(tokens, 1) AS mean_token_delta,
    liftdb_pyround(per_dollar, 2) AS lift_per_dollar,
    liftdb_pyround(per_1k_tokens, 4) AS lift_per_1k_tokens,
    liftdb_pyround(per_unit_lift, 6) AS usd_per_unit_lift,
    cost_blocked
FROM means;

CREATE OR REPLACE VIEW cost_per_lift_cases AS SELECT * FROM cost_per_lift_cases_in(NULL);

COMMENT ON VIEW cost_per_lift_cases IS 'Per experiment, overall, per model and per case and model: mean objective lift, comparable cost and token deltas, and the harness''s ratios (means of per-pair values), rounded as report cost-per-lift prints them.';
COMMENT ON COLUMN cost_per_lift_cases.release_label IS 'Release.';
COMMENT ON COLUMN cost_per_lift_cases.skill_name IS 'Skill under test.';
COMMENT ON COLUMN cost_per_lift_cases.experiment IS 'The experiment of the pairs.';
COMMENT ON COLUMN cost_per_lift_cases.split IS 'Case split; all on overall and model rows pooling every split.';
COMMENT ON COLUMN cost_per_lift_cases.scope IS 'overall (every pair of the experiment and split), model (one model''s), or case (one case and model''s).';
COMMENT ON COLUMN cost_per_lift_cases.case_id IS 'Eval case; NULL on overall and model rows.';
COMMENT ON COLUMN cost_per_lift_cases.model IS 'Model; NULL on overall rows (and where the harness records none).';
COMMENT ON COLUMN cost_per_lift_cases.pairs IS 'with_skill/without_skill pairs the row pools.';
COMMENT ON COLUMN cost_per_lift_cases.cost_comparable IS 'Of those, pairs whose cost delta is comparable.';
COMMENT ON COLUMN cost_per_lift_cases.mean_lift IS 'Mean objective delta, rounded to 4.';
COMMENT ON COLUMN cost_per_lift_cases.mean_cost_delta_usd IS 'Mean comparable cost delta (USD), rounded to 6.';
COMMENT ON COLUMN cost_per_lift_cases.mean_token_delta IS 'Mean total-token delta, rounded to 1.';
COMMENT ON COLUMN cost_per_lift_cases.lift_per_dollar IS 'Mean of the per-pair lift per dollar, rounded to 2.';
COMMENT ON COLUMN cost_per_lift_cases.lift_per_1k_tokens IS 'Mean of the per-pair lift per 1k tokens, rounded to 4.';
COMMENT ON COLUMN cost_per_lift_cases.usd_per_unit_lift IS 'Mean of the per-pair dollars per unit of lift, rounded to 6.';
COMMENT ON COLUMN cost_per_lift_cases.cost_blocked IS 'Why some pairs'' cost is not comparable, distinct reasons sorted; NULL when every pair''s is.';

-- cost_per_lift_case_rows: cost_per_lift_cases stored, refilled at the end of
-- every batch for the releases it changed, after cost_per_lift_rows
-- (src/store/aggregates/mod.rs).
CREATE OR REPLACE TABLE cost_per_lift_case_rows AS SELECT * FROM cost_per_lift_cases LIMIT 0;
COMMENT ON TABLE cost_per_lift_case_rows IS 'cost_per_lift_cases stored by every batch for the releases it changed (what report cost-per-lift reads); equal to cost_per_lift_cases (liftdb check verifies).';
