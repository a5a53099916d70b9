-- The folder of each stored run of release $1, read only to name the
-- folder that already holds an identity. Columns: run_id, run_dir.
SELECT run_id, run_dir FROM run WHERE release_label = $1
