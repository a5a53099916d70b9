-- name: runs
-- description: One line per run: identity, scorability, objective pass rate, tokens, cost, time, and its id (run: the first 12 characters, enough for liftdb show).
-- params: release, skill, split, model, case, arm, experiment
-- compact: run, model, arm, rep, objective_pass_rate
-- blocks: case
-- lists: run_listing_rows
-- From run_listing_rows, stored by every batch and kept in this listing's
-- order: release, skill, experiment (NULL first), case, model (NULL first),
-- arm, rep, run id (shards of one rep). The runs are listed, neither worked out nor sorted: liftdb runs
-- this statement without its ORDER BY on a DuckDB file, which returns one
-- table's rows, filtered, in the order they were stored (its documentation:
-- SQL dialect, order preservation; `liftdb check` verifies the table's
-- order), and whole on a lake, whose files come back in no set order.
SELECT
    release_label AS release,
    skill_name AS skill,
    experiment,
    case_id AS "case",
    split,
    model,
    arm,
    repetition AS rep,
    scorable,
    liftdb_pyround(objective_pass_rate, 4) AS objective_pass_rate,
    vetoed,
    total_tokens,
    cost_usd,
    elapsed_ms,
    left(run_id, 12) AS run,
    run_id
FROM run_listing_rows
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($split IS NULL OR split = $split)
  AND ($model IS NULL OR model = $model)
  AND ($case IS NULL OR case_id = $case)
  AND ($arm IS NULL OR arm = $arm)
  AND ($experiment IS NULL OR experiment = $experiment)
ORDER BY release_label, skill_name, experiment NULLS FIRST, case_id, model NULLS FIRST, arm, repetition, run_id;
