-- cost_pairs: per with_skill/without_skill pair and measured quantity (cost,
-- total/input/output tokens), whether the two arms' measurements are
-- comparable under the harness's rule (docs/metrics.md §M9 compare_cost_pair) and
-- their delta. Blocked comparisons carry the harness's reason code.
CREATE OR REPLACE VIEW cost_pairs AS
WITH p AS (
    SELECT * FROM pairs WHERE control_arm = 'without_skill'
),
metrics AS (
    -- A constant table, so a filter on metric (cost_per_lift has one per
    -- quantity) reaches it before the joins.
    SELECT * FROM (VALUES ('cost'), ('total_tokens'), ('input_tokens'), ('output_tokens')) v(metric)
),
sides AS (
    SELECT
        p.release_label, p.native_batch, p.experiment, p.skill_name, p.case_id, p.split, p.model, p.repetition,
        p.with_run_id, p.control_run_id, p.eligible AS objective_eligible, p.delta AS objective_delta,
        mt.metric,
        p.with_scorable AND p.control_scorable AS both_scorable,
        lm.availability AS l_availability, rm.availability AS r_availability,
        lm.value AS l_value, rm.value AS r_value,
        lm.amount AS l_amount, rm.amount AS r_amount,
        lm.currency AS l_currency, rm.currency AS r_currency,
        lm.provenance AS l_provenance, rm.provenance AS r_provenance,
        lm.basis AS l_basis, rm.basis AS r_basis
    FROM p
    CROSS JOIN metrics mt
    LEFT JOIN measurement lm ON lm.run_id = p.with_run_id AND lm.metric = mt.metric
    LEFT JOIN measurement rm ON rm.run_id = p.control_run_id AND rm.metric = mt.metric
),
judged AS (
    SELECT *,
        CASE
            WHEN with_run_id IS NULL OR control_run_id IS NULL OR NOT both_scorable THEN 'unscorable_arm'
            WHEN coalesce(l_availability, 'unavailable') = 'unavailable' THEN 'missing_left'
            WHEN coalesce(r_availability, 'unavailable') = 'unavailable' THEN 'missing_right'
            WHEN l_availability = 'not_applicable' OR r_availability = 'not_applicable' THEN 'not_applicable'
            WHEN metric = 'cost' AND l_currency IS DISTINCT FROM r_currency THEN 'currency_mismatch'
            WHEN l_provenance = 'legacy_unverified' OR r_provenance = 'legacy_unverified' THEN 'legacy_unverified'
            WHEN l_provenance IS DISTINCT FROM r_provenance THEN 'provenance_mismatch'
            -- Tools that record no measurement basis (handbook, skill-creator, promptfoo):
            -- equal provenance is all that can be checked.
            WHEN l_basis IS NULL AND r_basis IS NULL THEN NULL
            WHEN l_basis IS NULL OR r_basis IS NULL
                 OR list_bool_or(list_transform(['population', 'provider', 'model', 'billing_scope', 'case_id', 'run_number'],
                        lambda k: json_extract(l_basis, '$.' || k) IS NULL OR json_extract(r_basis, '$.' || k) IS NULL
                                  OR json_type(json_extract(l_basis, '$.' || k)) = 'NULL'
                                  OR json_type(json_extract(r_basis, '$.' || k)) = 'NULL'))
                 OR ((l_basis ->> 'skill_tree_hash') IS NULL) <> ((r_basis ->> 'skill_tree_hash') IS NULL)
                 OR ((l_basis ->> 'manifest_revision') IS NULL) <> ((r_basis ->> 'manifest_revision') IS NULL)
                THEN 'basis_missing'
            WHEN (l_basis ->> 'population') <> (r_basis ->> 'population') THEN 'population_mismatch'
            WHEN (l_basis ->> 'case_id') <> (r_basis ->> 'case_id')
                 OR (l_basis ->> 'run_number') <> (r_basis ->> 'run_number') THEN 'pair_key_mismatch'
            WHEN (l_basis ->> 'provider') <> (r_basis ->> 'provider')
                 OR (l_basis ->> 'model') <> (r_basis ->> 'model')
                 OR (l_basis ->> 'billing_scope') <> (r_basis ->> 'billing_scope')
                 OR (l_basis ->> 'skill_tree_hash') IS DISTINCT FROM (r_basis ->> 'skill_tree_hash')
                 OR (l_basis ->> 'manifest_revision') IS DISTINCT FROM (r_basis ->> 'manifest_revision')
                 OR (l_provenance = 'price_table_estimated'
                     AND ((l_basis ->> 'pricing_model') IS DISTINCT FROM (r_basis ->> 'pricing_model')
                          OR (l_basis ->> 'pricing_table_version') IS DISTINCT FROM (r_basis ->> 'pricing_table_version')))
                THEN 'basis_mismatch'
        END AS blocked_reason
    FROM sides
)
SELECT
    release_label, native_batch, experiment, skill_name, case_id, split, model, repetition, metric,
    coalesce(with_run_id, '-') || '|' || coalesce(control_run_id, '-') AS pair_key,
    with_run_id, control_run_id,
    objective_eligible, objective_delta,
    blocked_reason IS NULL AS comparable,
    blocked_reason,
    CASE WHEN metric = 'cost' THEN l_currency END AS currency,
    CASE WHEN metric = 'cost' THEN l_amount ELSE l_value END AS with_value,
    CASE WHEN metric = 'cost' THEN r_amount ELSE r_value END AS without_value,
    CASE WHEN blocked_reason IS NULL THEN
        CASE WHEN metric = 'cost' THEN l_amount - r_amount ELSE l_value - r_value END
    END AS delta
FROM judged;

COMMENT ON VIEW cost_pairs IS 'Per pair and quantity (cost, tokens): comparable under the harness basis rule or blocked with its reason; the delta.';
