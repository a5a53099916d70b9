-- Runs an Anthropic-format report defined (it names no model and no runs
-- root) that a folder of this batch holds by release, skill, case, arm and
-- repetition: the folder's run replaces them, as a folder of their own
-- identity does (`DELETE_REPLACED_REPORTED`).
CREATE OR REPLACE TEMP TABLE liftdb_replaced_reported AS
SELECT DISTINCT d.run_id AS path FROM run d JOIN run f
  ON f.release_label = d.release_label AND f.case_id = d.case_id AND f.arm = d.arm
 AND f.repetition = d.repetition AND liftdb_same_skill(f.skill_name, d.skill_name)
WHERE f.batch_id = $1 AND f.defined_by IS NULL
  AND d.defined_by IS NOT NULL AND d.source_format = 'D_skill_creator'
