-- Keys of run and grading are unique by construction, with no index to
-- enforce it (migration 0013): before committing, the batch looks for a key
-- it wrote that two rows now hold, and is refused as the index refused it.
-- Each query names the key and the sources that hold it.
SELECT grading_id, string_agg(DISTINCT report_path, ' and ' ORDER BY report_path)
 FROM grading WHERE grading_id IN (
     SELECT grading_id FROM grading
     WHERE run_id IN (SELECT run_id FROM run WHERE batch_id = $1)
        OR report_path IN (SELECT path FROM liftdb_batch_files))
 GROUP BY grading_id HAVING count(*) > 1 ORDER BY grading_id LIMIT 1
