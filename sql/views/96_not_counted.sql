-- stored: not_counted_summary_rows
-- stored view: not_counted_summary
-- not_counted_runs: the answer runs that do not count in the lift, each with
-- its harness's reason (runs.unscorable_reason) and what that reason is, in
-- words (counted_as). A run that does not count blocks its pair (pairs:
-- unscorable_arm with arm_reasons, or missing_objective_pass_rate); it
-- never lowers a pass rate.
--   infrastructure error   the agent or its runner failed: non-zero exit,
--                          timeout, a runner's failure body, a provider error
--                          row (promptfoo), a handbook run its adapter
--                          aborted before grading
--   cut off                the agent stopped at its token or turn limit
--   served-model mismatch  another model answered than the one asked for
--   missing output         no answer file (or no run folder) at all
--   invalid metadata       metadata.json unreadable
--   precondition failed    the eval's own precondition (Agent Skill Evals)
--   not graded             answered, but no grading was found or made
--   no objective checks    graded, but with no gate or critical check
-- liftdb_not_counted_as(reason): the class of a runs.unscorable_reason.
CREATE OR REPLACE MACRO liftdb_not_counted_as(reason) AS
    CASE
        WHEN reason LIKE 'returncode\_%' ESCAPE '\' OR reason = 'timed_out'
             OR reason LIKE 'failure\_marker:%' ESCAPE '\' OR reason = 'provider_error'
             OR reason = 'missing_grading' THEN 'infrastructure error'
        WHEN reason LIKE 'stopped:%' THEN 'cut off'
        WHEN reason = 'served_model_mismatch' THEN 'served-model mismatch'
        WHEN reason = 'missing_output' OR reason LIKE 'no run directory%' THEN 'missing output'
        WHEN reason = 'invalid_metadata' THEN 'invalid metadata'
        WHEN reason = 'preconditions_failed' THEN 'precondition failed'
        WHEN reason = 'not_graded' THEN 'not graded'
        WHEN reason = 'no_objective_checks' THEN 'no objective checks'
        ELSE reason
    END;

-- liftdb_not_counted_phrase(class, n): "2 infrastructure errors", "1 cut
-- off", "3 without output" — n runs of a class, in words.
CREATE OR REPLACE MACRO liftdb_not_counted_phrase(class, n) AS
    n || ' ' || CASE class
        WHEN 'infrastructure error' THEN CASE WHEN n = 1 THEN 'infrastructure error' ELSE 'infrastructure errors' END
        WHEN 'served-model mismatch' THEN CASE WHEN n = 1 THEN 'served-model mismatch' ELSE 'served-model mismatches' END
        WHEN 'missing output' THEN 'without output'
        WHEN 'invalid metadata' THEN 'with invalid metadata'
        WHEN 'precondition failed' THEN 'failing a precondition'
        WHEN 'no objective checks' THEN 'without an objective check'
        ELSE class END;

-- not_counted_runs_in(releases): those of the releases listed (NULL: every release).
CREATE OR REPLACE MACRO not_counted_runs_in(releases) AS TABLE
WITH answer_runs AS (
    SELECT *,
           CASE WHEN NOT scorable THEN coalesce(unscorable_reason, 'not scorable')
                WHEN NOT graded THEN 'not_graded'
                WHEN objective_pass_rate IS NULL THEN 'no_objective_checks' END AS reason
    FROM run_rows_in(releases)
    WHERE population = 'answer'
)
SELECT release_label, skill_name, experiment, split, case_id, model, arm, repetition, run_id,
       reason, liftdb_not_counted_as(reason) AS counted_as
FROM answer_runs
WHERE reason IS NOT NULL;

CREATE OR REPLACE VIEW not_counted_runs AS
SELECT *, release_label AS release, skill_name AS skill, case_id AS "case", repetition AS rep
FROM not_counted_runs_in(NULL);

COMMENT ON VIEW not_counted_runs IS 'Answer runs that do not count in the lift (not scorable, not graded, or without an objective check), with the harness''s reason and its class in words; their pairs are blocked.';
COMMENT ON COLUMN not_counted_runs.release_label IS 'Release.';
COMMENT ON COLUMN not_counted_runs.skill_name IS 'Skill under test.';
COMMENT ON COLUMN not_counted_runs.experiment IS 'The experiment (runs.experiment).';
COMMENT ON COLUMN not_counted_runs.split IS 'Case split.';
COMMENT ON COLUMN not_counted_runs.case_id IS 'Eval case.';
COMMENT ON COLUMN not_counted_runs.model IS 'Model (NULL when unknown).';
COMMENT ON COLUMN not_counted_runs.arm IS 'Arm of the run.';
COMMENT ON COLUMN not_counted_runs.repetition IS 'Repetition.';
COMMENT ON COLUMN not_counted_runs.run_id IS 'The run (liftdb show RUN).';
COMMENT ON COLUMN not_counted_runs.reason IS 'runs.unscorable_reason in the harness''s names (stopped:truncated, served_model_mismatch, returncode_1 …), or not_graded / no_objective_checks.';
COMMENT ON COLUMN not_counted_runs.counted_as IS 'The reason''s class: infrastructure error, cut off, served-model mismatch, missing output, invalid metadata, precondition failed, not graded, no objective checks.';
COMMENT ON COLUMN not_counted_runs.release IS 'The same as release_label, as the reports name it.';
COMMENT ON COLUMN not_counted_runs.skill IS 'The same as skill_name, as the reports name it.';
COMMENT ON COLUMN not_counted_runs."case" IS 'The same as case_id, as the reports name it.';
COMMENT ON COLUMN not_counted_runs.rep IS 'The same as repetition, as the reports name it.';

