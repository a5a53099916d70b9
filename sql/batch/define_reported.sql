-- The staged runs whose fate is `defined`: written, with their rows.
CREATE OR REPLACE TEMP TABLE liftdb_reported_defined AS
SELECT run_id FROM liftdb_reported_fate WHERE fate = 'defined';
INSERT INTO run SELECT * FROM liftdb_reported_run
WHERE run_id IN (SELECT run_id FROM liftdb_reported_defined);
INSERT INTO measurement SELECT * FROM liftdb_reported_measurement
WHERE run_id IN (SELECT run_id FROM liftdb_reported_defined);
INSERT INTO skill_activation SELECT * FROM liftdb_reported_skill_activation
WHERE run_id IN (SELECT run_id FROM liftdb_reported_defined);
INSERT INTO grading SELECT * FROM liftdb_reported_grading
WHERE run_id IN (SELECT run_id FROM liftdb_reported_defined);
INSERT INTO assertion_result SELECT * FROM liftdb_reported_assertion_result
WHERE run_id IN (SELECT run_id FROM liftdb_reported_defined);
