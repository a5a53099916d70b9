-- cost_per_lift: per with_skill/without_skill pair, the objective delta beside
-- the cost and token deltas, with the harness's ratios (docs/metrics.md §M9,
-- token-overhead): lift per dollar only when the cost delta is positive, lift
-- per 1k total tokens only when the token delta is positive, and the inverse
-- cost per unit of lift when the objective delta is positive.
-- cost_per_lift_in(releases): the rows of the releases listed (NULL: every release).
CREATE OR REPLACE MACRO cost_per_lift_in(releases) AS TABLE
-- One pass over cost_pairs, its four quantities of a pair folded into one row
-- (joining it to itself per quantity computed every pair four times).
WITH per_pair AS (
    SELECT
        any_value(release_label) AS release_label,
        any_value(native_batch) AS native_batch,
        any_value(experiment) AS experiment,
        any_value(skill_name) AS skill_name,
        any_value(case_id) AS case_id,
        any_value(split) AS split,
        any_value(model) AS model,
        any_value(repetition) AS repetition,
        any_value(objective_eligible) AS objective_eligible,
        any_value(objective_delta) AS objective_delta,
        any_value(comparable) FILTER (WHERE metric = 'cost') AS cost_comparable,
        any_value(blocked_reason) FILTER (WHERE metric = 'cost') AS cost_blocked_reason,
        any_value(currency) FILTER (WHERE metric = 'cost') AS currency,
        any_value(delta) FILTER (WHERE metric = 'cost') AS cost_delta,
        any_value(comparable) FILTER (WHERE metric = 'total_tokens') AS tokens_comparable,
        any_value(blocked_reason) FILTER (WHERE metric = 'total_tokens') AS tokens_blocked_reason,
        any_value(delta) FILTER (WHERE metric = 'total_tokens') AS total_token_delta,
        any_value(delta) FILTER (WHERE metric = 'input_tokens') AS input_token_delta,
        any_value(delta) FILTER (WHERE metric = 'output_tokens') AS output_token_delta
    FROM cost_pairs_in(releases)
    GROUP BY pair_key
)
SELECT
    release_label,
    native_batch,
    experiment,
    skill_name,
    case_id,
    split,
    model,
    repetition,
    objective_eligible,
    CASE WHEN objective_eligible THEN objective_delta END AS objective_delta,
    cost_comparable,
    cost_blocked_reason,
    currency,
    CAST(cost_delta AS DOUBLE) AS cost_delta,
    tokens_comparable,
    tokens_blocked_reason,
    total_token_delta,
    input_token_delta,
    output_token_delta,
    CASE WHEN objective_eligible AND cost_comparable AND currency = 'USD' AND cost_delta > 0
         THEN objective_delta / CAST(cost_delta AS DOUBLE) END AS lift_per_dollar,
    CASE WHEN objective_eligible AND tokens_comparable AND total_token_delta > 0
         THEN objective_delta / (total_token_delta / 1000.0) END AS lift_per_1k_tokens,
    CASE WHEN objective_eligible AND cost_comparable AND objective_delta > 0
         THEN CAST(cost_delta AS DOUBLE) / objective_delta END AS cost_per_unit_lift
FROM per_pair;

CREATE OR REPLACE VIEW cost_per_lift AS SELECT * FROM cost_per_lift_in(NULL);

COMMENT ON VIEW cost_per_lift IS 'Per pair: objective delta, comparable cost and token deltas, lift per dollar, per 1k tokens, cost per unit of lift.';

-- cost_per_lift_rows: cost_per_lift stored, refilled at the end of every batch
-- for the releases it changed (src/store/derived.rs): what report
-- cost-per-lift, reconcile and the HTML report read. Its columns are
-- cost_per_lift's (their comments copied).
CREATE OR REPLACE TABLE cost_per_lift_rows AS SELECT * FROM cost_per_lift LIMIT 0;
COMMENT ON TABLE cost_per_lift_rows IS 'cost_per_lift stored by every batch for the releases it changed (what report cost-per-lift, reconcile and the HTML report read); equal to cost_per_lift (liftdb check verifies).';
