-- lift_rows: the lift view materialized, refilled at the end of every batch
-- inside its transaction (with lift_stats, from the same computation), so the
-- reports and the views above lift (lift_evidence, lift_headline, trend, the
-- case trend) read stored rows instead of recomputing every pair of the store.
-- The lift view stays, live, for ad-hoc SQL; `liftdb check` verifies that the
-- two hold the same rows. Columns and types are the lift view's.
CREATE TABLE lift_rows (
    release_label VARCHAR NOT NULL,
    skill_name VARCHAR NOT NULL,
    control_arm VARCHAR NOT NULL,
    channel VARCHAR NOT NULL,
    split VARCHAR NOT NULL,
    row_kind VARCHAR NOT NULL,
    experiment VARCHAR,
    scope VARCHAR NOT NULL,
    model VARCHAR,
    case_id VARCHAR,
    units BIGINT,
    eligible_pairs HUGEINT,
    blocked_pairs HUGEINT,
    with_rate DOUBLE,
    without_rate DOUBLE,
    absolute_delta DOUBLE,
    normalized_gain DOUBLE,
    negative_delta_units BIGINT,
    negative_delta_cases STRUCT(case_id VARCHAR, model VARCHAR, with_rate DOUBLE, without_rate DOUBLE, delta DOUBLE)[],
    deltas DOUBLE[],
    unit_without_rates DOUBLE[],
    unit_cases VARCHAR[],
    units_won BIGINT,
    units_tied BIGINT,
    units_lost BIGINT,
    with_successes HUGEINT,
    control_successes HUGEINT
);

COMMENT ON TABLE lift_rows IS 'The lift view materialized at the end of every batch, in its transaction: what reports and the views above lift read. Equal to lift (liftdb check verifies); recomputed with the views.';
COMMENT ON COLUMN lift_rows.release_label IS 'Release.';
COMMENT ON COLUMN lift_rows.skill_name IS 'Skill under test.';
COMMENT ON COLUMN lift_rows.control_arm IS 'Arm compared with with_skill.';
COMMENT ON COLUMN lift_rows.channel IS 'objective, pass_at_1 or graded.';
COMMENT ON COLUMN lift_rows.split IS 'Case split, or ''all'' for every split pooled.';
COMMENT ON COLUMN lift_rows.row_kind IS 'experiment (one tool run) or release (its experiments pooled).';
COMMENT ON COLUMN lift_rows.experiment IS 'The experiment of an experiment row; NULL on a release row.';
COMMENT ON COLUMN lift_rows.scope IS 'overall, model or case.';
COMMENT ON COLUMN lift_rows.model IS 'The model of a model row.';
COMMENT ON COLUMN lift_rows.case_id IS 'The case of a case row.';
COMMENT ON COLUMN lift_rows.units IS '(case, model) units with at least one eligible pair.';
COMMENT ON COLUMN lift_rows.eligible_pairs IS 'Eligible pairs behind the units.';
COMMENT ON COLUMN lift_rows.blocked_pairs IS 'Blocked pairs in scope.';
COMMENT ON COLUMN lift_rows.with_rate IS 'Mean over units of the with_skill unit means.';
COMMENT ON COLUMN lift_rows.without_rate IS 'Mean over units of the control unit means.';
COMMENT ON COLUMN lift_rows.absolute_delta IS 'Lift: with_rate - without_rate.';
COMMENT ON COLUMN lift_rows.normalized_gain IS '(with - without) / (1 - without) when with >= without and without < 1.';
COMMENT ON COLUMN lift_rows.negative_delta_units IS 'Units whose with_skill mean is below the control mean.';
COMMENT ON COLUMN lift_rows.negative_delta_cases IS 'The cases of those units.';
COMMENT ON COLUMN lift_rows.deltas IS 'Unit deltas in the harness''s unit order (input of the sign-flip test).';
COMMENT ON COLUMN lift_rows.unit_without_rates IS 'Control unit means, same order (the noise check''s headroom).';
COMMENT ON COLUMN lift_rows.unit_cases IS 'The case of each unit, same order (the bootstrap''s clusters).';
COMMENT ON COLUMN lift_rows.units_won IS 'Units whose with_skill mean is above the control mean.';
COMMENT ON COLUMN lift_rows.units_tied IS 'Units whose two means are equal.';
COMMENT ON COLUMN lift_rows.units_lost IS 'Units whose with_skill mean is below the control mean.';
COMMENT ON COLUMN lift_rows.with_successes IS 'Eligible pairs whose with_skill run succeeded, summed over the units.';
COMMENT ON COLUMN lift_rows.control_successes IS 'Eligible pairs whose control run succeeded.';
