-- `liftdb plan`: the eligible with/without pairs of the planned release
-- (objective channel; the split planned, or every split), one row each with
-- its unit (case, model) and delta, from which the plan estimates the
-- between-unit and within-unit spread of the lift.
SELECT skill_name AS skill, case_id AS "case", coalesce(model, '') AS model, delta
FROM pairs
WHERE release_label = $release
  AND control_arm = 'without_skill' AND eligible
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($split IS NULL OR split = $split)
ORDER BY skill, "case", model, repetition;
