-- One significance everywhere (#71): a test is significant when the p it
-- decides on is at most 0.05, that p being the exact p of an exact test and,
-- for a sampled one (n > 14), the upper confidence bound (99.9%) of its
-- Monte-Carlo estimate, min(1, hits/4096 + sqrt(ln(1000)/8192)) — the rule
-- the lift interval inverts (docs/metrics.md §M6, §M7). significant_at_0_05
-- stays skill-eval-harness 0.6.0's own flag (p <= 0.05), for parity with its
-- report. lift_stats and trend_stats are derived (refilled whenever the views
-- are re-created or a batch is written): the columns start NULL.
ALTER TABLE lift_stats ADD COLUMN p_upper DOUBLE;
ALTER TABLE lift_stats ADD COLUMN significant BOOLEAN;
ALTER TABLE trend_stats ADD COLUMN p_upper DOUBLE;
ALTER TABLE trend_stats ADD COLUMN significant BOOLEAN;

COMMENT ON COLUMN lift_stats.significant_at_0_05 IS 'skill-eval-harness 0.6.0''s flag, unrounded p <= 0.05, as its report prints it; not liftdb''s verdict (significant).';
COMMENT ON COLUMN lift_stats.p_upper IS 'The p the test decides on, unrounded: p_value_unrounded for an exact test; for a sampled one the upper bound (99.9%) of its estimate, min(1, hits/4096 + sqrt(ln(1000)/8192)); NULL when untested.';
COMMENT ON COLUMN lift_stats.significant IS 'liftdb''s significance: p_upper <= 0.05; NULL when untested.';
COMMENT ON COLUMN trend_stats.significant_at_0_05 IS 'Unrounded p <= 0.05 (0.6.0''s flag); not liftdb''s verdict (significant).';
COMMENT ON COLUMN trend_stats.p_upper IS 'The p the change''s test decides on, unrounded: the exact p, or a sampled test''s upper bound (as lift_stats.p_upper); NULL when untested.';
COMMENT ON COLUMN trend_stats.significant IS 'liftdb''s significance of the change: p_upper <= 0.05; NULL when untested.';
