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
-- Means exact, as statistics.mean takes them: each quantity summed as
-- integers, scaled by a power of two its release's magnitudes allow
-- (liftdb_sum_scale), so that they do not depend on the order the pairs are
-- summed in (avg() sums in thread order, and the last printed digit could
-- change from one run to the next), and every group's state is a few
-- numbers, which DuckDB spills under a memory limit (a list per group it
-- cannot). A group holding an infinite value takes avg()'s.
-- cost_per_lift_cases_in(releases): those of the releases listed (NULL: every release).
CREATE OR REPLACE MACRO cost_per_lift_cases_in(releases) AS TABLE
WITH pairs AS (
    SELECT * FROM cost_per_lift_rows
    WHERE releases IS NULL OR list_contains(releases, release_label)
),
scales AS (
    SELECT release_label,
        liftdb_sum_scale(max(abs(objective_delta)), count(objective_delta)) AS k_lift,
        liftdb_sum_scale(max(abs(cost_delta)), count(cost_delta)) AS k_cost,
        liftdb_sum_scale(max(abs(total_token_delta)), count(total_token_delta)) AS k_tokens,
        liftdb_sum_scale(max(abs(lift_per_dollar)) FILTER (WHERE isfinite(lift_per_dollar)), count(lift_per_dollar)) AS k_per_dollar,
        liftdb_sum_scale(max(abs(lift_per_1k_tokens)) FILTER (WHERE isfinite(lift_per_1k_tokens)), count(lift_per_1k_tokens)) AS k_per_1k_tokens,
        liftdb_sum_scale(max(abs(cost_per_unit_lift)) FILTER (WHERE isfinite(cost_per_unit_lift)), count(cost_per_unit_lift)) AS k_per_unit_lift
    FROM pairs GROUP BY release_label
),
per_scope AS (
    SELECT
        release_label, skill_name, experiment,
        CASE WHEN grouping(split) = 1 THEN 'all' ELSE split END AS split,
        CASE WHEN grouping(case_id) = 0 THEN 'case'
             WHEN grouping(model) = 0 THEN 'model'
             ELSE 'overall' END AS scope,
        case_id, model,
        count(*) AS pairs,
        count(cost_delta) AS cost_comparable,
        -- The scales are the release's, one per group (every grouping set holds the release).
        max(k_lift) AS k_lift, max(k_cost) AS k_cost, max(k_tokens) AS k_tokens,
        max(k_per_dollar) AS k_per_dollar, max(k_per_1k_tokens) AS k_per_1k_tokens,
        max(k_per_unit_lift) AS k_per_unit_lift,
        sum(liftdb_scaled_by(objective_delta, k_lift)) AS lift_sum, count(objective_delta) AS lift_n,
        sum(liftdb_scaled_by(cost_delta, k_cost)) AS cost_sum, count(cost_delta) AS cost_n,
        sum(liftdb_scaled_by(total_token_delta, k_tokens)) AS tokens_sum, count(total_token_delta) AS tokens_n,
        sum(liftdb_scaled_by(lift_per_dollar, k_per_dollar)) AS per_dollar_sum, count(lift_per_dollar) AS per_dollar_n,
        sum(liftdb_scaled_by(lift_per_1k_tokens, k_per_1k_tokens)) AS per_1k_tokens_sum, count(lift_per_1k_tokens) AS per_1k_tokens_n,
        sum(liftdb_scaled_by(cost_per_unit_lift, k_per_unit_lift)) AS per_unit_lift_sum, count(cost_per_unit_lift) AS per_unit_lift_n,
        count(*) FILTER (WHERE NOT isfinite(lift_per_dollar) OR NOT isfinite(lift_per_1k_tokens)
                          OR NOT isfinite(cost_per_unit_lift)) AS infinite,
        avg(lift_per_dollar) AS per_dollar_avg, avg(lift_per_1k_tokens) AS per_1k_tokens_avg,
        avg(cost_per_unit_lift) AS per_unit_lift_avg,
        liftdb_cost_reasons_of(bit_or(liftdb_cost_reason_bit(cost_blocked_reason))) AS cost_blocked
    FROM pairs JOIN scales USING (release_label)
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
        liftdb_mean_signed_scaled(lift_sum, lift_n, k_lift) AS lift,
        liftdb_mean_signed_scaled(cost_sum, cost_n, k_cost) AS cost,
        liftdb_mean_signed_scaled(tokens_sum, tokens_n, k_tokens) AS tokens,
        CASE WHEN infinite > 0 THEN per_dollar_avg
             ELSE liftdb_mean_signed_scaled(per_dollar_sum, per_dollar_n, k_per_dollar) END AS per_dollar,
        CASE WHEN infinite > 0 THEN per_1k_tokens_avg
             ELSE liftdb_mean_signed_scaled(per_1k_tokens_sum, per_1k_tokens_n, k_per_1k_tokens) END AS per_1k_tokens,
        CASE WHEN infinite > 0 THEN per_unit_lift_avg
             ELSE liftdb_mean_signed_scaled(per_unit_lift_sum, per_unit_lift_n, k_per_unit_lift) END AS per_unit_lift
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
