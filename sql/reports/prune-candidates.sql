-- name: prune-candidates
-- description: Cases that never failed and never showed lift in any release (with = without = 1.0 in at least two), regression guards excepted: what skill-benchmark trend suggests pruning, with what they cost across the releases.
-- params: skill
-- compact: case, releases_observed, known_cost_usd, reason
SELECT
    p.skill_name AS skill,
    p.case_id AS "case",
    p.releases_observed,
    sum(r.cost_usd) AS known_cost_usd,
    count(r.cost_usd) AS runs_with_cost,
    count(*) AS runs,
    p.reason
FROM prune_candidates p
JOIN runs r USING (skill_name, case_id)
WHERE $skill IS NULL OR p.skill_name = $skill
GROUP BY ALL
ORDER BY skill, "case";
