-- trigger_rates: does the skill load when it should? One row per (release,
-- experiment, skill, agent, model, polarity), scope 'polarity', and one per query within
-- it, scope 'query' (docs/metrics.md §M10). Incomplete observations stay in
-- the denominators, as skill-eval-harness 0.6.0 counts them.
-- trigger_observations_by_experiment(): the stored observations, each with
-- its experiment. A trigger report is an experiment: a baseline and an
-- ablation matrix of one skill are never pooled (rows stored before the
-- column existed fall back to their report's file name).
CREATE OR REPLACE MACRO trigger_observations_by_experiment() AS TABLE
SELECT * REPLACE (coalesce(experiment, regexp_extract(source_path, '[^/]+$')) AS experiment)
FROM trigger_observation;

CREATE OR REPLACE VIEW trigger_rates AS
WITH observation AS (
    SELECT * FROM trigger_observations_by_experiment()
),
polarity AS (
    SELECT
        release_label, experiment, skill_name, agent, model, should_trigger,
        CASE WHEN should_trigger THEN 'should fire' ELSE 'should not fire' END AS polarity,
        'polarity' AS scope,
        NULL::VARCHAR AS query_text,
        sum(runs) AS observations,
        sum(triggered_runs) AS triggered,
        sum(CASE WHEN passed THEN runs ELSE 0 END) AS passed,
        count(*) FILTER (WHERE observation_complete IS NOT TRUE) AS incomplete
    FROM observation
    GROUP BY release_label, experiment, skill_name, agent, model, should_trigger
),
query AS (
    SELECT
        release_label, experiment, skill_name, agent, model, should_trigger,
        CASE WHEN should_trigger THEN 'should fire' ELSE 'should not fire' END AS polarity,
        'query' AS scope,
        query_text,
        sum(runs) AS observations,
        sum(triggered_runs) AS triggered,
        sum(CASE WHEN passed THEN runs ELSE 0 END) AS passed,
        count(*) FILTER (WHERE observation_complete IS NOT TRUE) AS incomplete
    FROM observation
    GROUP BY release_label, experiment, skill_name, agent, model, should_trigger, query_text
)
SELECT
    release_label, experiment, skill_name, agent, model, polarity, scope, query_text,
    observations, triggered,
    liftdb_pyround(triggered / observations, 4) AS trigger_rate,
    liftdb_pyround(passed / observations, 4) AS pass_rate,
    CASE WHEN should_trigger THEN liftdb_pyround(1 - triggered / observations, 4) END AS false_negative_rate,
    CASE WHEN NOT should_trigger THEN liftdb_pyround(triggered / observations, 4) END AS false_positive_rate,
    incomplete,
    -- the reports' names
    release_label AS release, skill_name AS skill
FROM (SELECT * FROM polarity UNION ALL SELECT * FROM query);

COMMENT ON VIEW trigger_rates IS 'Trigger observations per polarity and per query: trigger rate, pass rate, false-negative and false-positive rates.';
COMMENT ON COLUMN trigger_rates.release IS 'The same as release_label, as the reports name it.';
COMMENT ON COLUMN trigger_rates.skill IS 'The same as skill_name, as the reports name it.';

-- Columns
COMMENT ON COLUMN trigger_rates.release_label IS 'Release.';
COMMENT ON COLUMN trigger_rates.experiment IS 'The trigger report (matrix, run_eval.py output) or promptfoo eval the observations come from: experiments are never pooled.';
COMMENT ON COLUMN trigger_rates.skill_name IS 'Skill the observations are about.';
COMMENT ON COLUMN trigger_rates.agent IS 'Agent that ran the queries.';
COMMENT ON COLUMN trigger_rates.model IS 'Model (NULL when the report names none).';
COMMENT ON COLUMN trigger_rates.polarity IS 'should fire, or should not fire.';
COMMENT ON COLUMN trigger_rates.scope IS 'polarity (all queries of that polarity) or query.';
COMMENT ON COLUMN trigger_rates.query_text IS 'The query of a query row.';
COMMENT ON COLUMN trigger_rates.observations IS 'Observations (runs), incomplete ones included.';
COMMENT ON COLUMN trigger_rates.triggered IS 'Observations in which the skill loaded.';
COMMENT ON COLUMN trigger_rates.trigger_rate IS 'triggered / observations, rounded 4.';
COMMENT ON COLUMN trigger_rates.pass_rate IS 'Observations where triggered equals should-trigger, over observations, rounded 4.';
COMMENT ON COLUMN trigger_rates.false_negative_rate IS '1 - trigger_rate on should-fire rows.';
COMMENT ON COLUMN trigger_rates.false_positive_rate IS 'trigger_rate on should-not-fire rows.';
COMMENT ON COLUMN trigger_rates.incomplete IS 'Observation rows not marked complete (kept in the denominators).';
