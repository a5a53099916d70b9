-- `liftdb gate --max-invalid-rate`: per skill and arm of the gated release
-- (the split gated, or every split), the runs and how many do not count:
-- not scorable (no output, or the run did not execute validly:
-- runs.unscorable_reason says which).
SELECT skill_name AS skill, arm, count(*) AS runs,
       count(*) FILTER (WHERE NOT scorable) AS invalid,
       string_agg(DISTINCT unscorable_reason, ', ' ORDER BY unscorable_reason)
           FILTER (WHERE NOT scorable) AS reasons
FROM run_rows
WHERE release_label = $release
  AND ($skill IS NULL OR skill_name = $skill)
  AND ($split IS NULL OR split = $split)
GROUP BY skill_name, arm
ORDER BY skill, arm;
