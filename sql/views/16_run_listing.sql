-- stored: run_listing_rows
-- stored order: release_label, skill_name, experiment NULLS FIRST, case_id, model NULLS FIRST, arm, repetition, run_id
-- run_listing: the runs as reports runs and ledger list them, one row a run:
-- their columns, from the stored runs (run_rows). Stored as run_listing_rows,
-- kept in a DuckDB file in the reports' order (release, skill, experiment
-- NULLS FIRST, case, model NULLS FIRST, arm, repetition, then the run id, which
-- tells apart the shards of one repetition: the `stored order` above), so that
-- the reports list the table there without sorting it: DuckDB returns the rows
-- of one table, filtered, in the order they were stored (DuckDB's
-- documentation: SQL dialect, order preservation). A lake keeps no order:
-- there the reports sort. Narrow on purpose: sorting run_rows' sixty
-- columns at the refill ran out of its memory.
-- run_listing_in(releases): the listing of the releases listed (NULL: every release).
CREATE OR REPLACE MACRO run_listing_in(releases) AS TABLE
SELECT
    release_label,
    skill_name,
    experiment,
    case_id,
    split,
    model,
    arm,
    repetition,
    scorable,
    objective_pass_rate,
    vetoed,
    input_tokens,
    output_tokens,
    total_tokens,
    tokens_provenance,
    cost_usd,
    -- The ledger's cost cast once here, not on every listing.
    CAST(cost_usd AS DECIMAL(18, 6)) AS ledger_cost_usd,
    CASE WHEN cost IS NOT NULL THEN cost_currency END AS cost_currency,
    cost_availability,
    cost_provenance,
    elapsed_ms,
    started_at,
    run_id
FROM run_rows_in(releases);

CREATE OR REPLACE VIEW run_listing AS SELECT * FROM run_listing_in(NULL);

COMMENT ON VIEW run_listing IS 'The runs as reports runs and ledger list them (their columns; run_listing_rows holds them in the reports'' order).';

-- Columns
COMMENT ON COLUMN run_listing.release_label IS 'Release the run belongs to (--release, or derived at ingest).';
COMMENT ON COLUMN run_listing.skill_name IS 'Skill under test.';
COMMENT ON COLUMN run_listing.experiment IS 'The experiment: one native benchmark of its tool (runs.experiment).';
COMMENT ON COLUMN run_listing.case_id IS 'Eval case id.';
COMMENT ON COLUMN run_listing.split IS 'Case split from the manifest: tune, holdout, holdback (NULL when undefined).';
COMMENT ON COLUMN run_listing.model IS 'Model of the run (layout, else metadata); NULL when the harness records none.';
COMMENT ON COLUMN run_listing.arm IS 'with_skill, without_skill, old_skill, ablation:<id>, or the tool''s own label.';
COMMENT ON COLUMN run_listing.repetition IS 'Repetition number (run-N, or 1 for a single run).';
COMMENT ON COLUMN run_listing.scorable IS 'Has an output and executed validly (runs.scorable).';
COMMENT ON COLUMN run_listing.objective_pass_rate IS 'passed / total, 0 when vetoed, NULL when nothing counts (runs.objective_pass_rate).';
COMMENT ON COLUMN run_listing.vetoed IS 'A critical result failed: every rate is 0 and the graded score NULL.';
COMMENT ON COLUMN run_listing.input_tokens IS 'Input tokens (NULL when unavailable).';
COMMENT ON COLUMN run_listing.output_tokens IS 'Output tokens (NULL when unavailable).';
COMMENT ON COLUMN run_listing.total_tokens IS 'Total tokens (NULL when unavailable).';
COMMENT ON COLUMN run_listing.tokens_provenance IS 'Where the token count comes from: provider_reported, trace_normalized, legacy_unverified, ...';
COMMENT ON COLUMN run_listing.cost_usd IS 'cost when it is in USD, else NULL (exact DECIMAL).';
COMMENT ON COLUMN run_listing.ledger_cost_usd IS 'cost_usd as report ledger prints it: DECIMAL(18, 6), rounded to 6 places as CAST rounds.';
COMMENT ON COLUMN run_listing.cost_availability IS 'available or unavailable.';
COMMENT ON COLUMN run_listing.cost_provenance IS 'Where the cost comes from.';
COMMENT ON COLUMN run_listing.elapsed_ms IS 'Wall time of the run in milliseconds (NULL when unavailable).';
COMMENT ON COLUMN run_listing.started_at IS 'When the run started (UTC), as its harness records it; NULL where it records none.';
COMMENT ON COLUMN run_listing.cost_currency IS 'The currency of the cost, on every priced row; NULL when unpriced.';
COMMENT ON COLUMN run_listing.run_id IS 'The run''s id (runs.run_id): liftdb show RUN_ID shows the run whole.';

-- run_listing_rows: run_listing stored, refilled after run_rows at the end of
-- every batch, kept in the reports' order in a DuckDB file (a batch refills
-- the releases it changed and every release sorting after the first of
-- them); what reports runs and ledger list.
CREATE OR REPLACE TABLE run_listing_rows AS SELECT * FROM run_listing LIMIT 0;
COMMENT ON TABLE run_listing_rows IS 'run_listing stored by every batch, kept in the order reports runs and ledger list it (what they read); equal to run_listing (liftdb check verifies, and that it is in order).';
