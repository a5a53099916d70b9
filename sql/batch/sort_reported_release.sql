-- A release made from reports alone sorts by when they were made: the
-- batch's record of it takes its runs' reports' earliest generated_at.
UPDATE release_record SET sorts_at = (
    SELECT min(g.generated_at) FROM grading g JOIN run r USING (run_id)
    WHERE r.release_label = $2 AND g.report_path = r.defined_by)
WHERE batch_id = $1 AND release_label = $2
  AND EXISTS (SELECT 1 FROM run WHERE release_label = $2)
  AND NOT EXISTS (SELECT 1 FROM run WHERE release_label = $2 AND defined_by IS NULL)
