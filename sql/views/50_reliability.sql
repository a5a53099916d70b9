-- stored: reliability_rows
-- stored order: release_label, skill_name, experiment NULLS FIRST, case_id, arm, k
-- reliability: pass@k and pass^k per (experiment, case, arm), all models pooled
-- (docs/metrics.md §M5). n = scorable runs with a valid rate, c = successes
-- (rate >= 1 - 1e-12). One row per k = 1..n. Values are exact (unrounded);
-- the harness prints them rounded to 6 decimals.
-- reliability_in(releases): the rows of the releases listed (NULL: every
-- release), in no order: the stored table is kept in the report's order in
-- a DuckDB file (a lake's report sorts), and an ordered view would sort every
-- row twice.
CREATE OR REPLACE MACRO reliability_in(releases) AS TABLE
WITH counts AS (
    -- n and c counted per case, arm and model when the batch was stored
    -- (run_total_rows), added up over the models
    SELECT
        release_label, experiment, skill_name, case_id, any_value(split) AS split, arm,
        sum(reliability_n)::BIGINT AS n,
        sum(reliability_c)::BIGINT AS c
    FROM run_total_rows
    WHERE reliability_n > 0 AND (releases IS NULL OR list_contains(releases, release_label))
    GROUP BY release_label, experiment, skill_name, case_id, arm
)
SELECT
    release_label, experiment, skill_name, case_id, split, arm, n, c, k,
    CASE WHEN c >= n OR n - c < k THEN 1.0
         ELSE 1 - liftdb_comb(n - c, k) / liftdb_comb(n, k) END AS pass_at_k,
    CASE WHEN c < k THEN 0.0
         ELSE liftdb_comb(c, k) / liftdb_comb(n, k) END AS pass_hat_k
FROM counts, (SELECT unnest(range(1, n + 1)) AS k);

-- The view adds the reports' names of its columns (release, skill, case)
-- after them; its stored table holds the columns once.
CREATE OR REPLACE VIEW reliability AS
SELECT *, release_label AS release, skill_name AS skill, case_id AS "case" FROM reliability_in(NULL)
ORDER BY release_label, experiment, skill_name, case_id, arm, k;

COMMENT ON COLUMN reliability.release IS 'The same as release_label, as the reports name it.';
COMMENT ON COLUMN reliability.skill IS 'The same as skill_name, as the reports name it.';
COMMENT ON COLUMN reliability."case" IS 'The same as case_id, as the reports name it.';

COMMENT ON VIEW reliability IS 'pass@k and pass^k per case and arm (models pooled), one row per k.';

-- Columns
COMMENT ON COLUMN reliability.release_label IS 'Release.';
COMMENT ON COLUMN reliability.experiment IS 'The experiment (runs.experiment): a tool''s report pools its models, never its experiments.';
COMMENT ON COLUMN reliability.skill_name IS 'Skill under test.';
COMMENT ON COLUMN reliability.case_id IS 'Eval case.';
COMMENT ON COLUMN reliability.split IS 'Case split.';
COMMENT ON COLUMN reliability.arm IS 'Arm.';
COMMENT ON COLUMN reliability.n IS 'Scorable runs with a valid rate, models pooled.';
COMMENT ON COLUMN reliability.c IS 'Of those, successes (rate >= 1 - 1e-12).';
COMMENT ON COLUMN reliability.k IS 'Attempts, 1..n.';
COMMENT ON COLUMN reliability.pass_at_k IS '1 - C(n-c, k)/C(n, k), rounded 6 (docs/metrics.md §M5).';
COMMENT ON COLUMN reliability.pass_hat_k IS 'pass^k: C(c, k)/C(n, k), rounded 6.';

-- reliability_rows: reliability stored, refilled at the end of every batch
-- for the releases it changed, after run_total_rows (src/store/aggregates/mod.rs),
-- kept in the order report reliability lists them (a batch refills the
-- releases it changed and every release sorting after the first of them):
-- what that report reads, with no sort of its own.
CREATE OR REPLACE TABLE reliability_rows AS SELECT * FROM reliability_in(NULL) LIMIT 0;
COMMENT ON TABLE reliability_rows IS 'reliability stored by every batch for the releases it changed, kept in report order (what report reliability reads); equal to reliability (liftdb check verifies).';
