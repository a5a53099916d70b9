-- What measures nothing (suspect_measurements), shown under the headline.
SELECT release_label AS release, skill_name AS skill, kind, subject, detail
FROM suspect_measurements
-- (A trigger query that never triggered is no answer lift's: the ingest
-- summary and the view say it.)
WHERE ($skill IS NULL OR skill_name = $skill)
  AND kind <> 'never_triggered'
  AND ($release IS NULL OR release_label = $release)
ORDER BY release, skill, kind, subject;
