-- Lift per case of the release given (--release), else the latest release (the bar chart): lift, its 95%
-- interval, the range of its unit deltas (shown where no interval is bounded).
SELECT skill_name, case_id, absolute_delta, ci_lower, ci_upper,
       list_min(deltas) AS min_unit, list_max(deltas) AS max_unit, release_label,
       liftdb_case_label(case_id, n.case_name) AS case_label
FROM lift_evidence
LEFT JOIN case_names n USING (release_label, skill_name, case_id)
WHERE channel = 'objective' AND control_arm = 'without_skill' AND split = 'all'
  AND scope = 'case' AND row_kind = 'release'
  AND release_label = coalesce($release, (SELECT release_label FROM releases ORDER BY ordinal DESC LIMIT 1))
  AND ($skill IS NULL OR skill_name = $skill)
ORDER BY skill_name, absolute_delta DESC, case_id;
