-- Flags new or resolved in the release given (--release), else the latest release of each skill.
-- A stored flag is keyed `case::flag`: the case and the flag (read in words
-- on the page) apart.
SELECT skill_name AS skill, release_label AS release, change,
       regexp_extract(flag, '^(.*?)::', 1) AS "case",
       regexp_replace(flag, '^.*?::', '') AS flags
FROM trend_flag_changes t
WHERE adjacent AND scope = 'release'
  AND release_label = coalesce($release, (SELECT o.release_label FROM skill_release_order o
                       WHERE o.skill_name = t.skill_name ORDER BY o.ordinal DESC LIMIT 1))
  AND ($skill IS NULL OR skill_name = $skill)
ORDER BY skill, change, "case", flags;
