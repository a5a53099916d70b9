-- pairs: validated with/without pairs (docs/metrics.md §M2). One row per
-- (release, native batch, shard, skill, case, model, repetition, control arm). The treatment is
-- always with_skill; control_arm is without_skill, old_skill or an ablation
-- arm. A pair is eligible when both arms are scorable and have a numeric
-- objective_pass_rate in [0, 1]; otherwise blocked_reason names why, with the
-- harness's reason codes.
-- pairs_of(releases, cases): the pairs of the releases listed (NULL: every
-- release) and of the cases listed (liftdb_case_key), from the stored runs
-- (run_rows, refilled before the tables that read the pairs).
CREATE OR REPLACE MACRO pairs_of(releases, cases) AS TABLE
WITH r AS (
    SELECT * FROM run_rows_of(releases, cases) WHERE population = 'answer'
),
controls AS (
    -- Control arms that were run at all for a case; without_skill is always
    -- expected, so a case missing it shows up as missing_without_skill.
    SELECT DISTINCT release_label, native_batch, skill_name, case_id, arm AS control_arm
    FROM r WHERE arm <> 'with_skill'
    UNION
    SELECT DISTINCT release_label, native_batch, skill_name, case_id, 'without_skill'
    FROM r WHERE arm = 'with_skill'
),
pair_keys AS (
    SELECT DISTINCT r.release_label, r.native_batch, r.shard, r.skill_name, r.case_id, r.model, r.repetition, c.control_arm
    FROM r
    JOIN controls c
      ON c.release_label = r.release_label AND c.native_batch IS NOT DISTINCT FROM r.native_batch
     AND c.skill_name = r.skill_name AND c.case_id = r.case_id
    WHERE r.arm = 'with_skill' OR r.arm = c.control_arm
),
joined AS (
    SELECT
        k.release_label, k.native_batch, k.shard, k.skill_name, k.case_id, k.model, k.repetition, k.control_arm,
        w.split AS with_split, n.split AS control_split,
        w.run_id AS with_run_id, n.run_id AS control_run_id,
        w.scorable AS with_scorable, n.scorable AS control_scorable,
        w.unscorable_reason AS with_unscorable_reason, n.unscorable_reason AS control_unscorable_reason,
        w.effort AS with_effort, n.effort AS control_effort,
        w.objective_pass_rate AS with_rate, n.objective_pass_rate AS control_rate,
        w.graded_score AS with_graded_score, n.graded_score AS control_graded_score,
        w.combined_pass_rate AS with_combined_rate, n.combined_pass_rate AS control_combined_rate
    FROM pair_keys k
    LEFT JOIN r w
        ON w.arm = 'with_skill' AND w.release_label = k.release_label AND w.skill_name = k.skill_name
       AND w.native_batch IS NOT DISTINCT FROM k.native_batch AND w.shard IS NOT DISTINCT FROM k.shard
       AND w.case_id = k.case_id AND w.model IS NOT DISTINCT FROM k.model AND w.repetition = k.repetition
    LEFT JOIN r n
        ON n.arm = k.control_arm AND n.release_label = k.release_label AND n.skill_name = k.skill_name
       AND n.native_batch IS NOT DISTINCT FROM k.native_batch AND n.shard IS NOT DISTINCT FROM k.shard
       AND n.case_id = k.case_id AND n.model IS NOT DISTINCT FROM k.model AND n.repetition = k.repetition
)
SELECT
    release_label,
    native_batch,
    native_batch AS experiment,
    skill_name,
    case_id,
    coalesce(with_split, control_split) AS split,
    model,
    repetition,
    control_arm,
    with_run_id,
    control_run_id,
    with_rate,
    control_rate,
    CASE WHEN blocked_reason IS NULL THEN with_rate - control_rate END AS delta,
    blocked_reason IS NULL AS eligible,
    blocked_reason,
    with_graded_score,
    control_graded_score,
    with_combined_rate,
    control_combined_rate,
    with_scorable,
    control_scorable,
    -- The harness's reason each blocking arm does not count.
    CASE WHEN blocked_reason = 'unscorable_arm' THEN
        concat_ws('; ',
            CASE WHEN NOT with_scorable THEN 'with_skill: ' || coalesce(with_unscorable_reason, 'not scorable') END,
            CASE WHEN NOT control_scorable THEN control_arm || ': ' || coalesce(control_unscorable_reason, 'not scorable') END)
    END AS arm_reasons,
    shard
