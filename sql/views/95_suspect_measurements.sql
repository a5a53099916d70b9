-- suspect_measurements: inputs that measure nothing, whatever their numbers
-- say. Each row names the release, skill and experiment, what is suspect
-- (kind), which model or report (subject), and why (detail):
--   identical_outputs  every with-skill answer of a model is byte for byte
--                      its without-skill twin's, over two cases or more: the
--                      skill changed nothing the runs wrote (a harness that
--                      ran one arm twice, or a skill that never loaded);
--   all_saturated      every case passes in both arms: no lift can show;
--   all_floor          every case fails in both arms: no lift can show;
--   never_triggered    a query that should trigger the skill (its
--                      polarity from the manifest or the trigger report)
--                      and never did in any observation of a trigger eval:
--                      its recall is 0, and where every such query does, the
--                      precision the eval reports (1) measured nothing.
--                      One row per query; a query that should not trigger
--                      never doing so is the skill working;
--   zero_runs          a harness report aggregated from no run at all
--                      (skill-creator's aggregate_benchmark over a layout it
--                      does not read: empty runs, a delta of +0.00; a
--                      skill-eval-harness benchmark whose every arm counts
--                      0 runs): its figures are zeros, not measurements.
CREATE OR REPLACE VIEW suspect_measurements AS
WITH answers AS (
    -- Each answer as a 64-bit digest (two different answers share one with
    -- odds of about 1 in 1.8e19), taken before the join so that the texts
    -- are not carried through it.
    SELECT r.release_label, r.skill_name, r.experiment, r.shard, r.case_id, r.model, r.repetition, r.arm,
           o.output_digest
    FROM run_rows r
    JOIN (SELECT run_id, hash(output_text) AS output_digest FROM run WHERE output_text IS NOT NULL) o
      USING (run_id)
    WHERE r.arm IN ('with_skill', 'without_skill') AND r.scorable
),
twins AS (
    SELECT w.release_label, w.skill_name, w.experiment, w.model, w.case_id,
           w.output_digest = c.output_digest AS identical
    FROM answers w
    JOIN answers c
      ON c.release_label = w.release_label AND c.skill_name = w.skill_name
     AND c.experiment IS NOT DISTINCT FROM w.experiment AND c.case_id = w.case_id
     AND c.model IS NOT DISTINCT FROM w.model AND c.repetition IS NOT DISTINCT FROM w.repetition
     AND c.shard IS NOT DISTINCT FROM w.shard
     AND c.arm = 'without_skill'
    WHERE w.arm = 'with_skill'
),
identical AS (
    SELECT release_label, skill_name, experiment, 'identical_outputs' AS kind,
           coalesce(model, '(no model)') AS subject,
           printf('all %d with-skill answers over %d cases are byte-identical to their without-skill twins',
                  count(*), count(DISTINCT case_id)) AS detail
    FROM twins
    GROUP BY release_label, skill_name, experiment, model
    HAVING count(DISTINCT case_id) >= 2 AND bool_and(identical)
),
suites AS (
    SELECT release_label, skill_name, experiment,
           CASE WHEN bool_and(with_skill = 1 AND without_skill = 1) THEN 'all_saturated'
                WHEN bool_and(with_skill = 0 AND without_skill = 0) THEN 'all_floor' END AS kind,
           count(*) AS cases
    FROM case_flag_rows
    WHERE with_skill IS NOT NULL AND without_skill IS NOT NULL
    GROUP BY release_label, skill_name, experiment
    HAVING count(*) >= 2
),
triggers AS (
    SELECT release_label, skill_name, experiment, 'never_triggered' AS kind,
           coalesce(query_text, query_id) AS subject,
           printf('should trigger the skill: %d observations (%d runs), none triggered it',
                  count(*), sum(runs)) AS detail
    -- One trigger eval at a time, as trigger_rates keeps them apart (a
    -- trace folder's observations carry their matrix as experiment).
    FROM trigger_observations_by_experiment()
    WHERE should_trigger
    GROUP BY release_label, skill_name, experiment, coalesce(query_text, query_id)
    -- Per run (triggered) or per query as skill-creator counts it (triggered_runs).
    HAVING NOT coalesce(bool_or(triggered), false) AND coalesce(sum(triggered_runs), 0) = 0
),
zero_runs AS (
    SELECT release_label, skill_name, NULL::VARCHAR AS experiment, 'zero_runs' AS kind,
           source_path AS subject,
           'the report aggregates 0 runs: its pass rates, times and delta are zeros, not measurements' AS detail
    FROM peer_metric
    WHERE report_kind IN ('skill_creator_benchmark', 'benchmark')
    GROUP BY release_label, skill_name, source_path, report_kind
    HAVING CASE report_kind
               WHEN 'skill_creator_benchmark' THEN count(*) FILTER (WHERE json_path LIKE '/runs/%') = 0
               ELSE count(*) FILTER (WHERE regexp_matches(json_path, '^/summary/[^/]+/runs$')) > 0
                    AND max(value) FILTER (WHERE regexp_matches(json_path, '^/summary/[^/]+/runs$')) = 0
           END
)
SELECT * FROM identical
UNION ALL
SELECT release_label, skill_name, experiment, kind, '(every case)',
       CASE kind WHEN 'all_saturated' THEN printf('all %d cases pass in both arms', cases)
                 ELSE printf('all %d cases fail in both arms', cases) END
FROM suites WHERE kind IS NOT NULL
UNION ALL
SELECT * FROM triggers
UNION ALL
SELECT * FROM zero_runs;

COMMENT ON VIEW suspect_measurements IS 'Inputs that measure nothing: with-skill answers identical to their without-skill twins, suites whose cases all pass or all fail in both arms, queries that should trigger the skill and never did, reports aggregated from zero runs.';
COMMENT ON COLUMN suspect_measurements.release_label IS 'Release.';
COMMENT ON COLUMN suspect_measurements.skill_name IS 'Skill under test.';
COMMENT ON COLUMN suspect_measurements.experiment IS 'The experiment (runs.experiment).';
COMMENT ON COLUMN suspect_measurements.kind IS 'identical_outputs, all_saturated, all_floor, never_triggered or zero_runs.';
COMMENT ON COLUMN suspect_measurements.subject IS 'The model (identical_outputs), the query (never_triggered), the report (zero_runs), or (every case).';
COMMENT ON COLUMN suspect_measurements.detail IS 'What was found, with its counts.';
