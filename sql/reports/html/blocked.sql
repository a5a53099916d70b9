-- Pairs that could not be compared, grouped by reason.
SELECT release_label AS release, skill_name AS skill, case_id AS "case", model,
       control_arm AS control, blocked_reason AS reason, count(*) AS pairs
FROM blocked_pair_rows
WHERE NOT eligible AND ($skill IS NULL OR skill_name = $skill)
  AND ($release IS NULL OR release_label = $release)
GROUP BY ALL
ORDER BY pairs DESC
LIMIT 200;
