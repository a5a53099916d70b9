-- name: reconcile
-- description: liftdb's figures, recomputed over exactly the runs each report covers, beside the numbers the tool reported itself (peer_metric), with the difference; and, where liftdb graded the runs of a skill-eval-harness report itself, its verdicts against the report's, assertion by assertion (how many agree, then the first disagreements); then reconcile-trend's rows.
-- params: release, skill, experiment
-- compact: metric, tool_value, liftdb_value, agrees
-- includes: reconcile-trend
WITH benchmark AS (
    SELECT p.source_path, p.release_label, p.skill_name, p.json_path, p.value
    FROM peer_metric p
    WHERE p.report_kind = 'benchmark'
),
benchmark_gradings AS (
    SELECT run_id, report_path FROM grading
    WHERE report_path IN (SELECT source_path FROM benchmark)
),
report_units AS (
    -- The paired lift recomputed over exactly the runs each report graded:
    -- the pairs of the releases holding such runs only (a store of runs no
    -- report graded works out no pairs here).
    SELECT g.report_path, pr.case_id, pr.model,
           list_avg(list_sort(list(pr.with_rate))) AS w,
           list_avg(list_sort(list(pr.control_rate))) AS n, count(*) AS pairs
    FROM pairs_in((SELECT coalesce(list(DISTINCT r.release_label), []) FROM run r
                   WHERE r.run_id IN (SELECT run_id FROM benchmark_gradings))) pr
    JOIN benchmark_gradings g ON g.run_id = pr.with_run_id
    JOIN benchmark_gradings gc ON gc.run_id = pr.control_run_id AND gc.report_path = g.report_path
    WHERE pr.eligible AND pr.control_arm = 'without_skill'
    GROUP BY ALL
),
overall AS (
    SELECT report_path, with_rate, without_rate, with_rate - without_rate AS absolute_delta,
           CASE WHEN with_rate >= without_rate AND without_rate < 1
                THEN (with_rate - without_rate) / (1 - without_rate) END AS normalized_gain,
           eligible_pairs, p_value
    FROM (
        -- Means over the values sorted (list_avg): avg() sums in thread order,
        -- and the last digit would change from one run to the next.
        SELECT report_path,
               list_avg(list_sort(list(w))) AS with_rate, list_avg(list_sort(list(n))) AS without_rate,
               sum(pairs) AS eligible_pairs,
               -- sign_flip_p is registered on liftdb's own connections.
               liftdb_pyround(sign_flip_p(list(w - n ORDER BY model NULLS LAST, case_id)), 6) AS p_value
        FROM report_units GROUP BY report_path)
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
promptfoo_runs AS (
    -- The runs each promptfoo results file graded (the grading they count).
    SELECT g.report_path, r.run_id, r.arm, r.peer_pass, r.unscorable_reason, r.cost_usd, r.cost_currency, r.cost
    FROM grading g JOIN run_rows r ON r.grading_id = g.grading_id
    WHERE g.report_path IN (SELECT source_path FROM peer_metric WHERE report_kind = 'promptfoo_results')
),
promptfoo AS (
    -- promptfoo's stats count a row whose provider errored (failureReason 2)
    -- as an error, apart from the failures; liftdb keeps it as a failed,
    -- unscorable run (unscorable_reason provider_error).
    SELECT p.source_path, p.release_label, p.skill_name, p.json_path AS metric, p.value AS tool_value,
           (SELECT count(*) FROM promptfoo_runs r
             WHERE r.report_path = p.source_path
               AND CASE p.json_path
                       WHEN '/stats/successes' THEN r.peer_pass
                       WHEN '/stats/errors' THEN r.unscorable_reason IS NOT DISTINCT FROM 'provider_error'
                       ELSE NOT r.peer_pass AND r.unscorable_reason IS DISTINCT FROM 'provider_error' END) AS liftdb_value
    FROM peer_metric p
    WHERE p.report_kind = 'promptfoo_results' AND p.json_path IN ('/stats/successes', '/stats/failures', '/stats/errors')
),
promptfoo_costs AS (
    -- Each prompt × provider's cost and incurredCost (promptfoo sums a row's
    -- incurredCost, else its cost) against the runs of that provider's arm.
    SELECT p.source_path, p.release_label, p.skill_name, p.json_path AS metric, p.value AS tool_value,
           -- cost_ledger's amounts, read from the stored runs: incurred_cost_amount
           -- (a measurement of its own), else cost_usd, else cost_other_amount.
           (SELECT sum(CASE WHEN p.json_path LIKE '%/incurredCost' THEN incurred.amount
                            ELSE coalesce(r.cost_usd, CASE WHEN r.cost_currency IS DISTINCT FROM 'USD' THEN r.cost END) END)
              FROM promptfoo_runs r
              LEFT JOIN measurement incurred ON incurred.run_id = r.run_id AND incurred.metric = 'incurred_cost'
             WHERE r.report_path = p.source_path AND r.arm = a.value_text)::DOUBLE AS liftdb_value
    FROM peer_metric p
    JOIN peer_metric a
      ON a.source_path = p.source_path AND a.json_path = regexp_extract(p.json_path, '^(/prompts/[0-9]+)/', 1) || '/provider'
    WHERE p.report_kind = 'promptfoo_results'
      AND regexp_matches(p.json_path, '^/prompts/[0-9]+/metrics/(cost|incurredCost)$')
      -- One prompt per provider: a provider's runs are not told apart by prompt.
      AND (SELECT count(*) FROM peer_metric q
            WHERE q.source_path = p.source_path AND q.json_path LIKE '/prompts/%/provider' AND q.value_text = a.value_text) = 1
),
handbook_runs AS (
    -- The run id each handbook benchmark names: the native batch of its runs.
    SELECT source_path, value_text AS native_batch
    FROM peer_metric WHERE report_kind = 'handbook_benchmark' AND json_path = '/run_id'
),
handbook_pairs AS (
    -- The pairs of the releases holding such batches only.
    SELECT * FROM pairs_in((SELECT coalesce(list(DISTINCT r.release_label), []) FROM run r
                            WHERE r.native_batch IN (SELECT native_batch FROM handbook_runs)))
    WHERE eligible AND control_arm = 'without_skill'
),
handbook AS (
    SELECT p.source_path, p.release_label, p.skill_name, p.json_path AS metric, p.value AS tool_value,
           (SELECT CASE p.json_path
                       WHEN '/pass_rate_lift' THEN list_avg(list_sort(list(x.with_rate))) - list_avg(list_sort(list(x.control_rate)))
                       ELSE avg(CASE WHEN x.with_rate = 1 AND x.control_rate = 0 THEN 1.0 ELSE 0.0 END) END
              FROM handbook_pairs x
             WHERE x.native_batch = (SELECT native_batch FROM handbook_runs q
                                      WHERE q.source_path = p.source_path)) AS liftdb_value
    FROM peer_metric p
    WHERE p.report_kind = 'handbook_benchmark' AND p.json_path IN ('/pass_rate_lift', '/paired_win_rate')
),
skill_creator_reports AS (
    -- A benchmark.json in skill-creator's shape: written by its
    -- aggregate_benchmark.py over an iteration-N folder, or by
    -- skill-eval-harness `export-anthropic` over a run tree (its notes say so).
    SELECT source_path, any_value(release_label) AS release_label, any_value(skill_name) AS skill_name,
           bool_or(json_path LIKE '/notes/%'
                   AND value_text LIKE 'Generated by shared skill eval harness Anthropic-compatible exporter%') AS exported
    FROM peer_metric
    WHERE report_kind = 'skill_creator_benchmark'
    GROUP BY source_path
),
exported_listed AS (
    -- The runs an export lists: (eval_id, configuration, run_number) and the
    -- pass rate it gives each (result.pass_rate).
    SELECT source_path,
           regexp_extract(json_path, '^/runs/([0-9]+)/', 1) AS run_index,
           any_value(value_text) FILTER (WHERE json_path LIKE '%/eval_id') AS case_id,
           any_value(value_text) FILTER (WHERE json_path LIKE '%/configuration') AS arm,
           any_value(TRY_CAST(value_text AS BIGINT)) FILTER (WHERE json_path LIKE '%/run_number') AS repetition,
           any_value(value) FILTER (WHERE json_path LIKE '%/result/pass_rate') AS listed_rate
    FROM peer_metric
    WHERE source_path IN (SELECT source_path FROM skill_creator_reports WHERE exported)
      AND regexp_matches(json_path, '^/runs/[0-9]+/(eval_id|configuration|run_number|result/pass_rate)$')
    GROUP BY source_path, regexp_extract(json_path, '^/runs/([0-9]+)/', 1)
),
exported_models AS (
    -- How many models an export covers: it drops the model, so a run it
    -- lists appears once per model.
    SELECT source_path, max(copies) AS models
    FROM (SELECT source_path, count(*) AS copies FROM exported_listed
          GROUP BY source_path, case_id, arm, repetition)
    GROUP BY source_path
),
exported_fit AS (
    -- Each experiment and model holding runs an export lists: how many it
    -- holds, and of those how many have the pass rate the export gives.
    SELECT l.source_path, r.experiment, r.model,
           count(DISTINCT l.run_index) AS held,
           count(DISTINCT l.run_index) FILTER (WHERE abs(r.combined_pass_rate - l.listed_rate) < 1e-9) AS agreeing,
           bool_or(starts_with(r.run_dir, regexp_extract(l.source_path, '^(.*)/[^/]+$', 1) || '/')) AS under_its_folder
    FROM exported_listed l
    JOIN skill_creator_reports s USING (source_path)
    JOIN run_rows r ON r.release_label = s.release_label AND r.skill_name = s.skill_name
                   AND r.case_id = l.case_id AND r.arm = l.arm AND r.repetition = l.repetition
    GROUP BY l.source_path, r.experiment, r.model
),
exported_experiment AS (
    -- The experiment holding the runs an export lists: the one whose models
    -- best give its rates, then the one under the export's folder, else the
    -- first by name.
    SELECT source_path, experiment
    FROM exported_fit
    GROUP BY source_path, experiment
    QUALIFY row_number() OVER (
        PARTITION BY source_path
        ORDER BY max(agreeing) DESC, bool_or(under_its_folder) DESC, max(held) DESC, experiment) = 1
),
exported_runs_of AS (
    -- The models of that experiment the export covers: as many as it lists
    -- each run, those whose runs best give its rates.
    SELECT f.source_path, f.experiment, f.model
    FROM exported_fit f
    JOIN exported_experiment e USING (source_path, experiment)
    JOIN exported_models m USING (source_path)
    QUALIFY row_number() OVER (PARTITION BY f.source_path ORDER BY f.agreeing DESC, f.held DESC, f.model NULLS LAST)
            <= any_value(m.models) OVER (PARTITION BY f.source_path)
),
skill_creator_scope AS (
    -- The runs each skill-creator benchmark describes: an iteration's
    -- graded runs (the folder it lies in: iteration-N, also for a copy of
    -- the file kept elsewhere), or the runs an export lists, in the
    -- experiment holding them.
    -- aggregate_benchmark.py reads a run's summary.pass_rate as 0.0 when
    -- its grading.json gives none (an eval without expectations): so here.
    SELECT s.source_path, s.exported, r.arm,
           CASE WHEN s.exported THEN r.objective_pass_rate ELSE coalesce(r.objective_pass_rate, 0.0) END AS objective_pass_rate,
           r.combined_pass_rate
    FROM skill_creator_reports s
    JOIN run_rows r ON r.release_label = s.release_label AND r.skill_name = s.skill_name
    WHERE CASE WHEN s.exported
               THEN EXISTS (SELECT 1 FROM exported_runs_of e
                            WHERE e.source_path = s.source_path AND e.experiment = r.experiment
                              AND e.model IS NOT DISTINCT FROM r.model)
                    AND (r.case_id, r.arm, r.repetition) IN (SELECT (l.case_id, l.arm, l.repetition) FROM exported_listed l WHERE l.source_path = s.source_path)
               ELSE r.experiment = liftdb_folder_of(s.source_path) AND r.graded END
),
skill_creator_stats AS (
    -- Per configuration, the stats of the runs' pass rates, each by its
    -- writer's definition. aggregate_benchmark.py: summary.pass_rate of the
    -- runs it loaded (those with a grading.json), mean and sample stddev
    -- rounded to 4 places. export-anthropic: the harness's benchmark
    -- summary copied, i.e. the combined pass rate (statistics.mean and
    -- stdev, unrounded) of the runs it lists. Time and tokens are not
    -- compared: skill-creator's script counts grader seconds and output
    -- characters under those names (docs/harnesses.md §D).
    SELECT p.source_path, p.release_label, p.skill_name, p.json_path AS metric, p.value AS tool_value,
           CASE WHEN any_value(s.exported) THEN
               CASE regexp_extract(p.json_path, '/([a-z]+)$', 1)
                   WHEN 'mean' THEN liftdb_mean_agg(s.combined_pass_rate)
                   WHEN 'stddev' THEN CASE WHEN count(s.combined_pass_rate) > 1 THEN stddev_samp(s.combined_pass_rate)
                                           WHEN count(s.combined_pass_rate) = 1 THEN 0 END
                   WHEN 'min' THEN min(s.combined_pass_rate)
                   WHEN 'max' THEN max(s.combined_pass_rate)
               END
           ELSE
               CASE regexp_extract(p.json_path, '/([a-z]+)$', 1)
                   WHEN 'mean' THEN liftdb_round4(liftdb_mean_agg(s.objective_pass_rate))
                   WHEN 'stddev' THEN liftdb_round4(CASE WHEN count(s.objective_pass_rate) > 1 THEN stddev_samp(s.objective_pass_rate)
                                                         WHEN count(s.objective_pass_rate) = 1 THEN 0 END)
                   WHEN 'min' THEN min(s.objective_pass_rate)
                   WHEN 'max' THEN max(s.objective_pass_rate)
               END
           END AS liftdb_value,
           CASE WHEN bool_or(sr.exported) THEN 'export-anthropic: combined pass rate of the listed runs, unrounded'
                ELSE 'aggregate_benchmark.py: summary pass rate (0.0 where grading.json gives none), rounded to 4 places' END AS definition
    FROM peer_metric p
    JOIN skill_creator_reports sr ON sr.source_path = p.source_path
    LEFT JOIN skill_creator_scope s
      ON s.source_path = p.source_path AND s.arm = regexp_extract(p.json_path, '^/run_summary/([^/]+)/', 1)
    WHERE p.report_kind = 'skill_creator_benchmark'
      AND regexp_matches(p.json_path, '^/run_summary/[^/]+/pass_rate/(mean|stddev|min|max)$')
    GROUP BY p.source_path, p.release_label, p.skill_name, p.json_path, p.value
),
skill_creator_runs AS (
    -- The runs[] rows of each configuration against the runs liftdb holds there.
    SELECT p.source_path, p.release_label, p.skill_name, 'runs of ' || p.value_text AS metric,
           count(*)::DOUBLE AS tool_value,
           any_value((SELECT count(*) FROM skill_creator_scope s
                       WHERE s.source_path = p.source_path AND s.arm = p.value_text))::DOUBLE AS liftdb_value,
           NULL AS definition
    FROM peer_metric p
    WHERE p.report_kind = 'skill_creator_benchmark'
      AND regexp_matches(p.json_path, '^/runs/[0-9]+/configuration$')
    GROUP BY p.source_path, p.release_label, p.skill_name, p.value_text
),
trigger_reports AS (
    -- A skill-eval-harness trigger matrix's per-entry summary (runs passed,
    -- runs) and run_eval.py's summary (queries passed, queries) against the
    -- observations stored from the same file.
    SELECT p.source_path, p.release_label, p.skill_name,
           coalesce('matrix ' || a.value_text || coalesce('/' || m.value_text, '') || ' ', '')
               || regexp_extract(p.json_path, '/summary/(.*)$', 1) AS metric,
           p.value AS tool_value,
           (SELECT CASE WHEN p.report_kind = 'trigger_matrix' THEN
                        CASE WHEN p.json_path LIKE '%/passed' THEN sum(CASE WHEN o.passed THEN o.runs ELSE 0 END)
                             ELSE sum(o.runs) END
                   ELSE CASE WHEN p.json_path LIKE '%/passed' THEN count(*) FILTER (WHERE o.passed)
                             ELSE count(*) END END
              FROM trigger_observation o
             WHERE o.source_path = p.source_path
               AND (a.value_text IS NULL OR o.agent = a.value_text)
               AND (m.value_text IS NULL OR o.model = m.value_text))::DOUBLE AS liftdb_value
    FROM peer_metric p
    LEFT JOIN peer_metric a
      ON a.source_path = p.source_path AND a.json_path = regexp_extract(p.json_path, '^(/matrix/[0-9]+)/', 1) || '/agent'
    LEFT JOIN peer_metric m
      ON m.source_path = p.source_path AND m.json_path = regexp_extract(p.json_path, '^(/matrix/[0-9]+)/', 1) || '/model'
    WHERE (p.report_kind = 'trigger_matrix' AND regexp_matches(p.json_path, '^/matrix/[0-9]+/summary/(passed|total)$'))
       OR (p.report_kind = 'skill_creator_trigger_eval' AND p.json_path IN ('/summary/passed', '/summary/total'))
),
seh_ledger AS (
    -- The skill-eval-harness runs read from their folders: what a cost or
    -- token report read under its runs root (a run another report defined,
    -- its folder never read, was not on disk for it).
    -- A requested variant with no folder (a phantom run, graded by the
    -- benchmark as missing) was not on disk either.
    SELECT r.release_label, r.skill_name, r.experiment, r.case_id, r.model, r.repetition, r.arm, r.cost_usd, r.total_tokens
    FROM run_rows r
    WHERE r.source_format = 'C_seh' AND r.population = 'answer' AND r.defined_by IS NULL
      AND r.run_id NOT IN (SELECT run_id FROM run WHERE repetition_source = 'phantom')
),
runs_roots AS (
    -- The runs root a cost or token report names (`runs_root`, a report's
    -- `runs`): its last folder is the experiment of the runs it covers.
    SELECT source_path, json_path,
           nullif(nullif(regexp_extract(value_text, '([^/\\]+)[/\\]*$', 1), '.'), '..') AS experiment
    FROM peer_metric
    WHERE (report_kind = 'cost_summary' AND json_path = '/runs_root')
       OR (report_kind = 'token_overhead' AND regexp_matches(json_path, '^/reports/[0-9]+/runs$'))
),
cost_summary_cases AS (
    -- The cases a cost-summary.json walked (its manifest's: by_case).
    SELECT source_path, regexp_extract(json_path, '^/by_case/(.+)/runs$', 1) AS case_id
    FROM peer_metric
    WHERE report_kind = 'cost_summary' AND regexp_matches(json_path, '^/by_case/.+/runs$')
),
cost_summary_ledger AS (
    -- Per cost-summary.json, the runs it describes that the store read from
    -- folders: of its release and skill, in its runs root's experiment (any
    -- when it names none, as `--runs .`), of the cases it walked.
    SELECT p.source_path, l.*
    FROM peer_metric p
    LEFT JOIN runs_roots root ON root.source_path = p.source_path AND root.json_path = '/runs_root'
    JOIN seh_ledger l
      ON l.release_label = p.release_label AND l.skill_name IS NOT DISTINCT FROM coalesce(p.skill_name, l.skill_name)
     AND (root.experiment IS NULL OR l.experiment = root.experiment)
    WHERE p.report_kind = 'cost_summary' AND p.json_path = '/coverage/runs_seen'
      AND (l.case_id IN (SELECT c.case_id FROM cost_summary_cases c WHERE c.source_path = p.source_path)
           OR NOT EXISTS (SELECT 1 FROM cost_summary_cases c WHERE c.source_path = p.source_path))
),
cost_summary_runs AS (
    -- Per cost-summary.json: the runs it describes that the store holds.
    SELECT p.source_path, p.release_label, p.skill_name, root.experiment,
           (SELECT count(*) FROM cost_summary_ledger l WHERE l.source_path = p.source_path) AS held,
           (SELECT count(DISTINCT l.experiment) FROM cost_summary_ledger l WHERE l.source_path = p.source_path) AS roots,
           p.value AS runs_seen
    FROM peer_metric p
    LEFT JOIN runs_roots root ON root.source_path = p.source_path AND root.json_path = '/runs_root'
    WHERE p.report_kind = 'cost_summary' AND p.json_path = '/coverage/runs_seen'
),
cost_summary AS (
    -- cost-summary.json: runs seen, runs with a dollar cost or token usage,
    -- and the known dollar subtotal, overall and per variant, over the runs
    -- read from the folders of its runs root in its release.
    SELECT p.source_path, p.release_label, p.skill_name, p.json_path AS metric, p.value AS tool_value,
           (SELECT CASE
                       WHEN p.json_path LIKE '%/runs' OR p.json_path = '/coverage/runs_seen' THEN count(*)
                       WHEN p.json_path = '/coverage/runs_with_dollar_cost' THEN count(l.cost_usd)
                       WHEN p.json_path = '/coverage/runs_with_token_usage' THEN count(l.total_tokens)
                       ELSE round(sum(l.cost_usd), 6) END
              FROM cost_summary_ledger l
             WHERE l.source_path = p.source_path
               AND (p.json_path NOT LIKE '/by_variant/%' OR l.arm = regexp_extract(p.json_path, '^/by_variant/([^/]+)/', 1)))::DOUBLE AS liftdb_value,
           NULL::VARCHAR AS definition
    FROM peer_metric p
    JOIN cost_summary_runs h ON h.source_path = p.source_path AND h.held > 0 AND h.roots = 1
    WHERE p.report_kind = 'cost_summary'
      AND (p.json_path IN ('/coverage/runs_seen', '/coverage/runs_with_dollar_cost', '/coverage/runs_with_token_usage',
                           '/totals/total_cost_usd_aggregate/known_subtotal')
           OR regexp_matches(p.json_path, '^/by_variant/[^/]+/(runs|total_cost_usd_aggregate/known_subtotal)$'))
    UNION ALL
    -- A report none of whose runs the store read from their folders: said,
    -- not compared with other runs.
    SELECT source_path, release_label, skill_name, 'runs the report describes', runs_seen, NULL,
           CASE WHEN held = 0
                THEN 'not in the store: no run of runs root ' || coalesce(experiment, '(none named)')
                     || ' of this release was read from its folder (ingest the runs root to compare)'
                ELSE 'not told apart: its runs root names no folder (--runs .) and the release holds runs of '
                     || roots || ' runs roots' END
    FROM cost_summary_runs WHERE held = 0 OR roots > 1
),
token_pairs AS (
    -- The pairs each report of a token-overhead.json lists (its runs).
    SELECT source_path, regexp_extract(pair, '^/reports/([0-9]+)/', 1) AS report,
           any_value(release_label) AS release_label,
           any_value(value_text) FILTER (WHERE metric_name = 'case_id') AS case_id,
           any_value(value_text) FILTER (WHERE metric_name = 'model') AS model,
           any_value(value) FILTER (WHERE metric_name = 'run_number') AS run_number
    FROM (SELECT source_path, release_label, metric_name, value, value_text,
                 regexp_extract(json_path, '^(/reports/[0-9]+/pairs/[0-9]+)/', 1) AS pair
          FROM peer_metric
          WHERE report_kind = 'token_overhead'
            AND regexp_matches(json_path, '^/reports/[0-9]+/pairs/[0-9]+/(case_id|model|run_number)$'))
    GROUP BY source_path, pair
),
token_pairs_held AS (
    -- Per report of the file: the listed pairs the store holds from folders
    -- of its runs root (a model the tool names None is any model).
    SELECT p.source_path, p.report, p.release_label, root.experiment, count(*) AS listed,
           count(*) FILTER (WHERE EXISTS (
               SELECT 1 FROM seh_ledger l
                WHERE l.release_label = p.release_label AND (root.experiment IS NULL OR l.experiment = root.experiment)
                  AND l.case_id = p.case_id
                  AND (p.model IS NULL OR l.model = p.model) AND l.repetition = p.run_number)) AS held
    FROM token_pairs p
    LEFT JOIN runs_roots root ON root.source_path = p.source_path AND root.json_path = '/reports/' || p.report || '/runs'
    GROUP BY ALL
),
token_overhead AS (
    -- token-overhead.json: n and mean of the comparable per-pair cost and
    -- token deltas (cost_per_lift), per report of the file, over the pairs
    -- it lists, in the experiment of its runs root.
    SELECT p.source_path, p.release_label, p.skill_name, p.json_path AS metric, p.value AS tool_value,
           (SELECT CASE regexp_extract(p.json_path, '/([a-z_]+)/(n|mean)$', 1)
                       WHEN 'cost_delta_usd' THEN CASE WHEN p.json_path LIKE '%/n' THEN count(c.cost_delta) ELSE list_avg(list_sort(list(c.cost_delta))) END
                       WHEN 'total_token_delta' THEN CASE WHEN p.json_path LIKE '%/n' THEN count(c.total_token_delta) ELSE list_avg(list_sort(list(c.total_token_delta))) END
                       WHEN 'input_token_delta' THEN CASE WHEN p.json_path LIKE '%/n' THEN count(c.input_token_delta) ELSE list_avg(list_sort(list(c.input_token_delta))) END
                       WHEN 'output_token_delta' THEN CASE WHEN p.json_path LIKE '%/n' THEN count(c.output_token_delta) ELSE list_avg(list_sort(list(c.output_token_delta))) END
                   END
              FROM cost_per_lift_rows c
             WHERE c.release_label = p.release_label AND (h.experiment IS NULL OR c.experiment = h.experiment)
               AND c.skill_name IS NOT DISTINCT FROM coalesce(p.skill_name, c.skill_name)
               AND EXISTS (SELECT 1 FROM token_pairs t
                            WHERE t.source_path = p.source_path AND t.report = h.report AND t.case_id = c.case_id
                              AND (t.model IS NULL OR t.model = c.model) AND t.run_number = c.repetition)
               -- the pair's runs read from their folders (not another report's)
               AND EXISTS (SELECT 1 FROM seh_ledger l
                            WHERE l.release_label = c.release_label AND l.experiment = c.experiment
                              AND l.case_id = c.case_id AND l.model IS NOT DISTINCT FROM c.model
                              AND l.repetition = c.repetition))::DOUBLE AS liftdb_value,
           NULL::VARCHAR AS definition
    FROM peer_metric p
    JOIN token_pairs_held h
      ON h.source_path = p.source_path AND h.report = regexp_extract(p.json_path, '^/reports/([0-9]+)/', 1) AND h.held > 0
    WHERE p.report_kind = 'token_overhead'
      AND regexp_matches(p.json_path, '^/reports/[0-9]+/summary/(cost_delta_usd|total_token_delta|input_token_delta|output_token_delta)/(n|mean)$')
    UNION ALL
    SELECT h.source_path, p.release_label, p.skill_name,
           '/reports/' || h.report || ': pairs the report lists', h.listed::DOUBLE, NULL,
           'not in the store: none of its pairs was read from the folders of runs root '
               || coalesce(h.experiment, '(none named)') || ' (ingest the runs root to compare)'
    FROM token_pairs_held h
    JOIN peer_metric p ON p.source_path = h.source_path AND p.json_path = '/reports/' || h.report || '/runs'
    WHERE h.held = 0
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
    liftdb_folder_of(source) AS folder,
    metric,
    tool_value,
    liftdb_value,
    liftdb_value - tool_value AS difference,
    -- Both unavailable (the tool's null, liftdb's NULL) agree.
    CASE WHEN tool_value IS NULL AND liftdb_value IS NULL AND definition IS NULL THEN true
         ELSE abs(liftdb_value - tool_value) <= 5e-7 * greatest(1, abs(tool_value)) END AS agrees,
    -- Where the tool's figure is defined otherwise than liftdb's views: the
    -- definition liftdb_value follows.
    definition
FROM (SELECT *, NULL AS definition FROM pairs_compared UNION ALL SELECT *, NULL FROM promptfoo
      UNION ALL SELECT *, NULL FROM promptfoo_costs UNION ALL SELECT *, NULL FROM handbook
      UNION ALL SELECT * FROM skill_creator_stats UNION ALL SELECT * FROM skill_creator_runs
      UNION ALL SELECT *, NULL FROM trigger_reports UNION ALL SELECT * FROM cost_summary
      UNION ALL SELECT * FROM token_overhead
      UNION ALL SELECT *, NULL FROM verdicts_compared UNION ALL SELECT *, NULL FROM first_disagreements)
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  -- A report of the experiment: graded its runs, names it (a handbook run
  -- id), lies in its folder (a skill-creator iteration) or is it (a trigger report).
  AND ($experiment IS NULL
       OR liftdb_folder_of(source) = $experiment
       OR regexp_extract(source, '[^/]+$') = $experiment
       OR source IN (SELECT g.report_path FROM grading g JOIN run r USING (run_id) WHERE r.native_batch = $experiment)
       OR source IN (SELECT p.source_path FROM peer_metric p WHERE p.json_path = '/run_id' AND p.value_text = $experiment))
ORDER BY release, skill, folder, report, metric;
