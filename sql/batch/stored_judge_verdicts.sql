-- The plan's view of the store: every stored judge result as read (raw
-- JSON), merged into the judge assertions when runs are graded.
-- Columns: judge_task_id, raw, source_path (its file).
SELECT judge_task_id, raw, source_path FROM judge_verdict WHERE raw IS NOT NULL
ORDER BY source_path, judge_task_id
