-- grading.grading_key: what a liftdb grading was computed from — the grader
-- version, the manifest case as written, the manifest's folder (references
-- and script cwd are relative to it) and the flags that change verdicts
-- (--allow-scripts, --strict). Re-ingest compares it with the key the
-- current manifest gives: a run whose key moved is graded again, so editing
-- one case regrades that case alone and a manifest ingested after its runs
-- grades them. NULL for gradings a tool's report carried.
ALTER TABLE grading ADD COLUMN grading_key VARCHAR;

COMMENT ON COLUMN grading.grading_key IS 'sha256 of (grader version, manifest case, manifest folder, --allow-scripts, --strict) for a liftdb grading; a re-ingest regrades a run whose key changed. NULL for a report''s grading.';