-- not_counted_summary: per release, skill, split (each split and 'all') and
-- control arm, how many runs of the with-skill and control arms did not
-- count and why, in one sentence (report lift prints it under its headline
-- when any run did not count).
-- not_counted_summary_in(releases): that of the releases listed (NULL:
-- every release). Stored (not_counted_summary_rows): report lift joins it
-- on every call.
CREATE OR REPLACE MACRO not_counted_summary_in(releases) AS TABLE
WITH answer AS (
    SELECT release_label, skill_name, split, arm, run_id FROM run_rows_in(releases)
    WHERE population = 'answer'
),
arms AS (
    SELECT DISTINCT release_label, skill_name, arm AS control_arm
    FROM answer
    WHERE arm <> 'with_skill'
),
runs_by_split AS (
    SELECT release_label, skill_name, coalesce(split, '(none)') AS split, arm, run_id FROM answer
    UNION ALL
    SELECT release_label, skill_name, 'all', arm, run_id FROM answer
),
not_counted AS (
    SELECT run_id, counted_as FROM not_counted_runs_in(releases)
),
per_arm AS (
    SELECT a.release_label, a.skill_name, r.split, a.control_arm,
           count(*) FILTER (WHERE r.arm = 'with_skill') AS with_runs,
           count(n.run_id) FILTER (WHERE r.arm = 'with_skill') AS with_not_counted,
           count(*) FILTER (WHERE r.arm = a.control_arm) AS control_runs,
           count(n.run_id) FILTER (WHERE r.arm = a.control_arm) AS control_not_counted
    FROM arms a
    JOIN runs_by_split r
      ON r.release_label = a.release_label AND r.skill_name = a.skill_name
     AND r.arm IN ('with_skill', a.control_arm)
    LEFT JOIN not_counted n ON n.run_id = r.run_id
    GROUP BY ALL
),
classes AS (
    SELECT a.release_label, a.skill_name, r.split, a.control_arm, n.counted_as, count(*) AS runs
    FROM arms a
    JOIN runs_by_split r
      ON r.release_label = a.release_label AND r.skill_name = a.skill_name
     AND r.arm IN ('with_skill', a.control_arm)
    JOIN not_counted n ON n.run_id = r.run_id
    GROUP BY ALL
),
said AS (
    SELECT release_label, skill_name, split, control_arm,
           string_agg(liftdb_not_counted_phrase(counted_as, runs),
               ', ' ORDER BY runs DESC, counted_as) AS reasons
    FROM classes
    GROUP BY ALL
)
SELECT p.release_label, p.skill_name, p.split, p.control_arm,
       p.with_runs, p.with_not_counted, p.control_runs, p.control_not_counted,
       CASE WHEN p.with_not_counted + p.control_not_counted > 0 THEN
           printf('%s, release %s%s: %d of %d runs did not count (with the skill %d of %d, %s %d of %d): %s; their pairs are left out of the lift.',
                  p.skill_name, p.release_label,
                  CASE WHEN p.split = 'all' THEN '' ELSE ', split ' || p.split END,
                  p.with_not_counted + p.control_not_counted, p.with_runs + p.control_runs,
                  p.with_not_counted, p.with_runs,
                  CASE p.control_arm WHEN 'without_skill' THEN 'without' ELSE p.control_arm END,
                  p.control_not_counted, p.control_runs, s.reasons)
       END AS sentence
FROM per_arm p
LEFT JOIN said s USING (release_label, skill_name, split, control_arm);

CREATE OR REPLACE VIEW not_counted_summary AS
SELECT *, release_label AS release, skill_name AS skill, control_arm AS control
FROM not_counted_summary_in(NULL);

COMMENT ON VIEW not_counted_summary IS 'Per release, skill, split and control arm: runs of each arm and how many did not count (not_counted_runs), with one sentence saying why.';
COMMENT ON COLUMN not_counted_summary.release_label IS 'Release.';
COMMENT ON COLUMN not_counted_summary.skill_name IS 'Skill under test.';
COMMENT ON COLUMN not_counted_summary.split IS 'Case split, or ''all''.';
COMMENT ON COLUMN not_counted_summary.control_arm IS 'The arm compared with with_skill.';
COMMENT ON COLUMN not_counted_summary.with_runs IS 'with_skill answer runs.';
COMMENT ON COLUMN not_counted_summary.with_not_counted IS 'with_skill runs that did not count.';
COMMENT ON COLUMN not_counted_summary.control_runs IS 'Control-arm answer runs.';
COMMENT ON COLUMN not_counted_summary.control_not_counted IS 'Control-arm runs that did not count.';
COMMENT ON COLUMN not_counted_summary.sentence IS 'N of M runs did not count (per arm): counts by class; NULL when every run counted.';
COMMENT ON COLUMN not_counted_summary.release IS 'The same as release_label, as the reports name it.';
COMMENT ON COLUMN not_counted_summary.skill IS 'The same as skill_name, as the reports name it.';
COMMENT ON COLUMN not_counted_summary.control IS 'The same as control_arm, as the reports name it.';

-- not_counted_summary_rows: not_counted_summary stored, refilled at the end
-- of every batch for the releases it changed (src/store/aggregates/mod.rs).
CREATE OR REPLACE TABLE not_counted_summary_rows AS SELECT * FROM not_counted_summary_in(NULL) LIMIT 0;
COMMENT ON TABLE not_counted_summary_rows IS 'not_counted_summary stored by every batch for the releases it changed (what report lift, its headline and the HTML read); equal to not_counted_summary (liftdb check verifies).';
