-- Prune candidates, and the spend on idle cases per release.
SELECT p.skill_name AS skill, p.case_id AS "case", p.releases_observed, p.reason,
       sum(r.cost_usd) AS known_cost_usd
FROM prune_candidates p
JOIN runs r USING (skill_name, case_id)
WHERE $skill IS NULL OR p.skill_name = $skill
GROUP BY ALL
ORDER BY skill, "case";
