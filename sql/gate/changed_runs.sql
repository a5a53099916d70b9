-- `liftdb gate --sequential`: runs of the gated release stored and then
-- replaced by a later batch (stored twice) or deleted by one (stored, no
-- longer in run), per skill. A sequential test bets on rounds as they were
-- stored; a release whose stored runs changed may have changed rounds a
-- gate run bet on, so the sequential checks refuse it.
--   skill      the skill
--   replaced   runs stored again after they were first stored
--   deleted    runs stored once and since deleted
--   cases      up to three of their cases, for the message
WITH stored AS (
    SELECT run_id, any_value(skill_name) AS skill, any_value(case_id) AS "case",
           count(DISTINCT batch_id) AS times,
           run_id NOT IN (SELECT run_id FROM run) AS gone
    FROM run_stored
    WHERE release_label = $release AND ($skill IS NULL OR skill_name = $skill)
    GROUP BY run_id
)
SELECT skill,
       count(*) FILTER (WHERE times > 1 AND NOT gone) AS replaced,
       count(*) FILTER (WHERE gone) AS deleted,
       string_agg(DISTINCT "case", ', ' ORDER BY "case") FILTER (WHERE times > 1 OR gone) AS cases
FROM stored
GROUP BY skill
HAVING count(*) FILTER (WHERE times > 1 OR gone) > 0
ORDER BY skill;
