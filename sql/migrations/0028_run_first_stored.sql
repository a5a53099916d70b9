-- Each time a batch stored a run, kept (#70). A run replaced by a later
-- batch (a re-ingest, a folder replacing a report's run) loses its old row
-- in `run`, but the sequential gate must still know where it was first
-- stored: a pair's place among its unit's pairs, fixed when it is first
-- stored, is what keeps the gate's rounds the same from one look to the
-- next. Appended, never rewritten (many writers of a lake at once).
-- Existing runs were first stored, as far as the store knows, by the batch
-- that holds them.
CREATE TABLE run_stored (
    run_id   VARCHAR NOT NULL,
    batch_id BIGINT NOT NULL
);
INSERT INTO run_stored SELECT run_id, batch_id FROM run;
COMMENT ON TABLE run_stored IS 'Every batch that stored a run (the first is where the sequential gate places its pair); appended by each batch, a run''s rows deleted when its release is dropped.';
COMMENT ON COLUMN run_stored.run_id IS 'The run (run.run_id).';
COMMENT ON COLUMN run_stored.batch_id IS 'A batch that stored it (ingest_batch.batch_id).';
