-- `liftdb show RUN`: each assertion of the grading the run counts, in the
-- grader's order, with its outcome and evidence (the grader's words).
SELECT
    a.name AS assertion,
    CASE WHEN coalesce(a.skipped, false) THEN 'skipped'
         WHEN a.passed THEN 'passed'
         WHEN NOT a.passed THEN 'FAILED'
         ELSE 'unavailable' END AS outcome,
    coalesce(a.severity, 'gate') AS severity,
    a.channel,
    a.type,
    coalesce(a.evidence, a.skip_reason) AS evidence
FROM runs r
JOIN assertion_result a ON a.run_id = r.run_id AND a.grading_id = r.grading_id
WHERE r.run_id = $run
ORDER BY a.seq;
