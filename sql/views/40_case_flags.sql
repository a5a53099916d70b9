-- stored: case_flag_rows
-- stored grain: case
-- case_flags: the harness's case-level findings (docs/metrics.md §M4, 0.6.0
-- labels), all models pooled, per experiment (a tool's report holds one). W and N are pair-weighted means over the
-- case's eligible with_skill/without_skill pairs; cases with no eligible
-- pair get no row. Flag order follows the harness: saturated, forgettable,
-- no lift, with-skill failure, then per arm (manifest order) flaky and
-- critical-failure, then below-reference-floor.
-- case_flags_by(releases, cases, pooled): the flags of the releases listed
-- (NULL: every release) and of the cases listed (liftdb_case_key), per
-- experiment, or with pooled = true per release, every experiment pooled
-- (experiment NULL): as the tool's report of a tree holding all of them
-- (41_case_flags_release.sql).
CREATE OR REPLACE MACRO case_flags_by(releases, cases, pooled) AS TABLE
WITH paired AS (
    SELECT * REPLACE (CASE WHEN pooled THEN NULL ELSE experiment END AS experiment)
    FROM pairs_of(releases, cases) WHERE control_arm = 'without_skill'
),
case_rates AS (
    SELECT
        release_label, experiment, skill_name, case_id,
        any_value(split) AS split,
        -- Exact means (liftdb_mean_agg): flags compare them exactly (W == 1, W < N).
        liftdb_mean_agg(CASE WHEN eligible THEN with_rate END) AS with_rate,
        liftdb_mean_agg(CASE WHEN eligible THEN control_rate END) AS without_rate,
        liftdb_mean_agg(CASE WHEN eligible THEN with_graded_score END) AS with_mean_graded_score,
        count(*) FILTER (WHERE eligible) AS eligible_pairs,
        count(*) FILTER (WHERE NOT eligible) AS blocked_pairs
    FROM paired
    GROUP BY ALL
    HAVING count(*) FILTER (WHERE eligible) > 0
),
arm_order AS (
    SELECT release_label, skill_name,
           coalesce(list_filter(json_extract_string(ablations, '$[*].id'), lambda x: x IS NOT NULL), []) AS ablation_ids
    FROM suite
),
arm_findings AS (
    -- flaky and critical-failure per arm over the case's scorable runs
    SELECT
        r.release_label, CASE WHEN pooled THEN NULL ELSE r.experiment END AS experiment,
        r.skill_name, r.case_id, r.arm,
        liftdb_arm_order(r.arm, coalesce(any_value(o.ablation_ids), [])) AS arm_rank,
        count(r.objective_pass_rate) >= 2 AND count(DISTINCT r.objective_pass_rate) >= 2 AS flaky,
        list_sort(list_distinct(flatten(list(r.critical_failures) FILTER (WHERE r.vetoed)))) AS critical_names
    FROM run_rows_of(releases, cases) r
    LEFT JOIN arm_order o USING (release_label, skill_name)
    WHERE r.scorable AND r.population = 'answer'
    GROUP BY r.release_label, CASE WHEN pooled THEN NULL ELSE r.experiment END, r.skill_name, r.case_id, r.arm
),
arm_flags AS (
    SELECT
        release_label, experiment, skill_name, case_id,
        -- Gathered unordered, then sorted by (arm_rank, arm), as lift's unit
        -- lists are (faster than an ordered aggregate under a memory limit).
        flatten(list_transform(list_sort(list({'arm_rank': arm_rank, 'arm': arm, 'flags':
            (CASE WHEN flaky THEN ['flaky repeated pass rates: ' || arm] ELSE [] END)
            || (CASE WHEN len(critical_names) > 0
                     THEN ['critical-failure: ' || arm || ' (' || array_to_string(critical_names, ', ') || ')']
                     ELSE [] END)})), lambda a: a.flags)) AS flags
    FROM arm_findings
    GROUP BY ALL
),
floor_flags AS (
    -- Soft assertions below the case's reference floor in the with_skill
    -- runs of its eligible pairs (an equi-join on the pair's run).
    SELECT
        p.release_label, p.experiment, p.skill_name, p.case_id,
        list_sort(list_distinct(list(a.name))) AS names
    FROM paired p
    JOIN case_def c USING (release_label, skill_name, case_id)
    JOIN grading g ON g.run_id = p.with_run_id
    JOIN assertion_result a ON a.grading_id = g.grading_id
    WHERE p.eligible AND c.reference_floor IS NOT NULL AND a.severity = 'soft' AND NOT a.skipped
      AND a.score IS NOT NULL AND a.score < c.reference_floor
    GROUP BY ALL
)
SELECT
    cr.release_label,
    cr.experiment,
    cr.skill_name,
    cr.case_id,
    cr.split,
    c.eval_intent,
    cr.with_rate AS with_skill,
    cr.without_rate AS without_skill,
    cr.eligible_pairs,
    cr.blocked_pairs,
    (CASE WHEN cr.with_rate = 1 AND cr.without_rate = 1 THEN ['saturated/non-discriminating'] ELSE [] END)
    || (CASE WHEN cr.with_rate = 1 AND cr.without_rate = 1 AND cr.with_mean_graded_score < 0.75
             THEN ['structurally-pass-but-forgettable'] ELSE [] END)
    || (CASE WHEN cr.with_rate <= cr.without_rate THEN ['no objective lift'] ELSE [] END)
    || (CASE WHEN cr.with_rate < 1 THEN ['with-skill failure'] ELSE [] END)
    || coalesce(af.flags, [])
    || (CASE WHEN len(ff.names) > 0 THEN ['below-reference-floor: ' || array_to_string(ff.names, ', ')] ELSE [] END)
        AS flags
FROM case_rates cr
LEFT JOIN case_def c
    ON c.release_label = cr.release_label AND c.skill_name = cr.skill_name AND c.case_id = cr.case_id
LEFT JOIN arm_flags af
    ON af.release_label = cr.release_label AND af.experiment IS NOT DISTINCT FROM cr.experiment
   AND af.skill_name = cr.skill_name AND af.case_id = cr.case_id
LEFT JOIN floor_flags ff
    ON ff.release_label = cr.release_label AND ff.experiment IS NOT DISTINCT FROM cr.experiment
   AND ff.skill_name = cr.skill_name AND ff.case_id = cr.case_id;

-- case_flags_of(releases, cases): per experiment (a tool's report holds one).
CREATE OR REPLACE MACRO case_flags_of(releases, cases) AS TABLE
SELECT * FROM case_flags_by(releases, cases, false);

-- case_flags_in(releases): the flags of the releases listed (NULL: every release).
CREATE OR REPLACE MACRO case_flags_in(releases) AS TABLE
SELECT * FROM case_flags_of(releases, NULL);

-- The view adds the reports' names of its columns (release, skill, case …)
-- after them; its stored table holds the columns once.
CREATE OR REPLACE VIEW case_flags AS SELECT *, release_label AS release, skill_name AS skill, case_id AS "case" FROM case_flags_in(NULL);

COMMENT ON COLUMN case_flags.release IS 'The same as release_label, as the reports name it.';
COMMENT ON COLUMN case_flags.skill IS 'The same as skill_name, as the reports name it.';
COMMENT ON COLUMN case_flags."case" IS 'The same as case_id, as the reports name it.';

COMMENT ON VIEW case_flags IS 'Case-level findings with the harness labels: saturated, no lift, with-skill failure, flaky, critical.';

-- Columns
COMMENT ON COLUMN case_flags.release_label IS 'Release.';
COMMENT ON COLUMN case_flags.experiment IS 'The experiment the case was run in (runs.experiment).';
COMMENT ON COLUMN case_flags.skill_name IS 'Skill under test.';
COMMENT ON COLUMN case_flags.case_id IS 'Eval case.';
COMMENT ON COLUMN case_flags.split IS 'Case split.';
COMMENT ON COLUMN case_flags.eval_intent IS 'capability or regression.';
COMMENT ON COLUMN case_flags.with_skill IS 'Pair-weighted with_skill rate over the case''s eligible pairs, models pooled.';
COMMENT ON COLUMN case_flags.without_skill IS 'Pair-weighted control rate.';
COMMENT ON COLUMN case_flags.eligible_pairs IS 'Eligible pairs of the case.';
COMMENT ON COLUMN case_flags.blocked_pairs IS 'Blocked pairs of the case.';
COMMENT ON COLUMN case_flags.flags IS 'The harness''s findings, its labels and order (docs/metrics.md §M4).';

-- case_flag_rows: case_flags stored, refilled at the end of every batch in
-- its transaction: what report flags, the HTML report and the trend history
-- read.
CREATE OR REPLACE TABLE case_flag_rows AS SELECT * FROM case_flags_in(NULL) LIMIT 0;
COMMENT ON TABLE case_flag_rows IS 'case_flags stored by every batch (what the flags report and the trend history read); equal to case_flags (liftdb check verifies).';
