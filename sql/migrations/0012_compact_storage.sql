-- Compact storage for a million runs (#16). The long texts (outputs, raw
-- metadata and environment, trace lines, event summaries, measurement
-- bases, assertion evidence) are stored zstd-compressed; the child tables
-- lose their primary-key indexes. Those indexes were most of an ingest's
-- memory at scale (an in-memory ART over 12M measurement keys at 1M runs)
-- and a third of its append and commit time, while the keys are unique by
-- construction: a unit's rows are deleted before it is written again, and
-- each key comes from one parsed file. `liftdb check` verifies them
-- (src/store/check.rs). run keeps its key (one per run, and the identity
-- conflicts are reported against it).

CREATE TABLE run_v12 (run_id VARCHAR PRIMARY KEY, batch_id BIGINT NOT NULL, release_label VARCHAR NOT NULL, native_batch VARCHAR, source_format VARCHAR NOT NULL, skill_name VARCHAR NOT NULL, case_id VARCHAR NOT NULL, model VARCHAR, model_source VARCHAR, arm VARCHAR NOT NULL, repetition INTEGER NOT NULL, repetition_source VARCHAR NOT NULL, provider VARCHAR, population VARCHAR, run_dir VARCHAR NOT NULL, output_file VARCHAR, output_present BOOLEAN NOT NULL, output_text VARCHAR USING COMPRESSION zstd, failure_marker VARCHAR, returncode INTEGER, timed_out BOOLEAN, observation_complete BOOLEAN, trace_observation_complete BOOLEAN, execution_valid BOOLEAN NOT NULL, unscorable_reason VARCHAR, skill_tree_hash VARCHAR, metadata_error VARCHAR, identity_conflicts JSON, raw_metadata JSON USING COMPRESSION zstd, environment JSON USING COMPRESSION zstd, layout_reading VARCHAR);
INSERT INTO run_v12 SELECT * FROM run;
DROP TABLE run;
ALTER TABLE run_v12 RENAME TO run;
COMMENT ON TABLE run IS 'One run of a case on an arm, model and repetition: status, output, raw metadata.';
COMMENT ON COLUMN run.layout_reading IS 'How case and model were told apart in the run''s path: metadata, manifest, runs root, guessed (NULL: not a skill-eval-harness run directory).';
COMMENT ON COLUMN run.run_id IS 'hash(release, native_batch, skill, case, model, arm, repetition).';
COMMENT ON COLUMN run.native_batch IS 'The tool''s batch: runs-root dir (C), run id (A), iteration (D), evalId (E).';
COMMENT ON COLUMN run.model_source IS 'How the model was found: layout, metadata, or NULL.';
COMMENT ON COLUMN run.arm IS 'with_skill | without_skill | old_skill | ablation:<id> | other:<label>.';
COMMENT ON COLUMN run.repetition_source IS 'How the repetition was found: run_dir (run-N) or single.';
COMMENT ON COLUMN run.failure_marker IS 'The harness''s failure marker in the output (e.g. [CLAUDE FAILURE]), if any.';
COMMENT ON COLUMN run.identity_conflicts IS 'Metadata identity that disagrees with the layout.';

CREATE TABLE trace_line_v12 (run_id VARCHAR NOT NULL, line_no INTEGER NOT NULL, line VARCHAR NOT NULL USING COMPRESSION zstd);
INSERT INTO trace_line_v12 SELECT * FROM trace_line;
DROP TABLE trace_line;
ALTER TABLE trace_line_v12 RENAME TO trace_line;
COMMENT ON TABLE trace_line IS 'The raw provider trace (trace.jsonl) of a run, one row per line. Unique per (run_id, line_no) by construction (checked by liftdb check).';


CREATE TABLE measurement_v12 (run_id VARCHAR NOT NULL, metric VARCHAR NOT NULL, "value" DOUBLE, amount DECIMAL(38,12), currency VARCHAR, availability VARCHAR NOT NULL, provenance VARCHAR, reason VARCHAR, basis JSON USING COMPRESSION zstd);
INSERT INTO measurement_v12 SELECT * FROM measurement;
DROP TABLE measurement;
ALTER TABLE measurement_v12 RENAME TO measurement;
COMMENT ON TABLE measurement IS 'Tokens, cost, time and trace counters per run, with availability and provenance. Unique per (run_id, metric) by construction (checked by liftdb check).';
COMMENT ON COLUMN measurement.metric IS 'E.g. input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens, cost, elapsed_ms, tool_calls, ...';
COMMENT ON COLUMN measurement.value IS 'NULL unless available.';
COMMENT ON COLUMN measurement.amount IS 'Exact money amount (cost only).';
COMMENT ON COLUMN measurement.availability IS 'One of: available | unavailable | not_applicable.';
COMMENT ON COLUMN measurement.provenance IS 'One of: provider_reported | trace_normalized | estimated | legacy_unverified | ...';

