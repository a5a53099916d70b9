-- Each time a batch stored a run, kept (#70). A run replaced by a later
-- batch (a re-ingest, a folder replacing a report's run) or deleted by one
-- (a report rewritten at its path, --prune) leaves `run`, but the
-- sequential gate must know: a pair's place among its unit's pairs is the
-- batch that first stored it, and rounds a gate run has bet on must not
-- change afterwards (a release gated sequentially grows by new runs only).
-- Appended, never rewritten (many writers of a lake at once); renamed with
-- its release, deleted with it. Existing runs were first stored, as far as
-- the store knows, by the batch that holds them.
CREATE TABLE run_stored (
    run_id        VARCHAR NOT NULL,
    batch_id      BIGINT NOT NULL,
    release_label VARCHAR NOT NULL,
    skill_name    VARCHAR NOT NULL,
    case_id       VARCHAR NOT NULL
);
INSERT INTO run_stored SELECT run_id, batch_id, release_label, skill_name, case_id FROM run;
COMMENT ON TABLE run_stored IS 'Every batch that stored a run (the first is where the sequential gate places its pair; a run stored twice, or no longer in run, changed rounds a gate may have bet on); appended by each batch, renamed and dropped with its release.';
COMMENT ON COLUMN run_stored.run_id IS 'The run (run.run_id).';
COMMENT ON COLUMN run_stored.batch_id IS 'A batch that stored it (ingest_batch.batch_id).';
COMMENT ON COLUMN run_stored.release_label IS 'The run''s release when stored (renamed with it).';
COMMENT ON COLUMN run_stored.skill_name IS 'The run''s skill.';
COMMENT ON COLUMN run_stored.case_id IS 'The run''s case.';
