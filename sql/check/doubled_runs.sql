-- Runs an Anthropic-format report defined (it names no model and no runs
-- root) that a run read from a folder of the same release, skill (or of a
-- skill nothing named), case, arm and repetition describes: the same run
-- twice, the report's under an experiment named after its folder. liftdb now takes such a row for the
-- folder's run; a store an earlier build wrote may hold them.
--   release_label  the release holding both
--   defined_by     the report that defined them
--   runs           how many of its runs a folder's run doubles
SELECT d.release_label, d.defined_by, count(DISTINCT d.run_id) AS runs
FROM run d
JOIN run f ON f.release_label = d.release_label AND f.case_id = d.case_id
          AND f.arm = d.arm AND f.repetition = d.repetition
          AND liftdb_same_skill(f.skill_name, d.skill_name)
WHERE d.defined_by IS NOT NULL AND d.source_format = 'D_skill_creator'
  AND f.defined_by IS NULL
GROUP BY ALL
ORDER BY ALL;
