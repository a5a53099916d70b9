-- How each batch's release was chosen, so that `liftdb rebuild` chooses it
-- the same way: a release named by --release holds every run of its batch;
-- one liftdb derived (skill-creator iterations, a skill tree hash, a
-- report's date) is derived again, and the iterations stay releases of
-- their own. Batches recorded before have NULL (rebuild then reads where
-- their runs went).
ALTER TABLE ingest_batch ADD COLUMN release_source VARCHAR;
COMMENT ON COLUMN ingest_batch.release_source IS 'How the batch''s release was chosen: --release, or what liftdb derived it from (previous ingest, graded runs, skill_tree_hash, generated_at, default); NULL for batches recorded before liftdb recorded it.';
