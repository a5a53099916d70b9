-- Releases a batch stored runs in that now hold none, though no
-- `release drop` or rename took them: a later batch replaced them. Before
-- liftdb kept each release's runs apart (a run is its identity, never its
-- path), ingesting a folder re-used for the next release deleted the
-- runs the folder held for the one before.
--   release_label  the emptied release
--   batches        the batches that stored its runs
--   runs_stored    the runs they recorded writing
SELECT r.release_label,
       string_agg(b.batch_id::VARCHAR, ', ' ORDER BY b.batch_id) AS batches,
       sum(b.runs_written)::BIGINT AS runs_stored
FROM releases r
JOIN ingest_batch b ON b.release_label = r.release_label AND b.runs_written > 0
WHERE NOT EXISTS (SELECT 1 FROM run WHERE run.release_label = r.release_label)
  AND NOT EXISTS (SELECT 1 FROM trigger_observation t WHERE t.release_label = r.release_label)
GROUP BY r.release_label
ORDER BY r.release_label;
