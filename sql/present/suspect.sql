-- Under `report lift`'s sentence on a terminal: what of the releases and
-- skills it shows measures nothing, one note each (a trigger query that
-- never triggered is no answer lift's). Column: the note.
SELECT printf('note: release %s of %s measures nothing here: %s (%s): %s',
              release_label, skill_name, kind, subject, detail) AS note
FROM suspect_measurements
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND kind <> 'never_triggered'
ORDER BY release_label, skill_name, kind, subject;
