-- `liftdb gate --infra-errors`: per experiment of the gated release, the
-- infrastructure failures: answer runs that do not count because the agent or
-- its runner failed (not_counted_runs counted_as 'infrastructure error'), and
-- whether the tool's run ended before its report (a handbook run id whose
-- benchmark.json was never written: the harness writes it last, only when
-- every adapter call succeeded; its crash exits 2).
--   experiment, skill
--   failed_runs   answer runs counted as infrastructure errors
--   reasons       their reasons (runs.unscorable_reason)
--   unfinished    the tool never wrote its report for this experiment
WITH runs_of AS (
    SELECT native_batch AS experiment, skill_name AS skill, source_format, run_id
    FROM run_rows
    WHERE release_label = $release AND population = 'answer'
      AND ($skill IS NULL OR skill_name = $skill)
      AND ($split IS NULL OR split = $split)
      AND ($experiment IS NULL OR native_batch = $experiment)
),
failed AS (
    SELECT run_id, reason FROM not_counted_runs
    WHERE release_label = $release AND counted_as = 'infrastructure error'
),
reported AS (
    SELECT DISTINCT value_text AS experiment, skill_name AS skill
    FROM peer_metric
    WHERE release_label = $release AND report_kind = 'handbook_benchmark' AND json_path = '/run_id'
)
SELECT r.experiment, r.skill,
       count(f.run_id) AS failed_runs,
       string_agg(DISTINCT f.reason, ', ' ORDER BY f.reason) AS reasons,
       bool_or(r.source_format = 'A_handbook')
           AND NOT EXISTS (SELECT 1 FROM reported p
                           WHERE p.experiment = r.experiment AND p.skill = r.skill) AS unfinished
FROM runs_of r
LEFT JOIN failed f USING (run_id)
GROUP BY r.experiment, r.skill
ORDER BY r.experiment NULLS FIRST, r.skill;
