-- ...those of the runs a report defined that run folders now replace...
INSERT INTO liftdb_touched
SELECT release_label, liftdb_case_key(release_label, skill_name, case_id) FROM run
WHERE run_id IN (SELECT path FROM liftdb_replaced_reported)
