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
