-- A case's name where its harness gives one beside its id: skill-creator's
-- eval_metadata.json `eval_name` (the eval folder's name after
-- `eval-<id>-` when the file has none). The id stays the key: the tool's
-- benchmark.json names evals by id alone.
ALTER TABLE run ADD COLUMN case_name VARCHAR;
COMMENT ON COLUMN run.case_name IS 'The case''s name where the harness gives one beside its id (skill-creator eval_name, else the eval folder''s name after eval-<id>-); NULL otherwise.';
