-- What becomes of each run a report of the batch lists, once the batch's
-- folders are written: `held`, a run of its identity is stored; `carried`,
-- the report is in Anthropic's format, which names no model and no runs
-- root (an export), and a run read from a folder of its release, skill
-- (or of a skill nothing named: `liftdb_same_skill`), case, arm and
-- repetition is stored: it describes that run; `beside`, its release holds runs of its skill read from
-- folders, so the report sits beside its runs and the tree lacks this one
-- (defined only with `$1`, `ingest --define-reported`); else `defined`, a
-- report alone (archived history) defines it.
CREATE OR REPLACE TEMP TABLE liftdb_reported_fate AS
SELECT s.run_id, CASE
    WHEN s.run_id IN (SELECT run_id FROM run) THEN 'held'
    WHEN s.source_format = 'D_skill_creator' AND EXISTS (
        SELECT 1 FROM run f WHERE f.defined_by IS NULL AND f.release_label = s.release_label
          AND liftdb_same_skill(f.skill_name, s.skill_name) AND f.case_id = s.case_id
          AND f.arm = s.arm AND f.repetition = s.repetition) THEN 'carried'
    WHEN NOT $1 AND EXISTS (
        SELECT 1 FROM run f WHERE f.defined_by IS NULL AND f.release_label = s.release_label
          AND f.skill_name = s.skill_name) THEN 'beside'
    ELSE 'defined' END AS fate
FROM liftdb_reported_run s
