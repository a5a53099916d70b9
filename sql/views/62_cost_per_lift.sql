-- cost_per_lift: per with_skill/without_skill pair, the objective delta beside
-- the cost and token deltas, with the harness's ratios (docs/metrics.md §M9,
-- token-overhead): lift per dollar only when the cost delta is positive, lift
-- per 1k total tokens only when the token delta is positive, and the inverse
-- cost per unit of lift when the objective delta is positive.
CREATE OR REPLACE VIEW cost_per_lift AS
SELECT
    c.release_label,
    c.native_batch,
    c.experiment,
    c.skill_name,
    c.case_id,
    c.split,
    c.model,
    c.repetition,
    c.objective_eligible,
    CASE WHEN c.objective_eligible THEN c.objective_delta END AS objective_delta,
    c.comparable AS cost_comparable,
    c.blocked_reason AS cost_blocked_reason,
    c.currency,
    CAST(c.delta AS DOUBLE) AS cost_delta,
    t.comparable AS tokens_comparable,
    t.blocked_reason AS tokens_blocked_reason,
    t.delta AS total_token_delta,
    i.delta AS input_token_delta,
    o.delta AS output_token_delta,
    CASE WHEN c.objective_eligible AND c.comparable AND c.currency = 'USD' AND c.delta > 0
         THEN c.objective_delta / CAST(c.delta AS DOUBLE) END AS lift_per_dollar,
    CASE WHEN c.objective_eligible AND t.comparable AND t.delta > 0
         THEN c.objective_delta / (t.delta / 1000.0) END AS lift_per_1k_tokens,
    CASE WHEN c.objective_eligible AND c.comparable AND c.objective_delta > 0
         THEN CAST(c.delta AS DOUBLE) / c.objective_delta END AS cost_per_unit_lift
FROM cost_pairs c
JOIN cost_pairs t USING (pair_key)
JOIN cost_pairs i USING (pair_key)
JOIN cost_pairs o USING (pair_key)
WHERE c.metric = 'cost' AND t.metric = 'total_tokens' AND i.metric = 'input_tokens' AND o.metric = 'output_tokens';

COMMENT ON VIEW cost_per_lift IS 'Per pair: objective delta, comparable cost and token deltas, lift per dollar, per 1k tokens, cost per unit of lift.';
