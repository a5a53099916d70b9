-- The plan's view of the store (src/batch/state.rs): each stored case's
-- skill, for runs whose case this batch does not define.
-- Columns: case_id, skill_name.
SELECT case_id, skill_name FROM case_def
