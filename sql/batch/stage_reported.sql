-- The temporary tables the runs reports define are staged in.
CREATE OR REPLACE TEMP TABLE liftdb_reported_run AS SELECT * FROM run LIMIT 0;
CREATE OR REPLACE TEMP TABLE liftdb_reported_measurement AS SELECT * FROM measurement LIMIT 0;
CREATE OR REPLACE TEMP TABLE liftdb_reported_skill_activation AS SELECT * FROM skill_activation LIMIT 0;
CREATE OR REPLACE TEMP TABLE liftdb_reported_grading AS SELECT * FROM grading LIMIT 0;
CREATE OR REPLACE TEMP TABLE liftdb_reported_assertion_result AS SELECT * FROM assertion_result LIMIT 0;
