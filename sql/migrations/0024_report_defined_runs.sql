-- Releases a team keeps as reports: a benchmark report whose runs the store
-- does not hold defines them, from what it carries of each (its grading,
-- the run's metadata: tokens, cost, time); a run folder read later replaces
-- the run it defines. And such a release sorts by when its report was made.
ALTER TABLE run ADD COLUMN defined_by VARCHAR;
ALTER TABLE release_record ADD COLUMN sorts_at TIMESTAMP;
COMMENT ON COLUMN run.defined_by IS 'The report that defined the run (a benchmark report whose run folder the store never held): its output, trace and files are unavailable. NULL for a run read from its folder.';
COMMENT ON COLUMN release_record.sorts_at IS 'When a release made from reports alone was made (its reports'' generated_at): it sorts by that, not by when it was ingested. NULL: it sorts by recorded_at.';
