-- The drill-down's runs: each case's runs per model, arm and repetition
-- (at most 120 per case, the first by model, arm, repetition), with cost,
-- tokens, time and the start of the output (stored redacted).
WITH numbered AS (
    SELECT r.*, row_number() OVER (
               PARTITION BY r.release_label, r.skill_name, r.case_id
               ORDER BY r.model NULLS LAST, r.arm, r.repetition, r.run_id) AS nth,
           count(*) OVER (PARTITION BY r.release_label, r.skill_name, r.case_id) AS case_runs
    FROM runs r
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
