-- Each case of the release given (--release), else the latest release: mean lift and mean paired cost delta
-- (the scatter).
SELECT case_id, avg(objective_delta) AS lift, avg(cost_delta) AS cost_delta
FROM cost_per_lift_rows
WHERE release_label = coalesce($release, (SELECT release_label FROM releases ORDER BY ordinal DESC LIMIT 1))
  AND ($skill IS NULL OR skill_name = $skill)
GROUP BY case_id
ORDER BY case_id;
