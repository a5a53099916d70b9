-- liftdb core schema: the raw layer every view reads.
-- Identity keys are deterministic hashes computed by the ingester, so a
-- re-ingest of the same files produces the same keys and adds nothing.
-- Measured quantities are nullable; "not measured" is NULL plus an
-- availability column, never 0.

CREATE TABLE ingest_batch (
    batch_id        BIGINT PRIMARY KEY,        -- increasing, one per `liftdb ingest` call
    release_label   VARCHAR NOT NULL,          -- --release or derived
    paths           JSON NOT NULL,             -- the PATH arguments, as given
    liftdb_version  VARCHAR NOT NULL,
    started_at      TIMESTAMP NOT NULL,
    finished_at     TIMESTAMP,
    files_seen      BIGINT,
    files_changed   BIGINT,                    -- new or changed files parsed in this batch
    files_unchanged BIGINT,                    -- skipped: same path, same sha256
    runs_written    BIGINT,
    errors          BIGINT
);

CREATE TABLE source_file (
    path          VARCHAR PRIMARY KEY,         -- canonical absolute path
    sha256        VARCHAR NOT NULL,
    size_bytes    BIGINT NOT NULL,
    mtime_ns      BIGINT,
    kind          VARCHAR NOT NULL,            -- metadata, metrics, events, trace, output, manifest, benchmark, ...
    source_format VARCHAR NOT NULL,            -- C_seh, ...
    owner_key     VARCHAR,                     -- run_id for run files, report key for reports
    batch_id      BIGINT NOT NULL              -- batch that last (re)parsed it
);

CREATE TABLE suite (
    suite_id         VARCHAR PRIMARY KEY,      -- hash(release_label, skill_name)
    release_label    VARCHAR NOT NULL,
    skill_name       VARCHAR NOT NULL,
    source_format    VARCHAR NOT NULL,
    harness_name     VARCHAR,
    harness_version  VARCHAR,
    manifest_path    VARCHAR,
    manifest_sha256  VARCHAR,
    skill_tree_hash  VARCHAR,
    variants         JSON,                     -- manifest arm order
    ablations        JSON,
    batch_id         BIGINT NOT NULL
);

CREATE TABLE case_def (
    case_pk           VARCHAR PRIMARY KEY,     -- hash(release_label, skill_name, case_id)
    suite_id          VARCHAR NOT NULL,
    release_label     VARCHAR NOT NULL,
    skill_name        VARCHAR NOT NULL,
    case_id           VARCHAR NOT NULL,
    split             VARCHAR,                 -- tune | holdout | holdback | NULL
    kind              VARCHAR,
    population        VARCHAR,                 -- answer | trigger
    polarity          VARCHAR,                 -- positive | negative | NULL
    eval_intent       VARCHAR,
    domain            VARCHAR,
    difficulty        VARCHAR,
    trigger_type      VARCHAR,
    prompt            VARCHAR,
    expected_behavior JSON,
    success_goals     JSON,
    tags              JSON,
    assertions        JSON,
    reference_floor   DOUBLE,
    raw               JSON,
    source_path       VARCHAR                  -- the file that defined it
);

