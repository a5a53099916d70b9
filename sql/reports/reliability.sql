-- name: reliability
-- description: pass@k and pass^k per case and arm (all models pooled), k = 1..n.
-- params: release, skill, split, case, arm, experiment
-- compact: case, arm, n, c, k, pass_at_k, pass_hat_k
-- lists: reliability_rows
-- From reliability_rows, stored by every batch and kept in this report's
-- order: release, skill, experiment (NULL first), case, arm, k. liftdb runs
-- this statement without its ORDER BY on a DuckDB file, which returns one
-- table's rows, filtered, in the order they were stored (its documentation:
-- SQL dialect, order preservation; `liftdb check` verifies the table's
-- order), and whole on a lake, whose files come back in no set order.
SELECT
    release_label AS release,
    skill_name AS skill,
    experiment,
    split,
    case_id AS "case",
    arm,
    n,
    c,
    k,
    liftdb_pyround(pass_at_k, 6) AS pass_at_k,
    liftdb_pyround(pass_hat_k, 6) AS pass_hat_k
FROM reliability_rows
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($split IS NULL OR split = $split)
  AND ($case IS NULL OR case_id = $case)
  AND ($arm IS NULL OR arm = $arm)
  AND ($experiment IS NULL OR experiment = $experiment)
ORDER BY release_label, skill_name, experiment NULLS FIRST, case_id, arm, k;
