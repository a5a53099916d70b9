-- name: prune-candidates
-- description: Cases that never failed and never showed lift in any release (with = without = 1.0 in at least two), regression guards excepted: what skill-benchmark trend suggests pruning, with what they cost across the releases.
-- params: skill
-- compact: case, releases_observed, known_cost_usd, reason
SELECT
    p.skill_name AS skill,
    p.case_id AS "case",
    p.releases_observed,
    sum(r.known_cost_usd) AS known_cost_usd,
    sum(r.runs_with_cost)::BIGINT AS runs_with_cost,
    sum(r.runs)::BIGINT AS runs,
    p.reason
FROM prune_candidates p
JOIN run_total_rows r USING (skill_name, case_id)
WHERE $skill IS NULL OR p.skill_name = $skill
GROUP BY p.skill_name, p.case_id, p.releases_observed, p.reason
ORDER BY skill, "case";
