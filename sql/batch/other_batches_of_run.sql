-- The batches other than $2 that stored the run key $1: another writer's
-- commit since this batch planned, or a batch of this store's past.
SELECT DISTINCT batch_id FROM run WHERE run_id = $1 AND batch_id <> $2 ORDER BY 1
