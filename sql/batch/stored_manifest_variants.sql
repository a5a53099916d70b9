-- The plan's view of the store: the variants (arms) each stored manifest
-- declared, as read (JSON). Columns: variants, manifest_path.
SELECT s.variants, s.manifest_path FROM suite s
JOIN source_file f ON f.path = s.manifest_path AND f.owner_key = s.manifest_path
WHERE f.kind = 'manifest' AND s.variants IS NOT NULL ORDER BY s.manifest_path
