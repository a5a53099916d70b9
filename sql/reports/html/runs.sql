-- The drill-down's runs: each case's runs per model, arm and repetition
-- (at most 120 per case, the first by model, arm, repetition), with cost,
-- tokens, time and the start of the output (stored redacted), of the
-- cases drilled into.
-- At most 300 cases of a release and skill are drilled into, the lowest
-- lift first, so the page stays a page whatever the store holds (cases.sql,
-- runs.sql and failing.sql choose them alike).
WITH drilled AS (
    SELECT release_label, skill_name, case_id
    FROM lift_evidence
    WHERE channel = 'objective' AND control_arm = 'without_skill' AND split = 'all'
      AND scope = 'case' AND row_kind = 'release'
      AND ($skill IS NULL OR skill_name = $skill)
      AND ($release IS NULL OR release_label = $release)
    QUALIFY row_number() OVER (PARTITION BY release_label, skill_name
                               ORDER BY absolute_delta NULLS FIRST, case_id) <= 300
),
numbered AS (
    SELECT r.*, row_number() OVER (
               PARTITION BY r.release_label, r.skill_name, r.case_id
               ORDER BY r.model NULLS LAST, r.arm, r.repetition, r.run_id) AS nth,
           count(*) OVER (PARTITION BY r.release_label, r.skill_name, r.case_id) AS case_runs
    FROM run_rows r
    JOIN drilled d USING (release_label, skill_name, case_id)
    WHERE ($skill IS NULL OR r.skill_name = $skill)
      AND ($release IS NULL OR r.release_label = $release)
)
SELECT n.release_label, n.skill_name, n.case_id, n.model, n.arm, n.repetition, n.run_id,
       n.scorable, n.unscorable_reason, liftdb_pyround(n.objective_pass_rate, 4) AS objective_pass_rate,
       n.total_tokens, n.cost_usd, n.elapsed_ms, n.case_runs,
       left(o.output_text, 600) AS output_excerpt,
       length(o.output_text) AS output_chars
FROM numbered n
LEFT JOIN run o USING (run_id)
WHERE n.nth <= 120
ORDER BY n.release_label, n.skill_name, n.case_id, n.nth;
