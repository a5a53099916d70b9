-- case_trend: what changed per case between a release and the one before it
-- (by releases.ordinal): each case's lift (scope 'case', its models pooled
-- as in lift) and each (case, model)'s (scope 'case_model'), the previous
-- release's, the change, and the change's sign-flip significance from
-- trend_stats (over the case's matched models; over the (case, model)'s
-- matched repetitions). Release rows of the objective channel, every split
-- pooled, against without_skill.
CREATE OR REPLACE VIEW case_trend AS
WITH case_rows AS (
    SELECT l.skill_name, 'case' AS scope, NULL::VARCHAR AS model, l.case_id, l.release_label,
           l.units, l.with_rate, l.without_rate, l.absolute_delta AS lift
    FROM lift_rows l
    WHERE l.channel = 'objective' AND l.control_arm = 'without_skill' AND l.row_kind = 'release'
      AND l.split = 'all' AND l.scope = 'case'
    UNION ALL
    SELECT u.skill_name, 'case_model', u.model, u.case_id, u.release_label,
           1, u.with_rate, u.without_rate, u.delta
    FROM lift_unit_rows u
    WHERE u.channel = 'objective' AND u.control_arm = 'without_skill' AND u.row_kind = 'release'
      AND u.eligible_pairs > 0
),
ordered AS (
    SELECT release_label, ordinal, lag(release_label) OVER (ORDER BY ordinal) AS previous_release
    FROM releases
)
SELECT
    c.skill_name,
    c.scope,
    c.model,
    c.case_id,
    o.ordinal AS release_order,
    c.release_label,
    o.previous_release,
    c.units,
    c.with_rate,
    c.without_rate,
    c.lift,
    p.lift AS previous_lift,
    c.lift - p.lift AS lift_change,
    -- Regressed and improved are the test's words: a change its sign-flip
    -- test does not find significant (trend_stats.significant: p_upper, the
    -- p or a sampled test's upper bound, above 0.05; or too few matched
    -- units to test) only moved.
    CASE WHEN p.lift IS NULL THEN NULL
         WHEN abs(c.lift - p.lift) <= 1e-12 THEN 'unchanged'
         -- the tested change's sign (its matched units' mean change), not
         -- the difference of the two lifts, which counts unmatched units too
         WHEN t.significant THEN CASE WHEN t.mean_change < 0 THEN 'regressed' ELSE 'improved' END
         ELSE CASE WHEN c.lift < p.lift THEN 'moved down' ELSE 'moved up' END
              || CASE WHEN t.p_value IS NULL THEN ', not tested' ELSE ', not significant' END
    END AS direction,
    t.matched_units AS change_matched,
    t.p_value AS change_p_value,
    t.p_upper AS change_p_upper,
    t.significant AS change_significant,
    -- the reports' names
    c.release_label AS release, c.skill_name AS skill, c.case_id AS "case",
    c.with_rate AS with_skill, c.without_rate AS without_skill
FROM case_rows c
JOIN ordered o USING (release_label)
LEFT JOIN case_rows p
    ON p.release_label = o.previous_release AND p.skill_name = c.skill_name AND p.scope = c.scope
   AND p.case_id = c.case_id AND p.model IS NOT DISTINCT FROM c.model
LEFT JOIN trend_stats t
    ON t.release_label = c.release_label AND t.skill_name = c.skill_name AND t.scope = c.scope
   AND t.case_id = c.case_id AND t.model IS NOT DISTINCT FROM c.model;

COMMENT ON VIEW case_trend IS 'Per case and per (case, model) per release: lift, the previous release''s, the change and its sign-flip significance over matched models or repetitions; regressed / improved only when that test is significant.';
COMMENT ON COLUMN case_trend.release IS 'The same as release_label, as the reports name it.';
COMMENT ON COLUMN case_trend.skill IS 'The same as skill_name, as the reports name it.';
COMMENT ON COLUMN case_trend."case" IS 'The same as case_id, as the reports name it.';
COMMENT ON COLUMN case_trend.with_skill IS 'The same as with_rate, as the reports name it.';
COMMENT ON COLUMN case_trend.without_skill IS 'The same as without_rate, as the reports name it.';
COMMENT ON COLUMN case_trend.skill_name IS 'Skill under test.';
COMMENT ON COLUMN case_trend.scope IS 'case (its models pooled) or case_model.';
COMMENT ON COLUMN case_trend.model IS 'The model of a case_model row (NULL where the harness names none).';
COMMENT ON COLUMN case_trend.case_id IS 'Case.';
COMMENT ON COLUMN case_trend.release_order IS 'Position of the release (releases.ordinal).';
COMMENT ON COLUMN case_trend.release_label IS 'Release.';
COMMENT ON COLUMN case_trend.previous_release IS 'The release before it (by ordinal).';
COMMENT ON COLUMN case_trend.units IS 'Units of the lift: the case''s models, or 1.';
COMMENT ON COLUMN case_trend.with_rate IS 'with_skill rate (docs/metrics.md §M3).';
COMMENT ON COLUMN case_trend.without_rate IS 'without_skill rate.';
COMMENT ON COLUMN case_trend.lift IS 'with_rate - without_rate.';
COMMENT ON COLUMN case_trend.previous_lift IS 'The lift in the previous release; NULL when the case had no eligible pair there.';
COMMENT ON COLUMN case_trend.lift_change IS 'lift - previous_lift.';
COMMENT ON COLUMN case_trend.direction IS 'regressed or improved (the change significant: change_p_upper <= 0.05), moved down / moved up, not significant (or not tested: too few matched units), unchanged; NULL without a previous lift.';
COMMENT ON COLUMN case_trend.change_matched IS 'Matched units (case) or repetitions (case_model) behind the change''s test.';
COMMENT ON COLUMN case_trend.change_p_value IS 'Sign-flip p of the matched changes (docs/metrics.md §M11).';
COMMENT ON COLUMN case_trend.change_p_upper IS 'The p the change''s test decides on, unrounded: its p for an exact test, a sampled test''s upper bound (trend_stats.p_upper).';
COMMENT ON COLUMN case_trend.change_significant IS 'change_p_upper <= 0.05; NULL when untested.';
