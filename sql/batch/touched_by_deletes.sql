-- What a batch touched, for its refill (aggregates/refill.rs): the
-- release and case (liftdb_case_key; NULL: the release whole) of each row
-- whose stored aggregates can change. First those of the rows it deletes
-- (`DOOMED_ROWS`): its runs, the runs of its gradings; a replaced case or
-- suite definition touches its release whole...
CREATE OR REPLACE TEMP TABLE liftdb_touched AS
SELECT release_label, liftdb_case_key(release_label, skill_name, case_id) AS case_key FROM liftdb_doomed_runs
UNION SELECT release_label, liftdb_case_key(release_label, skill_name, case_id)
      FROM liftdb_doomed_gradings WHERE release_label IS NOT NULL
UNION SELECT c.release_label, NULL FROM case_def_record c JOIN liftdb_doomed d ON d.path = c.source_path
      WHERE d.release IS NULL OR d.release = c.release_label
UNION SELECT s.release_label, NULL FROM suite_record s JOIN liftdb_doomed d ON d.path = s.manifest_path
      WHERE d.release IS NULL OR d.release = s.release_label