CREATE TABLE trace_event_v12 (run_id VARCHAR NOT NULL, seq INTEGER NOT NULL, event_type VARCHAR NOT NULL, status VARCHAR, state_source VARCHAR, "name" VARCHAR, input_summary VARCHAR USING COMPRESSION zstd, output_summary VARCHAR USING COMPRESSION zstd, exit_code INTEGER, duration_ms DOUBLE, ts VARCHAR, turn INTEGER, tokens JSON, raw_ref JSON, "source" VARCHAR);
INSERT INTO trace_event_v12 SELECT * FROM trace_event;
DROP TABLE trace_event;
ALTER TABLE trace_event_v12 RENAME TO trace_event;
COMMENT ON TABLE trace_event IS 'Normalized trace events of a run (events.json): commands, tool calls, skill loads. Unique per (run_id, seq) by construction (checked by liftdb check).';
COMMENT ON COLUMN trace_event.event_type IS 'One of: skill_load | command | tool_call | file_read | file_write | message | error | metric | event.';
COMMENT ON COLUMN trace_event.status IS 'One of: completed | in_progress | failed | unknown.';

CREATE TABLE assertion_result_v12 (grading_id VARCHAR NOT NULL, run_id VARCHAR NOT NULL, seq INTEGER NOT NULL, "name" VARCHAR, "type" VARCHAR, channel VARCHAR NOT NULL, severity VARCHAR, oracle_tier VARCHAR, passed BOOLEAN, score DOUBLE, skipped BOOLEAN NOT NULL, skip_reason VARCHAR, turn INTEGER, evidence VARCHAR USING COMPRESSION zstd, judge_task_id VARCHAR, availability VARCHAR NOT NULL);
INSERT INTO assertion_result_v12 SELECT * FROM assertion_result;
DROP TABLE assertion_result;
ALTER TABLE assertion_result_v12 RENAME TO assertion_result;
COMMENT ON TABLE assertion_result IS 'Per-assertion results of a grading: channel, severity, passed, score. Unique per (grading_id, seq) by construction (checked by liftdb check).';
COMMENT ON COLUMN assertion_result.channel IS 'One of: objective | process | efficiency | qualitative.';
COMMENT ON COLUMN assertion_result.severity IS 'One of: critical | gate | soft.';
COMMENT ON COLUMN assertion_result.availability IS 'One of: complete | unavailable | deferred.';

CREATE TABLE source_file_v12 (path VARCHAR NOT NULL, sha256 VARCHAR NOT NULL, size_bytes BIGINT NOT NULL, mtime_ns BIGINT, kind VARCHAR NOT NULL, source_format VARCHAR NOT NULL, owner_key VARCHAR NOT NULL, batch_id BIGINT NOT NULL);
INSERT INTO source_file_v12 SELECT * FROM source_file;
DROP TABLE source_file;
ALTER TABLE source_file_v12 RENAME TO source_file;
COMMENT ON TABLE source_file IS 'Every ingested file with its sha256, size and owning unit (run directory or report); a file read by several units has a row per owner. Unique per (path, owner_key) by construction (checked by liftdb check).';

COMMENT ON COLUMN source_file.path IS 'Canonical absolute path of the file.';
COMMENT ON COLUMN source_file.sha256 IS 'sha256 of the bytes on disk (compressed files hashed as stored).';
COMMENT ON COLUMN source_file.size_bytes IS 'Size on disk when last read.';
COMMENT ON COLUMN source_file.mtime_ns IS 'Modification time (ns since the epoch) when last read; an unchanged size and mtime skips the file without reading it.';
COMMENT ON COLUMN source_file.kind IS 'What the file is to its owner: metadata, metrics, events, trace, output, grading, manifest, benchmark, declared (read from elsewhere), ...';
COMMENT ON COLUMN source_file.source_format IS 'Harness that wrote it: A_handbook, B_skill_evals, C_seh, D_skill_creator, E_promptfoo.';
COMMENT ON COLUMN source_file.owner_key IS 'The unit that read it: its run directory, or the loose file itself.';
COMMENT ON COLUMN source_file.batch_id IS 'Ingest batch that last read it for this owner.';
