-- The drill-down's failing assertions, with their evidence (the first 400
-- characters), for the runs the drill-down shows.
SELECT a.run_id, a.name, a.severity, a.channel, left(a.evidence, 400) AS evidence
FROM assertion_result a
JOIN runs r ON r.run_id = a.run_id AND r.grading_id = a.grading_id
WHERE a.passed = false AND NOT coalesce(a.skipped, false)
  AND ($skill IS NULL OR r.skill_name = $skill)
  AND ($release IS NULL OR r.release_label = $release)
ORDER BY a.run_id, a.seq;
