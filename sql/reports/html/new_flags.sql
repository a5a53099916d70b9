-- Flags new or resolved in the release given (--release), else the latest release of each skill.
SELECT skill_name AS skill, release_label AS release, change, flag
FROM trend_flag_changes t
WHERE release_label = coalesce($release, (SELECT o.release_label FROM skill_release_order o
                       WHERE o.skill_name = t.skill_name ORDER BY o.ordinal DESC LIMIT 1))
  AND ($skill IS NULL OR skill_name = $skill)
ORDER BY skill, change, flag;