CREATE TABLE run (
    run_id                     VARCHAR PRIMARY KEY,  -- hash(release, native_batch, skill, case, model, arm, repetition)
    batch_id                   BIGINT NOT NULL,
    release_label              VARCHAR NOT NULL,
    native_batch               VARCHAR,             -- the tool's batch: runs-root dir (C), run id (A), iteration (D), evalId (E)
    source_format              VARCHAR NOT NULL,
    skill_name                 VARCHAR NOT NULL,
    case_id                    VARCHAR NOT NULL,
    model                      VARCHAR,
    model_source               VARCHAR,             -- layout | metadata | NULL
    arm                        VARCHAR NOT NULL,     -- with_skill | without_skill | old_skill | ablation:<id> | other:<label>
    repetition                 INTEGER NOT NULL,
    repetition_source          VARCHAR NOT NULL,     -- run_dir | single
    provider                   VARCHAR,
    population                 VARCHAR,
    run_dir                    VARCHAR NOT NULL,
    output_file                VARCHAR,
    output_present             BOOLEAN NOT NULL,
    output_text                VARCHAR,
    failure_marker             VARCHAR,             -- e.g. [CLAUDE FAILURE
    returncode                 INTEGER,
    timed_out                  BOOLEAN,
    observation_complete       BOOLEAN,
    trace_observation_complete BOOLEAN,
    execution_valid            BOOLEAN NOT NULL,
    unscorable_reason          VARCHAR,
    skill_tree_hash            VARCHAR,
    metadata_error             VARCHAR,
    identity_conflicts         JSON,                -- metadata identity that disagrees with the layout
    raw_metadata               JSON,
    environment                JSON
);

-- One grading of a run by the harness (benchmark/grade report results[] row).
CREATE TABLE grading (
    grading_id              VARCHAR PRIMARY KEY, -- hash(run_id, report path)
    run_id                  VARCHAR NOT NULL,
    report_path             VARCHAR NOT NULL,
    generated_at            TIMESTAMP,
    peer_missing_output     BOOLEAN,
    peer_execution_valid    BOOLEAN,
    peer_objective_pass_rate DOUBLE,
    peer_combined_pass_rate DOUBLE,
    peer_vetoed             BOOLEAN,
    peer_graded_score       DOUBLE,
    below_reference_floor   JSON,
    deferred_judge_tasks    INTEGER,
    -- How the run's rate is defined by its tool: 'assertions' (recomputed from
    -- the gate/critical rows, skill-eval-harness), 'run_outcome' (the tool's
    -- pass/fail: handbook, promptfoo), 'summary' (the grader's pass_rate: skill-creator).
    rate_basis              VARCHAR NOT NULL,
    peer_pass               BOOLEAN,
    peer_pass_rate          DOUBLE
);

CREATE TABLE assertion_result (
    grading_id    VARCHAR NOT NULL,
    run_id        VARCHAR NOT NULL,
    seq           INTEGER NOT NULL,
    name          VARCHAR,
    type          VARCHAR,
    channel       VARCHAR NOT NULL,      -- objective | process | efficiency | qualitative
    severity      VARCHAR,               -- critical | gate | soft
    oracle_tier   VARCHAR,
    passed        BOOLEAN,
    score         DOUBLE,
    skipped       BOOLEAN NOT NULL,
    skip_reason   VARCHAR,
    turn          INTEGER,
    evidence      VARCHAR,
    judge_task_id VARCHAR,
    availability  VARCHAR NOT NULL,      -- complete | unavailable | deferred
    PRIMARY KEY (grading_id, seq)
);

CREATE TABLE judge_verdict (
    judge_task_id    VARCHAR NOT NULL,
    source_path      VARCHAR NOT NULL,
    case_id          VARCHAR,
    model            VARCHAR,
    arm              VARCHAR,
    repetition       INTEGER,
    assertion_name   VARCHAR,
    judge_model      VARCHAR,
    judge_backend    VARCHAR,
    verdict_kind     VARCHAR,
    passed           BOOLEAN,
    score            DOUBLE,
    threshold        DOUBLE,
    dimension_scores JSON,
    criteria         JSON,
    minimum_criteria INTEGER,
    agreement        JSON,
    evidence         VARCHAR,
    schema_errors    JSON,
    cost_usd         DOUBLE,
    raw              JSON,
    PRIMARY KEY (source_path, judge_task_id)
);

CREATE TABLE trace_event (
    run_id         VARCHAR NOT NULL,
    seq            INTEGER NOT NULL,
    event_type     VARCHAR NOT NULL,  -- skill_load | command | tool_call | file_read | file_write | message | error | metric | event
    status         VARCHAR,           -- completed | in_progress | failed | unknown
    state_source   VARCHAR,
    name           VARCHAR,
    input_summary  VARCHAR,
    output_summary VARCHAR,
    exit_code      INTEGER,
    duration_ms    DOUBLE,
    ts             VARCHAR,
    turn           INTEGER,
    tokens         JSON,
    raw_ref        JSON,
    source         VARCHAR,
    PRIMARY KEY (run_id, seq)
);

-- trace.jsonl verbatim, one row per line, for questions events.json cannot answer.
CREATE TABLE trace_line (
    run_id  VARCHAR NOT NULL,
    line_no INTEGER NOT NULL,
    line    VARCHAR NOT NULL,
    PRIMARY KEY (run_id, line_no)
);

CREATE TABLE skill_activation (
    run_id     VARCHAR NOT NULL,
    skill_name VARCHAR,
    loaded     BOOLEAN,             -- NULL = not observable (no complete trace)
    evidence   JSON,
    source     VARCHAR NOT NULL     -- metrics_v3 | metadata | events
);

CREATE TABLE measurement (
    run_id       VARCHAR NOT NULL,
    metric       VARCHAR NOT NULL,  -- input_tokens, output_tokens, total_tokens, cache_read_tokens, cache_write_tokens, cost, elapsed_ms, tool_calls, ...
    value        DOUBLE,            -- NULL unless available
    amount       DECIMAL(38, 12),   -- exact money amount (cost only)
    currency     VARCHAR,
    availability VARCHAR NOT NULL,  -- available | unavailable | not_applicable
    provenance   VARCHAR,           -- provider_reported | trace_normalized | estimated | legacy_unverified | ...
    reason       VARCHAR,
    basis        JSON,
    PRIMARY KEY (run_id, metric)
);

CREATE TABLE trigger_observation (
    obs_id              VARCHAR PRIMARY KEY,
    source_path         VARCHAR NOT NULL,
    release_label       VARCHAR NOT NULL,
    skill_name          VARCHAR,
    agent               VARCHAR,
    model               VARCHAR,
    query_id            VARCHAR,
    query_text          VARCHAR,
    should_trigger      BOOLEAN,
    repetition          INTEGER,
    repetition_source   VARCHAR,
    runs                INTEGER NOT NULL,
    triggered_runs      INTEGER,
    triggered           BOOLEAN,
    observation_complete BOOLEAN,
    passed              BOOLEAN,
    evidence            JSON,
    elapsed_ms          DOUBLE,
    ablation            JSON,
    skill_tree_hash     VARCHAR,
    evidence_class      VARCHAR,
    trace_dir           VARCHAR
);

-- The numbers the tool itself reported, kept beside our recomputation.
CREATE TABLE peer_metric (
    source_path   VARCHAR NOT NULL,
    report_kind   VARCHAR NOT NULL,   -- benchmark | cost_summary | token_overhead | trigger_matrix
    release_label VARCHAR NOT NULL,
    skill_name    VARCHAR,
    json_path     VARCHAR NOT NULL,
    metric_name   VARCHAR NOT NULL,   -- last path segment
    value         DOUBLE,
    value_text    VARCHAR,
    availability  VARCHAR NOT NULL    -- available | null
);

CREATE TABLE ingest_error (
    batch_id    BIGINT NOT NULL,
    path        VARCHAR NOT NULL,
    stage       VARCHAR NOT NULL,     -- read | parse | detect | identity
    reason      VARCHAR NOT NULL,
    occurred_at TIMESTAMP NOT NULL
);

COMMENT ON TABLE ingest_batch IS 'One row per liftdb ingest call that wrote something: release, paths, counts.';
COMMENT ON TABLE source_file IS 'Every ingested file with its sha256, size and owning unit (run directory or report).';
COMMENT ON TABLE suite IS 'A skill under test in a release: manifest, harness, arm order.';
COMMENT ON TABLE case_def IS 'Eval cases from the manifest (or report rows): split, kind, polarity, assertions.';
COMMENT ON TABLE run IS 'One run of a case on an arm, model and repetition: status, output, raw metadata.';
COMMENT ON TABLE grading IS 'The harness''s grading of a run (one per report that graded it), with its own per-run rates.';
COMMENT ON TABLE assertion_result IS 'Per-assertion results of a grading: channel, severity, passed, score.';
COMMENT ON TABLE judge_verdict IS 'LLM-judge verdicts from judge results files, keyed by judge_task_id.';
COMMENT ON TABLE trace_event IS 'Normalized trace events of a run (events.json): commands, tool calls, skill loads.';
COMMENT ON TABLE trace_line IS 'The raw provider trace (trace.jsonl) of a run, one row per line.';
COMMENT ON TABLE skill_activation IS 'Whether the skill loaded in a run; NULL when it could not be observed.';
COMMENT ON TABLE measurement IS 'Tokens, cost, time and trace counters per run, with availability and provenance.';
COMMENT ON TABLE trigger_observation IS 'Did-the-skill-load observations from trigger reports: should vs did fire.';
COMMENT ON TABLE peer_metric IS 'The harness''s own reported aggregates, one row per JSON leaf, for reconciliation.';
COMMENT ON TABLE ingest_error IS 'Files that could not be read or understood, with the reason; the rest was ingested.';
