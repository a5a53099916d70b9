-- cost_ledger: one row per run with tokens, cost and time, each with its
-- availability and provenance. Unavailable values are NULL, never 0.
-- Money is exact DECIMAL; cost_usd is set only for USD amounts.
CREATE OR REPLACE VIEW cost_ledger AS
SELECT
    r.run_id,
    release_label,
    experiment,
    skill_name,
    case_id,
    split,
    model,
    arm,
    repetition,
    provider,
    scorable,
    input_tokens,
    output_tokens,
    total_tokens,
    cache_read_tokens,
    tokens_availability,
    tokens_provenance,
    cost AS cost_amount,
    cost_currency,
    cost_usd,
    cost_availability,
    cost_provenance,
    cost_reason,
    elapsed_ms,
    elapsed_availability,
    run_dir,
    -- promptfoo tells what a run spent apart from its cost (a cache hit
    -- costs its answer but spends nothing); other tools do not.
    incurred.amount AS incurred_cost_amount
FROM runs r
LEFT JOIN measurement incurred
  ON incurred.run_id = r.run_id AND incurred.metric = 'incurred_cost';

COMMENT ON VIEW cost_ledger IS 'Per-run tokens, cost (exact DECIMAL) and time, each with availability and provenance.';

-- Columns
COMMENT ON COLUMN cost_ledger.run_id IS 'Run key.';
COMMENT ON COLUMN cost_ledger.release_label IS 'Release.';
COMMENT ON COLUMN cost_ledger.experiment IS 'The experiment of the run (runs.experiment).';
COMMENT ON COLUMN cost_ledger.skill_name IS 'Skill under test.';
COMMENT ON COLUMN cost_ledger.case_id IS 'Eval case.';
COMMENT ON COLUMN cost_ledger.split IS 'Case split.';
COMMENT ON COLUMN cost_ledger.model IS 'Model.';
COMMENT ON COLUMN cost_ledger.arm IS 'Arm.';
COMMENT ON COLUMN cost_ledger.repetition IS 'Repetition.';
COMMENT ON COLUMN cost_ledger.provider IS 'Provider.';
COMMENT ON COLUMN cost_ledger.scorable IS 'The run is scorable.';
COMMENT ON COLUMN cost_ledger.input_tokens IS 'Input tokens (NULL when unavailable).';
COMMENT ON COLUMN cost_ledger.output_tokens IS 'Output tokens.';
COMMENT ON COLUMN cost_ledger.total_tokens IS 'Total tokens.';
COMMENT ON COLUMN cost_ledger.cache_read_tokens IS 'Cache-read input tokens.';
COMMENT ON COLUMN cost_ledger.tokens_availability IS 'available or unavailable.';
COMMENT ON COLUMN cost_ledger.tokens_provenance IS 'Where the tokens come from.';
COMMENT ON COLUMN cost_ledger.cost_amount IS 'Exact cost (DECIMAL) in cost_currency; NULL when unavailable, never 0.';
COMMENT ON COLUMN cost_ledger.cost_currency IS 'Currency.';
COMMENT ON COLUMN cost_ledger.cost_usd IS 'Cost when in USD.';
COMMENT ON COLUMN cost_ledger.cost_availability IS 'available or unavailable.';
COMMENT ON COLUMN cost_ledger.cost_provenance IS 'Where the cost comes from: provider_reported, estimated, legacy_unverified, ...';
COMMENT ON COLUMN cost_ledger.cost_reason IS 'Why the cost is unavailable.';
COMMENT ON COLUMN cost_ledger.elapsed_ms IS 'Wall time in milliseconds.';
COMMENT ON COLUMN cost_ledger.elapsed_availability IS 'available or unavailable.';
COMMENT ON COLUMN cost_ledger.run_dir IS 'Where the run was read from.';
COMMENT ON COLUMN cost_ledger.incurred_cost_amount IS 'What the run spent (DECIMAL, cost_currency) where the tool tells it apart from cost_amount: promptfoo''s incurredCost, 0 for an answer its provider served from a cache, else its cost; NULL when the tool does not tell.';
