-- name: trend
-- description: Lift, cost and the change from the previous release, per skill (and model), in release order.
-- params: skill, model, release, experiment
-- compact: model, release, units, lift, p, lift_change, change_p
SELECT
    skill_name AS skill,
    scope,
    model,
    release_order AS "order",
    release_label AS release,
    units,
    liftdb_pyround(with_rate, 4) AS with_skill,
    liftdb_pyround(without_rate, 4) AS without_skill,
    liftdb_pyround(lift, 4) AS lift,
    p_value AS p,
    significant,
    ci_lower,
    ci_upper,
    CAST(known_cost_usd AS DECIMAL(18, 6)) AS known_cost_usd,
    previous_release AS previous,
    liftdb_pyround(lift_change, 4) AS lift_change,
    change_matched_units AS matched,
    change_p_value AS change_p,
    change_significant
FROM trend
WHERE ($skill IS NULL OR skill_name = $skill)
  AND ($model IS NULL OR scope = 'overall' OR model = $model)
  AND ($release IS NULL OR release_label = $release)
  AND ($experiment IS NULL OR release_label IN (SELECT release_label FROM run_total_rows WHERE experiment = $experiment))
ORDER BY skill, CASE scope WHEN 'overall' THEN 0 ELSE 1 END, model NULLS FIRST, release_order;
