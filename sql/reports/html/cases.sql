-- The drill-down's cases: every release's case rows (objective channel,
-- every split pooled, against without_skill) with the case's split.
-- cases_in_release: how many cases the release and skill hold, drilled or not.
-- At most 300 cases of a release and skill are drilled into, the lowest
-- lift first, so the page stays a page whatever the store holds (cases.sql,
-- runs.sql and failing.sql choose them alike).
WITH drilled AS (
    SELECT release_label, skill_name, case_id,
           count(*) OVER (PARTITION BY release_label, skill_name) AS cases_in_release
    FROM lift_evidence
    WHERE channel = 'objective' AND control_arm = 'without_skill' AND split = 'all'
      AND scope = 'case' AND row_kind = 'release'
      AND ($skill IS NULL OR skill_name = $skill)
      AND ($release IS NULL OR release_label = $release)
    QUALIFY row_number() OVER (PARTITION BY release_label, skill_name
                               ORDER BY absolute_delta NULLS FIRST, case_id) <= 300
)
SELECT e.release_label, e.skill_name, e.case_id,
       coalesce(c.split, '(none)') AS split,
       e.units, e.eligible_pairs,
       liftdb_pyround(e.with_rate, 4) AS with_skill, liftdb_pyround(e.without_rate, 4) AS without_skill,
       liftdb_pyround(e.absolute_delta, 4) AS lift, e.p_value AS p, e.bh_q AS q,
       e.units_won AS wins, e.units_tied AS ties, e.units_lost AS losses,
       liftdb_case_label(e.case_id, n.case_name) AS case_label,
       d.cases_in_release
FROM lift_evidence e
JOIN drilled d USING (release_label, skill_name, case_id)
LEFT JOIN case_names n USING (release_label, skill_name, case_id)
LEFT JOIN (SELECT DISTINCT release_label, skill_name, case_id, split FROM run_total_rows) c
    USING (release_label, skill_name, case_id)
WHERE e.channel = 'objective' AND e.control_arm = 'without_skill' AND e.split = 'all'
  AND e.scope = 'case' AND e.row_kind = 'release'
  AND ($skill IS NULL OR e.skill_name = $skill)
  AND ($release IS NULL OR e.release_label = $release)
ORDER BY e.release_label, e.skill_name, e.case_id;
