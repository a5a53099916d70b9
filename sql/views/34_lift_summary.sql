-- lift_summary: the one number an analyst asks first, one row per release,
-- skill and split: the release lift of with_skill over without_skill on the
-- objective channel, every experiment of the release pooled (each case and
-- model one unit), with its test. Named as `report lift` names its columns.
CREATE OR REPLACE VIEW lift_summary AS
SELECT
    release_label AS release,
    skill_name AS skill,
    split,
    units,
    eligible_pairs AS pairs,
    blocked_pairs AS blocked,
    with_rate AS with_skill,
    without_rate AS without_skill,
    absolute_delta AS lift,
    ci_lower AS lift_ci_lower,
    ci_upper AS lift_ci_upper,
    p_value AS p,
    p_upper,
    -- liftdb's one significance (docs/metrics.md §M6), as lift_evidence.
    significant,
    noise_verdict AS noise_check
FROM lift_evidence
WHERE row_kind = 'release' AND scope = 'overall' AND channel = 'objective'
  AND control_arm = 'without_skill';

COMMENT ON VIEW lift_summary IS 'One row per release, skill and split: the release lift of with_skill over without_skill (objective channel), its 95% interval, sign-flip p and whether it is significant.';

-- Columns
COMMENT ON COLUMN lift_summary.release IS 'Release.';
COMMENT ON COLUMN lift_summary.skill IS 'Skill under test.';
COMMENT ON COLUMN lift_summary.split IS 'Case split, or ''all'' (every split pooled).';
COMMENT ON COLUMN lift_summary.units IS 'Units (a case on one model) with an eligible pair.';
COMMENT ON COLUMN lift_summary.pairs IS 'Eligible pairs.';
COMMENT ON COLUMN lift_summary.blocked IS 'Pairs that could not be compared (blocked_pairs says why).';
COMMENT ON COLUMN lift_summary.with_skill IS 'Mean over units of the with_skill unit means (objective pass rate).';
COMMENT ON COLUMN lift_summary.without_skill IS 'Mean over units of the without_skill unit means.';
COMMENT ON COLUMN lift_summary.lift IS 'with_skill minus without_skill.';
COMMENT ON COLUMN lift_summary.lift_ci_lower IS 'Sign-flip 95% interval of the lift, lower end (NULL when too few units).';
COMMENT ON COLUMN lift_summary.lift_ci_upper IS 'Sign-flip 95% interval of the lift, upper end.';
COMMENT ON COLUMN lift_summary.p IS 'Sign-flip p of the lift, as skill-benchmark prints it.';
COMMENT ON COLUMN lift_summary.p_upper IS 'The p the test decides on: p for an exact test, a sampled test''s upper bound (lift_evidence.p_upper).';
COMMENT ON COLUMN lift_summary.significant IS 'p_upper <= 0.05 (for an exact test p itself, for a sampled one the upper bound of its estimate); NULL when the lift was not tested.';
COMMENT ON COLUMN lift_summary.noise_check IS 'Whether this many units can resolve a lift of this size at all (resolvable, too-few-cases-moved, ...): not a significance test.';
