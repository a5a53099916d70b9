-- "What changed since the previous release" of the HTML report: each
-- case that moved in the release given (--release), else the latest release of its skill, largest drop first;
-- direction says regressed / improved only where the change is significant.
SELECT skill_name AS skill, previous_release AS previous, release_label AS release, case_id AS "case",
       liftdb_pyround(previous_lift, 4) AS previous_lift, liftdb_pyround(lift, 4) AS lift,
       liftdb_pyround(lift_change, 4) AS change, direction, change_matched AS matched, change_p_value AS change_p
FROM case_trend t
WHERE scope = 'case' AND direction <> 'unchanged' 
  AND release_label = coalesce($release, (SELECT o.release_label FROM skill_release_order o
                       WHERE o.skill_name = t.skill_name ORDER BY o.ordinal DESC LIMIT 1))
  AND ($skill IS NULL OR skill_name = $skill)
ORDER BY skill, lift_change, "case";
