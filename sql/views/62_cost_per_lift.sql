-- stored: cost_per_lift_rows
-- stored grain: case
-- cost_per_lift: per with_skill/without_skill pair, the objective delta beside
-- the cost and token deltas, with the harness's ratios (docs/metrics.md §M9,
-- token-overhead): lift per dollar only when the cost delta is positive, lift
-- per 1k total tokens only when the token delta is positive, and the inverse
-- cost per unit of lift when the objective delta is positive.
-- cost_per_lift_of(releases, cases): the rows of the releases listed (NULL:
-- every release) and of the cases listed (liftdb_case_key).
CREATE OR REPLACE MACRO cost_per_lift_of(releases, cases) AS TABLE
-- Each run's four quantities folded into one row, joined once per arm: no
-- per-pair fold of cost_pairs (keyed by a string per pair and quantity, it
-- needs far more memory).
WITH p AS (
    SELECT *, coalesce(with_scorable AND control_scorable, false) AS both_scorable
    FROM pairs_of(releases, cases) WHERE control_arm = 'without_skill'
),
per_run AS MATERIALIZED (
    SELECT run_id,
        any_value(side) FILTER (WHERE metric = 'cost') AS cost,
        any_value(side) FILTER (WHERE metric = 'total_tokens') AS total_tokens,
        any_value(side) FILTER (WHERE metric = 'input_tokens') AS input_tokens,
        any_value(side) FILTER (WHERE metric = 'output_tokens') AS output_tokens
    FROM cost_measured_of(releases, cases)
    GROUP BY run_id
),
judged AS (
    SELECT
        p.release_label, p.native_batch, p.experiment, p.skill_name, p.case_id, p.split, p.model, p.repetition,
        p.eligible AS objective_eligible,
        CASE WHEN p.eligible THEN p.delta END AS objective_delta,
        w.cost.currency AS currency,
        liftdb_cost_blocked_reason(true, p.both_scorable, w.cost, c.cost) AS cost_reason,
        liftdb_cost_blocked_reason(false, p.both_scorable, w.total_tokens, c.total_tokens) AS tokens_reason,
        CASE WHEN cost_reason IS NULL THEN CAST(w.cost.amount - c.cost.amount AS DOUBLE) END AS cost_delta,
        CASE WHEN tokens_reason IS NULL THEN w.total_tokens.value - c.total_tokens.value END AS total_token_delta,
        CASE WHEN liftdb_cost_blocked_reason(false, p.both_scorable, w.input_tokens, c.input_tokens) IS NULL
             THEN w.input_tokens.value - c.input_tokens.value END AS input_token_delta,
        CASE WHEN liftdb_cost_blocked_reason(false, p.both_scorable, w.output_tokens, c.output_tokens) IS NULL
             THEN w.output_tokens.value - c.output_tokens.value END AS output_token_delta
    FROM p
    LEFT JOIN per_run w ON w.run_id = p.with_run_id
    LEFT JOIN per_run c ON c.run_id = p.control_run_id
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
    objective_delta,
    cost_reason IS NULL AS cost_comparable,
    cost_reason AS cost_blocked_reason,
    currency,
    cost_delta,
    tokens_reason IS NULL AS tokens_comparable,
    tokens_reason AS tokens_blocked_reason,
    total_token_delta,
    input_token_delta,
    output_token_delta,
    CASE WHEN objective_eligible AND cost_reason IS NULL AND currency = 'USD' AND cost_delta > 0
         THEN objective_delta / cost_delta END AS lift_per_dollar,
    CASE WHEN objective_eligible AND tokens_reason IS NULL AND total_token_delta > 0
         THEN objective_delta / (total_token_delta / 1000.0) END AS lift_per_1k_tokens,
    CASE WHEN objective_eligible AND cost_reason IS NULL AND objective_delta > 0
         THEN cost_delta / objective_delta END AS cost_per_unit_lift
FROM judged;

-- cost_per_lift_in(releases): the rows of the releases listed (NULL: every release).
CREATE OR REPLACE MACRO cost_per_lift_in(releases) AS TABLE
SELECT * FROM cost_per_lift_of(releases, NULL);

CREATE OR REPLACE VIEW cost_per_lift AS SELECT * FROM cost_per_lift_in(NULL);

COMMENT ON VIEW cost_per_lift IS 'Per pair: objective delta, comparable cost and token deltas, lift per dollar, per 1k tokens, cost per unit of lift.';

-- cost_per_lift_rows: cost_per_lift stored, refilled at the end of every batch
-- for the releases it changed (src/store/aggregates/mod.rs): what report
-- cost-per-lift, reconcile and the HTML report read. Its columns are
-- cost_per_lift's (their comments copied).
CREATE OR REPLACE TABLE cost_per_lift_rows AS SELECT * FROM cost_per_lift LIMIT 0;
COMMENT ON TABLE cost_per_lift_rows IS 'cost_per_lift stored by every batch for the releases it changed (what report cost-per-lift, reconcile and the HTML report read); equal to cost_per_lift (liftdb check verifies).';
