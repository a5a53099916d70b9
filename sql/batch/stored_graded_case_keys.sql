-- The grading keys stored for the runs of release $1 that liftdb grades as
-- skill-eval-harness answer runs (the key NULL when liftdb did not grade
-- the run: no manifest case then), one row per case and key: far fewer than
-- the runs, compared first, so an unchanged manifest never streams the runs.
-- Columns: case_id, grading_key.
SELECT DISTINCT r.case_id, g.grading_key
FROM run r LEFT JOIN grading g ON g.run_id = r.run_id AND g.origin = 'liftdb'
WHERE r.release_label = $1 AND (r.source_format = 'C_seh' OR g.grading_id IS NOT NULL)
  AND coalesce(r.population, '') <> 'trigger'
