-- How each run ended, as the harness recorded it (skill-eval-harness writes
-- these in metadata.json after 0.6.0; older runs leave them NULL): a run cut
-- off (stop_class truncated or turn_limit) or answered by another model than
-- the one asked for (served_model_check mismatch) is no measure of the skill
-- and does not count (run.unscorable_reason says which), and a pair whose
-- arms ran at different reasoning efforts is not compared.
ALTER TABLE run ADD COLUMN stop_class VARCHAR;
ALTER TABLE run ADD COLUMN stop_reason VARCHAR;
ALTER TABLE run ADD COLUMN requested_model VARCHAR;
ALTER TABLE run ADD COLUMN served_model VARCHAR;
ALTER TABLE run ADD COLUMN served_model_check VARCHAR;
ALTER TABLE run ADD COLUMN effort VARCHAR;
COMMENT ON COLUMN run.stop_class IS 'How the agent stopped, as the harness classed it: completed, truncated, turn_limit, refused, other, unavailable (NULL: not recorded).';
COMMENT ON COLUMN run.stop_reason IS 'The stop reason as the provider gave it (e.g. max_tokens), NULL when not recorded.';
COMMENT ON COLUMN run.requested_model IS 'The model the harness asked for, NULL when not recorded.';
COMMENT ON COLUMN run.served_model IS 'The model that answered, as the provider reported it; NULL when not recorded.';
COMMENT ON COLUMN run.served_model_check IS 'The harness''s comparison of served with requested model: match, mismatch, mixed, unverifiable, unavailable, not_requested (NULL: not recorded).';
COMMENT ON COLUMN run.effort IS 'The reasoning effort requested (e.g. high), backend_default when the backend chose it, NULL when not recorded.';
