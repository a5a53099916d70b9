-- lift_headline: the release lift of each skill in one plain sentence, as
-- `report lift` prints it above its table (objective channel, every split
-- pooled and each split, against each control arm).
CREATE OR REPLACE VIEW lift_headline AS
WITH overall AS (
    SELECT l.release_label, l.skill_name, l.split, l.control_arm, l.units,
           l.with_rate, l.without_rate, l.absolute_delta,
           s.p_value, s.p_upper, s.significant, s.method, s.ci_lower, s.ci_upper, s.noise_verdict,
           -- Units are (case, model) unless no run of the release named its model.
           bool_or(m.model IS NOT NULL) AS models_known
    FROM lift_rows l
    LEFT JOIN lift_stats s
        ON s.release_label = l.release_label AND s.skill_name = l.skill_name
       AND s.control_arm = l.control_arm AND s.channel = l.channel AND s.split = l.split
       AND s.scope = l.scope AND s.row_kind = l.row_kind AND s.experiment IS NULL
       AND s.model IS NULL AND s.case_id IS NULL
    LEFT JOIN lift_rows m
        ON m.release_label = l.release_label AND m.skill_name = l.skill_name
       AND m.control_arm = l.control_arm AND m.channel = l.channel AND m.split = l.split
       AND m.row_kind = 'release' AND m.scope = 'model'
    WHERE l.row_kind = 'release' AND l.scope = 'overall' AND l.channel = 'objective'
    GROUP BY ALL
)
SELECT
    release_label,
    skill_name,
    split,
    control_arm,
    -- The verdict is the test's, lift_stats.significant (docs/metrics.md
    -- §M6): p_upper <= 0.05, p_upper being the p of an exact test and the
    -- upper bound of a sampled test's estimate (the rule the interval beside
    -- it inverts); the noise check (can this many units resolve a lift of
    -- this size at all?) is said apart, never in place of it. A sampled p
    -- under 0.05 whose bound is not is "not significant", and the sentence
    -- says why.
    printf('%s, release %s%s: with the skill %s, %s %s: lift %s (%s, %d %s) — %s; noise check: %s',
        skill_name, release_label,
        CASE WHEN split = 'all' THEN '' ELSE ', split ' || split END,
        coalesce(printf('%.2f', with_rate), 'n/a'),
        CASE control_arm WHEN 'without_skill' THEN 'without' ELSE control_arm END,
        coalesce(printf('%.2f', without_rate), 'n/a'),
        coalesce(printf('%+.2f', absolute_delta), 'n/a'),
        CASE WHEN ci_lower IS NULL OR ci_upper IS NULL THEN 'no interval'
             ELSE printf('95%% interval %s to %s', liftdb_bound_text(ci_lower), liftdb_bound_text(ci_upper)) END,
        units,
        CASE WHEN models_known THEN 'case×model units' ELSE 'case units' END,
        CASE WHEN significant IS NULL THEN 'significance not tested'
             WHEN method = 'sign-flip-sampled' AND p_value <= 0.05 AND NOT significant
                 THEN printf('not significant (sampled p %.3f, but allowing for the sampling up to %.3f, above 0.05)',
                             p_value, p_upper)
             WHEN method = 'sign-flip-sampled' AND significant
                 THEN printf('significant (sampled p %s, allowing for the sampling up to %.3f)',
                             CASE WHEN p_value < 0.001 THEN '< 0.001' ELSE printf('%.3f', p_value) END, p_upper)
             ELSE (CASE WHEN significant THEN 'significant' ELSE 'not significant' END)
                  || (CASE WHEN p_value < 0.001 THEN ' (p < 0.001)' ELSE printf(' (p %.3f)', p_value) END) END,
        coalesce(noise_verdict, 'no verdict')) AS sentence,
    -- what the sentence decided on
    p_value AS p,
    p_upper,
    significant,
    -- the reports' names
    release_label AS release, skill_name AS skill, control_arm AS control
FROM overall;

COMMENT ON VIEW lift_headline IS 'One sentence per skill, release, split and control arm: the release lift with its interval, units, whether it is significant (lift_stats.significant: p_upper <= 0.05, sign-flip test; a sampled p decided on its upper bound, as the interval is) and the noise check (report lift prints it above the table).';
COMMENT ON COLUMN lift_headline.release IS 'The same as release_label, as the reports name it.';
COMMENT ON COLUMN lift_headline.skill IS 'The same as skill_name, as the reports name it.';
COMMENT ON COLUMN lift_headline.control IS 'The same as control_arm, as the reports name it.';
COMMENT ON COLUMN lift_headline.release_label IS 'Release.';
COMMENT ON COLUMN lift_headline.skill_name IS 'Skill under test.';
COMMENT ON COLUMN lift_headline.split IS 'Case split, or ''all''.';
COMMENT ON COLUMN lift_headline.control_arm IS 'Arm compared with with_skill.';
COMMENT ON COLUMN lift_headline.p IS 'Sign-flip p of the lift, rounded 6, as the harness prints it (lift_stats.p_value).';
COMMENT ON COLUMN lift_headline.p_upper IS 'The p the sentence decides on: p for an exact test, a sampled test''s upper bound (lift_stats.p_upper).';
COMMENT ON COLUMN lift_headline.significant IS 'p_upper <= 0.05, what the sentence says (lift_stats.significant); NULL when untested.';
COMMENT ON COLUMN lift_headline.sentence IS 'with the skill W, without C: lift ±D (95% interval, units) — significant or not significant (p); noise check: verdict. Rates to 2 decimals, p to 3.';
