-- name: ledger
-- description: The cost ledger: one row per run with tokens, cost (USD) and time, each with availability and provenance; NULL where the tool did not measure.
-- params: release, skill, split, model, case, arm, experiment
-- compact: case, model, arm, rep, cost_usd
-- why-null: cost_usd = cost_availability
-- lists: run_listing_rows
-- From run_listing_rows, stored by every batch and kept in this listing's
-- order (the cost_ledger view's rows, live, are the same columns):
-- release, skill, experiment (NULL first), case, model (NULL first), arm,
-- rep, run id (shards of one rep). liftdb runs this statement without its ORDER BY on a DuckDB file,
-- which returns one table's rows, filtered, in the order they were stored
-- (its documentation: SQL dialect, order preservation; `liftdb check`
-- verifies the table's order), and whole on a lake, whose files come back
-- in no set order.
SELECT
    release_label AS release,
    skill_name AS skill,
    experiment,
    case_id AS "case",
    split,
    model,
    arm,
    repetition AS rep,
    input_tokens,
    output_tokens,
    total_tokens,
    tokens_provenance,
    ledger_cost_usd AS cost_usd,
    cost_currency,
    cost_availability,
    cost_provenance,
    elapsed_ms,
    started_at
FROM run_listing_rows
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($split IS NULL OR split = $split)
  AND ($model IS NULL OR model = $model)
  AND ($case IS NULL OR case_id = $case)
  AND ($arm IS NULL OR arm = $arm)
  AND ($experiment IS NULL OR experiment = $experiment)
ORDER BY release_label, skill_name, experiment NULLS FIRST, case_id, model NULLS FIRST, arm, repetition, run_id;