FROM (
    SELECT *,
        CASE
            WHEN with_run_id IS NULL THEN 'missing_with_skill'
            WHEN control_run_id IS NULL THEN 'missing_' || control_arm
            WHEN NOT with_scorable OR NOT control_scorable THEN 'unscorable_arm'
            WHEN with_rate IS NULL OR control_rate IS NULL THEN 'missing_objective_pass_rate'
            WHEN isnan(with_rate) OR isnan(control_rate) OR isinf(with_rate) OR isinf(control_rate)
                 OR with_rate NOT BETWEEN 0 AND 1 OR control_rate NOT BETWEEN 0 AND 1
                THEN 'invalid_objective_pass_rate'
            -- Arms run at different reasoning efforts measure two things
            -- (skill-eval-harness after 0.6.0; earlier runs record none).
            WHEN with_effort IS DISTINCT FROM control_effort
                THEN CASE WHEN with_effort IS NULL OR control_effort IS NULL
                          THEN 'effort_unrecorded_on_one_arm' ELSE 'effort_mismatch' END
        END AS blocked_reason
    FROM joined
);

-- pairs_in(releases): the pairs of the releases listed (NULL: every release).
CREATE OR REPLACE MACRO pairs_in(releases) AS TABLE
SELECT * FROM pairs_of(releases, NULL);

-- The reports' names of its identity columns follow them (release, skill, case …).
CREATE OR REPLACE VIEW pairs AS
SELECT *, release_label AS release, skill_name AS skill, case_id AS "case", repetition AS rep,
       control_arm AS control
FROM pairs_in(NULL);

COMMENT ON VIEW pairs IS 'Validated with_skill/control pairs per case, model and repetition; eligible or blocked with the reason.';
COMMENT ON COLUMN pairs.release IS 'The same as release_label, as the reports name it.';
COMMENT ON COLUMN pairs.skill IS 'The same as skill_name, as the reports name it.';
COMMENT ON COLUMN pairs."case" IS 'The same as case_id, as the reports name it.';
COMMENT ON COLUMN pairs.rep IS 'The same as repetition, as the reports name it.';
COMMENT ON COLUMN pairs.control IS 'The same as control_arm, as the reports name it.';

-- Columns
COMMENT ON COLUMN pairs.release_label IS 'Release of the pair.';
COMMENT ON COLUMN pairs.native_batch IS 'The tool''s batch both arms come from.';
COMMENT ON COLUMN pairs.experiment IS 'The experiment both arms come from (runs.experiment): pairs never cross experiments.';
COMMENT ON COLUMN pairs.skill_name IS 'Skill under test.';
COMMENT ON COLUMN pairs.case_id IS 'Eval case.';
COMMENT ON COLUMN pairs.split IS 'Case split.';
COMMENT ON COLUMN pairs.model IS 'Model of both arms (NULL when unknown).';
COMMENT ON COLUMN pairs.repetition IS 'Repetition both arms share.';
COMMENT ON COLUMN pairs.shard IS 'The shard both arms come from (ingest --shard): each shard numbers its repetitions, so pairs never cross shards. NULL when not sharded.';
COMMENT ON COLUMN pairs.control_arm IS 'The arm compared with with_skill: without_skill, or an ablation arm.';
COMMENT ON COLUMN pairs.with_run_id IS 'The with_skill run (NULL when missing).';
COMMENT ON COLUMN pairs.control_run_id IS 'The control run (NULL when missing).';
COMMENT ON COLUMN pairs.with_rate IS 'with_skill objective_pass_rate.';
COMMENT ON COLUMN pairs.control_rate IS 'Control objective_pass_rate.';
COMMENT ON COLUMN pairs.delta IS 'with_rate - control_rate, for eligible pairs.';
COMMENT ON COLUMN pairs.eligible IS 'Both arms scorable with a valid rate (docs/metrics.md §M2).';
COMMENT ON COLUMN pairs.blocked_reason IS 'Why the pair is blocked: unscorable_arm (arm_reasons says why), missing_objective_pass_rate, invalid_..., missing_with_skill, missing_without_skill, effort_mismatch, effort_unrecorded_on_one_arm.';
COMMENT ON COLUMN pairs.with_graded_score IS 'with_skill graded_score.';
COMMENT ON COLUMN pairs.control_graded_score IS 'Control graded_score.';
COMMENT ON COLUMN pairs.with_combined_rate IS 'with_skill combined_pass_rate.';
COMMENT ON COLUMN pairs.control_combined_rate IS 'Control combined_pass_rate.';
COMMENT ON COLUMN pairs.with_scorable IS 'The with_skill run is scorable.';
COMMENT ON COLUMN pairs.control_scorable IS 'The control run is scorable.';
COMMENT ON COLUMN pairs.arm_reasons IS 'For unscorable_arm: each arm that does not count with its run''s reason (runs.unscorable_reason), e.g. with_skill: stopped:truncated.';
