-- `liftdb gate --max-invalid-rate`: per skill and arm of the gated release
-- (the split gated, or every split; the experiment gated, or every one), the
-- answer runs and how many do not count (not_counted_runs: not scorable — an
-- infrastructure error, a cut-off answer, a served-model mismatch, no output —
-- or not graded), with the reasons in the harness's names.
SELECT r.skill_name AS skill, r.arm, count(*) AS runs,
       count(n.run_id) AS invalid,
       string_agg(DISTINCT n.reason, ', ' ORDER BY n.reason) AS reasons
FROM run_rows r
LEFT JOIN not_counted_runs n USING (run_id)
WHERE r.release_label = $release
  AND r.population = 'answer'
  AND ($skill IS NULL OR r.skill_name = $skill)
  AND ($split IS NULL OR r.split = $split)
  AND ($experiment IS NULL OR r.native_batch = $experiment)
GROUP BY r.skill_name, r.arm
ORDER BY skill, arm;
