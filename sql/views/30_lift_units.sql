-- lift_units: the unit of the paired lift (docs/metrics.md §M3) is (case, model),
-- or the case alone for runs whose model is unknown, within one native batch
-- of the tool (a handbook run id, a promptfoo eval). Repetitions are averaged
-- inside a unit over its eligible pairs, on three channels:
--   objective  objective_pass_rate, pairs validated on it (M2/M3)
--   pass_at_1  run success (rate >= 1 - 1e-12) over the same pairs: the
--              reliability paired lift's delta pass@1 (M5)
--   graded     graded_score, pairs where both arms have a score in [0, 1] (M3 graded)
CREATE OR REPLACE VIEW lift_units AS
WITH channels AS (
    SELECT *, 'objective' AS channel, eligible AS usable,
           with_rate AS with_value, control_rate AS control_value
    FROM pairs
    UNION ALL
    SELECT *, 'pass_at_1', eligible,
           CASE WHEN liftdb_is_success(with_rate) THEN 1.0 ELSE 0.0 END,
           CASE WHEN liftdb_is_success(control_rate) THEN 1.0 ELSE 0.0 END
    FROM pairs
    UNION ALL
    SELECT p.*, 'graded',
           p.with_run_id IS NOT NULL AND p.control_run_id IS NOT NULL
           AND p.with_scorable AND p.control_scorable
           AND p.with_graded_score BETWEEN 0 AND 1 AND p.control_graded_score BETWEEN 0 AND 1,
           p.with_graded_score, p.control_graded_score
    FROM pairs p
)
SELECT
    release_label,
    skill_name,
    control_arm,
    channel,
    split,
    native_batch,
    case_id,
    model,
    count(*) FILTER (WHERE usable) AS eligible_pairs,
    count(*) FILTER (WHERE NOT usable) AS blocked_pairs,
    -- Exact means (liftdb_mean, as statistics.mean): with avg() the last bit
    -- would follow DuckDB's summation order, and a unit with equal arms could
    -- come out negative.
    liftdb_mean(list(with_value) FILTER (WHERE usable)) AS with_rate,
    liftdb_mean(list(control_value) FILTER (WHERE usable)) AS without_rate,
    liftdb_mean(list(with_value) FILTER (WHERE usable))
        - liftdb_mean(list(control_value) FILTER (WHERE usable)) AS delta
FROM channels
GROUP BY ALL;

COMMENT ON VIEW lift_units IS 'Per (case, model) unit means of with_skill and control values over eligible pairs, per channel (objective, pass_at_1, graded).';
