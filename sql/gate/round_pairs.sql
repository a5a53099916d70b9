-- `liftdb gate --sequential`: the eligible with/without pairs of the gated
-- release (objective channel, the split gated or every split, the experiment
-- gated or every one) in rounds: a round is one repetition of one experiment
-- and shard (every (case, model) unit run once), and rounds are numbered in
-- the order they were stored (the batch that finished first comes first),
-- which no outcome decides.
--   skill, "case", model    the unit
--   round                   1, 2, … in the order stored
--   delta                   with_rate − without rate of the pair
WITH paired AS (
    SELECT p.skill_name AS skill, p.experiment, p.shard, p.repetition, p.case_id AS "case", p.model,
           p.with_rate - p.control_rate AS delta,
           greatest(bw.finished_at, bc.finished_at) AS stored_at
    FROM pairs p
    JOIN run rw ON rw.run_id = p.with_run_id
    JOIN run rc ON rc.run_id = p.control_run_id
    JOIN ingest_batch bw ON bw.batch_id = rw.batch_id
    JOIN ingest_batch bc ON bc.batch_id = rc.batch_id
    WHERE p.release_label = $release AND p.control_arm = 'without_skill' AND p.eligible
      AND ($skill IS NULL OR p.skill_name = $skill)
      AND ($split IS NULL OR p.split = $split)
      AND ($experiment IS NULL OR p.experiment = $experiment)
),
rounds AS (
    SELECT skill, experiment, shard, repetition, max(stored_at) AS stored_at
    FROM paired GROUP BY ALL
)
SELECT p.skill, p."case", p.model,
       dense_rank() OVER (PARTITION BY r.skill
                          ORDER BY r.stored_at, r.experiment NULLS FIRST, r.shard NULLS FIRST, r.repetition) AS round,
       p.delta
FROM paired p
JOIN rounds r ON r.skill = p.skill AND r.experiment IS NOT DISTINCT FROM p.experiment
             AND r.shard IS NOT DISTINCT FROM p.shard AND r.repetition = p.repetition
ORDER BY p.skill, round, p."case", p.model NULLS FIRST;
