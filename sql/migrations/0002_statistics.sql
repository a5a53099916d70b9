-- lift_stats: the sign-flip test, its interval and the noise check for every
-- row of the lift view, materialized at the end of each ingest so a stock
-- DuckDB client sees them (liftdb's own connections also have the
-- sign_flip_p / sign_flip / sign_flip_interval functions).
CREATE TABLE lift_stats (
    release_label         VARCHAR NOT NULL,
    skill_name            VARCHAR NOT NULL,
    control_arm           VARCHAR NOT NULL,
    channel               VARCHAR NOT NULL,   -- objective | pass_at_1 | graded
    split                 VARCHAR NOT NULL,
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

COMMENT ON TABLE lift_stats IS 'Sign-flip p, 95% interval and noise verdict per lift row; recomputed after every ingest.';

-- ablation_stats: ablation regression confirmation (docs/metrics.md §M8) per
-- expected regression of each manifest ablation, materialized with lift_stats.
CREATE TABLE ablation_stats (
    release_label                 VARCHAR NOT NULL,
    skill_name                    VARCHAR NOT NULL,
    ablation_id                   VARCHAR NOT NULL,
    regression_index              INTEGER NOT NULL,
    summary                       VARCHAR,
    status                        VARCHAR NOT NULL,  -- measured | unmeasured
    provenance_verified           BOOLEAN NOT NULL,
    measured_cases                JSON NOT NULL,
    confirmed_cases               JSON NOT NULL,
    coverage_gaps                 INTEGER NOT NULL,
    min_p_value                   DOUBLE,
    significant_at_0_05           BOOLEAN NOT NULL,
    evidence_class                VARCHAR NOT NULL,  -- confirmed_causal | refuted | indeterminate
    expected_regression_confirmed BOOLEAN,
    cohort_tests                  JSON NOT NULL      -- {"<case>@<model>": {method, n, observed_mean_delta, p_value, significant_at_0_05}}
);

COMMENT ON TABLE ablation_stats IS 'Ablation regression confirmation per expected regression: cohorts, min p, evidence class.';
