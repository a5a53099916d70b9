-- Shared bookkeeping is appended, never rewritten in place. A team's writers
-- ingest into one lake at once, and a read-modify-write of a shared row (the
-- next release ordinal, a setting, the releases waiting for their refill) by
-- two of them loses one's update, with no key left to catch it. Each fact is
-- now a row of its own, and views resolve them (sql/views/05_bookkeeping.sql:
-- releases, liftdb_settings, refill_waiting). Written in the dialect both a
-- DuckDB file and a DuckLake accept: no keys, no compression clauses.

-- A release named by a batch. Its ordinal is its place by the first record.
CREATE TABLE release_record (
    release_label VARCHAR NOT NULL,
    recorded_at   TIMESTAMP NOT NULL,  -- when the batch naming it began
    batch_id      BIGINT,              -- that batch (NULL: recorded before this migration)
    position      INTEGER NOT NULL,    -- its place among the releases that batch named
    derived_from  VARCHAR              -- how the label was chosen
);
INSERT INTO release_record
SELECT release_label, first_ingested_at, NULL, ordinal, derived_from FROM releases;
DROP TABLE releases;

-- A setting as set; the latest value of a key is its value.
CREATE TABLE setting_record (
    key     VARCHAR NOT NULL,
    value   VARCHAR NOT NULL,
    set_at  TIMESTAMP NOT NULL,
    set_by  BIGINT NOT NULL  -- the writer's random id, ordering writes of one instant
);
INSERT INTO setting_record
SELECT key, value, now()::TIMESTAMP, 0 FROM liftdb_settings WHERE key <> 'refill_pending';

-- A release's stored aggregates waiting for a refill, and the refill that did it.
CREATE TABLE refill_mark (
    release_label VARCHAR,           -- NULL: every release (the views changed)
    mark_id       BIGINT NOT NULL,   -- the batch or views change that asked for it
    kind          VARCHAR NOT NULL,  -- 'waiting' or 'done'
    marked_at     TIMESTAMP NOT NULL
);
INSERT INTO refill_mark
SELECT label, 0, 'waiting', now()::TIMESTAMP
FROM (SELECT unnest(from_json(value, '["VARCHAR"]')) AS label
      FROM liftdb_settings
      WHERE key = 'refill_pending' AND json_valid(value) AND starts_with(value, '['));
INSERT INTO refill_mark
SELECT NULL, 0, 'waiting', now()::TIMESTAMP
FROM liftdb_settings
WHERE key = 'refill_pending' AND NOT (json_valid(value) AND starts_with(value, '['));
DROP TABLE liftdb_settings;

COMMENT ON TABLE release_record IS 'Each release as a batch named it; the releases view gives each label once, with its ordinal.';
COMMENT ON TABLE setting_record IS 'liftdb bookkeeping as set (views_sha256); the liftdb_settings view gives the latest value of each key.';
COMMENT ON TABLE refill_mark IS 'Releases whose stored aggregates wait for a refill (waiting) and the refills that did them (done); the refill_waiting view lists what still waits.';
