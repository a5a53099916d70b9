-- Whether the release $value waits for the refill of its stored aggregates
-- while this reader answers from the lake's last refilled snapshot (a role
-- that may only read, opened while batches wait): then a --release naming
-- it is told so, not that the store lacks it. The open records what waits
-- in two session variables: liftdb_answer_snapshot (the snapshot read) and
-- liftdb_waiting_releases (their labels; NULL when every release waits).
-- No row otherwise (a file store, or nothing waits).
--
-- Columns: answered_at (BIGINT, the snapshot the reader reads).
SELECT getvariable('liftdb_answer_snapshot')::BIGINT AS answered_at
WHERE getvariable('liftdb_answer_snapshot') IS NOT NULL
  AND (getvariable('liftdb_waiting_releases') IS NULL
       OR list_contains(getvariable('liftdb_waiting_releases')::VARCHAR[], $value));
