-- grading.origin: who computed a grading. 'liftdb' for liftdb's own grader
-- (skill-benchmark 0.6.0's rules, from the manifest and the run directory);
-- NULL for a grading a tool's report carried (benchmark.json, grade output,
-- grading.json). When both exist the runs view takes liftdb's own, unless one
-- of its verdicts is unavailable.
ALTER TABLE grading ADD COLUMN origin VARCHAR;

COMMENT ON COLUMN grading.origin IS 'liftdb when liftdb graded the run itself; NULL when a tool''s report carried the grading.';
