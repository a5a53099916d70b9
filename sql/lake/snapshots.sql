-- The lake's snapshots, newest last: what `report --snapshot N` reads.
-- Columns: snapshot (its id), taken (when it was committed, UTC), changes
-- (what it changed: tables created, inserted into, deleted from).
SELECT snapshot_id AS snapshot,
       snapshot_time::TIMESTAMP AS taken,
       changes::VARCHAR AS changes
FROM ducklake_snapshots('lake')
ORDER BY snapshot_id;
