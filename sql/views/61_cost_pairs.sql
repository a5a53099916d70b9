-- cost_pairs: per with_skill/without_skill pair and measured quantity (cost,
-- total/input/output tokens), whether the two arms' measurements are
-- comparable under the harness's rule (docs/metrics.md §M9 compare_cost_pair) and
-- their delta. Blocked comparisons carry the harness's reason code.
-- cost_measured_of(releases, cases) (cost_measured_in(releases): no cases):
-- each run's cost and token measurements (one row
-- per run and quantity) as the comparability rule below reads them: the
-- basis fields it tests for presence as flags, the ones it compares as 64-bit
-- digests (equal fields give equal digests; two different ones share a digest
-- with odds of about 1 in 1.8e19), which keep the refill of cost_per_lift
-- far smaller than ten strings a side.
CREATE OR REPLACE MACRO cost_measured_of(releases, cases) AS TABLE
WITH quantities AS (
    -- The measurement basis read once per row (json_extract_string with a list
    -- of paths parses the document once). A JSON null reads as NULL, like a
    -- missing key, as in the harness.
    SELECT m.run_id, m.metric, m.availability, m.value, m.amount, m.currency, m.provenance,
        m.basis IS NOT NULL AS has_basis,
        json_extract_string(m.basis, ['$.population', '$.provider', '$.model', '$.billing_scope',
            '$.case_id', '$.run_number', '$.skill_tree_hash', '$.manifest_revision',
            '$.pricing_model', '$.pricing_table_version']) AS b
    FROM measurement m
    WHERE m.metric IN ('cost', 'total_tokens', 'input_tokens', 'output_tokens')
      AND (releases IS NULL
           OR m.run_id IN (SELECT run_id FROM run
                           WHERE releases IS NOT NULL
                             AND liftdb_in_scope(releases, cases, release_label, skill_name, case_id)))
)
SELECT run_id, metric,
    struct_pack(availability := availability, value := value, amount := amount,
        currency := currency, provenance := provenance, has_basis := has_basis,
        population := b[1],
        -- population, provider, model, billing_scope, case_id and run_number are required.
        incomplete := b[1] IS NULL OR b[2] IS NULL OR b[3] IS NULL OR b[4] IS NULL
                      OR b[5] IS NULL OR b[6] IS NULL,
        has_tree := b[7] IS NOT NULL,
        has_manifest := b[8] IS NOT NULL,
        pair_key := hash(b[5], b[6]),
        target := hash(b[2], b[3], b[4], b[7], b[8]),
        pricing := hash(b[9], b[10])) AS side
FROM quantities;

CREATE OR REPLACE MACRO cost_measured_in(releases) AS TABLE
SELECT * FROM cost_measured_of(releases, NULL);

-- liftdb_cost_blocked_reason(is_cost, both_scorable, l, r): why one quantity
-- of a pair is not comparable (NULL: comparable), under the harness's rule
-- (docs/metrics.md §M9 compare_cost_pair), l and r being the two arms' rows of
-- cost_measured_in (NULL when the arm has no such measurement).
CREATE OR REPLACE MACRO liftdb_cost_blocked_reason(is_cost, both_scorable, l, r) AS
    CASE
        WHEN NOT both_scorable THEN 'unscorable_arm'
        WHEN coalesce(l.availability, 'unavailable') = 'unavailable' THEN 'missing_left'
        WHEN coalesce(r.availability, 'unavailable') = 'unavailable' THEN 'missing_right'
        WHEN l.availability = 'not_applicable' OR r.availability = 'not_applicable' THEN 'not_applicable'
        WHEN is_cost AND l.currency IS DISTINCT FROM r.currency THEN 'currency_mismatch'
        WHEN l.provenance = 'legacy_unverified' OR r.provenance = 'legacy_unverified' THEN 'legacy_unverified'
        WHEN l.provenance IS DISTINCT FROM r.provenance THEN 'provenance_mismatch'
        -- Tools that record no measurement basis (handbook, skill-creator, promptfoo):
        -- equal provenance is all that can be checked.
        WHEN NOT l.has_basis AND NOT r.has_basis THEN NULL
        WHEN NOT l.has_basis OR NOT r.has_basis OR l.incomplete OR r.incomplete
             OR l.has_tree <> r.has_tree OR l.has_manifest <> r.has_manifest
            THEN 'basis_missing'
        WHEN l.population <> r.population THEN 'population_mismatch'
        WHEN l.pair_key <> r.pair_key THEN 'pair_key_mismatch'
        -- provider, model, billing_scope, skill tree and manifest revision; the
        -- price table only when the cost was estimated from one.
        WHEN l.target <> r.target
             OR (l.provenance = 'price_table_estimated' AND l.pricing <> r.pricing)
            THEN 'basis_mismatch'
    END;

