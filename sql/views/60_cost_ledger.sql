-- cost_ledger: one row per run with tokens, cost and time, each with its
-- availability and provenance. Unavailable values are NULL, never 0.
-- Money is exact DECIMAL: cost_usd for USD amounts, cost_other_amount for
-- another currency (cost_currency names it, on every priced row). Each
-- identity column once, by the reports' names (release, skill, case, rep),
-- in report ledger's order; cost_ledger_compat adds the names this view
-- had before (release_label, skill_name, case_id, repetition, cost_amount).
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
    started_at,
    input_tokens,
    output_tokens,
    total_tokens,
    tokens_provenance,
    cost_usd,
    CASE WHEN cost IS NOT NULL THEN cost_currency END AS cost_currency,
    cost_availability,
    cost_provenance,
    elapsed_ms,
    r.run_id,
    provider,
    scorable,
    cache_read_tokens,
    tokens_availability,
    CASE WHEN cost_currency IS DISTINCT FROM 'USD' THEN cost END AS cost_other_amount,
    cost_reason,
    elapsed_availability,
    run_dir,
    -- promptfoo tells what a run spent apart from its cost (a cache hit
    -- costs its answer but spends nothing); other tools do not.
    incurred.amount AS incurred_cost_amount
FROM runs r
LEFT JOIN measurement incurred
  ON incurred.run_id = r.run_id AND incurred.metric = 'incurred_cost';

-- cost_ledger_compat: cost_ledger with the names it had before, for
-- queries written with them (an export takes cost_ledger, each name once).
CREATE OR REPLACE VIEW cost_ledger_compat AS
SELECT *, release AS release_label, skill AS skill_name, "case" AS case_id, rep AS repetition,
       coalesce(cost_usd, cost_other_amount) AS cost_amount
FROM cost_ledger;
COMMENT ON VIEW cost_ledger_compat IS 'cost_ledger with its former column names added (release_label, skill_name, case_id, repetition, cost_amount).';
COMMENT ON COLUMN cost_ledger_compat.release_label IS 'The same as release.';
COMMENT ON COLUMN cost_ledger_compat.skill_name IS 'The same as skill.';
COMMENT ON COLUMN cost_ledger_compat.case_id IS 'The same as case.';
COMMENT ON COLUMN cost_ledger_compat.repetition IS 'The same as rep.';
COMMENT ON COLUMN cost_ledger_compat.cost_amount IS 'The cost in cost_currency (cost_usd or cost_other_amount).';

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
COMMENT ON COLUMN cost_ledger.cost_other_amount IS 'Exact cost (DECIMAL) when its currency is not USD (cost_currency names it); NULL otherwise: a USD cost is cost_usd.';
COMMENT ON COLUMN cost_ledger.cost_currency IS 'The currency of the cost, on every priced row; NULL when unpriced.';
COMMENT ON COLUMN cost_ledger.started_at IS 'When the run started (UTC), as its harness records it; NULL where it records none (skill-eval-harness, handbook).';
COMMENT ON COLUMN cost_ledger.cost_reason IS 'Why the cost is unavailable.';
COMMENT ON COLUMN cost_ledger.elapsed_availability IS 'available or unavailable.';
COMMENT ON COLUMN cost_ledger.run_dir IS 'Where the run was read from.';
COMMENT ON COLUMN cost_ledger.incurred_cost_amount IS 'What the run spent (DECIMAL, cost_currency) where the tool tells it apart from cost_amount: promptfoo''s incurredCost, 0 for an answer its provider served from a cache, else its cost; NULL when the tool does not tell.';
