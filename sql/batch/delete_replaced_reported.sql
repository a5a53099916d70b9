-- Runs a report defined, replaced by their folders: their rows out first.
DELETE FROM trace_event WHERE run_id IN (SELECT path FROM liftdb_replaced_reported);
DELETE FROM trace_line WHERE run_id IN (SELECT path FROM liftdb_replaced_reported);
DELETE FROM skill_activation WHERE run_id IN (SELECT path FROM liftdb_replaced_reported);
DELETE FROM measurement WHERE run_id IN (SELECT path FROM liftdb_replaced_reported);
DELETE FROM assertion_result WHERE grading_id IN (
    SELECT grading_id FROM grading WHERE origin = 'report_definition'
      AND run_id IN (SELECT path FROM liftdb_replaced_reported));
DELETE FROM grading WHERE origin = 'report_definition'
  AND run_id IN (SELECT path FROM liftdb_replaced_reported);
DELETE FROM run WHERE defined_by IS NOT NULL AND run_id IN (SELECT path FROM liftdb_replaced_reported);
