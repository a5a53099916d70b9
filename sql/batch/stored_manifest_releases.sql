-- The plan's view of the store: the releases each stored manifest's suite
-- belongs to. Columns: manifest_path, release_label.
SELECT DISTINCT s.manifest_path, s.release_label FROM suite s
JOIN source_file f ON f.path = s.manifest_path AND f.owner_key = s.manifest_path
WHERE f.kind = 'manifest'
