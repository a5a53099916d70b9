-- grading.origin gains a third value: 'run_folder' for the grading.json a
-- harness wrote into a run folder liftdb also grades itself
-- (skill-eval-harness `grade --write-grading-files`). Such a file is a lossy
-- copy of the harness's grading, so the runs view prefers liftdb's own.
-- Stores ingested before keep such gradings as reports until `liftdb rebuild`.
COMMENT ON COLUMN grading.origin IS 'liftdb when liftdb graded the run itself; run_folder for the grading.json a harness wrote into a run folder liftdb graded too; NULL when a tool''s report carried the grading.';
