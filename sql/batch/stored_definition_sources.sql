-- The plan's view of the store: the file that defined each stored case and
-- suite ('' when none). Columns: the definition's key (case_pk or
-- suite_id), its source path.
SELECT case_pk, coalesce(source_path, '') FROM case_def_record
UNION ALL SELECT suite_id, coalesce(manifest_path, '') FROM suite_record
