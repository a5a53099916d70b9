-- stored: blocked_pair_rows
-- stored grain: case
-- stored comments from: pairs
-- blocked_pairs: the pairs that could not be compared (pairs where NOT
-- eligible), with pairs' columns. Few beside the eligible ones, so they are
-- stored (blocked_pair_rows) and report blocked lists them without pairing
-- every run of the store again.
-- blocked_pairs_of(releases, cases): those of the releases listed (NULL: every
-- release) and of the cases listed (liftdb_case_key).
CREATE OR REPLACE MACRO blocked_pairs_of(releases, cases) AS TABLE
SELECT * FROM pairs_of(releases, cases) WHERE NOT eligible;

-- blocked_pairs_in(releases): those of the releases listed (NULL: every release).
CREATE OR REPLACE MACRO blocked_pairs_in(releases) AS TABLE
SELECT * FROM blocked_pairs_of(releases, NULL);

-- The view adds the reports' names of its columns (release, skill, case …)
-- after them; its stored table holds the columns once.
CREATE OR REPLACE VIEW blocked_pairs AS SELECT *, release_label AS release, skill_name AS skill, case_id AS "case", repetition AS rep, control_arm AS control FROM blocked_pairs_in(NULL);

COMMENT ON COLUMN blocked_pairs.release IS 'The same as release_label, as the reports name it.';
COMMENT ON COLUMN blocked_pairs.skill IS 'The same as skill_name, as the reports name it.';
COMMENT ON COLUMN blocked_pairs."case" IS 'The same as case_id, as the reports name it.';
COMMENT ON COLUMN blocked_pairs.rep IS 'The same as repetition, as the reports name it.';
COMMENT ON COLUMN blocked_pairs.control IS 'The same as control_arm, as the reports name it.';

COMMENT ON VIEW blocked_pairs IS 'The pairs that could not be compared (pairs where NOT eligible), with blocked_reason; columns as pairs.';

-- blocked_pair_rows: blocked_pairs stored, refilled at the end of every batch
-- for the releases it changed (src/store/aggregates/mod.rs). Its columns are pairs'
-- (their comments copied).
CREATE OR REPLACE TABLE blocked_pair_rows AS SELECT * FROM blocked_pairs_in(NULL) LIMIT 0;
COMMENT ON TABLE blocked_pair_rows IS 'blocked_pairs stored by every batch for the releases it changed (what reports blocked and the HTML report read); equal to blocked_pairs (liftdb check verifies).';
