-- What measures nothing (suspect_measurements), shown under the headline.
SELECT release_label AS release, skill_name AS skill, kind, subject, detail
FROM suspect_measurements
WHERE ($skill IS NULL OR skill_name = $skill)
  AND ($release IS NULL OR release_label = $release)
ORDER BY release, skill, kind, subject;
