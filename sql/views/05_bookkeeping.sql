-- The bookkeeping rows (migration 0015) resolved: every writer appends, these
-- say what holds.

-- releases: every release label, once, in order (the order trends follow):
-- by its sort key — the place `liftdb release move` last gave it, else when
-- a batch first named it, or for a release made from reports alone when
-- they were made (seconds since the epoch) — then, between releases
-- a batch named at once, by its place in that batch.
CREATE OR REPLACE VIEW releases AS
WITH named AS (
    SELECT release_label,
           min(recorded_at) AS first_ingested_at,
           -- a release made from reports alone: when its reports were made
           coalesce(min(sorts_at), min(recorded_at)) AS sorts_at,
           arg_min(derived_from, recorded_at) AS derived_from,
           min(coalesce(batch_id, 0)) AS first_batch,
           min(position) AS first_position
    FROM release_record
    GROUP BY release_label
),
moved AS (
    SELECT release_label, arg_max(sort_key, epoch_us(set_at) * 1000 + change_id % 1000) AS sort_key
    FROM release_position
    GROUP BY release_label
)
SELECT n.release_label,
       row_number() OVER (ORDER BY coalesce(m.sort_key, epoch_us(n.sorts_at) / 1e6),
                                   n.first_batch, n.first_position, n.release_label)::INTEGER AS ordinal,
       n.first_ingested_at,
       n.derived_from,
       coalesce(m.sort_key, epoch_us(n.sorts_at) / 1e6) AS sort_key
FROM named n
LEFT JOIN moved m USING (release_label);
COMMENT ON VIEW releases IS 'Release labels in the order trends follow: by the place liftdb release move gave them, else by when a batch first named them.';
COMMENT ON COLUMN releases.sort_key IS 'What the release sorts by: the key liftdb release move last gave it, else when a batch first named it (seconds since the epoch).';

-- liftdb_settings: the latest value of each key.
CREATE OR REPLACE VIEW liftdb_settings AS
SELECT key, arg_max(value, epoch_us(set_at) * 1000 + set_by % 1000) AS value
FROM setting_record
GROUP BY key;
COMMENT ON VIEW liftdb_settings IS 'liftdb bookkeeping: the latest value of each key (views_sha256).';

-- refill_waiting: the releases whose stored aggregates wait for a refill (a
-- NULL release: every release), each with the mark that asked for it.
CREATE OR REPLACE VIEW refill_waiting AS
SELECT w.release_label, w.mark_id, w.marked_at
FROM refill_mark w
WHERE w.kind = 'waiting'
  AND NOT EXISTS (SELECT 1 FROM refill_mark d
                  WHERE d.kind = 'done' AND d.mark_id = w.mark_id
                    AND d.release_label IS NOT DISTINCT FROM w.release_label);
COMMENT ON VIEW refill_waiting IS 'Releases whose stored aggregates wait for a refill (NULL: every release); empty when the stored aggregates are current.';
