-- Prune candidates, and the spend on idle cases per release.
SELECT p.skill_name AS skill, p.case_id AS "case", p.releases_observed, p.reason,
       sum(r.known_cost_usd) AS known_cost_usd
FROM prune_candidates p
JOIN run_total_rows r USING (skill_name, case_id)
WHERE $skill IS NULL OR p.skill_name = $skill
GROUP BY p.skill_name, p.case_id, p.releases_observed, p.reason
ORDER BY skill, "case";
