-- case_def and suite: one definition per key. Batches one after another keep
-- the first definition stored (the batch's resolve stage skips a case or
-- suite the store already defines); writers of one lake at once may each
-- store one, and these views keep one of them, the same whichever reads.

CREATE OR REPLACE VIEW case_def AS
SELECT * EXCLUDE (copy)
FROM (SELECT *, row_number() OVER (PARTITION BY case_pk ORDER BY source_path NULLS LAST) AS copy
      FROM case_def_record)
WHERE copy = 1;
COMMENT ON VIEW case_def IS 'Eval cases, one per case_pk (the case_def_record rows, a concurrent writer''s copy left out).';

CREATE OR REPLACE VIEW suite AS
SELECT * EXCLUDE (copy)
FROM (SELECT *, row_number() OVER (PARTITION BY suite_id ORDER BY batch_id, manifest_path NULLS LAST) AS copy
      FROM suite_record)
WHERE copy = 1;
COMMENT ON VIEW suite IS 'Skills under test per release, one per suite_id (the suite_record rows, a concurrent writer''s copy left out).';

-- case_names: a case's name beside its id, where its harness gives one
-- (skill-creator's eval_name): the reports print it by the id.
CREATE OR REPLACE VIEW case_names AS
SELECT release_label, skill_name, case_id, min(case_name) AS case_name
FROM run
WHERE case_name IS NOT NULL
GROUP BY release_label, skill_name, case_id;
COMMENT ON VIEW case_names IS 'One name per release, skill and case, where the harness gives one beside the id (skill-creator eval_name).';
COMMENT ON COLUMN case_names.release_label IS 'Release of the case''s runs.';
COMMENT ON COLUMN case_names.skill_name IS 'Skill under test.';
COMMENT ON COLUMN case_names.case_id IS 'Eval case id (the key the reports use).';
COMMENT ON COLUMN case_names.case_name IS 'The name the harness gives the case (the first, should its runs disagree).';
