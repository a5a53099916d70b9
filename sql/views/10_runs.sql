-- stored: run_rows
-- stored threads: 2
-- stored grain: case
-- runs: one row per run with everything an analyst usually needs, no joins.
-- Rates are recomputed from the assertion rows of the run's grading
-- (docs/metrics.md §M1); the harness's own per-run figures are kept as peer_*.
-- Tools whose unit of success is the run (handbook, promptfoo: pass/fail;
-- skill-creator: the grader's pass_rate) set rate_basis, and objective_pass_rate
-- then follows that definition (docs/metrics.md §M1, other harnesses).
-- runs_in(releases) gives the rows of the releases listed (NULL: every
-- release), each aggregate read only for their runs: the end of an ingest
-- refills the stored aggregates of the releases it touched through it, and
-- an analyst may use it the same way (FROM runs_in(['v1.2'])).
-- runs_of(releases, cases) adds the runs of the cases listed (keys made by
-- liftdb_case_key): a batch that touched a few cases of a release refills
-- their runs only.
CREATE OR REPLACE MACRO runs_of(releases, cases) AS TABLE
WITH scope AS (
    -- Empty for every release (NULL), whose subqueries below read no scope:
    -- a scope of every run would still be planned as a join per subquery.
    SELECT run_id FROM run
    WHERE releases IS NOT NULL AND liftdb_in_scope(releases, cases, release_label, skill_name, case_id)
),
gaps AS (
    -- Verdicts liftdb's grader could not give exactly, and the oracles it did
    -- not run — script assertions without --allow-scripts, embedding
    -- similarity (never called) — failed as the harness fails them without
    -- those flags; a report made with them knows better.
    SELECT grading_id,
           count(*) FILTER (WHERE availability = 'unavailable') AS unavailable,
           count(*) FILTER (WHERE availability IN ('scripts_not_allowed', 'embedding_not_run')) AS not_run
    FROM assertion_result
    WHERE availability IN ('unavailable', 'scripts_not_allowed', 'embedding_not_run') AND NOT skipped
      AND (releases IS NULL OR run_id IN (SELECT run_id FROM scope))
    GROUP BY grading_id
),
chosen_grading AS (
    -- liftdb's own grading when it decided every verdict, then a tool's report
    -- (the newest, between a per-split and an all-split benchmark), then
    -- liftdb's with scripts or embeddings not run or judge verdicts missing,
    -- then the grading.json a harness left in the run folder (its judge tasks
    -- written as failed, its severities dropped), then liftdb's with
    -- unavailable verdicts.
    SELECT g.*
    FROM grading g
    LEFT JOIN gaps USING (grading_id)
    WHERE releases IS NULL OR g.run_id IN (SELECT run_id FROM scope)
    QUALIFY row_number() OVER (
        PARTITION BY g.run_id
        ORDER BY CASE
                     WHEN g.origin = 'run_folder' THEN 3
                     WHEN g.origin IS DISTINCT FROM 'liftdb' THEN 1
                     WHEN coalesce(gaps.unavailable, 0) > 0 THEN 4
                     WHEN coalesce(gaps.not_run, 0) > 0 OR coalesce(g.deferred_judge_tasks, 0) > 0 THEN 2
                     ELSE 0
                 END,
                 g.generated_at DESC NULLS LAST, g.report_path DESC) = 1
),
graded AS (
    SELECT
        a.grading_id,
        count(*) FILTER (WHERE a.channel <> 'qualitative' AND a.severity IN ('gate', 'critical') AND NOT a.skipped) AS objective_total,
        count(*) FILTER (WHERE a.channel <> 'qualitative' AND a.severity IN ('gate', 'critical') AND NOT a.skipped AND a.passed) AS objective_passed,
        count(*) FILTER (WHERE a.channel = 'process' AND a.severity IN ('gate', 'critical') AND NOT a.skipped) AS process_total,
        count(*) FILTER (WHERE a.channel = 'process' AND a.severity IN ('gate', 'critical') AND NOT a.skipped AND a.passed) AS process_passed,
        count(*) FILTER (WHERE a.channel = 'efficiency' AND a.severity IN ('gate', 'critical') AND NOT a.skipped) AS efficiency_total,
        count(*) FILTER (WHERE a.channel = 'efficiency' AND a.severity IN ('gate', 'critical') AND NOT a.skipped AND a.passed) AS efficiency_passed,
        count(*) FILTER (WHERE a.channel = 'qualitative' AND a.severity IN ('gate', 'critical') AND NOT a.skipped) AS qualitative_total,
        count(*) FILTER (WHERE a.channel = 'qualitative' AND a.severity IN ('gate', 'critical') AND NOT a.skipped AND a.passed) AS qualitative_passed,
        coalesce(bool_or(a.severity = 'critical' AND NOT a.skipped AND NOT coalesce(a.passed, false)), false) AS vetoed,
        list_sort(list_distinct(list(a.name) FILTER (
            WHERE a.severity = 'critical' AND NOT a.skipped AND NOT coalesce(a.passed, false)))) AS critical_failures,
        count(*) FILTER (WHERE a.severity = 'soft' AND NOT a.skipped) AS soft_total,
        count(*) FILTER (WHERE a.severity = 'soft' AND NOT a.skipped AND a.passed) AS soft_passed,
        -- statistics.mean, exact (avg() would follow DuckDB's summation order).
        liftdb_mean_agg(CASE WHEN a.severity = 'soft' AND NOT a.skipped THEN a.score END) AS soft_mean_score,
        count(*) FILTER (WHERE a.skipped) AS skipped_total,
        count(*) FILTER (WHERE a.availability = 'unavailable' AND NOT a.skipped) AS unavailable_total
    FROM assertion_result a
    WHERE releases IS NULL OR a.run_id IN (SELECT run_id FROM scope)
    GROUP BY a.grading_id
),
metric AS (
    SELECT
        run_id,
        max(value) FILTER (WHERE metric = 'input_tokens') AS input_tokens,
        max(value) FILTER (WHERE metric = 'output_tokens') AS output_tokens,
        max(value) FILTER (WHERE metric = 'total_tokens') AS total_tokens,
        max(value) FILTER (WHERE metric = 'cache_read_tokens') AS cache_read_tokens,
        max(availability) FILTER (WHERE metric = 'total_tokens') AS tokens_availability,
        max(provenance) FILTER (WHERE metric = 'total_tokens') AS tokens_provenance,
        max(amount) FILTER (WHERE metric = 'cost') AS cost,
        max(currency) FILTER (WHERE metric = 'cost') AS cost_currency,
        max(availability) FILTER (WHERE metric = 'cost') AS cost_availability,
        max(provenance) FILTER (WHERE metric = 'cost') AS cost_provenance,
        max(reason) FILTER (WHERE metric = 'cost') AS cost_reason,
        max(value) FILTER (WHERE metric = 'elapsed_ms') AS elapsed_ms,
        max(availability) FILTER (WHERE metric = 'elapsed_ms') AS elapsed_availability,
        max(value) FILTER (WHERE metric = 'tool_calls') AS tool_calls,
        max(value) FILTER (WHERE metric = 'commands') AS commands,
        max(availability) FILTER (WHERE metric = 'commands') AS trace_counters_availability
    FROM measurement
    WHERE releases IS NULL OR run_id IN (SELECT run_id FROM scope)
    GROUP BY run_id
),
activation AS (
    SELECT run_id, bool_or(loaded) AS skill_invoked
    FROM skill_activation
    WHERE releases IS NULL OR run_id IN (SELECT run_id FROM scope)
    GROUP BY run_id
)
SELECT
    r.run_id,
    r.release_label,
    r.native_batch,
    r.native_batch AS experiment,
    r.source_format,
    r.skill_name,
    r.case_id,
    c.split,
    c.kind,
    c.eval_intent,
    coalesce(r.population, c.population, 'answer') AS population,
    r.model,
    r.arm,
    r.repetition,
    r.provider,
    r.output_present AND r.execution_valid AS scorable,
    r.output_present,
    r.execution_valid,
    r.unscorable_reason,
    r.returncode,
    r.timed_out,
    g.grading_id IS NOT NULL AS graded,
    g.grading_id,
    gr.objective_passed,
    gr.objective_total,
    CASE g.rate_basis
        WHEN 'run_outcome' THEN CASE WHEN g.peer_pass THEN 1.0 WHEN NOT g.peer_pass THEN 0.0 END
        WHEN 'summary' THEN g.peer_pass_rate
        ELSE CASE WHEN gr.unavailable_total > 0 THEN NULL
                  WHEN gr.vetoed THEN 0.0
                  WHEN gr.objective_total = 0 THEN NULL
                  ELSE gr.objective_passed / gr.objective_total END
    END AS objective_pass_rate,
    g.rate_basis,
    coalesce(g.origin, 'report') AS graded_by,
    g.peer_pass,
    CASE WHEN gr.process_total = 0 OR gr.unavailable_total > 0 THEN NULL
         WHEN gr.vetoed THEN 0.0
         ELSE gr.process_passed / gr.process_total END AS process_pass_rate,
    CASE WHEN gr.efficiency_total = 0 OR gr.unavailable_total > 0 THEN NULL
         WHEN gr.vetoed THEN 0.0
         ELSE gr.efficiency_passed / gr.efficiency_total END AS efficiency_pass_rate,
    CASE WHEN gr.qualitative_total = 0 OR gr.unavailable_total > 0 THEN NULL
         WHEN gr.vetoed THEN 0.0
         ELSE gr.qualitative_passed / gr.qualitative_total END AS qualitative_pass_rate,
    CASE WHEN gr.objective_total + gr.qualitative_total = 0 OR gr.unavailable_total > 0 THEN NULL
         WHEN gr.vetoed THEN 0.0
         ELSE (gr.objective_passed + gr.qualitative_passed) / (gr.objective_total + gr.qualitative_total) END AS combined_pass_rate,
    gr.vetoed,
    gr.critical_failures,
    gr.soft_total,
    gr.soft_passed,
    CASE WHEN gr.vetoed OR gr.unavailable_total > 0 THEN NULL ELSE liftdb_round4(gr.soft_mean_score) END AS graded_score,
    g.peer_objective_pass_rate,
    g.peer_combined_pass_rate,
    g.peer_vetoed,
    liftdb_token_count(m.input_tokens) AS input_tokens,
    liftdb_token_count(m.output_tokens) AS output_tokens,
    liftdb_token_count(m.total_tokens) AS total_tokens,
    liftdb_token_count(m.cache_read_tokens) AS cache_read_tokens,
    -- A count liftdb_token_count refuses (below 0, beyond 10^12) is no count.
    CASE WHEN m.total_tokens IS NOT NULL AND liftdb_token_count(m.total_tokens) IS NULL THEN 'unavailable'
         ELSE coalesce(m.tokens_availability, 'unavailable') END AS tokens_availability,
    m.tokens_provenance,
    m.cost,
    m.cost_currency,
    CASE WHEN m.cost_currency = 'USD' THEN m.cost END AS cost_usd,
    coalesce(m.cost_availability, 'unavailable') AS cost_availability,
    m.cost_provenance,
    m.cost_reason,
    m.elapsed_ms,
    coalesce(m.elapsed_availability, 'unavailable') AS elapsed_availability,
    m.tool_calls,
    m.commands,
    coalesce(m.trace_counters_availability, 'unavailable') AS trace_counters_availability,
    act.skill_invoked,
    r.skill_tree_hash,
    r.run_dir,
    r.batch_id,
    r.stop_class,
    r.served_model,
    r.served_model_check,
    r.effort,
    r.shard,
    r.defined_by,
    r.case_name,
    r.started_at
FROM run r
LEFT JOIN case_def c
    ON c.release_label = r.release_label AND c.skill_name = r.skill_name AND c.case_id = r.case_id
LEFT JOIN chosen_grading g ON g.run_id = r.run_id
LEFT JOIN graded gr ON gr.grading_id = g.grading_id
LEFT JOIN metric m ON m.run_id = r.run_id
LEFT JOIN activation act ON act.run_id = r.run_id
WHERE liftdb_in_scope(releases, cases, r.release_label, r.skill_name, r.case_id);

CREATE OR REPLACE MACRO runs_in(releases) AS TABLE SELECT * FROM runs_of(releases, NULL);

-- The view adds the reports' names of its columns (release, skill, case …)
-- after them; its stored table holds the columns once.
CREATE OR REPLACE VIEW runs AS SELECT *, release_label AS release, skill_name AS skill, case_id AS "case", repetition AS rep FROM runs_in(NULL);

COMMENT ON COLUMN runs.release IS 'The same as release_label, as the reports name it.';
COMMENT ON COLUMN runs.skill IS 'The same as skill_name, as the reports name it.';
COMMENT ON COLUMN runs."case" IS 'The same as case_id, as the reports name it.';
COMMENT ON COLUMN runs.rep IS 'The same as repetition, as the reports name it.';

COMMENT ON VIEW runs IS 'One row per run: identity, split, scorable, recomputed pass rates, tokens, cost, time, availability.';

-- Columns
COMMENT ON COLUMN runs.run_id IS 'Deterministic run key: hash of release, native batch, skill, case, model, arm, repetition.';
COMMENT ON COLUMN runs.release_label IS 'Release the run belongs to (--release, or derived at ingest).';
COMMENT ON COLUMN runs.native_batch IS 'The tool''s own batch: seh runs root, handbook run id, skill-creator iteration, promptfoo eval id.';
COMMENT ON COLUMN runs.experiment IS 'The experiment: one native benchmark of its tool (a seh runs root, a handbook run id, a skill-creator iteration, a promptfoo eval id). Per-experiment rows of lift and the other views reproduce that tool''s own report.';
COMMENT ON COLUMN runs.source_format IS 'Harness that wrote the run: A_handbook, B_skill_evals, C_seh, D_skill_creator, E_promptfoo.';
COMMENT ON COLUMN runs.skill_name IS 'Skill under test.';
COMMENT ON COLUMN runs.case_id IS 'Eval case id.';
COMMENT ON COLUMN runs.started_at IS 'When the run started (UTC), as its harness records it (skill-creator executor_start, promptfoo the eval''s timestamp); NULL where it records none.';
COMMENT ON COLUMN runs.case_name IS 'The case''s name where the harness gives one beside its id (skill-creator eval_name); NULL otherwise.';
COMMENT ON COLUMN runs.split IS 'Case split from the manifest: tune, holdout, holdback (NULL when undefined).';
COMMENT ON COLUMN runs.kind IS 'Case kind from the manifest (trigger cases are not answer runs).';
COMMENT ON COLUMN runs.eval_intent IS 'capability (default) or regression, from the manifest.';
COMMENT ON COLUMN runs.population IS 'answer or trigger.';
COMMENT ON COLUMN runs.model IS 'Model of the run (layout, else metadata); NULL when the harness records none.';
COMMENT ON COLUMN runs.arm IS 'with_skill, without_skill, old_skill, ablation:<id>, or the tool''s own label.';
COMMENT ON COLUMN runs.repetition IS 'Repetition number (run-N, or 1 for a single run).';
COMMENT ON COLUMN runs.defined_by IS 'The benchmark report the run comes from when its folder was never read (a release kept as reports): its grading, tokens, cost and time are the report''s; its output, trace and files are unavailable. NULL for a run read from its folder.';
COMMENT ON COLUMN runs.shard IS 'The shard of a release split across jobs (ingest --shard NAME) the run came from; pairs never cross shards. NULL when not sharded.';
COMMENT ON COLUMN runs.provider IS 'Provider the runner reported.';
COMMENT ON COLUMN runs.scorable IS 'Has an output and executed validly: the runs every rate and pair counts (docs/metrics.md, conventions).';
COMMENT ON COLUMN runs.output_present IS 'An output file (or outputs/ text) exists.';
COMMENT ON COLUMN runs.execution_valid IS 'No invalid metadata, non-zero return code, timeout or runner failure marker.';
COMMENT ON COLUMN runs.unscorable_reason IS 'Why the run is not scorable, in its harness''s names: missing_output, returncode_N, timed_out, failure_marker:..., invalid_metadata, stopped:truncated, stopped:turn_limit, served_model_mismatch (skill-eval-harness); provider_error, preconditions_failed (promptfoo); missing_grading (handbook). not_counted_runs classes them.';
COMMENT ON COLUMN runs.returncode IS 'Runner return code from metadata.';
COMMENT ON COLUMN runs.timed_out IS 'The runner timed out (metadata timed_out or timeout).';
COMMENT ON COLUMN runs.graded IS 'A grading exists for the run.';
COMMENT ON COLUMN runs.grading_id IS 'The grading the rates come from (the newest when several reports graded it).';
COMMENT ON COLUMN runs.objective_passed IS 'Passed gate and critical objective results (objective, process, efficiency channels; skipped excluded).';
COMMENT ON COLUMN runs.objective_total IS 'Gate and critical objective results counted.';
COMMENT ON COLUMN runs.objective_pass_rate IS 'passed / total, 0 when vetoed, NULL when nothing counts (docs/metrics.md §M1); the tool''s own rate for run-outcome and summary bases.';
COMMENT ON COLUMN runs.rate_basis IS 'How the tool defines a run''s rate: assertions, run_outcome (pass/fail), summary (a grader''s pass_rate).';
COMMENT ON COLUMN runs.graded_by IS 'liftdb when liftdb graded the run from the manifest itself; report when a tool''s report carried the grading; run_folder when it is the grading.json a harness wrote into the run folder.';
COMMENT ON COLUMN runs.peer_pass IS 'The tool''s own pass/fail for the run, when it gives one.';
COMMENT ON COLUMN runs.process_pass_rate IS 'Rate over gate process results (NULL when none).';
COMMENT ON COLUMN runs.efficiency_pass_rate IS 'Rate over gate efficiency results (NULL when none).';
COMMENT ON COLUMN runs.qualitative_pass_rate IS 'Rate over gate judge results (NULL when none, even if vetoed).';
COMMENT ON COLUMN runs.combined_pass_rate IS 'Objective and qualitative results counted together.';
COMMENT ON COLUMN runs.vetoed IS 'A critical result failed: every rate is 0 and the graded score NULL.';
COMMENT ON COLUMN runs.critical_failures IS 'Names of the failed critical results, sorted.';
COMMENT ON COLUMN runs.soft_total IS 'Soft results (they feed only graded_score).';
COMMENT ON COLUMN runs.soft_passed IS 'Soft results that passed.';
COMMENT ON COLUMN runs.graded_score IS 'Mean score of the soft results, rounded 4; NULL when none or vetoed.';
COMMENT ON COLUMN runs.peer_objective_pass_rate IS 'The harness''s own objective_pass_rate for the run, as its report printed it.';
COMMENT ON COLUMN runs.peer_combined_pass_rate IS 'The harness''s own combined_pass_rate for the run.';
COMMENT ON COLUMN runs.peer_vetoed IS 'The harness''s own vetoed flag for the run.';
COMMENT ON COLUMN runs.input_tokens IS 'Input tokens, an integer (NULL when unavailable, or when the harness wrote no count: below 0 or beyond 10^12).';
COMMENT ON COLUMN runs.output_tokens IS 'Output tokens, an integer (NULL when unavailable, or when the harness wrote no count: below 0 or beyond 10^12).';
COMMENT ON COLUMN runs.total_tokens IS 'Total tokens, an integer (NULL when unavailable, or when the harness wrote no count: below 0 or beyond 10^12).';
COMMENT ON COLUMN runs.cache_read_tokens IS 'Cache-read input tokens, an integer (NULL when unavailable, or when the harness wrote no count: below 0 or beyond 10^12).';
COMMENT ON COLUMN runs.tokens_availability IS 'available or unavailable (a total below 0 or beyond 10^12 is no count: unavailable, total_tokens NULL).';
COMMENT ON COLUMN runs.tokens_provenance IS 'Where the token count comes from: provider_reported, trace_normalized, legacy_unverified, ...';
COMMENT ON COLUMN runs.cost IS 'Exact cost amount (DECIMAL) in cost_currency; NULL when unavailable.';
COMMENT ON COLUMN runs.cost_currency IS 'Currency of cost.';
COMMENT ON COLUMN runs.cost_usd IS 'cost when it is in USD, else NULL.';
COMMENT ON COLUMN runs.cost_availability IS 'available or unavailable.';
COMMENT ON COLUMN runs.cost_provenance IS 'Where the cost comes from.';
COMMENT ON COLUMN runs.cost_reason IS 'Why cost is unavailable.';
COMMENT ON COLUMN runs.elapsed_ms IS 'Wall time of the run in milliseconds (NULL when unavailable).';
COMMENT ON COLUMN runs.elapsed_availability IS 'available or unavailable.';
COMMENT ON COLUMN runs.tool_calls IS 'Tool calls counted from the trace.';
COMMENT ON COLUMN runs.commands IS 'Commands counted from the trace.';
COMMENT ON COLUMN runs.trace_counters_availability IS 'Whether the trace counters could be observed.';
COMMENT ON COLUMN runs.skill_invoked IS 'The skill loaded during the run (NULL when not observable).';
COMMENT ON COLUMN runs.skill_tree_hash IS 'Hash of the skill tree the run mounted.';
COMMENT ON COLUMN runs.run_dir IS 'The run directory (or results file#row) it was read from.';
COMMENT ON COLUMN runs.batch_id IS 'Ingest batch that wrote the run.';
COMMENT ON COLUMN runs.stop_class IS 'How the agent stopped, as the harness classed it (completed, truncated, turn_limit, refused, other, unavailable); NULL when not recorded. truncated and turn_limit runs do not count.';
COMMENT ON COLUMN runs.served_model IS 'The model that answered, as the provider reported it; NULL when not recorded.';
COMMENT ON COLUMN runs.served_model_check IS 'Served against requested model: match, mismatch (the run does not count), mixed, unverifiable, unavailable, not_requested; NULL when not recorded.';
COMMENT ON COLUMN runs.effort IS 'Reasoning effort requested (backend_default: the backend chose); a pair whose arms differ is not compared (pairs.blocked_reason effort_mismatch).';

-- run_rows: the runs view stored, refilled first at the end of every batch
-- for the releases it changed (src/store/aggregates/mod.rs). Every stored aggregate
-- after it (run totals, pairs, lift units, flags, failing assertions,
-- ablations) reads its runs from here through run_rows_in, so a batch works
-- each run out once, not once per aggregate; the runs and ledger reports list
-- from it. Its columns are the runs view's (their comments copied).
CREATE OR REPLACE TABLE run_rows AS SELECT * FROM runs_in(NULL) LIMIT 0;
COMMENT ON TABLE run_rows IS 'The runs view stored by every batch for the releases it changed (what the stored aggregates and the runs and ledger reports read); equal to runs (liftdb check verifies).';

-- run_rows_of(releases, cases): the stored runs of the releases listed
-- (NULL: every release) and of the cases listed (liftdb_case_key).
CREATE OR REPLACE MACRO run_rows_of(releases, cases) AS TABLE
SELECT * FROM run_rows WHERE liftdb_in_scope(releases, cases, release_label, skill_name, case_id);

-- run_rows_in(releases): the stored runs of the releases listed (NULL: every release).
CREATE OR REPLACE MACRO run_rows_in(releases) AS TABLE SELECT * FROM run_rows_of(releases, NULL);
