-- Case and suite definitions are kept as records: writers of one lake at
-- once may each store a definition of the same case or suite (a lake keeps
-- no keys), and the views case_def and suite (sql/views/06_definitions.sql)
-- give one per key, as batches coming one after another keep one.
ALTER TABLE case_def RENAME TO case_def_record;
ALTER TABLE suite RENAME TO suite_record;

COMMENT ON TABLE case_def_record IS 'Eval case definitions as stored (from manifests, tool files, report rows); the case_def view gives one per case_pk.';
COMMENT ON TABLE suite_record IS 'Skill-under-test definitions per release as stored; the suite view gives one per suite_id.';
