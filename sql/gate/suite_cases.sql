-- `liftdb gate --sequential`: the answer cases each skill's suite declares
-- in the gated release (its manifest, tool files or report rows; the split
-- gated or every split), each with when it was first declared. A
-- sequential round needs every declared case: a case declared but not yet
-- run (a shard still to come) holds the rounds back rather than letting the
-- gate bet on part of the suite. A case first declared after the suite had
-- a complete round without it (by the report that also ran it) joined late.
--   skill, "case"   a declared case
--   declared_at     1, 2, … the batch that first read a file declaring it, ranked as round_pairs ranks batches (NULL: not known)
WITH batches AS (
    SELECT batch_id, dense_rank() OVER (ORDER BY finished_at, batch_id) AS rank
    FROM ingest_batch WHERE finished_at IS NOT NULL
)
SELECT c.skill_name AS skill, c.case_id AS "case", min(b.rank) AS declared_at
FROM case_def_record c
LEFT JOIN source_file f ON f.path = c.source_path AND f.release_label = c.release_label
LEFT JOIN batches b ON b.batch_id = f.batch_id
WHERE c.release_label = $release
  AND ($skill IS NULL OR c.skill_name = $skill)
  AND coalesce(c.population, 'answer') = 'answer'
  AND ($split IS NULL OR c.split = $split)
GROUP BY ALL
ORDER BY skill, "case";
