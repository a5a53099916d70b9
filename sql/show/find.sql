-- `liftdb show RUN`: the runs RUN names: its run id, a prefix of one, or
-- its folder (whole, or its end: eval-runs/case/model/arm/run-1).
SELECT run_id, release_label AS release, case_id AS "case", model, arm, repetition AS rep, run_dir AS folder
FROM run_rows
WHERE run_id = $run
   OR (length($run) >= 6 AND starts_with(run_id, $run))
   OR rtrim(run_dir, '/') = rtrim($run, '/')
   OR ends_with(rtrim(run_dir, '/'), '/' || trim($run, '/'))
ORDER BY release, "case", model, arm, rep
LIMIT 11;
