-- The trend per case: trend_stats also holds, for each release and the one
-- before it, the sign-flip test of a case's change in lift over its matched
-- units (scope 'case': its models) and of a (case, model)'s change over its
-- matched repetitions (scope 'case_model'). Derived, refilled with the views.
ALTER TABLE trend_stats ADD COLUMN case_id VARCHAR;

COMMENT ON COLUMN trend_stats.case_id IS 'The case of a case or case_model row; NULL on overall and model rows.';
