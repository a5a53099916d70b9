-- A case-clustered bootstrap interval and a Benjamini–Hochberg q-value
-- beside the sign-flip p and interval
-- (docs/metrics.md §M3a): resampling cases, not runs, so a case's models
-- and repetitions move together. lift_stats is derived (refilled whenever
-- the views are re-created or a batch is written): the columns start NULL.
ALTER TABLE lift_stats ADD COLUMN bootstrap_lower DOUBLE;
ALTER TABLE lift_stats ADD COLUMN bootstrap_upper DOUBLE;
-- Benjamini–Hochberg q of a case row among its report's case rows.
ALTER TABLE lift_stats ADD COLUMN bh_q DOUBLE;

COMMENT ON COLUMN lift_stats.bootstrap_lower IS 'Case-clustered bootstrap 95% interval, lower end (2,000 resamples of the cases, seed 20261201, percentile, linear interpolation); NULL with fewer than 2 cases.';
COMMENT ON COLUMN lift_stats.bootstrap_upper IS 'Case-clustered bootstrap 95% interval, upper end; NULL with fewer than 2 cases.';
COMMENT ON COLUMN lift_stats.bh_q IS 'Benjamini–Hochberg q-value of a case row''s unrounded p among the case rows of its report (same release, skill, control arm, channel, split, row kind, experiment); NULL on other rows.';
