-- lift_stats keyed by the lift view's row kind and experiment: a release
-- holding several experiments (seh runs roots, handbook run ids,
-- skill-creator iterations, promptfoo evals) has one row per experiment,
-- equal to that tool's report, and release rows pooling them with each
-- (case, model) counted once. The table is derived (refilled from the lift
-- view whenever the views are re-created or a batch is written), so it is
-- re-created empty here.
DROP TABLE lift_stats;
CREATE TABLE lift_stats (
    release_label         VARCHAR NOT NULL,
    skill_name            VARCHAR NOT NULL,
    control_arm           VARCHAR NOT NULL,
    channel               VARCHAR NOT NULL,   -- objective | pass_at_1 | graded
    split                 VARCHAR NOT NULL,
    row_kind              VARCHAR NOT NULL,   -- experiment | release
    experiment            VARCHAR,            -- NULL on a release row
    scope                 VARCHAR NOT NULL,   -- overall | model | case
    model                 VARCHAR,
    case_id               VARCHAR,
    n                     INTEGER NOT NULL,   -- units (case x model)
    method                VARCHAR NOT NULL,   -- sign-flip-exact | sign-flip-sampled | sign-flip
    observed_mean_delta   DOUBLE,             -- rounded 6, as the harness prints it
    mean_delta_rounded4   DOUBLE,             -- the graded channel's printed delta
    p_value               DOUBLE,             -- rounded 6, as the harness prints it
    p_value_unrounded     DOUBLE,
    significant_at_0_05   BOOLEAN NOT NULL,
    ci_method             VARCHAR NOT NULL,
    ci_lower              DOUBLE,             -- NULL when unbounded (n <= 5)
    ci_upper              DOUBLE,
    ci_bounded            BOOLEAN NOT NULL,
    noise_verdict         VARCHAR NOT NULL,   -- no-data | too-few-cases-moved | unbounded | noise-exceeds-headroom | resolvable
    noise_floor           DOUBLE,
    headroom              DOUBLE,
    cases_moved           INTEGER NOT NULL,
    smallest_achievable_p DOUBLE NOT NULL,
    projected_cases       BIGINT
);

COMMENT ON TABLE lift_stats IS 'Sign-flip p, 95% interval and noise verdict per lift row (per experiment and per release); recomputed after every ingest.';
COMMENT ON COLUMN lift_stats.row_kind IS 'The lift row kind: experiment or release.';
COMMENT ON COLUMN lift_stats.experiment IS 'The experiment of an experiment row; NULL on a release row.';
COMMENT ON COLUMN lift_stats.n IS 'Units tested.';
COMMENT ON COLUMN lift_stats.p_value IS 'Sign-flip p, rounded 6 as the harness prints it.';
COMMENT ON COLUMN lift_stats.ci_lower IS 'Lower end of the 95% interval; NULL when unbounded.';
COMMENT ON COLUMN lift_stats.ci_upper IS 'Upper end of the 95% interval; NULL when unbounded.';
COMMENT ON COLUMN lift_stats.noise_verdict IS 'Noise check verdict (docs/metrics.md).';

-- A trigger observation's experiment: the trigger report it came from (a
-- baseline matrix and an ablation matrix of one skill are two experiments),
-- or the promptfoo eval id. NULL for rows written before this migration; the
-- trigger_rates view then falls back to the report's file name.
ALTER TABLE trigger_observation ADD COLUMN experiment VARCHAR;

COMMENT ON COLUMN trigger_observation.experiment IS 'The experiment: the trigger report''s file name (a matrix, a run_eval.py output), or the promptfoo eval id.';

-- How a skill-eval-harness run's case and model were told apart
-- (<case>/<variant> against <case>/<model>/<variant>): 'metadata' (its
-- metadata.json names the case), 'manifest' (a manifest case id),
-- 'runs root' (the folder given to ingest read as the harness's --runs),
-- 'guessed' (nothing told: the single-model reading, announced by ingest).
-- NULL for other formats and rows written before this migration.
ALTER TABLE run ADD COLUMN layout_reading VARCHAR;

COMMENT ON COLUMN run.layout_reading IS 'How case and model were told apart in the run''s path: metadata, manifest, runs root, guessed (NULL: not a skill-eval-harness run directory).';
