-- stored: lift_rows
-- stored in parts: scope = 'overall'; scope = 'model'; scope = 'case'
-- lift: paired lift of with_skill over a control arm (docs/metrics.md §M3), in
-- the two row kinds of lift_units, read from lift_unit_rows, its stored rows
-- ('experiment': one tool run, equal to its own report; 'release':
-- experiments pooled, a unit counted once), at
-- three scopes: 'overall', per 'model', per 'case', for each channel of
-- lift_units ('objective' is the headline lift). split = 'all' pools every
-- split; each split also gets its own rows. Units without an eligible pair
-- count only in blocked_pairs. deltas lists the unit deltas in the harness's
-- order (models sorted, cases sorted within a model, then unlabelled cases)
-- so the sign-flip test can be applied to them; unit_without_rates (same
-- order) gives the noise check its headroom.
-- lift_in(releases): the lift rows of the releases listed (NULL: every release).
CREATE OR REPLACE MACRO lift_in(releases) AS TABLE
WITH computed_units AS (
    -- A release of one experiment has release rows equal to its experiment
    -- rows: they are copied below instead of aggregated twice.
    SELECT * FROM lift_unit_rows
    WHERE (row_kind = 'experiment' OR release_experiments > 1)
      AND (releases IS NULL OR list_contains(releases, release_label))
),
units_by_split AS (
    SELECT * REPLACE (coalesce(split, '(none)') AS split) FROM computed_units
    UNION ALL
    SELECT * REPLACE ('all' AS split) FROM computed_units
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
        release_label, skill_name, control_arm, channel, split, row_kind, experiment,
        release_experiments, scope,
        scope_model AS model,
        scope_case AS case_id,
        count(*) FILTER (WHERE eligible_pairs > 0) AS units,
        -- Counts as BIGINT: a lake keeps a HUGEINT as a DOUBLE.
        CAST(sum(eligible_pairs) AS BIGINT) AS eligible_pairs,
        CAST(sum(blocked_pairs) AS BIGINT) AS blocked_pairs,
        liftdb_mean_agg(with_rate) AS with_rate,
        liftdb_mean_agg(without_rate) AS without_rate,
        count(*) FILTER (WHERE with_rate < without_rate) AS negative_delta_units,
        -- One list of the eligible units (a negative unit is one: its means
        -- exist), gathered unordered and sorted after (below) by its leading
        -- fields: models sorted, unknown model last, cases sorted within a
        -- model. Same rows as list(... ORDER BY ...), much faster under a
        -- memory limit; list states do not spill, so it is the only one.
        list({'model_unknown': model IS NULL, 'model': model, 'case_unknown': case_id IS NULL,
              'case_id': case_id, 'with_rate': with_rate, 'without_rate': without_rate, 'delta': delta})
            FILTER (WHERE eligible_pairs > 0) AS eligible_units,
        count(*) FILTER (WHERE eligible_pairs > 0 AND delta > 0) AS units_won,
        count(*) FILTER (WHERE eligible_pairs > 0 AND delta = 0) AS units_tied,
        count(*) FILTER (WHERE eligible_pairs > 0 AND delta < 0) AS units_lost,
        CAST(sum(with_successes) AS BIGINT) AS with_successes,
        CAST(sum(control_successes) AS BIGINT) AS control_successes
    FROM scoped
    GROUP BY release_label, skill_name, control_arm, channel, split, row_kind, experiment,
             release_experiments, scope, scope_model, scope_case
),
in_unit_order AS (
    SELECT * REPLACE (list_sort(eligible_units) AS eligible_units)
    FROM agg
),
both_kinds AS (
    SELECT * FROM in_unit_order
    UNION ALL
    SELECT * REPLACE ('release' AS row_kind, NULL::VARCHAR AS experiment)
    FROM in_unit_order WHERE row_kind = 'experiment' AND release_experiments = 1
)
SELECT
    release_label,
    skill_name,
    control_arm,
    channel,
    split,
    row_kind,
    experiment,
    scope,
    model,
    case_id,
    units,
    eligible_pairs,
    blocked_pairs,
    with_rate,
    without_rate,
    with_rate - without_rate AS absolute_delta,
    CASE WHEN with_rate >= without_rate AND without_rate < 1
         THEN (with_rate - without_rate) / (1 - without_rate) END AS normalized_gain,
    negative_delta_units,
    coalesce(list_transform(list_filter(eligible_units, lambda u: u.with_rate < u.without_rate),
        lambda u: {'case_id': u.case_id, 'model': u.model,
                   'with_rate': u.with_rate, 'without_rate': u.without_rate, 'delta': u.delta}), []) AS negative_delta_cases,
    coalesce(list_transform(eligible_units, lambda u: u.delta), []) AS deltas,
    coalesce(list_transform(eligible_units, lambda u: u.without_rate), []) AS unit_without_rates,
    coalesce(list_transform(eligible_units, lambda u: u.case_id), []) AS unit_cases,
    units_won,
    units_tied,
    units_lost,
    with_successes,
    control_successes
