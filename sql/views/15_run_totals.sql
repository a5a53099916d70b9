-- stored: run_total_rows
-- stored grain: case
-- run_totals: the runs view summed per (release, experiment, format, skill,
-- split, case, arm, model), in sums and counts that add up again: every
-- report or view that only counts or sums runs reads these instead of every
-- run (cost, formats, idle-spend, prune-candidates, trend's cost, the
-- reliability counts), far fewer rows than the runs. Money is
-- exact DECIMAL, means are exact (sums of liftdb_scaled and their counts,
-- recombined by liftdb_mean_of), unavailable values count as unknown, never 0.
-- run_totals_of(releases, cases): the totals of the releases listed (NULL:
-- every release) and of the cases listed (liftdb_case_key).
CREATE OR REPLACE MACRO run_totals_of(releases, cases) AS TABLE
SELECT
    release_label,
    experiment,
    source_format,
    skill_name,
    split,
    case_id,
    arm,
    model,
    count(*) AS runs,
    count(*) FILTER (WHERE scorable) AS scorable_runs,
    count(*) FILTER (WHERE graded) AS graded_runs,
    count(total_tokens) AS runs_with_tokens,
    sum(total_tokens)::BIGINT AS known_total_tokens,
    count(cost_usd) AS runs_with_cost,
    sum(cost_usd) AS known_cost_usd,
    count(elapsed_ms) AS runs_with_elapsed,
    sum(elapsed_ms) AS known_elapsed_ms,
    -- DECIMAL(38,0), not the HUGEINT the sum is: a lake keeps a HUGEINT
    -- as a DOUBLE, which is not exact.
    CAST(sum(liftdb_scaled(objective_pass_rate)) AS DECIMAL(38,0)) AS objective_sum,
    count(objective_pass_rate) AS objective_n,
    count(objective_pass_rate) FILTER (WHERE eval_intent = 'regression') AS regression_rated_runs,
    -- reliability's n and c: scorable answer runs with a rate in [0, 1], and
    -- of those the successes
    count(*) FILTER (WHERE scorable AND population = 'answer'
                     AND objective_pass_rate BETWEEN 0 AND 1) AS reliability_n,
    count(*) FILTER (WHERE scorable AND population = 'answer'
                     AND objective_pass_rate BETWEEN 0 AND 1
                     AND liftdb_is_success(objective_pass_rate)) AS reliability_c
FROM run_rows_of(releases, cases)
GROUP BY ALL;

-- run_totals_in(releases): the totals of the releases listed (NULL: every release).
CREATE OR REPLACE MACRO run_totals_in(releases) AS TABLE
SELECT * FROM run_totals_of(releases, NULL);

CREATE OR REPLACE VIEW run_totals AS SELECT * FROM run_totals_in(NULL);

COMMENT ON VIEW run_totals IS 'The runs summed per release, experiment, format, skill, split, case, arm and model: counts and exact sums that add up again (what the cost, formats and trend reports read).';

-- Columns
COMMENT ON COLUMN run_totals.release_label IS 'Release.';
COMMENT ON COLUMN run_totals.experiment IS 'The experiment of the runs (runs.experiment).';
COMMENT ON COLUMN run_totals.source_format IS 'Harness that wrote the runs.';
COMMENT ON COLUMN run_totals.skill_name IS 'Skill under test.';
COMMENT ON COLUMN run_totals.split IS 'Case split (NULL when undefined).';
COMMENT ON COLUMN run_totals.case_id IS 'Eval case.';
COMMENT ON COLUMN run_totals.arm IS 'Arm.';
COMMENT ON COLUMN run_totals.model IS 'Model (NULL when unknown).';
COMMENT ON COLUMN run_totals.runs IS 'Runs, every population.';
COMMENT ON COLUMN run_totals.scorable_runs IS 'Of those, scorable.';
COMMENT ON COLUMN run_totals.graded_runs IS 'Of those, graded.';
COMMENT ON COLUMN run_totals.runs_with_tokens IS 'Runs whose total tokens are known.';
COMMENT ON COLUMN run_totals.known_total_tokens IS 'Their total tokens summed; NULL when none is known.';
COMMENT ON COLUMN run_totals.runs_with_cost IS 'Runs whose USD cost is known.';
COMMENT ON COLUMN run_totals.known_cost_usd IS 'Their cost summed, exact DECIMAL; NULL when none is known.';
COMMENT ON COLUMN run_totals.runs_with_elapsed IS 'Runs whose wall time is known.';
COMMENT ON COLUMN run_totals.known_elapsed_ms IS 'Their wall time summed (ms); NULL when none is known.';
COMMENT ON COLUMN run_totals.objective_sum IS 'The objective pass rates summed exactly (liftdb_scaled): liftdb_mean_of(sum(objective_sum), sum(objective_n)) is their exact mean.';
COMMENT ON COLUMN run_totals.objective_n IS 'Runs with an objective pass rate.';
COMMENT ON COLUMN run_totals.regression_rated_runs IS 'Of those, runs of a regression case (eval_intent = regression).';
COMMENT ON COLUMN run_totals.reliability_n IS 'Scorable answer runs with an objective pass rate in [0, 1] (reliability''s n).';
COMMENT ON COLUMN run_totals.reliability_c IS 'Of those, successes: rate >= 1 - 1e-12 (reliability''s c).';

-- run_total_rows: run_totals stored, refilled at the end of every batch for
-- the releases it changed (src/store/aggregates/mod.rs). Its columns are
-- run_totals' (their comments copied).
CREATE OR REPLACE TABLE run_total_rows AS SELECT * FROM run_totals LIMIT 0;
COMMENT ON TABLE run_total_rows IS 'run_totals stored by every batch for the releases it changed (what reports cost, formats, idle-spend, prune-candidates and the trend and reliability views read); equal to run_totals (liftdb check verifies).';
