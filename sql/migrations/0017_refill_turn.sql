-- Two writers of one lake refilling one stored aggregate at once must not
-- both commit what each computed. A refill step deletes its releases' rows
-- and inserts them again; DuckLake refuses the second of two commits where
-- one deleted from a table the other inserted into, and that commit is tried
-- again on what the first wrote. But a step that finds none of its releases'
-- rows deletes nothing (the first refill of a release, by two jobs of one
-- fan-out), and two such steps would both commit: the rows twice, or an
-- older copy beside a newer one. Such a step takes the turn instead: it
-- updates this one row, so of two at once the second conflicts and is tried
-- again. A file store has one writer and never takes it.
CREATE TABLE refill_turn (
    turns BIGINT NOT NULL  -- how many refill steps took the turn
);
INSERT INTO refill_turn VALUES (0);

COMMENT ON TABLE refill_turn IS 'One row a lake''s refill steps update when they find no rows to replace, so two writers filling one release at once do not both commit.';
