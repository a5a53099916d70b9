-- A replaced manifest gives up its cases and suites of the batch's release
-- only: the releases it defined before keep theirs. Any other replaced
-- file gives up those of the release it is replaced in (every release's,
-- when liftdb derives it). Run before DELETE_UNITS (it reads source_file).
DELETE FROM suite_record WHERE EXISTS (SELECT 1 FROM liftdb_doomed d
     WHERE d.path = suite_record.manifest_path AND (d.release IS NULL OR d.release = suite_record.release_label))
   AND (release_label = ? OR manifest_path NOT IN (SELECT path FROM source_file WHERE kind = 'manifest'))
