-- name: idle-spend
-- description: Per release, the known spend on cases flagged saturated or without objective lift — what pruning them would save — beside the release's known spend.
-- params: skill, release
-- compact: release, idle_cases, idle_runs, idle_known_cost_usd, known_cost_usd, idle_share
SELECT
    s.skill_name AS skill,
    s.release_label AS release,
    s.idle_cases,
    s.idle_runs,
    s.idle_known_cost_usd,
    s.idle_known_tokens,
    s.known_cost_usd,
    liftdb_pyround(s.idle_cost_share, 4) AS idle_share
FROM idle_case_spend s
JOIN releases r USING (release_label)
WHERE ($skill IS NULL OR s.skill_name = $skill)
  AND ($release IS NULL OR s.release_label = $release)
ORDER BY skill, r.ordinal;
