-- name: recurring-failures
-- description: Assertions that keep failing across a skill's releases, ranked as skill-benchmark trend ranks them (prevalence × severity weight: critical 3, gate 2, soft 1); the first 50.
-- params: skill
-- compact: case, assertion, severity, prevalence, rank
SELECT
    skill_name AS skill,
    case_id AS "case",
    assertion,
    severity,
    releases_failing,
    releases,
    prevalence,
    rank
FROM recurring_failures
WHERE place <= 50 AND ($skill IS NULL OR skill_name = $skill)
ORDER BY skill, place;
