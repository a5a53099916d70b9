-- What skill-benchmark 0.6.0's `trend` reports over a history of benchmark
-- reports, with each release of a skill as one report of the history (in
-- releases.ordinal order). Definitions as the tool's (docs/metrics.md §M11):
--   trend_arm_rates       per release and arm: mean objective / combined
--                         pass rate and median total tokens;
--   trend_series          per release: with, without, lift (the release's
--                         paired lift), saturated and flagged cases, median
--                         total tokens and mean objective / combined pass
--                         rate per arm (scorable runs, as the tool's summary);
--   trend_arm_changes     per release and the one before: each arm's mean
--                         objective and combined pass rate before, after and
--                         the change rounded to 4 (the tool's variant_deltas);
--   trend_case_changes    per case and arm: mean objective pass rate before,
--                         after, change rounded to 4, where both exist and
--                         they differ by 1e-9 or more (case_deltas);
--   trend_flag_changes    flags '<case>::<flag>' new or resolved since the
--                         release before (new_flags, resolved_flags);
--   recurring_failures    (case, assertion, severity) failing in any run of a
--                         release: prevalence = releases with it / releases,
--                         rank = prevalence × severity weight (critical 3,
--                         gate 2, soft 1), both rounded to 4;
--   prune_candidates      cases whose with and without means were 1.0 in
--                         every release that ran both (at least two),
--                         regression guards excepted.
CREATE OR REPLACE VIEW skill_release_order AS
SELECT skill_name, release_label, ordinal,
       lag(release_label) OVER (PARTITION BY skill_name ORDER BY ordinal) AS previous_release
FROM (SELECT DISTINCT r.skill_name, r.release_label, s.ordinal
      FROM run_total_rows r JOIN releases s USING (release_label));

COMMENT ON VIEW skill_release_order IS 'Each skill''s releases in order, each with the one before it that ran the skill (a history of the skill''s reports).';
COMMENT ON COLUMN skill_release_order.skill_name IS 'Skill under test.';
COMMENT ON COLUMN skill_release_order.release_label IS 'Release.';
COMMENT ON COLUMN skill_release_order.ordinal IS 'Position of the release (releases.ordinal).';
COMMENT ON COLUMN skill_release_order.previous_release IS 'The skill''s release before it; NULL for its first.';

CREATE OR REPLACE VIEW trend_arm_rates AS
SELECT release_label, skill_name, arm,
       liftdb_mean_agg(CASE WHEN scorable THEN objective_pass_rate END) AS mean_objective_pass_rate,
       liftdb_mean_agg(CASE WHEN scorable THEN combined_pass_rate END) AS mean_combined_pass_rate,
       median(total_tokens::DOUBLE) FILTER (WHERE scorable AND total_tokens IS NOT NULL) AS median_total_tokens
FROM run_rows
GROUP BY ALL;

COMMENT ON VIEW trend_arm_rates IS 'Per release, skill and arm: the exact mean objective and combined pass rates and the median total tokens of the scorable runs (skill-benchmark''s report summary, which trend reads).';
COMMENT ON COLUMN trend_arm_rates.release_label IS 'Release.';
COMMENT ON COLUMN trend_arm_rates.skill_name IS 'Skill under test.';
COMMENT ON COLUMN trend_arm_rates.arm IS 'Arm (the tool''s variant).';
COMMENT ON COLUMN trend_arm_rates.mean_objective_pass_rate IS 'Exact mean objective pass rate of the arm''s scorable runs.';
COMMENT ON COLUMN trend_arm_rates.mean_combined_pass_rate IS 'Exact mean combined pass rate of the arm''s scorable runs.';
COMMENT ON COLUMN trend_arm_rates.median_total_tokens IS 'Median total tokens of the arm''s scorable runs with tokens.';

CREATE OR REPLACE VIEW trend_series AS
WITH flags AS (
    SELECT release_label, skill_name,
           count(*) FILTER (WHERE len(flags) > 0) AS flagged_cases,
           coalesce(sum(len(list_filter(flags, lambda f: contains(f, 'saturated')))), 0) AS saturated_cases
    FROM case_flag_rows
    GROUP BY ALL
)
SELECT r.ordinal AS release_order, a.release_label, a.skill_name, a.arm,
       l.with_rate AS with_skill, l.without_rate AS without_skill, l.absolute_delta AS lift,
       f.saturated_cases, f.flagged_cases,
       a.median_total_tokens, a.mean_objective_pass_rate, a.mean_combined_pass_rate
FROM trend_arm_rates a
JOIN releases r USING (release_label)
LEFT JOIN flags f USING (release_label, skill_name)
LEFT JOIN lift_rows l
    ON l.release_label = a.release_label AND l.skill_name = a.skill_name
   AND l.channel = 'objective' AND l.control_arm = 'without_skill' AND l.split = 'all'
   AND l.scope = 'overall' AND l.row_kind = 'release';

COMMENT ON VIEW trend_series IS 'Per release and arm of a skill: the release lift, saturated and flagged cases, median total tokens and mean pass rates (skill-benchmark trend''s series and summary).';
COMMENT ON COLUMN trend_series.release_order IS 'Position of the release (releases.ordinal).';
COMMENT ON COLUMN trend_series.release_label IS 'Release.';
COMMENT ON COLUMN trend_series.skill_name IS 'Skill under test.';
COMMENT ON COLUMN trend_series.arm IS 'Arm (the tool''s variant).';
COMMENT ON COLUMN trend_series.with_skill IS 'The release''s paired with_skill rate (lift, overall).';
COMMENT ON COLUMN trend_series.without_skill IS 'The release''s paired without_skill rate.';
COMMENT ON COLUMN trend_series.lift IS 'with_skill - without_skill.';
COMMENT ON COLUMN trend_series.saturated_cases IS 'Flags naming saturation, over the release''s cases (the tool counts flags, not cases).';
COMMENT ON COLUMN trend_series.flagged_cases IS 'Cases with at least one flag.';
COMMENT ON COLUMN trend_series.median_total_tokens IS 'Median total tokens of the arm''s scorable runs with tokens.';
COMMENT ON COLUMN trend_series.mean_objective_pass_rate IS 'Exact mean objective pass rate of the arm''s scorable runs.';
COMMENT ON COLUMN trend_series.mean_combined_pass_rate IS 'Exact mean combined pass rate of the arm''s scorable runs.';

CREATE OR REPLACE VIEW trend_arm_changes AS
SELECT o.ordinal AS release_order, cur.skill_name, o.previous_release, cur.release_label, cur.arm,
       old.mean_objective_pass_rate AS objective_before, cur.mean_objective_pass_rate AS objective_after,
       liftdb_pyround(cur.mean_objective_pass_rate - old.mean_objective_pass_rate, 4) AS objective_change,
       old.mean_combined_pass_rate AS combined_before, cur.mean_combined_pass_rate AS combined_after,
       liftdb_pyround(cur.mean_combined_pass_rate - old.mean_combined_pass_rate, 4) AS combined_change
FROM trend_arm_rates cur
JOIN skill_release_order o ON o.release_label = cur.release_label AND o.skill_name = cur.skill_name
JOIN trend_arm_rates old ON old.release_label = o.previous_release AND old.skill_name = cur.skill_name
                     AND old.arm = cur.arm;

COMMENT ON VIEW trend_arm_changes IS 'Per release and the one before, per arm: mean objective and combined pass rate before, after and the change rounded to 4 (skill-benchmark trend''s variant_deltas).';
COMMENT ON COLUMN trend_arm_changes.release_order IS 'Position of the release.';
COMMENT ON COLUMN trend_arm_changes.skill_name IS 'Skill under test.';
COMMENT ON COLUMN trend_arm_changes.previous_release IS 'The release before.';
COMMENT ON COLUMN trend_arm_changes.release_label IS 'Release.';
COMMENT ON COLUMN trend_arm_changes.arm IS 'Arm.';
COMMENT ON COLUMN trend_arm_changes.objective_before IS 'Mean objective pass rate in the release before.';
COMMENT ON COLUMN trend_arm_changes.objective_after IS 'Mean objective pass rate in this release.';
COMMENT ON COLUMN trend_arm_changes.objective_change IS 'after - before, rounded to 4 as Python rounds.';
COMMENT ON COLUMN trend_arm_changes.combined_before IS 'Mean combined pass rate in the release before.';
COMMENT ON COLUMN trend_arm_changes.combined_after IS 'Mean combined pass rate in this release.';
COMMENT ON COLUMN trend_arm_changes.combined_change IS 'after - before, rounded to 4.';

CREATE OR REPLACE VIEW trend_case_changes AS
WITH rates AS (
    -- exact means from the runs stored summed per case (run_total_rows)
    SELECT release_label, skill_name, case_id, arm,
           liftdb_mean_of(sum(objective_sum), sum(objective_n)) AS rate
    FROM run_total_rows
    WHERE objective_n > 0
    GROUP BY release_label, skill_name, case_id, arm
)
SELECT o.ordinal AS release_order, cur.skill_name, o.previous_release, cur.release_label,
       cur.case_id, cur.arm, old.rate AS before, cur.rate AS after,
       liftdb_pyround(cur.rate - old.rate, 4) AS change
FROM rates cur
JOIN skill_release_order o ON o.release_label = cur.release_label AND o.skill_name = cur.skill_name
JOIN rates old ON old.release_label = o.previous_release AND old.skill_name = cur.skill_name
              AND old.case_id = cur.case_id AND old.arm = cur.arm
WHERE abs(cur.rate - old.rate) >= 1e-9;

COMMENT ON VIEW trend_case_changes IS 'Per release and the one before, per case and arm whose mean objective pass rate moved (by 1e-9 or more): before, after, change rounded to 4 (skill-benchmark trend''s case_deltas).';
COMMENT ON COLUMN trend_case_changes.release_order IS 'Position of the release.';
COMMENT ON COLUMN trend_case_changes.skill_name IS 'Skill under test.';
COMMENT ON COLUMN trend_case_changes.previous_release IS 'The release before.';
COMMENT ON COLUMN trend_case_changes.release_label IS 'Release.';
COMMENT ON COLUMN trend_case_changes.case_id IS 'Case.';
COMMENT ON COLUMN trend_case_changes.arm IS 'Arm.';
COMMENT ON COLUMN trend_case_changes.before IS 'Mean objective pass rate of the case''s runs on the arm, the release before.';
COMMENT ON COLUMN trend_case_changes.after IS 'The same in this release.';
COMMENT ON COLUMN trend_case_changes.change IS 'after - before, rounded to 4.';

CREATE OR REPLACE VIEW trend_flag_changes AS
WITH flags AS (
    SELECT DISTINCT release_label, skill_name, case_id || '::' || unnest(flags) AS flag
    FROM case_flag_rows
)
SELECT o.ordinal AS release_order, cur.skill_name, o.previous_release, cur.release_label,
       'new' AS change, cur.flag
FROM flags cur
JOIN skill_release_order o ON o.release_label = cur.release_label AND o.skill_name = cur.skill_name
WHERE o.previous_release IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM flags old WHERE old.release_label = o.previous_release
                  AND old.skill_name = cur.skill_name AND old.flag = cur.flag)
UNION ALL
SELECT o.ordinal, old.skill_name, o.previous_release, o.release_label, 'resolved', old.flag
FROM flags old
JOIN skill_release_order o ON o.previous_release = old.release_label AND o.skill_name = old.skill_name
WHERE NOT EXISTS (SELECT 1 FROM flags cur WHERE cur.release_label = o.release_label
                  AND cur.skill_name = old.skill_name AND cur.flag = old.flag);

COMMENT ON VIEW trend_flag_changes IS 'Per release and the one before: each flag ''<case>::<flag>'' that is new or resolved (skill-benchmark trend''s new_flags and resolved_flags).';
COMMENT ON COLUMN trend_flag_changes.release_order IS 'Position of the release.';
COMMENT ON COLUMN trend_flag_changes.skill_name IS 'Skill under test.';
COMMENT ON COLUMN trend_flag_changes.previous_release IS 'The release before.';
COMMENT ON COLUMN trend_flag_changes.release_label IS 'Release.';
COMMENT ON COLUMN trend_flag_changes.change IS 'new (flagged now, not before) or resolved (flagged before, not now).';
COMMENT ON COLUMN trend_flag_changes.flag IS '<case>::<flag text>, as the tool writes it.';

CREATE OR REPLACE VIEW recurring_failures AS
WITH failing AS (
    -- Each release's failing (case, assertion, severity), stored per batch
    -- (failing_assertion_rows).
    SELECT * FROM failing_assertion_rows
),
history AS (
    SELECT skill_name, count(DISTINCT release_label) AS releases FROM run_total_rows GROUP BY ALL
),
counted AS (
    SELECT f.skill_name, f.case_id, f.assertion, f.severity,
           count(*) AS releases_failing, h.releases,
           count(*) / greatest(h.releases, 1) AS prevalence_exact,
           CASE f.severity WHEN 'critical' THEN 3.0 WHEN 'gate' THEN 2.0 ELSE 1.0 END AS weight
    FROM failing f JOIN history h USING (skill_name)
    GROUP BY f.skill_name, f.case_id, f.assertion, f.severity, h.releases
),
ranked AS (
    SELECT *, liftdb_pyround(prevalence_exact, 4) AS prevalence,
           liftdb_pyround(prevalence_exact * weight, 4) AS rank
    FROM counted
)
SELECT skill_name, case_id, assertion, severity, releases_failing, releases, prevalence, rank,
       row_number() OVER (PARTITION BY skill_name ORDER BY rank DESC, case_id, assertion) AS place
FROM ranked;

COMMENT ON VIEW recurring_failures IS 'Failing (case, assertion, severity) across a skill''s releases: prevalence and the severity-weighted rank of skill-benchmark trend (the tool lists the first 50 by place).';
COMMENT ON COLUMN recurring_failures.skill_name IS 'Skill under test.';
COMMENT ON COLUMN recurring_failures.case_id IS 'Case.';
COMMENT ON COLUMN recurring_failures.assertion IS 'Assertion name.';
COMMENT ON COLUMN recurring_failures.severity IS 'critical, gate or soft.';
COMMENT ON COLUMN recurring_failures.releases_failing IS 'Releases in which some run failed it.';
COMMENT ON COLUMN recurring_failures.releases IS 'Releases of the skill.';
COMMENT ON COLUMN recurring_failures.prevalence IS 'releases_failing / releases, rounded to 4.';
COMMENT ON COLUMN recurring_failures.rank IS 'prevalence × weight (critical 3, gate 2, soft 1), rounded to 4.';
COMMENT ON COLUMN recurring_failures.place IS 'Order by rank (highest first), then case and assertion.';

CREATE OR REPLACE VIEW prune_candidates AS
WITH per_release AS (
    -- each arm's exact mean over its runs with a rate, from the runs stored
    -- summed per case (run_total_rows)
    SELECT release_label, skill_name, case_id,
           liftdb_mean_of(sum(objective_sum) FILTER (WHERE arm = 'with_skill'),
                          sum(objective_n) FILTER (WHERE arm = 'with_skill')) AS with_rate,
           liftdb_mean_of(sum(objective_sum) FILTER (WHERE arm = 'without_skill'),
                          sum(objective_n) FILTER (WHERE arm = 'without_skill')) AS without_rate,
           sum(regression_rated_runs) > 0 AS regression_guard
    FROM run_total_rows
    WHERE objective_n > 0 AND arm IN ('with_skill', 'without_skill')
    GROUP BY ALL
    HAVING sum(objective_n) FILTER (WHERE arm = 'with_skill') > 0
       AND sum(objective_n) FILTER (WHERE arm = 'without_skill') > 0
)
SELECT skill_name, case_id, count(*) AS releases_observed,
       'never failed and never showed lift across the history' AS reason
FROM per_release
GROUP BY skill_name, case_id
HAVING count(*) >= 2 AND NOT bool_or(regression_guard)
   AND bool_and(with_rate = 1.0 AND without_rate = 1.0);

COMMENT ON VIEW prune_candidates IS 'Cases that never failed and never showed lift in any release that ran both arms (at least two), regression guards excepted (skill-benchmark trend''s prune_candidates).';
COMMENT ON COLUMN prune_candidates.skill_name IS 'Skill under test.';
COMMENT ON COLUMN prune_candidates.case_id IS 'Case.';
COMMENT ON COLUMN prune_candidates.releases_observed IS 'Releases that ran both arms of the case.';
COMMENT ON COLUMN prune_candidates.reason IS 'Why it is a candidate (the tool''s words).';

CREATE OR REPLACE VIEW idle_case_spend AS
-- What a prune would save: per release, the known spend on the cases the
-- harness flags saturated or without objective lift in that release.
WITH idle AS (
    SELECT DISTINCT release_label, skill_name, case_id
    FROM case_flag_rows
    WHERE len(list_filter(flags, lambda f: contains(f, 'saturated') OR contains(f, 'no objective lift'))) > 0
)
SELECT r.release_label, r.skill_name,
       count(DISTINCT r.case_id) FILTER (WHERE i.case_id IS NOT NULL) AS idle_cases,
       CAST(coalesce(sum(r.runs) FILTER (WHERE i.case_id IS NOT NULL), 0) AS BIGINT) AS idle_runs,
       sum(r.known_cost_usd) FILTER (WHERE i.case_id IS NOT NULL) AS idle_known_cost_usd,
       sum(r.known_total_tokens) FILTER (WHERE i.case_id IS NOT NULL) AS idle_known_tokens,
       sum(r.known_cost_usd) AS known_cost_usd,
       sum(r.known_cost_usd) FILTER (WHERE i.case_id IS NOT NULL) / nullif(sum(r.known_cost_usd), 0) AS idle_cost_share
FROM run_total_rows r
LEFT JOIN idle i USING (release_label, skill_name, case_id)
GROUP BY r.release_label, r.skill_name;

COMMENT ON VIEW idle_case_spend IS 'Per release of a skill: the known spend on cases flagged saturated or without objective lift (what pruning them would save), beside the release''s known spend.';
COMMENT ON COLUMN idle_case_spend.release_label IS 'Release.';
COMMENT ON COLUMN idle_case_spend.skill_name IS 'Skill under test.';
COMMENT ON COLUMN idle_case_spend.idle_cases IS 'Cases flagged saturated or no objective lift in the release.';
COMMENT ON COLUMN idle_case_spend.idle_runs IS 'Their runs, every arm.';
COMMENT ON COLUMN idle_case_spend.idle_known_cost_usd IS 'Known cost of those runs (runs without a cost are left out: a known subtotal, NULL when none is known).';
COMMENT ON COLUMN idle_case_spend.idle_known_tokens IS 'Known total tokens of those runs.';
COMMENT ON COLUMN idle_case_spend.known_cost_usd IS 'Known cost of every run of the release.';
COMMENT ON COLUMN idle_case_spend.idle_cost_share IS 'idle_known_cost_usd / known_cost_usd; NULL without a known cost.';
