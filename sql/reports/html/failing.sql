-- The drill-down's failing assertions, with their evidence (the first 400
-- characters), for the runs of the cases drilled into.
-- At most 300 cases of a release and skill are drilled into, the lowest
-- lift first, so the page stays a page whatever the store holds (cases.sql,
-- runs.sql and failing.sql choose them alike).
WITH drilled AS (
    SELECT release_label, skill_name, case_id
    FROM lift_evidence
    WHERE channel = 'objective' AND control_arm = 'without_skill' AND split = 'all'
      AND scope = 'case' AND row_kind = 'release'
      AND ($skill IS NULL OR skill_name = $skill)
      AND ($release IS NULL OR release_label = $release)
    QUALIFY row_number() OVER (PARTITION BY release_label, skill_name
                               ORDER BY absolute_delta NULLS FIRST, case_id) <= 300
),
drilled_runs AS MATERIALIZED (
    -- The runs of those cases first: a few thousand, the side the failing
    -- assertions (millions in a large store) are matched against. The
    -- release and skill are tested again so the scan of run_rows is
    -- narrowed before the join.
    SELECT r.run_id, r.grading_id
    FROM run_rows r
    JOIN drilled d ON d.release_label = r.release_label AND d.skill_name = r.skill_name AND d.case_id = r.case_id
    WHERE ($skill IS NULL OR r.skill_name = $skill)
      AND ($release IS NULL OR r.release_label = $release)
)
SELECT a.run_id, a.name, a.severity, a.channel, left(a.evidence, 400) AS evidence
FROM assertion_result a
JOIN drilled_runs r ON r.run_id = a.run_id AND r.grading_id = a.grading_id
WHERE a.passed = false AND NOT coalesce(a.skipped, false)
ORDER BY a.run_id, a.seq;
