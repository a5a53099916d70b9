-- `liftdb release list`: each release in the order trends follow, with how
-- its label was chosen and what it holds.
--   ordinal                its place (releases.ordinal)
--   release                the label
--   named_by               how a batch chose it: --release, skill_tree_hash, generated_at, default …
--   runs                   runs it holds
--   trigger_observations   trigger observations it holds
--   first_ingested_at      when a batch first named it
--   moved                  its place was given by `liftdb release move`
SELECT r.ordinal, r.release_label AS release, r.derived_from AS named_by,
       (SELECT count(*) FROM run u WHERE u.release_label = r.release_label) AS runs,
       (SELECT count(*) FROM trigger_observation t
        WHERE t.release_label = r.release_label) AS trigger_observations,
       r.first_ingested_at,
       EXISTS (SELECT 1 FROM release_position p WHERE p.release_label = r.release_label) AS moved
FROM releases r
ORDER BY r.ordinal;