FROM both_kinds;

-- The view adds the reports' names of its columns (release, skill, case …)
-- after them; its stored table holds the columns once.
CREATE OR REPLACE VIEW lift AS SELECT *, release_label AS release, skill_name AS skill, control_arm AS control, case_id AS "case", with_rate AS with_skill, without_rate AS without_skill, absolute_delta AS lift FROM lift_in(NULL);

COMMENT ON COLUMN lift.release IS 'The same as release_label, as the reports name it.';
COMMENT ON COLUMN lift.skill IS 'The same as skill_name, as the reports name it.';
COMMENT ON COLUMN lift.control IS 'The same as control_arm, as the reports name it.';
COMMENT ON COLUMN lift."case" IS 'The same as case_id, as the reports name it.';
COMMENT ON COLUMN lift.with_skill IS 'The same as with_rate, as the reports name it.';
COMMENT ON COLUMN lift.without_skill IS 'The same as without_rate, as the reports name it.';
COMMENT ON COLUMN lift.lift IS 'The same as absolute_delta, as the reports name it.';

COMMENT ON VIEW lift IS 'Paired lift overall, per model and per case, per split and pooled, per channel, with normalized gain and unit deltas.';

-- Columns
COMMENT ON COLUMN lift.release_label IS 'Release.';
COMMENT ON COLUMN lift.skill_name IS 'Skill under test.';
COMMENT ON COLUMN lift.control_arm IS 'Arm compared with with_skill.';
COMMENT ON COLUMN lift.channel IS 'objective (pass rates) or graded (graded scores).';
COMMENT ON COLUMN lift.split IS 'Case split, or ''all'' for every split pooled.';
COMMENT ON COLUMN lift.row_kind IS 'experiment: one experiment, equal to its tool''s own report; release: the release''s experiments pooled, each (case, model) one unit (unknown-model units are not pooled across experiments).';
COMMENT ON COLUMN lift.experiment IS 'The experiment of an experiment row (runs.experiment); NULL on a release row.';
COMMENT ON COLUMN lift.scope IS 'overall, model or case.';
COMMENT ON COLUMN lift.model IS 'The model of a model row.';
COMMENT ON COLUMN lift.case_id IS 'The case of a case row.';
COMMENT ON COLUMN lift.units IS '(case, model) units with at least one eligible pair (docs/metrics.md §M3).';
COMMENT ON COLUMN lift.eligible_pairs IS 'Eligible pairs behind the units.';
COMMENT ON COLUMN lift.blocked_pairs IS 'Blocked pairs in scope.';
COMMENT ON COLUMN lift.with_rate IS 'Mean over units of the with_skill unit means.';
COMMENT ON COLUMN lift.without_rate IS 'Mean over units of the control unit means.';
COMMENT ON COLUMN lift.absolute_delta IS 'Lift: with_rate - without_rate (= mean unit delta).';
COMMENT ON COLUMN lift.normalized_gain IS '(with - without) / (1 - without) when with >= without and without < 1.';
COMMENT ON COLUMN lift.negative_delta_units IS 'Units whose with_skill mean is below the control mean.';
COMMENT ON COLUMN lift.negative_delta_cases IS 'The cases of those units.';
COMMENT ON COLUMN lift.deltas IS 'Unit deltas in the harness''s unit order (input of the sign-flip test).';
COMMENT ON COLUMN lift.unit_cases IS 'The case of each unit, same order as deltas (the bootstrap''s clusters).';
COMMENT ON COLUMN lift.units_won IS 'Units whose with_skill mean is above the control mean.';
COMMENT ON COLUMN lift.units_tied IS 'Units whose two means are equal.';
COMMENT ON COLUMN lift.units_lost IS 'Units whose with_skill mean is below the control mean.';
COMMENT ON COLUMN lift.with_successes IS 'Eligible pairs whose with_skill run succeeded (every gate passed), summed over the units.';
COMMENT ON COLUMN lift.control_successes IS 'Eligible pairs whose control run succeeded.';
COMMENT ON COLUMN lift.unit_without_rates IS 'Control unit means, same order (the noise check''s headroom).';

-- lift_rows: lift stored, refilled at the end of every batch in its
-- transaction, from the same rows lift_stats tests: what lift_evidence,
-- lift_headline and the trend views read.
CREATE OR REPLACE TABLE lift_rows AS SELECT * FROM lift_in(NULL) LIMIT 0;
COMMENT ON TABLE lift_rows IS 'lift stored by every batch (what lift_evidence, lift_headline, trend and the reports read); equal to lift (liftdb check verifies).';
