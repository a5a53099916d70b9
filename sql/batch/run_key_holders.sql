-- The run folders that hold the duplicated run key $1 (duplicate_run_keys.sql).
SELECT string_agg(DISTINCT run_dir, ' and ' ORDER BY run_dir) FROM run WHERE run_id = $1
