-- The plan's view of the store: the run folders stored as phantom runs (a
-- variant the manifest requested with no folder on disk) of release $1
-- (every release when NULL) and shard $2. Another release's phantom at the
-- same path (a re-used folder) is that release's own.
SELECT run_dir FROM run WHERE repetition_source = 'phantom'
  AND ($1 IS NULL OR release_label = $1) AND shard IS NOT DISTINCT FROM $2
