-- Keys of run and grading are unique by construction, with no index to
-- enforce it (migration 0013): before committing, the batch looks for a key
-- it wrote that two rows now hold, and is refused as the index refused it.
-- Only counts per key here (state DuckDB can spill, whatever the runs);
-- run_key_holders.sql then names the sources of the one key found.
SELECT run_id
 FROM run WHERE run_id IN (SELECT run_id FROM run WHERE batch_id = $1)
 GROUP BY run_id HAVING count(*) > 1 ORDER BY run_id LIMIT 1
