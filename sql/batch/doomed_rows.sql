-- The stored rows of the units a batch replaces, named before they go
-- (`liftdb_doomed`: path, release, shard; a NULL release is every
-- release's). A run's rows are its folder's of that release and the
-- batch's shard, or those a replaced report defined; a report's gradings
-- are those of its runs of that release (and those of no stored run).
CREATE OR REPLACE TEMP TABLE liftdb_doomed_runs AS
SELECT r.run_id, r.release_label, r.skill_name, r.case_id
FROM run r JOIN liftdb_doomed d ON r.run_dir = d.path
WHERE (d.release IS NULL OR r.release_label = d.release) AND r.shard IS NOT DISTINCT FROM d.shard
UNION
SELECT r.run_id, r.release_label, r.skill_name, r.case_id
FROM run r JOIN liftdb_doomed d ON r.defined_by = d.path
WHERE d.release IS NULL OR r.release_label = d.release;
CREATE OR REPLACE TEMP TABLE liftdb_doomed_gradings AS
SELECT g.grading_id, r.release_label, r.skill_name, r.case_id
FROM grading g JOIN liftdb_doomed d ON g.report_path = d.path
LEFT JOIN run r ON r.run_id = g.run_id
WHERE d.release IS NULL OR r.run_id IS NULL OR r.release_label = d.release;
