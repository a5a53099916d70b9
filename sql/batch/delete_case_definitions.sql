-- A replaced manifest gives up its cases and suites of the batch's release
-- only: the releases it defined before keep theirs. Any other replaced
-- file gives up those of the release it is replaced in (every release's,
-- when liftdb derives it). Run before DELETE_UNITS (it reads source_file).
DELETE FROM case_def_record WHERE EXISTS (SELECT 1 FROM liftdb_doomed d
     WHERE d.path = case_def_record.source_path AND (d.release IS NULL OR d.release = case_def_record.release_label))
   AND (release_label = ? OR source_path NOT IN (SELECT path FROM source_file WHERE kind = 'manifest'))
