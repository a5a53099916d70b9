-- lift: paired lift of with_skill over a control arm (formats.md M3), at
-- three scopes: 'overall', per 'model', per 'case'. split = 'all' pools every
-- split; each split also gets its own rows. Units without an eligible pair do
-- not count. deltas lists the unit deltas in the harness's order (models
-- sorted, cases sorted within a model, then unlabelled cases) so the
-- sign-flip test can be applied to them.
CREATE OR REPLACE VIEW lift AS
WITH units AS (
    SELECT * FROM lift_units WHERE eligible_pairs > 0
),
units_by_split AS (
    SELECT * REPLACE (coalesce(split, '(none)') AS split) FROM units
    UNION ALL
    SELECT * REPLACE ('all' AS split) FROM units
),
scoped AS (
    SELECT 'overall' AS scope, NULL::VARCHAR AS scope_model, NULL::VARCHAR AS scope_case, * FROM units_by_split
    UNION ALL
    SELECT 'model', model, NULL, * FROM units_by_split WHERE model IS NOT NULL
    UNION ALL
    SELECT 'case', NULL, case_id, * FROM units_by_split
),
agg AS (
    SELECT
        release_label, skill_name, control_arm, split, scope,
        scope_model AS model,
        scope_case AS case_id,
        count(*) AS units,
        sum(eligible_pairs) AS eligible_pairs,
        avg(with_rate) AS with_rate,
        avg(without_rate) AS without_rate,
        count(*) FILTER (WHERE with_rate < without_rate) AS negative_delta_units,
        list({'case_id': case_id, 'model': model, 'with_rate': with_rate, 'without_rate': without_rate, 'delta': delta}
             ORDER BY model NULLS LAST, case_id) FILTER (WHERE with_rate < without_rate) AS negative_delta_cases,
        list(delta ORDER BY model NULLS LAST, case_id) AS deltas
    FROM scoped
    GROUP BY release_label, skill_name, control_arm, split, scope, scope_model, scope_case
),
blocked AS (
    -- Blocked pairs are counted per scope too, including units with no eligible pair.
    SELECT release_label, skill_name, control_arm, s.split, p.model, p.case_id, count(*) AS blocked_pairs
    FROM pairs p, (SELECT unnest([coalesce(p.split, '(none)'), 'all']) AS split) s
    WHERE NOT p.eligible
    GROUP BY ALL
)
SELECT
    a.release_label,
    a.skill_name,
    a.control_arm,
    a.split,
    a.scope,
    a.model,
    a.case_id,
    a.units,
    a.eligible_pairs,
    coalesce((SELECT sum(b.blocked_pairs) FROM blocked b
              WHERE b.release_label = a.release_label AND b.skill_name = a.skill_name
                AND b.control_arm = a.control_arm AND b.split = a.split
                AND (a.model IS NULL OR b.model = a.model)
                AND (a.case_id IS NULL OR b.case_id = a.case_id)), 0) AS blocked_pairs,
    a.with_rate,
    a.without_rate,
    a.with_rate - a.without_rate AS absolute_delta,
    CASE WHEN a.with_rate >= a.without_rate AND a.without_rate < 1
         THEN (a.with_rate - a.without_rate) / (1 - a.without_rate) END AS normalized_gain,
    a.negative_delta_units,
    a.negative_delta_cases,
    a.deltas
FROM agg a;

COMMENT ON VIEW lift IS 'Paired lift overall, per model and per case, per split and pooled, with normalized gain and unit deltas.';
