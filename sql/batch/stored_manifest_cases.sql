-- The plan's view of the store: every case a stored manifest defined, as
-- the manifest wrote it (raw JSON), for grading run folders against.
-- Columns: case_id, raw, source_path (the manifest).
SELECT c.case_id, c.raw, c.source_path FROM case_def_record c
JOIN source_file f ON f.path = c.source_path AND f.owner_key = c.source_path
WHERE f.kind = 'manifest' AND c.raw IS NOT NULL ORDER BY c.source_path, c.case_id
