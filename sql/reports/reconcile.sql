-- name: reconcile
-- description: liftdb's figures, recomputed over exactly the runs each report covers, beside the numbers the tool reported itself (peer_metric), with the difference; and, where liftdb graded the runs of a skill-eval-harness report itself, its verdicts against the report's, assertion by assertion (how many agree, then the first disagreements).
-- params: release, skill
WITH benchmark AS (
    SELECT p.source_path, p.release_label, p.skill_name, p.json_path, p.value
    FROM peer_metric p
    WHERE p.report_kind = 'benchmark'
),
report_units AS (
    -- The paired lift recomputed over exactly the runs each report graded.
    SELECT g.report_path, pr.case_id, pr.model,
           avg(pr.with_rate) AS w, avg(pr.control_rate) AS n, count(*) AS pairs
    FROM pairs pr
    JOIN grading g ON g.run_id = pr.with_run_id
    JOIN grading gc ON gc.run_id = pr.control_run_id AND gc.report_path = g.report_path
    WHERE pr.eligible AND pr.control_arm = 'without_skill'
    GROUP BY ALL
),
overall AS (
    SELECT report_path,
           avg(w) AS with_rate, avg(n) AS without_rate, avg(w) - avg(n) AS absolute_delta,
           CASE WHEN avg(w) >= avg(n) AND avg(n) < 1 THEN (avg(w) - avg(n)) / (1 - avg(n)) END AS normalized_gain,
           sum(pairs) AS eligible_pairs,
           -- sign_flip_p is registered on liftdb's own connections.
           round_even(sign_flip_p(list(w - n ORDER BY model NULLS LAST, case_id)), 6) AS p_value
    FROM report_units GROUP BY report_path
),
pairs_compared AS (
    SELECT b.source_path AS source, b.release_label, b.skill_name, b.json_path AS metric, b.value AS tool_value,
           CASE b.json_path
               WHEN '/paired_summary/with_skill_objective_pass_rate' THEN o.with_rate
               WHEN '/paired_summary/without_skill_objective_pass_rate' THEN o.without_rate
               WHEN '/paired_summary/absolute_delta' THEN o.absolute_delta
               WHEN '/paired_summary/normalized_gain' THEN o.normalized_gain
               WHEN '/paired_summary/significance/p_value' THEN o.p_value
               WHEN '/paired_summary/pairing/eligible_pairs' THEN o.eligible_pairs
           END AS liftdb_value
    FROM benchmark b
    JOIN overall o ON o.report_path = b.source_path
    WHERE b.json_path IN ('/paired_summary/with_skill_objective_pass_rate', '/paired_summary/without_skill_objective_pass_rate',
                          '/paired_summary/absolute_delta', '/paired_summary/normalized_gain',
                          '/paired_summary/significance/p_value', '/paired_summary/pairing/eligible_pairs')
),
promptfoo AS (
    SELECT p.source_path, p.release_label, p.skill_name, p.json_path AS metric, p.value AS tool_value,
           (SELECT count(*) FROM runs r JOIN grading g ON g.grading_id = r.grading_id
             WHERE g.report_path = p.source_path
               AND CASE p.json_path WHEN '/stats/successes' THEN r.peer_pass ELSE NOT r.peer_pass END) AS liftdb_value
    FROM peer_metric p
    WHERE p.report_kind = 'promptfoo_results' AND p.json_path IN ('/stats/successes', '/stats/failures')
),
handbook AS (
    SELECT p.source_path, p.release_label, p.skill_name, p.json_path AS metric, p.value AS tool_value,
           (SELECT CASE p.json_path
                       WHEN '/pass_rate_lift' THEN avg(x.with_rate) - avg(x.control_rate)
                       ELSE avg(CASE WHEN x.with_rate = 1 AND x.control_rate = 0 THEN 1.0 ELSE 0.0 END) END
              FROM pairs x
             WHERE x.eligible AND x.control_arm = 'without_skill'
               AND x.native_batch = (SELECT value_text FROM peer_metric q
                                      WHERE q.source_path = p.source_path AND q.json_path = '/run_id')) AS liftdb_value
    FROM peer_metric p
    WHERE p.report_kind = 'handbook_benchmark' AND p.json_path IN ('/pass_rate_lift', '/paired_win_rate')
),
graded_twice AS (
    -- Runs a skill-eval-harness report graded and liftdb graded too.
    SELECT gt.report_path, gt.run_id, gt.grading_id AS tool_grading, gl.grading_id AS liftdb_grading
    FROM grading gt
    JOIN grading gl ON gl.run_id = gt.run_id AND gl.origin = 'liftdb'
    WHERE gt.origin IS NULL
      AND gt.report_path IN (SELECT source_path FROM peer_metric WHERE report_kind = 'benchmark')
),
verdicts AS (
    -- Row by row (the harness's order); a liftdb verdict given under other
    -- flags (scripts not run) or marked unavailable is not compared.
    SELECT coalesce(t.report_path, l.report_path) AS report_path,
           coalesce(t.run_id, l.run_id) AS run_id,
           coalesce(t.seq, l.seq) AS seq,
           coalesce(t.name, l.name) AS name,
           t.score AS tool_score, l.score AS liftdb_score,
           t.seq IS NOT NULL AND l.seq IS NOT NULL
               AND t.name IS NOT DISTINCT FROM l.name
               AND t.passed IS NOT DISTINCT FROM l.passed
               AND t.score IS NOT DISTINCT FROM l.score AS same
    FROM (SELECT g.report_path, g.run_id, a.seq, a.name, a.passed, a.score
          FROM graded_twice g JOIN assertion_result a ON a.grading_id = g.tool_grading) t
    FULL JOIN (SELECT g.report_path, g.run_id, a.seq, a.name, a.passed, a.score, a.availability
               FROM graded_twice g JOIN assertion_result a ON a.grading_id = g.liftdb_grading) l
      ON l.report_path = t.report_path AND l.run_id = t.run_id AND l.seq = t.seq
    WHERE l.availability IS NULL OR l.availability = 'complete'
),
verdicts_compared AS (
    SELECT v.report_path AS source, r.release_label, r.skill_name,
           'verdicts agreeing with liftdb''s own grading (tool_value: compared)' AS metric,
           count(*)::DOUBLE AS tool_value,
           count(*) FILTER (WHERE v.same)::DOUBLE AS liftdb_value
    FROM verdicts v JOIN run r USING (run_id)
    GROUP BY ALL
),
first_disagreements AS (
    SELECT v.report_path AS source, r.release_label, r.skill_name,
           'verdict differs: ' || regexp_extract(r.run_dir, '(([^/]+/){0,3}[^/]+)$', 1)
               || ' #' || v.seq || ' ' || coalesce(v.name, '(unnamed)') AS metric,
           v.tool_score AS tool_value, v.liftdb_score AS liftdb_value
    FROM verdicts v JOIN run r USING (run_id)
    WHERE NOT v.same
    QUALIFY row_number() OVER (PARTITION BY v.report_path ORDER BY r.run_dir, v.seq) <= 10
)
SELECT
    release_label AS release,
    skill_name AS skill,
    regexp_extract(source, '[^/]+$') AS report,
    metric,
    tool_value,
    liftdb_value,
    liftdb_value - tool_value AS difference,
    abs(liftdb_value - tool_value) <= 5e-7 AS agrees
FROM (SELECT * FROM pairs_compared UNION ALL SELECT * FROM promptfoo UNION ALL SELECT * FROM handbook
      UNION ALL SELECT * FROM verdicts_compared UNION ALL SELECT * FROM first_disagreements)
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
ORDER BY release, skill, report, metric;
