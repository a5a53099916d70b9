-- The lake's last refilled snapshot: the latest one at which no release
-- waited for the refill of its stored aggregates, so its runs and the
-- aggregates reports read agree. A reader whose role may not refill answers
-- from it while batches wait (`liftdb lake refresh` by a writer brings them
-- in). NULL when no such snapshot is kept.
--
-- A waiting mark (refill_mark, kind 'waiting') holds from the snapshot that
-- inserted it (DuckLake's snapshot_id column of each row) until the snapshot
-- that inserted its 'done' mark; a snapshot is refilled when no mark holds
-- at it. Snapshots before the first refill done (the lake being created)
-- are not candidates.
--
-- Columns: snapshot_id (BIGINT).
WITH marks AS (
    SELECT snapshot_id, release_label, mark_id, kind FROM refill_mark
),
holds AS (
    SELECT w.snapshot_id AS since, min(d.snapshot_id) AS until
    FROM marks w
    LEFT JOIN marks d
      ON d.kind = 'done' AND d.mark_id = w.mark_id
     AND d.release_label IS NOT DISTINCT FROM w.release_label
    WHERE w.kind = 'waiting'
    GROUP BY w.snapshot_id, w.mark_id, w.release_label
)
SELECT max(s.snapshot_id) AS snapshot_id
FROM ducklake_snapshots('lake') s
WHERE s.snapshot_id >= (SELECT min(snapshot_id) FROM marks WHERE kind = 'done')
  AND NOT EXISTS (
      SELECT 1 FROM holds h
      WHERE h.since <= s.snapshot_id AND (h.until IS NULL OR h.until > s.snapshot_id)
  );
