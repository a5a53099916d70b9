-- stored: failing_assertion_rows
-- stored grain: case
-- failing_assertions: per release, each (case, assertion, severity) that some
-- run failed, as skill-benchmark trend reads a report's failures: any run's
-- assertion that did not pass (its chosen grading's). Stored
-- (failing_assertion_rows) so recurring_failures counts releases, not every
-- assertion of every run again.
-- failing_assertions_of(releases, cases): those of the releases listed (NULL:
-- every release) and of the cases listed (liftdb_case_key).
CREATE OR REPLACE MACRO failing_assertions_of(releases, cases) AS TABLE
SELECT DISTINCT r.release_label, r.skill_name, r.case_id, a.name AS assertion,
       coalesce(a.severity, 'gate') AS severity
FROM run_rows_of(releases, cases) r
JOIN assertion_result a ON a.run_id = r.run_id AND a.grading_id = r.grading_id
WHERE NOT coalesce(a.passed, false);

-- failing_assertions_in(releases): those of the releases listed (NULL: every release).
CREATE OR REPLACE MACRO failing_assertions_in(releases) AS TABLE
SELECT * FROM failing_assertions_of(releases, NULL);

CREATE OR REPLACE VIEW failing_assertions AS SELECT * FROM failing_assertions_in(NULL);

COMMENT ON VIEW failing_assertions IS 'Per release, each (case, assertion, severity) some run failed (its chosen grading): what recurring_failures counts across releases.';
COMMENT ON COLUMN failing_assertions.release_label IS 'Release.';
COMMENT ON COLUMN failing_assertions.skill_name IS 'Skill under test.';
COMMENT ON COLUMN failing_assertions.case_id IS 'Case.';
COMMENT ON COLUMN failing_assertions.assertion IS 'Assertion name.';
COMMENT ON COLUMN failing_assertions.severity IS 'critical, gate or soft (gate when unset).';

-- failing_assertion_rows: failing_assertions stored, refilled at the end of
-- every batch for the releases it changed (src/store/aggregates/mod.rs).
CREATE OR REPLACE TABLE failing_assertion_rows AS SELECT * FROM failing_assertions LIMIT 0;
COMMENT ON TABLE failing_assertion_rows IS 'failing_assertions stored by every batch for the releases it changed (what recurring_failures reads); equal to failing_assertions (liftdb check verifies).';
