-- `liftdb show RUN`: one run's identity, rates, tokens, cost and time, and
-- the start of its output (stored redacted), one row. $run: its run id.
SELECT
    r.run_id,
    r.release_label AS release,
    r.skill_name AS skill,
    r.experiment,
    r.source_format AS format,
    r.case_id AS "case",
    r.case_name,
    r.split,
    r.model,
    r.arm,
    r.repetition AS rep,
    r.run_dir AS folder,
    r.scorable,
    r.unscorable_reason,
    r.graded_by,
    liftdb_pyround(r.objective_pass_rate, 4) AS objective_pass_rate,
    r.objective_passed,
    r.objective_total,
    -- How the run's rate was taken (summary: skill-creator's grading.json
    -- summary), and its expectations as that tool counts them.
    r.rate_basis,
    (SELECT count(*) FILTER (WHERE a.passed) FROM assertion_result a
     WHERE a.grading_id = r.grading_id AND a.channel = 'expectation') AS expectations_passed,
    (SELECT count(*) FROM assertion_result a
     WHERE a.grading_id = r.grading_id AND a.channel = 'expectation') AS expectations_total,
    liftdb_pyround(r.combined_pass_rate, 4) AS combined_pass_rate,
    r.vetoed,
    r.critical_failures,
    CAST(r.input_tokens AS BIGINT) AS input_tokens,
    CAST(r.output_tokens AS BIGINT) AS output_tokens,
    CAST(r.total_tokens AS BIGINT) AS total_tokens,
    r.cost_usd,
    CAST(liftdb_pyround(r.elapsed_ms, 0) AS BIGINT) AS elapsed_ms,
    left(o.output_text, 800) AS output_start,
    length(o.output_text) AS output_chars
FROM runs r
LEFT JOIN run o USING (run_id)
WHERE r.run_id = $run;
