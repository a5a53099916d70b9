-- What skill-benchmark 0.6.0's `trend` reports over a history of benchmark
-- reports, with each release of a skill as one report of the history (in
-- releases.ordinal order), every runs root and model of the release pooled
-- as the tool pools the one tree of a report. Definitions as the tool's
-- (docs/metrics.md §M11):
--   skill_release_order   each skill's releases in order, with the one before;
--   trend_history_release each report of a held trend (`skill-benchmark trend
--                         --out`) as a release of its skill;
--   trend_pairs           the pairs of releases compared: each release with
--                         the one before, and the pairs a held trend compares
--                         when liftdb orders them otherwise;
--   trend_arm_rates       per release and arm: mean objective / combined
--                         pass rate and median total tokens;
--   trend_series          per release: with, without, lift (the release's
--                         paired lift), saturated and flagged cases, median
--                         total tokens and mean objective / combined pass
--                         rate per arm (scorable runs, as the tool's summary);
--   trend_arm_changes     per pair of releases: each arm's mean objective and
--                         combined pass rate before, after and the change
--                         rounded to 4 (the tool's variant_deltas), for the
--                         release and for each experiment and model both have;
--   trend_case_changes    per case and arm: mean objective pass rate before,
--                         after, change rounded to 4, where both exist and
--                         they differ by 1e-9 or more (case_deltas); a case
--                         with a rate on one side only is named added or
--                         dropped (the tool leaves it out);
--   trend_flag_changes    flags '<case>::<flag>' new or resolved between the
--                         two releases (new_flags, resolved_flags);
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
    -- The release's flags, every experiment pooled (the tool's report).
    SELECT release_label, skill_name,
           count(*) FILTER (WHERE len(flags) > 0) AS flagged_cases,
           coalesce(sum(len(list_filter(flags, lambda f: contains(f, 'saturated')))), 0) AS saturated_cases
    FROM case_flag_release_rows
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
COMMENT ON COLUMN trend_series.saturated_cases IS 'Flags naming saturation, over the release''s cases, experiments pooled (the tool counts flags, not cases).';
COMMENT ON COLUMN trend_series.flagged_cases IS 'Cases with at least one flag, experiments pooled.';
COMMENT ON COLUMN trend_series.median_total_tokens IS 'Median total tokens of the arm''s scorable runs with tokens.';
COMMENT ON COLUMN trend_series.mean_objective_pass_rate IS 'Exact mean objective pass rate of the arm''s scorable runs.';
COMMENT ON COLUMN trend_series.mean_combined_pass_rate IS 'Exact mean combined pass rate of the arm''s scorable runs.';

CREATE OR REPLACE VIEW trend_history_release AS
WITH entry AS (
    -- The reports of each held trend's history, in its order.
    SELECT source_path, idx,
           any_value(value_text) FILTER (WHERE leaf = 'label') AS label,
           any_value(value) FILTER (WHERE leaf = 'generated_at') AS generated_at,
           any_value(value) FILTER (WHERE leaf = 'with_skill') AS with_skill,
           any_value(value) FILTER (WHERE leaf = 'without_skill') AS without_skill,
           any_value(value) FILTER (WHERE leaf = 'lift') AS lift
    FROM (SELECT source_path, value, value_text,
                 TRY_CAST(regexp_extract(json_path, '^/series/([0-9]+)/', 1) AS INTEGER) AS idx,
                 regexp_extract(json_path, '^/series/[0-9]+/(.*)$', 1) AS leaf
          FROM peer_metric
          WHERE report_kind = 'trend' AND json_path LIKE '/series/%')
    GROUP BY source_path, idx
),
skill_release AS (
    SELECT skill_name, release_label, ordinal, count(*) OVER (PARTITION BY skill_name) AS releases
    FROM skill_release_order
),
candidate AS (
    -- A history report is a release of that name, or the benchmark report
    -- liftdb holds with the same generated_at.
    SELECT e.source_path, e.idx, s.skill_name, s.release_label, 1 AS priority
    FROM entry e JOIN skill_release s ON s.release_label = e.label
    UNION ALL
    SELECT e.source_path, e.idx, b.skill_name, b.release_label, 2
    FROM entry e
    JOIN peer_metric b ON b.report_kind = 'benchmark' AND b.json_path = '/generated_at' AND b.value = e.generated_at
    WHERE b.skill_name IS NOT NULL
    UNION ALL
    -- else the release whose paired with_skill, without_skill and lift are
    -- the report's (a release read from its folders holds no report).
    SELECT DISTINCT e.source_path, e.idx, s.skill_name, s.release_label, 3
    FROM entry e
    JOIN trend_series s ON abs(s.with_skill - e.with_skill) <= 1e-9
                       AND abs(s.without_skill - e.without_skill) <= 1e-9 AND abs(s.lift - e.lift) <= 1e-9
),
trend_skill AS (
    -- The skill a trend is over: the one most of its reports match; when none
    -- matches, the only skill with as many releases as the history has reports.
    SELECT source_path, skill_name FROM (
        SELECT source_path, skill_name, count(DISTINCT idx) AS matched FROM candidate GROUP BY source_path, skill_name
        QUALIFY row_number() OVER (PARTITION BY source_path ORDER BY matched DESC, skill_name) = 1)
    UNION ALL
    SELECT h.source_path, any_value(s.skill_name)
    FROM (SELECT source_path, count(*) AS reports FROM entry GROUP BY ALL) h
    JOIN (SELECT DISTINCT skill_name, releases FROM skill_release) s ON s.releases = h.reports
    WHERE h.source_path NOT IN (SELECT source_path FROM candidate)
    GROUP BY h.source_path HAVING count(*) = 1
),
by_match AS (
    SELECT e.source_path, e.idx, e.label, k.skill_name, m.release_label, m.priority
    FROM entry e
    JOIN trend_skill k USING (source_path)
    LEFT JOIN (SELECT * FROM candidate
               QUALIFY row_number() OVER (PARTITION BY source_path, idx, skill_name ORDER BY priority, release_label) = 1) m
        ON m.source_path = e.source_path AND m.idx = e.idx AND m.skill_name = k.skill_name
),
unmatched_entry AS (
    SELECT source_path, idx, row_number() OVER (PARTITION BY source_path ORDER BY idx) AS n
    FROM by_match WHERE release_label IS NULL
),
unmatched_release AS (
    -- The skill's releases no report of the history matched, in order.
    SELECT k.source_path, s.release_label, row_number() OVER (PARTITION BY k.source_path ORDER BY s.ordinal) AS n
    FROM trend_skill k JOIN skill_release s USING (skill_name)
    WHERE NOT EXISTS (SELECT 1 FROM by_match b WHERE b.source_path = k.source_path
                      AND b.release_label = s.release_label)
)
SELECT b.source_path, b.idx, b.label, b.skill_name,
       coalesce(b.release_label, r.release_label) AS release_label,
       CASE b.priority WHEN 1 THEN 'label' WHEN 2 THEN 'generated_at' WHEN 3 THEN 'series'
            ELSE CASE WHEN r.release_label IS NOT NULL THEN 'order' END END AS matched_by
FROM by_match b
LEFT JOIN unmatched_entry u USING (source_path, idx)
LEFT JOIN unmatched_release r ON r.source_path = u.source_path AND r.n = u.n;

COMMENT ON VIEW trend_history_release IS 'Each report of a held skill-benchmark trend as a release of its skill: the release of its label, else the one whose benchmark report liftdb holds with its generated_at, else the one whose paired with_skill, without_skill and lift are the report''s series, else the skill''s releases no other report matched, in order.';
COMMENT ON COLUMN trend_history_release.source_path IS 'The trend file.';
COMMENT ON COLUMN trend_history_release.idx IS 'Position of the report in the tool''s history (0 first).';
COMMENT ON COLUMN trend_history_release.label IS 'The report''s label in the trend (its history file''s name).';
COMMENT ON COLUMN trend_history_release.skill_name IS 'The skill the trend is over.';
COMMENT ON COLUMN trend_history_release.release_label IS 'The release the report is; NULL when none is left to match.';
COMMENT ON COLUMN trend_history_release.matched_by IS 'label, generated_at, series (its with_skill, without_skill and lift) or order (the releases left, in order); NULL when unmatched.';

CREATE OR REPLACE VIEW trend_pairs AS
WITH adjacent AS (
    SELECT skill_name, previous_release, release_label
    FROM skill_release_order WHERE previous_release IS NOT NULL
),
named AS (
    -- Consecutive reports of a held trend, as releases.
    SELECT DISTINCT f.skill_name, f.release_label AS previous_release, t.release_label
    FROM trend_history_release f
    JOIN trend_history_release t ON t.source_path = f.source_path AND t.idx = f.idx + 1
    WHERE f.release_label IS NOT NULL AND t.release_label IS NOT NULL
)
SELECT o.ordinal AS release_order, p.skill_name, p.previous_release, p.release_label, p.adjacent
FROM (SELECT *, true AS adjacent FROM adjacent
      UNION ALL
      SELECT *, false FROM named n
      WHERE NOT EXISTS (SELECT 1 FROM adjacent a WHERE a.skill_name = n.skill_name
                        AND a.previous_release = n.previous_release AND a.release_label = n.release_label)) p
JOIN skill_release_order o USING (skill_name, release_label);

COMMENT ON VIEW trend_pairs IS 'The pairs of a skill''s releases the trend compares: each release with the one before it (adjacent), and each pair of consecutive reports of a held trend liftdb orders otherwise (not adjacent).';
COMMENT ON COLUMN trend_pairs.release_order IS 'Position of the later release (releases.ordinal).';
COMMENT ON COLUMN trend_pairs.skill_name IS 'Skill under test.';
COMMENT ON COLUMN trend_pairs.previous_release IS 'The release compared from.';
COMMENT ON COLUMN trend_pairs.release_label IS 'The release compared to.';
COMMENT ON COLUMN trend_pairs.adjacent IS 'true: the release before it in liftdb''s order; false: a pair only a held trend compares.';

CREATE OR REPLACE VIEW trend_pair_scopes AS
WITH scopes AS (
    -- What a release has at each scope: the release itself, each
    -- experiment, each model.
    SELECT DISTINCT release_label, skill_name, 'release' AS scope, NULL::VARCHAR AS experiment, NULL::VARCHAR AS model
    FROM run_total_rows
    UNION ALL
    SELECT DISTINCT release_label, skill_name, 'experiment', experiment, NULL FROM run_total_rows
    UNION ALL
    SELECT DISTINCT release_label, skill_name, 'model', NULL, model FROM run_total_rows WHERE model IS NOT NULL
)
SELECT p.*, a.scope, a.experiment, a.model
FROM trend_pairs p
JOIN scopes a ON a.release_label = p.release_label AND a.skill_name = p.skill_name
JOIN scopes b ON b.release_label = p.previous_release AND b.skill_name = p.skill_name
             AND b.scope = a.scope AND b.experiment IS NOT DISTINCT FROM a.experiment
             AND b.model IS NOT DISTINCT FROM a.model;

COMMENT ON VIEW trend_pair_scopes IS 'Each pair of releases the trend compares (trend_pairs) at each scope both releases have: the release, each experiment, each model.';
COMMENT ON COLUMN trend_pair_scopes.release_order IS 'Position of the later release (releases.ordinal).';
COMMENT ON COLUMN trend_pair_scopes.skill_name IS 'Skill under test.';
COMMENT ON COLUMN trend_pair_scopes.previous_release IS 'The release compared from.';
COMMENT ON COLUMN trend_pair_scopes.release_label IS 'The release compared to.';
COMMENT ON COLUMN trend_pair_scopes.adjacent IS 'true: the release before in liftdb''s order; false: a pair only a held trend compares.';
COMMENT ON COLUMN trend_pair_scopes.scope IS 'release, experiment or model.';
COMMENT ON COLUMN trend_pair_scopes.experiment IS 'The experiment (scope experiment), else NULL.';
COMMENT ON COLUMN trend_pair_scopes.model IS 'The model (scope model), else NULL.';

CREATE OR REPLACE VIEW trend_arm_changes AS
WITH rates AS (
    SELECT release_label, skill_name, 'release' AS scope, NULL::VARCHAR AS experiment, NULL::VARCHAR AS model, arm,
           mean_objective_pass_rate, mean_combined_pass_rate
    FROM trend_arm_rates
    UNION ALL
    SELECT release_label, skill_name, 'experiment', experiment, NULL, arm,
           liftdb_mean_agg(CASE WHEN scorable THEN objective_pass_rate END),
           liftdb_mean_agg(CASE WHEN scorable THEN combined_pass_rate END)
    FROM run_rows GROUP BY ALL
    UNION ALL
    SELECT release_label, skill_name, 'model', NULL, model, arm,
           liftdb_mean_agg(CASE WHEN scorable THEN objective_pass_rate END),
           liftdb_mean_agg(CASE WHEN scorable THEN combined_pass_rate END)
    FROM run_rows WHERE model IS NOT NULL GROUP BY ALL
)
SELECT p.release_order, p.skill_name, p.previous_release, p.release_label, p.adjacent,
       cur.scope, cur.experiment, cur.model, cur.arm,
       old.mean_objective_pass_rate AS objective_before, cur.mean_objective_pass_rate AS objective_after,
       liftdb_pyround(cur.mean_objective_pass_rate - old.mean_objective_pass_rate, 4) AS objective_change,
       old.mean_combined_pass_rate AS combined_before, cur.mean_combined_pass_rate AS combined_after,
       liftdb_pyround(cur.mean_combined_pass_rate - old.mean_combined_pass_rate, 4) AS combined_change
FROM trend_pairs p
JOIN rates cur ON cur.release_label = p.release_label AND cur.skill_name = p.skill_name
JOIN rates old ON old.release_label = p.previous_release AND old.skill_name = p.skill_name
              AND old.scope = cur.scope AND old.experiment IS NOT DISTINCT FROM cur.experiment
              AND old.model IS NOT DISTINCT FROM cur.model AND old.arm = cur.arm;

COMMENT ON VIEW trend_arm_changes IS 'Per pair of releases (trend_pairs) and arm, for the release and for each experiment and model both have: mean objective and combined pass rate before, after and the change rounded to 4 (skill-benchmark trend''s variant_deltas at scope release).';
COMMENT ON COLUMN trend_arm_changes.release_order IS 'Position of the release.';
COMMENT ON COLUMN trend_arm_changes.skill_name IS 'Skill under test.';
COMMENT ON COLUMN trend_arm_changes.previous_release IS 'The release compared from.';
COMMENT ON COLUMN trend_arm_changes.release_label IS 'Release.';
COMMENT ON COLUMN trend_arm_changes.adjacent IS 'true: the release before in liftdb''s order; false: a pair only a held trend compares.';
COMMENT ON COLUMN trend_arm_changes.scope IS 'release (every experiment and model pooled, the tool''s report), experiment or model.';
COMMENT ON COLUMN trend_arm_changes.experiment IS 'The experiment (scope experiment), else NULL.';
COMMENT ON COLUMN trend_arm_changes.model IS 'The model (scope model), else NULL.';
COMMENT ON COLUMN trend_arm_changes.arm IS 'Arm.';
COMMENT ON COLUMN trend_arm_changes.objective_before IS 'Mean objective pass rate of the scorable runs in the release compared from.';
COMMENT ON COLUMN trend_arm_changes.objective_after IS 'Mean objective pass rate in this release.';
COMMENT ON COLUMN trend_arm_changes.objective_change IS 'after - before, rounded to 4 as Python rounds.';
COMMENT ON COLUMN trend_arm_changes.combined_before IS 'Mean combined pass rate in the release compared from.';
COMMENT ON COLUMN trend_arm_changes.combined_after IS 'Mean combined pass rate in this release.';
COMMENT ON COLUMN trend_arm_changes.combined_change IS 'after - before, rounded to 4.';

CREATE OR REPLACE VIEW trend_case_changes AS
WITH rates AS (
    -- exact means from the runs stored summed per case (run_total_rows),
    -- every run with a rate (scorable or not, as the tool's case_deltas)
    SELECT release_label, skill_name, 'release' AS scope, NULL::VARCHAR AS experiment, NULL::VARCHAR AS model,
           case_id, arm, liftdb_mean_of(sum(objective_sum), sum(objective_n)) AS rate
    FROM run_total_rows WHERE objective_n > 0
    GROUP BY release_label, skill_name, case_id, arm
    UNION ALL
    SELECT release_label, skill_name, 'experiment', experiment, NULL,
           case_id, arm, liftdb_mean_of(sum(objective_sum), sum(objective_n))
    FROM run_total_rows WHERE objective_n > 0
    GROUP BY release_label, skill_name, experiment, case_id, arm
    UNION ALL
    SELECT release_label, skill_name, 'model', NULL, model,
           case_id, arm, liftdb_mean_of(sum(objective_sum), sum(objective_n))
    FROM run_total_rows WHERE objective_n > 0 AND model IS NOT NULL
    GROUP BY release_label, skill_name, model, case_id, arm
),
compared AS (
    SELECT * FROM trend_pair_scopes
),
keyed AS (
    SELECT DISTINCT c.*, r.case_id, r.arm
    FROM compared c
    JOIN rates r ON r.skill_name = c.skill_name AND r.release_label IN (c.release_label, c.previous_release)
                AND r.scope = c.scope AND r.experiment IS NOT DISTINCT FROM c.experiment
                AND r.model IS NOT DISTINCT FROM c.model
)
SELECT k.release_order, k.skill_name, k.previous_release, k.release_label, k.adjacent,
       k.scope, k.experiment, k.model, k.case_id, k.arm,
       CASE WHEN old.rate IS NULL THEN 'added' WHEN cur.rate IS NULL THEN 'dropped' ELSE 'moved' END AS change_kind,
       old.rate AS before, cur.rate AS after,
       liftdb_pyround(cur.rate - old.rate, 4) AS change
FROM keyed k
LEFT JOIN rates cur ON cur.release_label = k.release_label AND cur.skill_name = k.skill_name
                   AND cur.scope = k.scope AND cur.experiment IS NOT DISTINCT FROM k.experiment
                   AND cur.model IS NOT DISTINCT FROM k.model AND cur.case_id = k.case_id AND cur.arm = k.arm
LEFT JOIN rates old ON old.release_label = k.previous_release AND old.skill_name = k.skill_name
                   AND old.scope = k.scope AND old.experiment IS NOT DISTINCT FROM k.experiment
                   AND old.model IS NOT DISTINCT FROM k.model AND old.case_id = k.case_id AND old.arm = k.arm
WHERE old.rate IS NULL OR cur.rate IS NULL OR abs(cur.rate - old.rate) >= 1e-9;

COMMENT ON VIEW trend_case_changes IS 'Per pair of releases (trend_pairs), case and arm, for the release and each experiment and model both have: a mean objective pass rate that moved (by 1e-9 or more: skill-benchmark trend''s case_deltas at scope release), or a case with a rate on one side only (added, dropped: the tool leaves those out).';
COMMENT ON COLUMN trend_case_changes.release_order IS 'Position of the release.';
COMMENT ON COLUMN trend_case_changes.skill_name IS 'Skill under test.';
COMMENT ON COLUMN trend_case_changes.previous_release IS 'The release compared from.';
COMMENT ON COLUMN trend_case_changes.release_label IS 'Release.';
COMMENT ON COLUMN trend_case_changes.adjacent IS 'true: the release before in liftdb''s order; false: a pair only a held trend compares.';
COMMENT ON COLUMN trend_case_changes.scope IS 'release (every experiment and model pooled, the tool''s report), experiment or model.';
COMMENT ON COLUMN trend_case_changes.experiment IS 'The experiment (scope experiment), else NULL.';
COMMENT ON COLUMN trend_case_changes.model IS 'The model (scope model), else NULL.';
COMMENT ON COLUMN trend_case_changes.case_id IS 'Case.';
COMMENT ON COLUMN trend_case_changes.arm IS 'Arm.';
COMMENT ON COLUMN trend_case_changes.change_kind IS 'moved (a rate on both sides, 1e-9 or more apart), added (a rate in this release only) or dropped (in the release compared from only).';
COMMENT ON COLUMN trend_case_changes.before IS 'Mean objective pass rate of the case''s runs on the arm in the release compared from; NULL when added.';
COMMENT ON COLUMN trend_case_changes.after IS 'The same in this release; NULL when dropped.';
COMMENT ON COLUMN trend_case_changes.change IS 'after - before, rounded to 4; NULL when added or dropped.';

CREATE OR REPLACE VIEW trend_flag_changes AS
WITH flags AS (
    SELECT DISTINCT release_label, skill_name, 'release' AS scope, NULL::VARCHAR AS experiment,
           case_id || '::' || unnest(flags) AS flag
    FROM case_flag_release_rows
    UNION ALL
    SELECT DISTINCT release_label, skill_name, 'experiment', experiment, case_id || '::' || unnest(flags)
    FROM case_flag_rows
),
compared AS (
    -- Flags are a report's: none per model.
    SELECT * FROM trend_pair_scopes WHERE scope IN ('release', 'experiment')
)
SELECT c.release_order, c.skill_name, c.previous_release, c.release_label, c.adjacent,
       c.scope, c.experiment, 'new' AS change, cur.flag
FROM compared c
JOIN flags cur ON cur.release_label = c.release_label AND cur.skill_name = c.skill_name
              AND cur.scope = c.scope AND cur.experiment IS NOT DISTINCT FROM c.experiment
WHERE NOT EXISTS (SELECT 1 FROM flags old WHERE old.release_label = c.previous_release
                  AND old.skill_name = c.skill_name AND old.scope = c.scope
                  AND old.experiment IS NOT DISTINCT FROM c.experiment AND old.flag = cur.flag)
UNION ALL
SELECT c.release_order, c.skill_name, c.previous_release, c.release_label, c.adjacent,
       c.scope, c.experiment, 'resolved', old.flag
FROM compared c
JOIN flags old ON old.release_label = c.previous_release AND old.skill_name = c.skill_name
              AND old.scope = c.scope AND old.experiment IS NOT DISTINCT FROM c.experiment
WHERE NOT EXISTS (SELECT 1 FROM flags cur WHERE cur.release_label = c.release_label
                  AND cur.skill_name = c.skill_name AND cur.scope = c.scope
                  AND cur.experiment IS NOT DISTINCT FROM c.experiment AND cur.flag = old.flag);

COMMENT ON VIEW trend_flag_changes IS 'Per pair of releases (trend_pairs), for the release (every experiment pooled, the tool''s report) and each experiment both have: each flag ''<case>::<flag>'' that is new or resolved (skill-benchmark trend''s new_flags and resolved_flags at scope release).';
COMMENT ON COLUMN trend_flag_changes.release_order IS 'Position of the release.';
COMMENT ON COLUMN trend_flag_changes.skill_name IS 'Skill under test.';
COMMENT ON COLUMN trend_flag_changes.previous_release IS 'The release compared from.';
COMMENT ON COLUMN trend_flag_changes.release_label IS 'Release.';
COMMENT ON COLUMN trend_flag_changes.adjacent IS 'true: the release before in liftdb''s order; false: a pair only a held trend compares.';
COMMENT ON COLUMN trend_flag_changes.scope IS 'release or experiment (flags are the tool''s per report: none per model).';
COMMENT ON COLUMN trend_flag_changes.experiment IS 'The experiment (scope experiment), else NULL.';
COMMENT ON COLUMN trend_flag_changes.change IS 'new (flagged now, not before) or resolved (flagged before, not now).';
COMMENT ON COLUMN trend_flag_changes.flag IS '<case>::<flag text>, as the tool writes it.';

-- A history: the releases of a skill its reports are, one entry per report
-- (a history may hold a report twice). trend_histories(histories): the list
-- given, {history, skill_name, release_label} per report; NULL: each
-- skill's releases in the store, one history per skill (named after it).
CREATE OR REPLACE MACRO trend_histories(histories) AS TABLE
SELECT h.history, h.skill_name, h.release_label
FROM (SELECT unnest(coalesce(histories,
          []::STRUCT(history VARCHAR, skill_name VARCHAR, release_label VARCHAR)[])) AS h)
UNION ALL
SELECT skill_name, skill_name, release_label FROM skill_release_order WHERE histories IS NULL;

-- recurring_failures_over(histories): the recurring failures of each history
-- (trend_histories), as skill-benchmark trend ranks a history's reports.
CREATE OR REPLACE MACRO recurring_failures_over(histories) AS TABLE
WITH history AS (
    SELECT * FROM trend_histories(histories)
),
sizes AS (
    SELECT history, skill_name, count(*) AS releases FROM history GROUP BY ALL
),
counted AS (
    -- Each release's failing (case, assertion, severity), stored per batch
    -- (failing_assertion_rows), once per report of the history it is.
    SELECT h.history, f.skill_name, f.case_id, f.assertion, f.severity,
           count(*) AS releases_failing, s.releases,
           count(*) / greatest(s.releases, 1) AS prevalence_exact,
           CASE f.severity WHEN 'critical' THEN 3.0 WHEN 'gate' THEN 2.0 ELSE 1.0 END AS weight
    FROM history h
    JOIN failing_assertion_rows f ON f.release_label = h.release_label AND f.skill_name = h.skill_name
    JOIN sizes s ON s.history = h.history AND s.skill_name = h.skill_name
    GROUP BY h.history, f.skill_name, f.case_id, f.assertion, f.severity, s.releases
),
ranked AS (
    SELECT *, liftdb_pyround(prevalence_exact, 4) AS prevalence,
           liftdb_pyround(prevalence_exact * weight, 4) AS rank
    FROM counted
)
SELECT history, skill_name, case_id, assertion, severity, releases_failing, releases, prevalence, rank,
       row_number() OVER (PARTITION BY history, skill_name ORDER BY rank DESC, case_id, assertion) AS place
FROM ranked;

CREATE OR REPLACE VIEW recurring_failures AS
SELECT * EXCLUDE (history) FROM recurring_failures_over(NULL);

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

-- prune_candidates_over(histories): the prune candidates of each history
-- (trend_histories), as skill-benchmark trend finds them over its reports.
CREATE OR REPLACE MACRO prune_candidates_over(histories) AS TABLE
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
SELECT h.history, h.skill_name, p.case_id, count(*) AS releases_observed,
       'never failed and never showed lift across the history' AS reason
FROM trend_histories(histories) h
JOIN per_release p ON p.release_label = h.release_label AND p.skill_name = h.skill_name
GROUP BY h.history, h.skill_name, p.case_id
HAVING count(*) >= 2 AND NOT bool_or(p.regression_guard)
   AND bool_and(p.with_rate = 1.0 AND p.without_rate = 1.0);

CREATE OR REPLACE VIEW prune_candidates AS
SELECT * EXCLUDE (history) FROM prune_candidates_over(NULL);

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
