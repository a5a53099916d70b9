-- The order of releases, in a team's hands. By default a release sorts by
-- when a batch first named it; `liftdb release move NAME --after OTHER`
-- (or --first) gives it a place of its own, recorded here as a sort key (on
-- the scale of the defaults: seconds since the epoch), the latest for each
-- release holding. Trends, the HTML page and the gate's baseline follow the
-- releases view's ordinal, which reads these.
CREATE TABLE release_position (
    release_label VARCHAR NOT NULL,
    sort_key      DOUBLE NOT NULL,
    set_at        TIMESTAMP NOT NULL,
    change_id     BIGINT NOT NULL
);
COMMENT ON TABLE release_position IS 'Each place a user gave a release (liftdb release move); the latest per release holds, and the releases view orders by it.';
COMMENT ON COLUMN release_position.release_label IS 'The release moved.';
COMMENT ON COLUMN release_position.sort_key IS 'Its place: releases sort by this key (seconds since the epoch for a release never moved: when a batch first named it).';
COMMENT ON COLUMN release_position.set_at IS 'When the move was committed.';
COMMENT ON COLUMN release_position.change_id IS 'The move (release_action.change_id).';
COMMENT ON COLUMN release_action.action IS 'rename, drop or move.';
COMMENT ON COLUMN release_action.new_label IS 'Its new label (rename); the release it was moved after (move; NULL: moved first); NULL for a drop.';
