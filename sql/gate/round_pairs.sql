-- `liftdb gate --sequential`: every with/without pair of the gated release
-- (objective channel, against without_skill, the split gated or every
-- split, the experiment gated or every one), eligible or not, each with
-- where it was first stored. The gate deals them into rounds
-- (src/gate/rounds.rs): a unit is one (experiment, case, model), its
-- eligible pairs taken in the order they were first stored, round j the
-- j-th pair of every unit. The order is no outcome's, and a pair keeps its
-- place when a later batch replaces its runs.
--   skill, experiment, "case", model   the unit
--   shard, repetition                  the pair within its unit
--   first_stored                       1, 2, … the batch that first stored the later of its two runs, in the order batches finished
--   delta                              with_rate − without_rate; NULL when the pair does not count
--   replaced                           a run of the pair was stored again after it was first stored
WITH batches AS (
    SELECT batch_id, dense_rank() OVER (ORDER BY finished_at, batch_id) AS rank
    FROM ingest_batch WHERE finished_at IS NOT NULL
),
first_stored AS (
    SELECT s.run_id, min(b.rank) AS first_rank
    FROM run_stored s JOIN batches b USING (batch_id)
    WHERE s.run_id IN (SELECT run_id FROM run WHERE release_label = $release)
    GROUP BY s.run_id
),
stored AS (
    SELECT r.run_id, coalesce(f.first_rank, b.rank) AS first_rank, b.rank > coalesce(f.first_rank, b.rank) AS replaced
    FROM run r
    JOIN batches b USING (batch_id)
    LEFT JOIN first_stored f USING (run_id)
    WHERE r.release_label = $release
)
SELECT p.skill_name AS skill, p.experiment, p.case_id AS "case", p.model, p.shard, p.repetition,
       greatest(sw.first_rank, sc.first_rank) AS first_stored,
       CASE WHEN p.eligible THEN p.with_rate - p.control_rate END AS delta,
       coalesce(sw.replaced, false) OR coalesce(sc.replaced, false) AS replaced
FROM pairs p
LEFT JOIN stored sw ON sw.run_id = p.with_run_id
LEFT JOIN stored sc ON sc.run_id = p.control_run_id
WHERE p.release_label = $release AND p.control_arm = 'without_skill'
  AND ($skill IS NULL OR p.skill_name = $skill)
  AND ($split IS NULL OR p.split = $split)
  AND ($experiment IS NULL OR p.experiment = $experiment)
ORDER BY skill, p.experiment NULLS FIRST, "case", p.model NULLS FIRST, first_stored, p.shard NULLS FIRST, p.repetition;
