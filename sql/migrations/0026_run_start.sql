-- When a run started, where its harness records it: skill-creator's
-- timing.json executor_start, promptfoo's results.timestamp (the eval's
-- start, shared by its rows). The cost ledger dates each cost by it.
ALTER TABLE run ADD COLUMN started_at TIMESTAMP;
COMMENT ON COLUMN run.started_at IS 'When the run started (UTC), as its harness records it: skill-creator timing.json executor_start, promptfoo results.timestamp (the eval''s start); NULL where the harness records none (skill-eval-harness, handbook).';
