-- The runs of release $1 that liftdb grades as skill-eval-harness answer
-- runs (stored_graded_case_keys.sql), one row each, for a manifest whose
-- grading keys moved. Columns: run_dir, case_id, grading_key.
SELECT r.run_dir, r.case_id, g.grading_key
FROM run r LEFT JOIN grading g ON g.run_id = r.run_id AND g.origin = 'liftdb'
WHERE r.release_label = $1 AND (r.source_format = 'C_seh' OR g.grading_id IS NOT NULL)
  AND coalesce(r.population, '') <> 'trigger'
