-- ...then those of the rows it wrote: its runs, the runs its gradings
-- grade (a report joins the release of the runs it grades), the cases and
-- suites it defined. Every other table the derived views read is written
-- with its run.
INSERT INTO liftdb_touched
WITH read_now AS (
    SELECT path FROM liftdb_batch_files UNION SELECT owner_key FROM liftdb_batch_files
)
SELECT release_label, liftdb_case_key(release_label, skill_name, case_id) FROM run WHERE batch_id = $1
UNION SELECT r.release_label, liftdb_case_key(r.release_label, r.skill_name, r.case_id)
      FROM grading g JOIN run r USING (run_id) WHERE g.report_path IN (SELECT path FROM read_now)
UNION SELECT release_label, NULL FROM case_def_record WHERE source_path IN (SELECT path FROM read_now)
UNION SELECT release_label, NULL FROM suite_record WHERE batch_id = $1
