-- stored: lift_unit_rows
-- lift_units: the unit of the paired lift (docs/metrics.md §M3), in two
-- kinds of rows that are never mixed:
--   row_kind 'experiment'  (case, model) within one experiment (a seh runs root,
--                          a handbook run id, ...): what that tool's own report
--                          computes, unit for unit;
--   row_kind 'release'     (release, skill, case, model) across experiments: the
--                          unit pools its pairs from every experiment, so no
--                          (case, model) counts twice. Where the model is
--                          unknown (NULL) a case of two experiments may be two
--                          different models, so such units are pooled only
--                          when the release has a single experiment of them.
-- Repetitions are averaged inside a unit over its eligible pairs, on three channels:
--   objective  objective_pass_rate, pairs validated on it (M2/M3)
--   pass_at_1  run success (rate >= 1 - 1e-12) over the same pairs: the
--              reliability paired lift's delta pass@1 (M5)
--   graded     graded_score, pairs where both arms have a score in [0, 1] (M3 graded)
-- lift_units_in(releases): the units of the releases listed (NULL: every
-- release); a release's units read only its own pairs.
CREATE OR REPLACE MACRO lift_units_in(releases) AS TABLE
WITH release_pairs AS (
    SELECT * FROM pairs_in(releases)
),
channels AS (
    SELECT *, 'objective' AS channel, eligible AS usable,
           with_rate AS with_value, control_rate AS control_value
    FROM release_pairs
    UNION ALL
    SELECT *, 'pass_at_1', eligible,
           CASE WHEN liftdb_is_success(with_rate) THEN 1.0 ELSE 0.0 END,
           CASE WHEN liftdb_is_success(control_rate) THEN 1.0 ELSE 0.0 END
    FROM release_pairs
    UNION ALL
    SELECT p.*, 'graded',
           p.with_run_id IS NOT NULL AND p.control_run_id IS NOT NULL
           AND p.with_scorable AND p.control_scorable
           AND p.with_graded_score BETWEEN 0 AND 1 AND p.control_graded_score BETWEEN 0 AND 1,
           p.with_graded_score, p.control_graded_score
    FROM release_pairs p
),
experiment_units AS (
    SELECT release_label, skill_name, control_arm, channel, split, experiment, case_id, model,
           count(*) FILTER (WHERE usable) AS eligible_pairs,
           count(*) FILTER (WHERE NOT usable) AS blocked_pairs,
           -- Each arm's exact mean as its two aggregates (liftdb_mean_of), and
           -- its successes: fixed-size states, which a group by spills.
           sum(liftdb_scaled(with_value)) FILTER (WHERE usable) AS with_sum,
           count(with_value) FILTER (WHERE usable) AS with_n,
           sum(liftdb_scaled(control_value)) FILTER (WHERE usable) AS control_sum,
           count(control_value) FILTER (WHERE usable) AS control_n,
           count(*) FILTER (WHERE usable AND liftdb_is_success(with_value)) AS with_successes,
           count(*) FILTER (WHERE usable AND liftdb_is_success(control_value)) AS control_successes,
           coalesce(list_sort(list_distinct(list(blocked_reason) FILTER (WHERE blocked_reason IS NOT NULL))), []) AS blocked_reasons
    FROM channels
    GROUP BY ALL
),
releases AS (
    -- Per (release, skill): its experiments, and whether its unknown-model
    -- units all come from one of them (only then are they pooled).
    SELECT release_label, skill_name,
           count(DISTINCT coalesce(experiment, '')) AS release_experiments,
           count(DISTINCT coalesce(experiment, '')) FILTER (WHERE model IS NULL) <= 1 AS pool_unknown_model
    FROM experiment_units
    GROUP BY ALL
),
pooled AS (
    -- A release unit holds the eligible pairs of every experiment: its
    -- experiments' exact sums and counts added up.
    SELECT e.release_label, e.skill_name, e.control_arm, e.channel, e.split,
           'release' AS row_kind, NULL::VARCHAR AS experiment, e.case_id, e.model,
           sum(e.eligible_pairs) AS eligible_pairs, sum(e.blocked_pairs) AS blocked_pairs,
           count(*) AS experiments,
           sum(e.with_sum) AS with_sum, sum(e.with_n) AS with_n,
           sum(e.control_sum) AS control_sum, sum(e.control_n) AS control_n,
           sum(e.with_successes) AS with_successes, sum(e.control_successes) AS control_successes,
           -- gathered only where there are some: no list state per unit
           coalesce(list_sort(list_distinct(flatten(list(e.blocked_reasons) FILTER (WHERE len(e.blocked_reasons) > 0)))), []) AS blocked_reasons
    FROM experiment_units e
    JOIN releases r USING (release_label, skill_name)
    WHERE e.model IS NOT NULL OR r.pool_unknown_model
    GROUP BY e.release_label, e.skill_name, e.control_arm, e.channel, e.split, e.case_id, e.model
),
kinds AS (
    SELECT release_label, skill_name, control_arm, channel, split, 'experiment' AS row_kind,
           experiment, case_id, model, eligible_pairs, blocked_pairs, 1 AS experiments,
           with_sum, with_n, control_sum, control_n, with_successes, control_successes, blocked_reasons
    FROM experiment_units
    UNION ALL
    SELECT * FROM pooled
)
SELECT
    k.release_label,
    k.skill_name,
    k.control_arm,
    k.channel,
    k.split,
    k.row_kind,
    k.experiment,
    k.case_id,
    k.model,
    -- Counts as BIGINT: summed they are HUGEINT, which a lake keeps as a DOUBLE.
    CAST(k.eligible_pairs AS BIGINT) AS eligible_pairs,
    CAST(k.blocked_pairs AS BIGINT) AS blocked_pairs,
    k.blocked_reasons,
    k.experiments,
    r.release_experiments,
    -- Exact means (liftdb_mean_of, as statistics.mean): with avg() the last bit
    -- would follow DuckDB's summation order, and a unit with equal arms could
    -- come out negative.
    liftdb_mean_of(k.with_sum, k.with_n) AS with_rate,
    liftdb_mean_of(k.control_sum, k.control_n) AS without_rate,
    liftdb_mean_of(k.with_sum, k.with_n) - liftdb_mean_of(k.control_sum, k.control_n) AS delta,
    -- Pairs whose run succeeded (every gate passed), per arm: the counts
    -- behind the Wilson intervals of lift_evidence.
    CAST(k.with_successes AS BIGINT) AS with_successes,
    CAST(k.control_successes AS BIGINT) AS control_successes
