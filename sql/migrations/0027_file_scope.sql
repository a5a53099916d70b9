-- A file's row names the release and shard it was read for (#69). A run is
-- its identity, never its path: one folder re-used for the next release
-- (the usual eval-runs/, a CI runner checking out at one path) holds the
-- runs of several releases over time, and matrix jobs at one checkout path
-- read shards at the same path. source_file is keyed by (path, owner_key,
-- release_label, shard), so each release and shard keeps its own rows and
-- a re-ingest replaces a unit of its own release and shard only. Existing
-- rows take the release of the run their folder holds, else their batch's,
-- and a run folder's file its batch's shard. Added, not rewritten: DuckLake takes ALTER and
-- UPDATE, and only the two new columns are written.
ALTER TABLE source_file ADD COLUMN release_label VARCHAR;
ALTER TABLE source_file ADD COLUMN shard VARCHAR;
UPDATE source_file SET release_label = b.release_label,
    -- a loose file (its own owner) and the files it declares: no shard
    shard = CASE WHEN source_file.owner_key IN (SELECT owner_key FROM source_file WHERE path = owner_key)
                 THEN NULL ELSE b.shard END
FROM ingest_batch b WHERE b.batch_id = source_file.batch_id;
UPDATE source_file SET release_label = r.release_label
FROM (SELECT run_dir, any_value(release_label) AS release_label FROM run GROUP BY run_dir) r
WHERE r.run_dir = source_file.owner_key;
COMMENT ON TABLE source_file IS 'Every ingested file with its sha256, size and owning unit (run directory or report), per release and shard it was read for; a file read by several units, or for several releases, has a row for each. Unique per (path, owner_key, release_label, shard) by construction (checked by liftdb check).';
COMMENT ON COLUMN source_file.release_label IS 'The release the file was read for: a folder re-used for the next release keeps a row per release. NULL only for a file recorded by no batch with a release.';
COMMENT ON COLUMN source_file.shard IS 'ingest --shard NAME of the batch that read a run folder''s file: matrix jobs at one checkout path keep a row per shard. NULL when not sharded, and for a manifest or report (shared by the shards of its release).';
