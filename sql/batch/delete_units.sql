-- delete_units: every row of the units a batch replaces (liftdb_doomed_runs,
-- liftdb_doomed_gradings, liftdb_doomed), table by table.
DELETE FROM trace_event WHERE run_id IN (SELECT run_id FROM liftdb_doomed_runs);
DELETE FROM trace_line WHERE run_id IN (SELECT run_id FROM liftdb_doomed_runs);
DELETE FROM skill_activation WHERE run_id IN (SELECT run_id FROM liftdb_doomed_runs);
DELETE FROM measurement WHERE run_id IN (SELECT run_id FROM liftdb_doomed_runs);
-- A run a replaced report defined goes with it (its folder, read
-- since, replaced it and is not the report's).
DELETE FROM run WHERE run_id IN (SELECT run_id FROM liftdb_doomed_runs);
DELETE FROM assertion_result WHERE grading_id IN (SELECT grading_id FROM liftdb_doomed_gradings);
DELETE FROM grading WHERE grading_id IN (SELECT grading_id FROM liftdb_doomed_gradings);
DELETE FROM peer_metric WHERE EXISTS (SELECT 1 FROM liftdb_doomed d
     WHERE d.path = peer_metric.source_path AND (d.release IS NULL OR d.release = peer_metric.release_label));
DELETE FROM trigger_observation WHERE EXISTS (SELECT 1 FROM liftdb_doomed d
     WHERE d.path = trigger_observation.source_path AND (d.release IS NULL OR d.release = trigger_observation.release_label));
-- Keyed by (file, task) alone: a judge file is replaced whole.
DELETE FROM judge_verdict WHERE source_path IN (SELECT path FROM liftdb_doomed);
DELETE FROM source_file WHERE EXISTS (SELECT 1 FROM liftdb_doomed d
     WHERE d.path = source_file.owner_key AND (d.release IS NULL OR d.release = source_file.release_label)
       AND d.shard IS NOT DISTINCT FROM source_file.shard);
