-- cost_ledger: one row per run with tokens, cost and time, each with its
-- availability and provenance. Unavailable values are NULL, never 0.
-- Money is exact DECIMAL; cost_usd is set only for USD amounts.
CREATE OR REPLACE VIEW cost_ledger AS
SELECT
    run_id,
    release_label,
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
    run_dir
FROM runs;

COMMENT ON VIEW cost_ledger IS 'Per-run tokens, cost (exact DECIMAL) and time, each with availability and provenance.';
