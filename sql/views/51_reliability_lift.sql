-- stored: reliability_lift_pooled_rows
-- stored view: reliability_lift_pooled
-- stored comments from: reliability_lift
-- reliability_lift: the paired reliability lift (docs/metrics.md §M5), as
-- skill-eval-harness 0.6.0's reliability.paired_lift builds it: per (case,
-- model) unit of an experiment, over the unit's eligible pairs (n runs on
-- each arm, c successes), the with_skill - control delta of pass@k and
-- pass^k for k = 1..n ('unit' rows); per k, the mean of those deltas over the
-- units that reach k, overall and per model. Values are exact (the unit
-- deltas unrounded, the means exact as statistics.mean); the harness prints
-- both rounded to 6 decimals. split = 'all' pools every split.
-- reliability_lift_in(releases): the rows of the releases listed (NULL: every release).
CREATE OR REPLACE MACRO reliability_lift_in(releases) AS TABLE
WITH units AS (
    -- The unit's eligible pairs and each arm's successes among them, as the
    -- objective channel of the stored units counts them (lift_unit_rows):
    -- the pairs are not joined again.
    SELECT release_label, experiment, skill_name, control_arm, coalesce(split, '(none)') AS split,
           case_id, model,
           eligible_pairs::BIGINT AS n,
           with_successes AS c_with,
           control_successes AS c_control
    FROM lift_unit_rows
    WHERE channel = 'objective' AND row_kind = 'experiment' AND eligible_pairs > 0
      AND (releases IS NULL OR list_contains(releases, release_label))
),
by_split AS (
    SELECT * FROM units
    UNION ALL
    SELECT * REPLACE ('all' AS split) FROM units
),
per_k AS (
    SELECT u.*, k,
           liftdb_pass_at_k(n, c_with, k) - liftdb_pass_at_k(n, c_control, k) AS pass_at_k_delta,
           liftdb_pass_hat_k(n, c_with, k) - liftdb_pass_hat_k(n, c_control, k) AS pass_hat_k_delta
    FROM by_split u, (SELECT unnest(range(1, n + 1)) AS k)
)
SELECT release_label, experiment, skill_name, control_arm, split, 'unit' AS scope, model, case_id, k,
       1 AS units, n, c_with, c_control, pass_at_k_delta, pass_hat_k_delta
FROM per_k
UNION ALL
SELECT release_label, experiment, skill_name, control_arm, split,
       CASE WHEN GROUPING(model) = 1 THEN 'overall' ELSE 'model' END, model, NULL, k,
       count(*), NULL, NULL, NULL,
       liftdb_mean_signed_agg(pass_at_k_delta), liftdb_mean_signed_agg(pass_hat_k_delta)
FROM per_k
GROUP BY GROUPING SETS ((release_label, experiment, skill_name, control_arm, split, k),
                        (release_label, experiment, skill_name, control_arm, split, model, k))
-- units of no model pool only into the overall rows
HAVING GROUPING(model) = 1 OR model IS NOT NULL;

CREATE OR REPLACE VIEW reliability_lift AS SELECT * FROM reliability_lift_in(NULL);

COMMENT ON VIEW reliability_lift IS 'Paired pass@k / pass^k lift (with_skill - control) per unit and k, and per k pooled overall and per model, per experiment.';

-- Columns
COMMENT ON COLUMN reliability_lift.release_label IS 'Release.';
COMMENT ON COLUMN reliability_lift.experiment IS 'The experiment (runs.experiment).';
COMMENT ON COLUMN reliability_lift.skill_name IS 'Skill under test.';
COMMENT ON COLUMN reliability_lift.control_arm IS 'Arm compared with with_skill.';
COMMENT ON COLUMN reliability_lift.split IS 'Case split, or ''all'' for every split pooled.';
COMMENT ON COLUMN reliability_lift.scope IS 'unit (one case and model), model (its units pooled) or overall.';
COMMENT ON COLUMN reliability_lift.model IS 'Model of a unit or model row.';
COMMENT ON COLUMN reliability_lift.case_id IS 'Case of a unit row.';
COMMENT ON COLUMN reliability_lift.k IS 'Attempts drawn, 1..n.';
COMMENT ON COLUMN reliability_lift.units IS 'Units that reach k (k <= their pairs).';
COMMENT ON COLUMN reliability_lift.n IS 'Eligible pairs of a unit (runs per arm).';
COMMENT ON COLUMN reliability_lift.c_with IS 'with_skill successes of a unit (rate >= 1 - 1e-12).';
COMMENT ON COLUMN reliability_lift.c_control IS 'Control successes of a unit.';
COMMENT ON COLUMN reliability_lift.pass_at_k_delta IS 'pass@k(with) - pass@k(control); on pooled rows the exact mean over units.';
COMMENT ON COLUMN reliability_lift.pass_hat_k_delta IS 'pass^k(with) - pass^k(control); on pooled rows the exact mean over units.';

-- reliability_lift_pooled: the pooled rows of reliability_lift (scope overall
-- and model), what the harness's reliability.paired_lift prints; stored as
-- reliability_lift_pooled_rows, refilled at the end of every batch for the
-- releases it changed after lift_unit_rows (src/store/aggregates/mod.rs): report
-- reliability-lift reads them instead of every unit's k rows.
CREATE OR REPLACE MACRO reliability_lift_pooled_in(releases) AS TABLE
SELECT * FROM reliability_lift_in(releases) WHERE scope <> 'unit';

CREATE OR REPLACE VIEW reliability_lift_pooled AS SELECT * FROM reliability_lift_pooled_in(NULL);

COMMENT ON VIEW reliability_lift_pooled IS 'The pooled rows of reliability_lift (overall and per model, per k); columns as reliability_lift.';

CREATE OR REPLACE TABLE reliability_lift_pooled_rows AS SELECT * FROM reliability_lift_pooled LIMIT 0;
COMMENT ON TABLE reliability_lift_pooled_rows IS 'reliability_lift_pooled stored by every batch for the releases it changed (what report reliability-lift reads); equal to reliability_lift_pooled (liftdb check verifies).';
