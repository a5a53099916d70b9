-- `liftdb plan`: what one pair costs in the planned release, from the cost
-- ledger: the mean known USD cost of a with_skill run plus that of a
-- without_skill run, per skill (NULL when either arm has no known cost).
SELECT skill,
       avg(cost_usd) FILTER (WHERE arm = 'with_skill')
           + avg(cost_usd) FILTER (WHERE arm = 'without_skill') AS cost_per_pair_usd
FROM cost_ledger
WHERE release = $release
  AND ($skill IS NULL OR skill = $skill)
  AND ($split IS NULL OR split = $split)
GROUP BY skill
ORDER BY skill;
