-- `liftdb gate --non-inferiority-margin / --no-significant-regression`:
-- each (case, model) unit of a skill present in both the gated release and
-- its baseline, with the unit's lift in each (d_u: its with-skill minus
-- without-skill objective rate over its eligible pairs, lift_unit_rows),
-- as the trend pairs them. Units in the split gated, or in every split.
SELECT c.skill_name AS skill, c.case_id AS "case", c.model,
       c.delta AS lift, b.delta AS baseline_lift, c.delta - b.delta AS change
FROM lift_unit_rows c
JOIN lift_unit_rows b
  ON b.skill_name = c.skill_name AND b.case_id = c.case_id
 AND b.model IS NOT DISTINCT FROM c.model
 AND b.channel = c.channel AND b.control_arm = c.control_arm AND b.row_kind = c.row_kind
WHERE c.release_label = $release AND b.release_label = $baseline
  AND ($skill IS NULL OR c.skill_name = $skill)
  AND c.channel = 'objective' AND c.control_arm = 'without_skill' AND c.row_kind = 'release'
  AND ($split IS NULL OR c.split = $split)
  AND c.delta IS NOT NULL AND b.delta IS NOT NULL
ORDER BY skill, "case", c.model NULLS FIRST;
