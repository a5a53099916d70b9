-- name: ledger
-- description: The cost ledger: one row per run with tokens, cost (USD) and time, each with availability and provenance; NULL where the tool did not measure.
-- params: release, skill, split, model, case, arm, experiment
-- compact: case, model, arm, rep, cost_usd
-- From run_rows, the runs view stored by every batch (the cost_ledger view's
-- rows, live, are the same columns): a million runs are listed, not worked out.
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
    CAST(cost_usd AS DECIMAL(18, 6)) AS cost_usd,
    cost_availability,
    cost_provenance,
    elapsed_ms
FROM run_rows
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($split IS NULL OR split = $split)
  AND ($model IS NULL OR model = $model)
  AND ($case IS NULL OR case_id = $case)
  AND ($arm IS NULL OR arm = $arm)
  AND ($experiment IS NULL OR experiment = $experiment)
ORDER BY release, skill, experiment NULLS FIRST, "case", model NULLS FIRST, arm, rep;
