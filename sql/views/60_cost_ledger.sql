-- cost_ledger: one row per run with tokens, cost and time, each with its
-- availability and provenance. Unavailable values are NULL, never 0.
-- Money is exact DECIMAL; cost_usd is set only for USD amounts.
-- Its first columns are report ledger's, by the same names and in the same
-- order (release, skill, case, rep: the reports' vocabulary); the names the
-- view had before (release_label, skill_name, case_id, repetition) follow
-- at the end, so queries written with them keep working.
CREATE OR REPLACE VIEW cost_ledger AS
SELECT
    release_label AS release,
    skill_name AS skill,
    experiment,
    case_id AS "case",
    split,
    model,
    arm,
    repetition AS rep,
    input_tokens,
    output_tokens,
    total_tokens,
    tokens_provenance,
    cost_usd,
    cost_availability,
    cost_provenance,
    elapsed_ms,
    r.run_id,
    provider,
    scorable,
    cache_read_tokens,
    tokens_availability,
    cost AS cost_amount,
    cost_currency,
    cost_reason,
    elapsed_availability,
    run_dir,
    -- promptfoo tells what a run spent apart from its cost (a cache hit
    -- costs its answer but spends nothing); other tools do not.
    incurred.amount AS incurred_cost_amount,
    release_label,
    skill_name,
    case_id,
    repetition
FROM runs r
LEFT JOIN measurement incurred
  ON incurred.run_id = r.run_id AND incurred.metric = 'incurred_cost';

COMMENT ON VIEW cost_ledger IS 'Per-run tokens, cost (exact DECIMAL) and time, each with availability and provenance; report ledger''s columns first, by its names.';

-- Columns
COMMENT ON COLUMN cost_ledger.release IS 'Release.';
COMMENT ON COLUMN cost_ledger.skill IS 'Skill under test.';
COMMENT ON COLUMN cost_ledger.experiment IS 'The experiment of the run (runs.experiment).';
COMMENT ON COLUMN cost_ledger."case" IS 'Eval case.';
COMMENT ON COLUMN cost_ledger.split IS 'Case split.';
COMMENT ON COLUMN cost_ledger.model IS 'Model.';
COMMENT ON COLUMN cost_ledger.arm IS 'Arm.';
COMMENT ON COLUMN cost_ledger.rep IS 'Repetition.';
COMMENT ON COLUMN cost_ledger.input_tokens IS 'Input tokens (NULL when unavailable).';
COMMENT ON COLUMN cost_ledger.output_tokens IS 'Output tokens.';
COMMENT ON COLUMN cost_ledger.total_tokens IS 'Total tokens.';
COMMENT ON COLUMN cost_ledger.tokens_provenance IS 'Where the tokens come from.';
COMMENT ON COLUMN cost_ledger.cost_usd IS 'Cost when in USD, exact (report ledger prints it to 6 places).';
COMMENT ON COLUMN cost_ledger.cost_availability IS 'available or unavailable.';
COMMENT ON COLUMN cost_ledger.cost_provenance IS 'Where the cost comes from: provider_reported, estimated, legacy_unverified, ...';
COMMENT ON COLUMN cost_ledger.elapsed_ms IS 'Wall time in milliseconds.';
COMMENT ON COLUMN cost_ledger.run_id IS 'Run key.';
COMMENT ON COLUMN cost_ledger.provider IS 'Provider.';
COMMENT ON COLUMN cost_ledger.scorable IS 'The run is scorable.';
COMMENT ON COLUMN cost_ledger.cache_read_tokens IS 'Cache-read input tokens.';
COMMENT ON COLUMN cost_ledger.tokens_availability IS 'available or unavailable.';
COMMENT ON COLUMN cost_ledger.cost_amount IS 'Exact cost (DECIMAL) in cost_currency; NULL when unavailable, never 0.';
COMMENT ON COLUMN cost_ledger.cost_currency IS 'Currency.';
COMMENT ON COLUMN cost_ledger.cost_reason IS 'Why the cost is unavailable.';
COMMENT ON COLUMN cost_ledger.elapsed_availability IS 'available or unavailable.';
COMMENT ON COLUMN cost_ledger.run_dir IS 'Where the run was read from.';
COMMENT ON COLUMN cost_ledger.incurred_cost_amount IS 'What the run spent (DECIMAL, cost_currency) where the tool tells it apart from cost_amount: promptfoo''s incurredCost, 0 for an answer its provider served from a cache, else its cost; NULL when the tool does not tell.';
COMMENT ON COLUMN cost_ledger.release_label IS 'The same as release (the name this view used before).';
COMMENT ON COLUMN cost_ledger.skill_name IS 'The same as skill (the name this view used before).';
COMMENT ON COLUMN cost_ledger.case_id IS 'The same as case (the name this view used before).';
COMMENT ON COLUMN cost_ledger.repetition IS 'The same as rep (the name this view used before).';
