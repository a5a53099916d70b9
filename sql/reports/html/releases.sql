-- Lift and known cost per release (the trend chart).
SELECT release_label, lift, known_cost_usd
FROM trend
WHERE scope = 'overall' AND ($skill IS NULL OR skill_name = $skill)
ORDER BY release_order;
