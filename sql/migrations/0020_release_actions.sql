-- Releases a user renamed or dropped (`liftdb release rename|drop`), in
-- order. The batches stay in ingest_batch as they were ingested; `liftdb
-- rebuild` replays them and applies these changes where they fell between
-- them, so a rebuilt store has the releases the old one had.
CREATE TABLE release_action (
    changed_at     TIMESTAMP NOT NULL,
    change_id      BIGINT NOT NULL,
    action         VARCHAR NOT NULL,
    release_label  VARCHAR NOT NULL,
    new_label      VARCHAR,
    runs           BIGINT NOT NULL,
    liftdb_version VARCHAR NOT NULL
);
COMMENT ON TABLE release_action IS 'Each release a user renamed or dropped, in order (liftdb release rename|drop); rebuild applies them again.';
COMMENT ON COLUMN release_action.changed_at IS 'When the change was committed.';
COMMENT ON COLUMN release_action.change_id IS 'Random id of the change.';
COMMENT ON COLUMN release_action.action IS 'rename or drop.';
COMMENT ON COLUMN release_action.release_label IS 'The release renamed or dropped.';
COMMENT ON COLUMN release_action.new_label IS 'Its new label (rename); NULL for a drop.';
COMMENT ON COLUMN release_action.runs IS 'How many runs the release held when it was changed.';
COMMENT ON COLUMN release_action.liftdb_version IS 'liftdb version that made the change.';
