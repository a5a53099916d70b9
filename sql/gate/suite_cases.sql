-- `liftdb gate --sequential`: the answer cases each skill's suite declares
-- in the gated release (its manifest, tool files or report rows; the split
-- gated or every split). A sequential round needs every one of them: a
-- case declared but not yet run (a shard still to come) holds the rounds
-- back rather than letting the gate bet on part of the suite.
--   skill, "case"   a declared case
SELECT skill_name AS skill, case_id AS "case"
FROM case_def
WHERE release_label = $release
  AND ($skill IS NULL OR skill_name = $skill)
  AND coalesce(population, 'answer') = 'answer'
  AND ($split IS NULL OR split = $split)
ORDER BY skill, "case";
