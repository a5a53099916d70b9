-- What identifies a tree and a run across machines (a team's CI: runners
-- whose trees often sit at the same path). A run is its identity (run_id:
-- release, experiment, shard, skill, case, model, arm, repetition) and its
-- content (content_sha256: its files' names and digests); a tree's place is
-- the host that read it and its path. The same runs from another place are
-- already stored when their content is equal; with other content they are
-- refused (`ingest --shard NAME` keeps a shard's runs apart). A run changed
-- in place (same host and path) replaces the stored one.
ALTER TABLE run ADD COLUMN content_sha256 VARCHAR;
ALTER TABLE run ADD COLUMN shard VARCHAR;
ALTER TABLE ingest_batch ADD COLUMN host VARCHAR;
ALTER TABLE ingest_batch ADD COLUMN shard VARCHAR;
COMMENT ON COLUMN run.content_sha256 IS 'sha256 over the run''s files (each file''s name under the run folder and its sha256, in name order): equal content read from another place is the same run. NULL for runs stored before liftdb recorded it.';
COMMENT ON COLUMN run.shard IS 'The shard of the release the run came from (ingest --shard NAME): pairs never cross shards, so each job may number its repetitions from 1. NULL when not sharded.';
COMMENT ON COLUMN ingest_batch.host IS 'The host name of the machine that ingested the batch (LIFTDB_HOST overrides it): with the paths, the place its trees were read from. NULL for batches recorded before.';
COMMENT ON COLUMN ingest_batch.shard IS 'ingest --shard NAME: the shard of the release this batch stored. NULL when not sharded.';