-- liftdb_cost_reasons: every reason liftdb_cost_blocked_reason gives, sorted
-- (a reason added there is added here); liftdb_cost_reason_bit(reason) is its
-- bit, and liftdb_cost_reasons_of(bits) the reasons a bit_or() of them names,
-- joined as a sorted distinct list would be: a group's reasons held in one
-- integer, which spills, where a list of strings does not.
CREATE OR REPLACE MACRO liftdb_cost_reasons() AS
    ['basis_mismatch', 'basis_missing', 'currency_mismatch', 'legacy_unverified', 'missing_left',
     'missing_right', 'not_applicable', 'pair_key_mismatch', 'population_mismatch',
     'provenance_mismatch', 'unscorable_arm'];

CREATE OR REPLACE MACRO liftdb_cost_reason_bit(reason) AS
    CAST(1 AS BIGINT) << (list_position(liftdb_cost_reasons(), reason) - 1);

CREATE OR REPLACE MACRO liftdb_cost_reasons_of(bits) AS
    CASE WHEN coalesce(bits, 0) <> 0 THEN
        array_to_string(list_filter(liftdb_cost_reasons(), lambda reason, i: (bits >> (i - 1)) & 1 = 1), ', ')
    END;

-- cost_pairs_in(releases): the cost pairs of the releases listed (NULL: every release).
CREATE OR REPLACE MACRO cost_pairs_in(releases) AS TABLE
WITH p AS (
    SELECT * FROM pairs_in(releases) WHERE control_arm = 'without_skill'
),
metrics AS (
    -- A constant table, so a filter on metric reaches it before the joins.
    SELECT * FROM (VALUES ('cost'), ('total_tokens'), ('input_tokens'), ('output_tokens')) v(metric)
),
measured AS (
    SELECT * FROM cost_measured_in(releases)
),
judged AS (
    SELECT
        p.release_label, p.native_batch, p.experiment, p.skill_name, p.case_id, p.split, p.model, p.repetition,
        p.with_run_id, p.control_run_id, p.eligible AS objective_eligible, p.delta AS objective_delta,
        mt.metric, lm.side AS l, rm.side AS r,
        -- An arm with no run at all is missing_left / missing_right, as the
        -- harness's cost-summary says it before it grades either arm.
        CASE
            WHEN p.with_run_id IS NULL THEN 'missing_left'
            WHEN p.control_run_id IS NULL THEN 'missing_right'
            ELSE liftdb_cost_blocked_reason(mt.metric = 'cost',
                p.with_scorable AND p.control_scorable, lm.side, rm.side)
        END AS blocked_reason
    FROM p
    CROSS JOIN metrics mt
    LEFT JOIN measured lm ON lm.run_id = p.with_run_id AND lm.metric = mt.metric
    LEFT JOIN measured rm ON rm.run_id = p.control_run_id AND rm.metric = mt.metric
)
SELECT
    release_label, native_batch, experiment, skill_name, case_id, split, model, repetition, metric,
    coalesce(with_run_id, '-') || '|' || coalesce(control_run_id, '-') AS pair_key,
    with_run_id, control_run_id,
    objective_eligible, objective_delta,
    blocked_reason IS NULL AS comparable,
    blocked_reason,
    CASE WHEN metric = 'cost' THEN l.currency END AS currency,
    CASE WHEN metric = 'cost' THEN l.amount ELSE l.value END AS with_value,
    CASE WHEN metric = 'cost' THEN r.amount ELSE r.value END AS without_value,
    CASE WHEN blocked_reason IS NULL THEN
        CASE WHEN metric = 'cost' THEN l.amount - r.amount ELSE l.value - r.value END
    END AS delta
FROM judged;

CREATE OR REPLACE VIEW cost_pairs AS SELECT * FROM cost_pairs_in(NULL);

COMMENT ON VIEW cost_pairs IS 'Per pair and quantity (cost, tokens): comparable under the harness basis rule or blocked with its reason; the delta.';