FROM kinds k
JOIN releases r USING (release_label, skill_name);

CREATE OR REPLACE VIEW lift_units AS SELECT * FROM lift_units_in(NULL);

COMMENT ON VIEW lift_units IS 'Per (case, model) unit means of with_skill and control values over eligible pairs, per channel (objective, pass_at_1, graded), per experiment and pooled per release.';

-- Columns
COMMENT ON COLUMN lift_units.row_kind IS 'experiment: a unit of one experiment (as its tool reports it); release: the unit pooled over the release''s experiments.';
COMMENT ON COLUMN lift_units.experiment IS 'The experiment of an experiment row; NULL on a release row.';
COMMENT ON COLUMN lift_units.experiments IS 'Experiments whose pairs the unit holds (1 on an experiment row).';
COMMENT ON COLUMN lift_units.release_experiments IS 'Experiments of the skill in the release (1: its release rows equal its experiment rows).';
COMMENT ON COLUMN lift_units.eligible_pairs IS 'Eligible pairs of the unit.';
COMMENT ON COLUMN lift_units.blocked_pairs IS 'Blocked pairs of the unit.';
COMMENT ON COLUMN lift_units.blocked_reasons IS 'The pairs.blocked_reason values of the unit''s pairs, distinct and sorted (the objective rate''s validation, on every channel).';
COMMENT ON COLUMN lift_units.with_rate IS 'Mean with_skill value over the eligible pairs.';
COMMENT ON COLUMN lift_units.without_rate IS 'Mean control value over the eligible pairs.';
COMMENT ON COLUMN lift_units.delta IS 'with_rate - without_rate.';
COMMENT ON COLUMN lift_units.with_successes IS 'Eligible pairs whose with_skill value is a success (>= 1 - 1e-12: every gate passed on the objective channel).';
COMMENT ON COLUMN lift_units.control_successes IS 'Eligible pairs whose control value is a success.';

-- lift_unit_rows: lift_units stored, refilled at the end of every batch in its
-- transaction (src/store/aggregates/mod.rs): lift and the trend views read it, so
-- the pairs of the whole store are joined once per batch, not once per
-- report. Its columns are lift_units' (their comments copied).
CREATE OR REPLACE TABLE lift_unit_rows AS SELECT * FROM lift_units LIMIT 0;
COMMENT ON TABLE lift_unit_rows IS 'lift_units stored by every batch (what lift and the trend views read); equal to lift_units (liftdb check verifies).';
