-- run and grading lose their primary-key indexes too (#16). DuckDB holds an
-- ART index in memory whatever its memory_limit: appending a million runs
-- (sha256 keys) with ten measurements each needed a 250 MB limit with the
-- run key and fit in 120 MB without it, and a million-run ingest builds two
-- such indexes (run, grading). The keys stay unique by construction (a run
-- directory's identity is claimed once per release, a grading is keyed by its
-- run and report); the batch writer checks the keys it wrote against the
-- store before committing and refuses the batch as the index did
-- (src/store/writer.rs), and `liftdb check` verifies them.

CREATE TABLE run_v13 (run_id VARCHAR NOT NULL, batch_id BIGINT NOT NULL, release_label VARCHAR NOT NULL, native_batch VARCHAR, source_format VARCHAR NOT NULL, skill_name VARCHAR NOT NULL, case_id VARCHAR NOT NULL, model VARCHAR, model_source VARCHAR, arm VARCHAR NOT NULL, repetition INTEGER NOT NULL, repetition_source VARCHAR NOT NULL, provider VARCHAR, population VARCHAR, run_dir VARCHAR NOT NULL, output_file VARCHAR, output_present BOOLEAN NOT NULL, output_text VARCHAR USING COMPRESSION zstd, failure_marker VARCHAR, returncode INTEGER, timed_out BOOLEAN, observation_complete BOOLEAN, trace_observation_complete BOOLEAN, execution_valid BOOLEAN NOT NULL, unscorable_reason VARCHAR, skill_tree_hash VARCHAR, metadata_error VARCHAR, identity_conflicts JSON, raw_metadata JSON USING COMPRESSION zstd, environment JSON USING COMPRESSION zstd, layout_reading VARCHAR);
INSERT INTO run_v13 SELECT * FROM run;
DROP TABLE run;
ALTER TABLE run_v13 RENAME TO run;
COMMENT ON TABLE run IS 'One run of a case on an arm, model and repetition: status, output, raw metadata. Unique per run_id by construction (checked by liftdb check).';
COMMENT ON COLUMN run.run_id IS 'hash(release, native_batch, skill, case, model, arm, repetition).';
COMMENT ON COLUMN run.native_batch IS 'The tool''s batch: runs-root dir (C), run id (A), iteration (D), evalId (E).';
COMMENT ON COLUMN run.model_source IS 'How the model was found: layout, metadata, or NULL.';
COMMENT ON COLUMN run.arm IS 'with_skill | without_skill | old_skill | ablation:<id> | other:<label>.';
COMMENT ON COLUMN run.repetition_source IS 'How the repetition was found: run_dir (run-N) or single.';
COMMENT ON COLUMN run.failure_marker IS 'The harness''s failure marker in the output (e.g. [CLAUDE FAILURE]), if any.';
COMMENT ON COLUMN run.identity_conflicts IS 'Metadata identity that disagrees with the layout.';
COMMENT ON COLUMN run.layout_reading IS 'How case and model were told apart in the run''s path: metadata, manifest, runs root, guessed (NULL: not a skill-eval-harness run directory).';

CREATE TABLE grading_v13 (grading_id VARCHAR NOT NULL, run_id VARCHAR NOT NULL, report_path VARCHAR NOT NULL, generated_at TIMESTAMP, peer_missing_output BOOLEAN, peer_execution_valid BOOLEAN, peer_objective_pass_rate DOUBLE, peer_combined_pass_rate DOUBLE, peer_vetoed BOOLEAN, peer_graded_score DOUBLE, below_reference_floor JSON, deferred_judge_tasks INTEGER, rate_basis VARCHAR NOT NULL, peer_pass BOOLEAN, peer_pass_rate DOUBLE, origin VARCHAR, grading_key VARCHAR);
INSERT INTO grading_v13 SELECT * FROM grading;
DROP TABLE grading;
ALTER TABLE grading_v13 RENAME TO grading;
COMMENT ON TABLE grading IS 'The harness''s grading of a run (one per report that graded it), with its own per-run rates. Unique per grading_id by construction (checked by liftdb check).';
COMMENT ON COLUMN grading.origin IS 'liftdb when liftdb graded the run itself; NULL when a tool''s report carried the grading.';
COMMENT ON COLUMN grading.grading_key IS 'sha256 of (grader version, manifest case, manifest folder, --allow-scripts, --strict) for a liftdb grading; a re-ingest regrades a run whose key changed. NULL for a report''s grading.';

