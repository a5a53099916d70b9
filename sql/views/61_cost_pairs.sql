-- cost_pairs: per with_skill/without_skill pair and measured quantity (cost,
-- total/input/output tokens), whether the two arms' measurements are
-- comparable under the harness's rule (docs/metrics.md §M9 compare_cost_pair) and
-- their delta. Blocked comparisons carry the harness's reason code.
-- cost_pairs_in(releases): the cost pairs of the releases listed (NULL: every release).
CREATE OR REPLACE MACRO cost_pairs_in(releases) AS TABLE
WITH p AS (
    SELECT * FROM pairs_in(releases) WHERE control_arm = 'without_skill'
),
metrics AS (
    -- A constant table, so a filter on metric (cost_per_lift has one per
    -- quantity) reaches it before the joins.
    SELECT * FROM (VALUES ('cost'), ('total_tokens'), ('input_tokens'), ('output_tokens')) v(metric)
),
quantities AS (
    -- The measurement basis read once per row (json_extract_string with a list
    -- of paths parses the document once; the rule below reads ten of its keys
    -- per arm). A JSON null reads as NULL, like a missing key, as in the harness.
    SELECT m.run_id, m.metric, m.availability, m.value, m.amount, m.currency, m.provenance,
        m.basis IS NOT NULL AS has_basis,
        json_extract_string(m.basis, ['$.population', '$.provider', '$.model', '$.billing_scope',
            '$.case_id', '$.run_number', '$.skill_tree_hash', '$.manifest_revision',
            '$.pricing_model', '$.pricing_table_version']) AS b
    FROM measurement m
    WHERE m.metric IN ('cost', 'total_tokens', 'input_tokens', 'output_tokens')
      AND (releases IS NULL
           OR m.run_id IN (SELECT run_id FROM run WHERE list_contains(releases, release_label)))
),
measured AS (
    SELECT * EXCLUDE (b),
        struct_pack(population := b[1], provider := b[2], model := b[3], billing_scope := b[4],
            case_id := b[5], run_number := b[6], skill_tree_hash := b[7], manifest_revision := b[8],
            pricing_model := b[9], pricing_table_version := b[10]) AS basis
    FROM quantities
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
        coalesce(lm.has_basis, false) AS l_has_basis, coalesce(rm.has_basis, false) AS r_has_basis,
        lm.basis AS l, rm.basis AS r
    FROM p
    CROSS JOIN metrics mt
    LEFT JOIN measured lm ON lm.run_id = p.with_run_id AND lm.metric = mt.metric
    LEFT JOIN measured rm ON rm.run_id = p.control_run_id AND rm.metric = mt.metric
),
judged AS (
    SELECT * EXCLUDE (l, r),
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
            WHEN NOT l_has_basis AND NOT r_has_basis THEN NULL
            WHEN NOT l_has_basis OR NOT r_has_basis
                 OR l.population IS NULL OR r.population IS NULL
                 OR l.provider IS NULL OR r.provider IS NULL
                 OR l.model IS NULL OR r.model IS NULL
                 OR l.billing_scope IS NULL OR r.billing_scope IS NULL
                 OR l.case_id IS NULL OR r.case_id IS NULL
                 OR l.run_number IS NULL OR r.run_number IS NULL
                 OR (l.skill_tree_hash IS NULL) <> (r.skill_tree_hash IS NULL)
                 OR (l.manifest_revision IS NULL) <> (r.manifest_revision IS NULL)
                THEN 'basis_missing'
            WHEN l.population <> r.population THEN 'population_mismatch'
            WHEN l.case_id <> r.case_id OR l.run_number <> r.run_number THEN 'pair_key_mismatch'
            WHEN l.provider <> r.provider
                 OR l.model <> r.model
                 OR l.billing_scope <> r.billing_scope
                 OR l.skill_tree_hash IS DISTINCT FROM r.skill_tree_hash
                 OR l.manifest_revision IS DISTINCT FROM r.manifest_revision
                 OR (l_provenance = 'price_table_estimated'
                     AND (l.pricing_model IS DISTINCT FROM r.pricing_model
                          OR l.pricing_table_version IS DISTINCT FROM r.pricing_table_version))
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

CREATE OR REPLACE VIEW cost_pairs AS SELECT * FROM cost_pairs_in(NULL);

COMMENT ON VIEW cost_pairs IS 'Per pair and quantity (cost, tokens): comparable under the harness basis rule or blocked with its reason; the delta.';
