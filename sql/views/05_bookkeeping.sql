-- The bookkeeping rows (migration 0015) resolved: every writer appends, these
-- say what holds.

-- releases: every release label, once, in order (the order trends follow):
-- by when a batch first named it, then by its place in that batch.
CREATE OR REPLACE VIEW releases AS
SELECT release_label,
       row_number() OVER (ORDER BY min(recorded_at), min(coalesce(batch_id, 0)), min(position), release_label)::INTEGER AS ordinal,
       min(recorded_at) AS first_ingested_at,
       arg_min(derived_from, recorded_at) AS derived_from
FROM release_record
GROUP BY release_label;
COMMENT ON VIEW releases IS 'Release labels in the order trends follow: by when a batch first named them.';

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
