-- A grading key this batch wrote that two rows now hold (see
-- duplicate_run_keys.sql); grading_key_holders.sql names its sources.
SELECT grading_id
 FROM grading WHERE grading_id IN (
     SELECT grading_id FROM grading
     WHERE run_id IN (SELECT run_id FROM run WHERE batch_id = $1)
        OR report_path IN (SELECT path FROM liftdb_batch_files))
 GROUP BY grading_id HAVING count(*) > 1 ORDER BY grading_id LIMIT 1
