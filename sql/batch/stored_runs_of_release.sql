-- The plan's view of the store: every stored run of release $2, to meet
-- this batch's runs by identity (src/batch/runs.rs). here: the run was read
-- on this host ($1), or before hosts were recorded; reported: a report
-- defined it (no folder of its own).
-- Columns: run_id, run_dir, content_sha256, batch_id, here, reported.
SELECT r.run_id, r.run_dir, r.content_sha256, r.batch_id,
       coalesce(b.host = $1, b.host IS NULL) AS here,
       r.defined_by IS NOT NULL AS reported
FROM run r LEFT JOIN ingest_batch b USING (batch_id)
WHERE r.release_label = $2
