-- The first 20 recurring failures of each skill.
SELECT skill_name AS skill, case_id AS "case", assertion, severity, prevalence, rank
FROM recurring_failures
WHERE place <= 20 AND ($skill IS NULL OR skill_name = $skill)
ORDER BY skill, place;
