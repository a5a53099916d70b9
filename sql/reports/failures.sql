-- name: failures
-- description: Each failing assertion of each run, with its evidence: which runs fail, on what, and why (liftdb show RUN for one run whole).
-- params: release, skill, experiment, case, model, arm, rep
-- compact: run, arm, rep, assertion, evidence
-- blocks: case, case_name, model
-- From run_rows (the stored runs) and assertion_result: an assertion of the
-- grading each run counts (its chosen one) that did not pass and was not
-- skipped. Evidence is the grader's own words, the first 300 characters.
SELECT
    r.release_label AS release,
    r.skill_name AS skill,
    r.experiment,
    r.case_id AS "case",
    r.case_name,
    r.model,
    r.arm,
    r.repetition AS rep,
    left(r.run_id, 12) AS run,
    r.run_id,
    a.name AS assertion,
    coalesce(a.severity, 'gate') AS severity,
    a.channel,
    a.type,
    left(a.evidence, 300) AS evidence
FROM run_rows r
JOIN assertion_result a ON a.run_id = r.run_id AND a.grading_id = r.grading_id
WHERE a.passed = false AND NOT coalesce(a.skipped, false)
  AND ($release IS NULL OR r.release_label = $release)
  AND ($skill IS NULL OR r.skill_name = $skill)
  AND ($experiment IS NULL OR r.experiment = $experiment)
  AND ($case IS NULL OR r.case_id = $case)
  AND ($model IS NULL OR r.model = $model)
  AND ($arm IS NULL OR r.arm = $arm)
  AND ($rep IS NULL OR r.repetition = TRY_CAST($rep AS INTEGER))
ORDER BY release, skill, r.experiment NULLS FIRST, try_cast("case" AS BIGINT) NULLS LAST, "case", r.model NULLS FIRST, arm, rep, a.seq;
