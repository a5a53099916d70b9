-- stored: blocked_pair_rows
-- stored comments from: pairs
-- blocked_pairs: the pairs that could not be compared (pairs where NOT
-- eligible), with pairs' columns. Few beside the eligible ones, so they are
-- stored (blocked_pair_rows) and report blocked lists them without pairing
-- every run of the store again.
-- blocked_pairs_in(releases): those of the releases listed (NULL: every release).
CREATE OR REPLACE MACRO blocked_pairs_in(releases) AS TABLE
SELECT * FROM pairs_in(releases) WHERE NOT eligible;

CREATE OR REPLACE VIEW blocked_pairs AS SELECT * FROM blocked_pairs_in(NULL);

COMMENT ON VIEW blocked_pairs IS 'The pairs that could not be compared (pairs where NOT eligible), with blocked_reason; columns as pairs.';

-- blocked_pair_rows: blocked_pairs stored, refilled at the end of every batch
-- for the releases it changed (src/store/aggregates/mod.rs). Its columns are pairs'
-- (their comments copied).
CREATE OR REPLACE TABLE blocked_pair_rows AS SELECT * FROM blocked_pairs LIMIT 0;
COMMENT ON TABLE blocked_pair_rows IS 'blocked_pairs stored by every batch for the releases it changed (what reports blocked and the HTML report read); equal to blocked_pairs (liftdb check verifies).';
