-- lift_evidence: what the evaluation literature asks for beside the
-- sign-flip p on small suites (docs/metrics.md §M3a), per lift row:
--   wins / ties / losses   units (a case on one model) whose with_skill mean
--                          is above / equal to / below the control mean;
--   Wilson 95% per arm     of the run success rate (every gate passed) over
--                          the row's eligible pairs: k successes in n;
--   bootstrap 95%          case-clustered (cases resampled, their units
--                          together), from lift_stats;
--   q                      Benjamini–Hochberg q-value of a case row's p among
--                          the case rows of its report (same release, skill,
--                          row kind, experiment, split, control arm, channel),
--                          from lift_stats (no window here: filters on the
--                          channel and scope reach the lift view).
-- The harness-equal columns (p, the sign-flip interval) stay in lift_stats.
-- significant is liftdb's one significance (docs/metrics.md §M6): p_upper
-- (the exact p, or a sampled test's upper bound) at most 0.05.
CREATE OR REPLACE VIEW lift_evidence AS
SELECT l.*,
       s.p_value, s.p_value_unrounded, s.p_upper, s.significant, s.method, s.ci_lower, s.ci_upper,
       s.noise_verdict, s.bootstrap_lower, s.bootstrap_upper,
       liftdb_wilson_lower(l.with_successes, l.eligible_pairs) AS with_wilson_lower,
       liftdb_wilson_upper(l.with_successes, l.eligible_pairs) AS with_wilson_upper,
       liftdb_wilson_lower(l.control_successes, l.eligible_pairs) AS control_wilson_lower,
       liftdb_wilson_upper(l.control_successes, l.eligible_pairs) AS control_wilson_upper,
       s.bh_q,
       -- the reports' names (release, skill, case, lift, p …)
       l.release_label AS release, l.skill_name AS skill, l.control_arm AS control,
       l.case_id AS "case", l.with_rate AS with_skill, l.without_rate AS without_skill,
       l.absolute_delta AS lift, s.p_value AS p
FROM lift_rows l
LEFT JOIN lift_stats s
    ON s.release_label = l.release_label AND s.skill_name = l.skill_name
   AND s.control_arm = l.control_arm AND s.channel = l.channel AND s.split = l.split
   AND s.scope = l.scope AND s.row_kind = l.row_kind
   AND s.experiment IS NOT DISTINCT FROM l.experiment
   AND s.model IS NOT DISTINCT FROM l.model AND s.case_id IS NOT DISTINCT FROM l.case_id;

COMMENT ON VIEW lift_evidence IS 'Every lift row with its lift_stats test and interval, and beside them: wins/ties/losses per unit, Wilson 95% intervals per arm, the case-clustered bootstrap 95% interval, and Benjamini–Hochberg q-values across a report''s case rows (docs/metrics.md §M3a).';
COMMENT ON COLUMN lift_evidence.release IS 'The same as release_label, as the reports name it.';
COMMENT ON COLUMN lift_evidence.skill IS 'The same as skill_name, as the reports name it.';
COMMENT ON COLUMN lift_evidence.control IS 'The same as control_arm, as the reports name it.';
COMMENT ON COLUMN lift_evidence."case" IS 'The same as case_id, as the reports name it.';
COMMENT ON COLUMN lift_evidence.with_skill IS 'The same as with_rate, as the reports name it.';
COMMENT ON COLUMN lift_evidence.without_skill IS 'The same as without_rate, as the reports name it.';
COMMENT ON COLUMN lift_evidence.lift IS 'The same as absolute_delta, as the reports name it.';
COMMENT ON COLUMN lift_evidence.p IS 'The same as p_value, as the reports name it.';
COMMENT ON COLUMN lift_evidence.release_label IS 'Release.';
COMMENT ON COLUMN lift_evidence.skill_name IS 'Skill under test.';
COMMENT ON COLUMN lift_evidence.control_arm IS 'Arm compared with with_skill.';
COMMENT ON COLUMN lift_evidence.channel IS 'objective, pass_at_1 or graded (as lift).';
COMMENT ON COLUMN lift_evidence.split IS 'Case split, or ''all''.';
COMMENT ON COLUMN lift_evidence.row_kind IS 'experiment or release (as lift).';
COMMENT ON COLUMN lift_evidence.experiment IS 'The experiment of an experiment row; NULL on a release row.';
COMMENT ON COLUMN lift_evidence.scope IS 'overall, model or case.';
COMMENT ON COLUMN lift_evidence.model IS 'The model of a model row.';
COMMENT ON COLUMN lift_evidence.case_id IS 'The case of a case row.';
COMMENT ON COLUMN lift_evidence.units IS 'Units with an eligible pair.';
COMMENT ON COLUMN lift_evidence.eligible_pairs IS 'Eligible pairs: the n of each arm''s Wilson interval.';
COMMENT ON COLUMN lift_evidence.units_won IS 'Units whose with_skill mean is above the control mean.';
COMMENT ON COLUMN lift_evidence.units_tied IS 'Units whose two means are equal.';
COMMENT ON COLUMN lift_evidence.units_lost IS 'Units whose with_skill mean is below the control mean.';
COMMENT ON COLUMN lift_evidence.with_successes IS 'Eligible pairs whose with_skill run succeeded: the k of its Wilson interval.';
COMMENT ON COLUMN lift_evidence.control_successes IS 'Eligible pairs whose control run succeeded.';
COMMENT ON COLUMN lift_evidence.with_wilson_lower IS 'Wilson 95% interval of the with_skill success rate, lower end.';
COMMENT ON COLUMN lift_evidence.with_wilson_upper IS 'Wilson 95% interval of the with_skill success rate, upper end.';
COMMENT ON COLUMN lift_evidence.control_wilson_lower IS 'Wilson 95% interval of the control success rate, lower end.';
COMMENT ON COLUMN lift_evidence.control_wilson_upper IS 'Wilson 95% interval of the control success rate, upper end.';
COMMENT ON COLUMN lift_evidence.bootstrap_lower IS 'Case-clustered bootstrap 95% interval of the lift, lower end (lift_stats).';
COMMENT ON COLUMN lift_evidence.bootstrap_upper IS 'Case-clustered bootstrap 95% interval of the lift, upper end.';
COMMENT ON COLUMN lift_evidence.bh_q IS 'Benjamini–Hochberg q-value of a case row''s p_upper among its report''s case rows; NULL on other rows.';
COMMENT ON COLUMN lift_evidence.blocked_pairs IS 'Blocked pairs in scope (as lift).';
COMMENT ON COLUMN lift_evidence.with_rate IS 'Mean over units of the with_skill unit means (as lift).';
COMMENT ON COLUMN lift_evidence.without_rate IS 'Mean over units of the control unit means (as lift).';
COMMENT ON COLUMN lift_evidence.absolute_delta IS 'Lift (as lift).';
COMMENT ON COLUMN lift_evidence.normalized_gain IS 'Normalized gain (as lift).';
COMMENT ON COLUMN lift_evidence.negative_delta_units IS 'Units below the control (as lift).';
COMMENT ON COLUMN lift_evidence.negative_delta_cases IS 'Those units (as lift).';
COMMENT ON COLUMN lift_evidence.deltas IS 'Unit deltas (as lift).';
COMMENT ON COLUMN lift_evidence.unit_without_rates IS 'Control unit means (as lift).';
COMMENT ON COLUMN lift_evidence.unit_cases IS 'The case of each unit (as lift).';
COMMENT ON COLUMN lift_evidence.p_value IS 'Sign-flip p, rounded 6 (lift_stats).';
COMMENT ON COLUMN lift_evidence.p_value_unrounded IS 'Sign-flip p unrounded.';
COMMENT ON COLUMN lift_evidence.p_upper IS 'The p the test decides on, unrounded: p_value_unrounded for an exact test, for a sampled one (method sign-flip-sampled) the upper bound of its estimate, min(1, hits/4096 + sqrt(ln(1000)/8192)) (lift_stats; the input of bh_q); NULL when untested.';
COMMENT ON COLUMN lift_evidence.significant IS 'p_upper <= 0.05: liftdb''s significance, the one the headline, lift_summary, the reports and the gate use; NULL when untested.';
COMMENT ON COLUMN lift_evidence.method IS 'Sign-flip method (lift_stats).';
COMMENT ON COLUMN lift_evidence.ci_lower IS 'Sign-flip 95% interval, lower end (lift_stats).';
COMMENT ON COLUMN lift_evidence.ci_upper IS 'Sign-flip 95% interval, upper end (lift_stats).';
COMMENT ON COLUMN lift_evidence.noise_verdict IS 'Noise check verdict (lift_stats).';
