-- name: reconcile-trend
-- description: A skill-benchmark trend (--out JSON) beside liftdb's trend over the same releases of the skill: the series, each change between consecutive reports (arm rates, case deltas, new and resolved flags, every experiment and model pooled per release) and the whole-history lists (recurring failures, prune candidates), as counts and as how many liftdb gives alike. A history report is the release of its label, else the benchmark report liftdb holds with its generated_at, else the skill's releases no other report matched, in order.
-- params: release, skill, experiment
-- compact: release, metric, tool_value, liftdb_value, agrees
-- when: SELECT count(*) > 0 FROM peer_metric WHERE report_kind = 'trend'
WITH trend_doc AS MATERIALIZED (
    -- skill-benchmark trend --out, one row per leaf.
    SELECT source_path, json_path, metric_name, value, value_text,
           TRY_CAST(regexp_extract(json_path, '^/(series|diffs|recurring_failures|prune_candidates)/([0-9]+)', 2) AS INTEGER) AS idx
    FROM peer_metric WHERE report_kind = 'trend'
),
trend_release AS MATERIALIZED (
    -- Each history report as a release of its skill (trend_history_release:
    -- by label, by generated_at, else the releases left in order).
    SELECT * FROM trend_history_release
),
trend_skill AS (
    SELECT DISTINCT source_path, skill_name FROM trend_release
),
trend_ours_series AS MATERIALIZED (
    -- liftdb's side, computed once, for the skills a trend is over. DuckDB
    -- computes these views even when no trend matched a skill: the report's
    -- `-- when:` header is what keeps a store without a trend from paying.
    SELECT * FROM trend_series WHERE skill_name IN (SELECT skill_name FROM trend_skill)
),
trend_ours_arms AS MATERIALIZED (
    SELECT * FROM trend_arm_changes WHERE skill_name IN (SELECT skill_name FROM trend_skill)
),
trend_ours_cases AS MATERIALIZED (
    SELECT * FROM trend_case_changes WHERE skill_name IN (SELECT skill_name FROM trend_skill)
),
trend_ours_flags AS MATERIALIZED (
    SELECT * FROM trend_flag_changes WHERE skill_name IN (SELECT skill_name FROM trend_skill)
),
trend_histories_held AS (
    -- Each trend's history as the releases its reports are (one per report).
    SELECT list({'history': source_path, 'skill_name': skill_name, 'release_label': release_label}) AS histories
    FROM trend_release WHERE release_label IS NOT NULL
),
trend_ours_recurring AS MATERIALIZED (
    -- Over the trend's own history, not every release the store holds.
    SELECT * FROM recurring_failures_over((SELECT histories FROM trend_histories_held))
),
trend_ours_prune AS MATERIALIZED (
    SELECT * FROM prune_candidates_over((SELECT histories FROM trend_histories_held))
),
trend_last AS (
    -- Whole-history lists are shown under the history's last release.
    SELECT source_path, skill_name, arg_max(release_label, idx) AS release_label FROM trend_release GROUP BY ALL
),
trend_coverage AS (
    SELECT d.source_path AS source, l.release_label, l.skill_name,
           'trend: reports matched to releases of the skill' AS metric, d.value AS tool_value,
           (SELECT count(release_label) FROM trend_release r WHERE r.source_path = d.source_path)::DOUBLE AS liftdb_value,
           NULL::VARCHAR AS definition
    FROM trend_doc d LEFT JOIN trend_last l USING (source_path)
    WHERE d.json_path = '/runs'
),
trend_series_compared AS (
    SELECT d.source_path AS source, r.release_label, r.skill_name,
           'trend series: ' || regexp_extract(d.json_path, '^/series/[0-9]+/(.*)$', 1) AS metric,
           d.value AS tool_value,
           (SELECT CASE d.metric_name
                       WHEN 'with_skill' THEN CASE WHEN d.json_path LIKE '%/median_total_tokens/%'
                                                   THEN max(s.median_total_tokens) FILTER (WHERE s.arm = 'with_skill')
                                                   ELSE max(s.with_skill) END
                       WHEN 'without_skill' THEN CASE WHEN d.json_path LIKE '%/median_total_tokens/%'
                                                      THEN max(s.median_total_tokens) FILTER (WHERE s.arm = 'without_skill')
                                                      ELSE max(s.without_skill) END
                       WHEN 'lift' THEN max(s.lift)
                       WHEN 'saturated_cases' THEN max(s.saturated_cases)
                       WHEN 'flagged_cases' THEN max(s.flagged_cases)
                   END
              FROM trend_ours_series s
             WHERE s.skill_name = r.skill_name AND s.release_label = r.release_label)::DOUBLE AS liftdb_value,
           CASE WHEN r.release_label IS NULL
                THEN 'not in the store: the history''s report ' || r.label || ' is no release of the skill the store holds' END AS definition
    FROM trend_doc d JOIN trend_release r ON r.source_path = d.source_path AND r.idx = d.idx
    WHERE regexp_matches(d.json_path, '^/series/[0-9]+/(with_skill|without_skill|lift|saturated_cases|flagged_cases|median_total_tokens/[a-z_]+)$')
),
trend_diff_release AS (
    -- diffs[N] goes from the history's report N to report N + 1: liftdb's
    -- changes between the two releases they are (trend_pairs holds the pair
    -- even when liftdb orders the releases otherwise).
    SELECT *,
           CASE WHEN NOT held
                THEN 'not in the store: the history''s report ' || CASE WHEN from_release IS NULL THEN from_label ELSE label END
                     || ' is no release of the skill the store holds'
                WHEN NOT adjacent
                THEN 'liftdb''s release before ' || release_label || ' is not ' || from_release
                     || ' (releases.ordinal): compared between the two releases the tool''s diff names' END AS note
    FROM (SELECT r.source_path, r.idx - 1 AS diff_idx, r.skill_name, r.release_label, r.label,
                 f.label AS from_label, f.release_label AS from_release,
                 f.release_label IS NOT NULL AND r.release_label IS NOT NULL AS held,
                 coalesce((SELECT p.adjacent FROM trend_pairs p WHERE p.skill_name = r.skill_name
                             AND p.previous_release = f.release_label AND p.release_label = r.release_label), true) AS adjacent
          FROM trend_release r JOIN trend_release f ON f.source_path = r.source_path AND f.idx = r.idx - 1)
),
trend_arms_compared AS (
    SELECT d.source_path AS source, r.release_label, r.skill_name,
           'trend change from ' || r.from_label || ': ' || regexp_extract(d.json_path, '/variant_deltas/(.*)$', 1) AS metric,
           d.value AS tool_value,
           (SELECT CASE regexp_extract(d.json_path, '/(mean_[a-z]+)_pass_rate/(before|after|delta)$', 1)
                        || '/' || d.metric_name
                       WHEN 'mean_objective/before' THEN c.objective_before
                       WHEN 'mean_objective/after' THEN c.objective_after
                       WHEN 'mean_objective/delta' THEN c.objective_change
                       WHEN 'mean_combined/before' THEN c.combined_before
                       WHEN 'mean_combined/after' THEN c.combined_after
                       WHEN 'mean_combined/delta' THEN c.combined_change
                   END
              FROM trend_ours_arms c
             WHERE c.skill_name = r.skill_name AND c.release_label = r.release_label
               AND c.previous_release = r.from_release AND c.scope = 'release'
               AND c.arm = regexp_extract(d.json_path, '/variant_deltas/([^/]+)/', 1)) AS liftdb_value,
           r.note AS definition
    FROM trend_doc d JOIN trend_diff_release r ON r.source_path = d.source_path AND r.diff_idx = d.idx
    WHERE regexp_matches(d.json_path, '^/diffs/[0-9]+/diff/variant_deltas/[^/]+/mean_(objective|combined)_pass_rate/(before|after|delta)$')
),
trend_tool_case_deltas AS (
    SELECT source_path, idx AS diff_idx,
           any_value(value_text) FILTER (WHERE metric_name = 'case_id') AS case_id,
           any_value(value_text) FILTER (WHERE metric_name = 'variant') AS arm,
           any_value(value) FILTER (WHERE metric_name = 'before') AS before,
           any_value(value) FILTER (WHERE metric_name = 'after') AS after,
           any_value(value) FILTER (WHERE metric_name = 'delta') AS delta
    FROM trend_doc
    WHERE regexp_matches(json_path, '^/diffs/[0-9]+/diff/case_deltas/[0-9]+/')
    GROUP BY source_path, idx, regexp_extract(json_path, '/case_deltas/([0-9]+)/', 1)
),
trend_cases_compared AS (
    -- Case deltas as a count each side, then how many the two give alike
    -- (same case and arm, same rounded change, before and after within 1e-9).
    SELECT r.source_path AS source, r.release_label, r.skill_name,
           'trend change from ' || r.from_label || ': case deltas' || m.what AS metric,
           (SELECT count(*) FROM trend_tool_case_deltas t WHERE t.source_path = r.source_path AND t.diff_idx = r.diff_idx)::DOUBLE AS tool_value,
           CASE WHEN NOT r.held THEN NULL
               WHEN m.what = '' THEN (SELECT count(*) FROM trend_ours_cases c
                              WHERE c.skill_name = r.skill_name AND c.release_label = r.release_label
                                AND c.previous_release = r.from_release AND c.scope = 'release'
                                AND c.change_kind = 'moved')
               ELSE (SELECT count(*) FROM trend_tool_case_deltas t
                       JOIN trend_ours_cases c ON c.case_id = t.case_id AND c.arm = t.arm
                        AND c.change = t.delta AND abs(c.before - t.before) <= 1e-9 AND abs(c.after - t.after) <= 1e-9
                      WHERE t.source_path = r.source_path AND t.diff_idx = r.diff_idx
                        AND c.skill_name = r.skill_name AND c.release_label = r.release_label
                        AND c.previous_release = r.from_release AND c.scope = 'release'
                        AND c.change_kind = 'moved')
           END::DOUBLE AS liftdb_value,
           r.note AS definition
    FROM trend_diff_release r CROSS JOIN (VALUES (''), (' (given alike)')) m(what)
),
trend_flags_compared AS (
    SELECT r.source_path AS source, r.release_label, r.skill_name,
           'trend change from ' || r.from_label || ': ' || k.change || ' flags' || m.what AS metric,
           (SELECT count(*) FROM trend_doc d WHERE d.source_path = r.source_path AND d.idx = r.diff_idx
               AND d.json_path LIKE '/diffs/%/diff/' || k.change || '_flags/%')::DOUBLE AS tool_value,
           (SELECT CASE WHEN r.held THEN count(*) END FROM trend_ours_flags c
             WHERE c.skill_name = r.skill_name AND c.release_label = r.release_label AND c.change = k.change
               AND c.previous_release = r.from_release AND c.scope = 'release'
               AND (m.what = '' OR c.flag IN (SELECT d.value_text FROM trend_doc d
                                               WHERE d.source_path = r.source_path AND d.idx = r.diff_idx
                                                 AND d.json_path LIKE '/diffs/%/diff/' || k.change || '_flags/%')))::DOUBLE AS liftdb_value,
           r.note AS definition
    FROM trend_diff_release r
    CROSS JOIN (VALUES ('new'), ('resolved')) k(change)
    CROSS JOIN (VALUES (''), (' (given alike)')) m(what)
),
trend_tool_lists AS (
    SELECT source_path, split_part(json_path, '/', 2) AS list, idx,
           any_value(value_text) FILTER (WHERE metric_name = 'case_id') AS case_id,
           any_value(value_text) FILTER (WHERE metric_name = 'assertion') AS assertion,
           any_value(value_text) FILTER (WHERE metric_name = 'severity') AS severity,
           any_value(value) FILTER (WHERE metric_name = 'prevalence') AS prevalence,
           any_value(value) FILTER (WHERE metric_name = 'rank') AS rank,
           any_value(value) FILTER (WHERE metric_name = 'runs_observed') AS runs_observed,
           any_value(value_text) FILTER (WHERE metric_name = 'reason') AS reason
    FROM trend_doc
    WHERE regexp_matches(json_path, '^/(recurring_failures|prune_candidates)/[0-9]+/')
    GROUP BY ALL
),
trend_lists_compared AS (
    -- The tool keeps the first 50 recurring failures by rank: each must be
    -- liftdb's at the same place with the same prevalence and rank; prune
    -- candidates must be the same cases over as many releases.
    SELECT l.source_path AS source, l.release_label, l.skill_name,
           'trend ' || replace(k.list, '_', ' ') || m.what AS metric,
           (SELECT count(*) FROM trend_tool_lists t WHERE t.source_path = l.source_path AND t.list = k.list)::DOUBLE AS tool_value,
           CASE k.list || m.what
               WHEN 'recurring_failures' THEN
                   (SELECT count(*) FROM trend_ours_recurring f
                     WHERE f.history = l.source_path AND f.skill_name = l.skill_name AND f.place <= 50)
               WHEN 'recurring_failures (given alike)' THEN
                   (SELECT count(*) FROM trend_tool_lists t
                      JOIN trend_ours_recurring f ON f.place = t.idx + 1 AND f.case_id = t.case_id AND f.assertion = t.assertion
                       AND f.severity = t.severity AND f.prevalence = t.prevalence AND f.rank = t.rank
                     WHERE t.source_path = l.source_path AND t.list = k.list
                       AND f.history = l.source_path AND f.skill_name = l.skill_name)
               WHEN 'prune_candidates' THEN
                   (SELECT count(*) FROM trend_ours_prune p WHERE p.history = l.source_path AND p.skill_name = l.skill_name)
               ELSE
                   (SELECT count(*) FROM trend_tool_lists t
                      JOIN trend_ours_prune p ON p.case_id = t.case_id AND p.releases_observed = t.runs_observed AND p.reason = t.reason
                     WHERE t.source_path = l.source_path AND t.list = k.list
                       AND p.history = l.source_path AND p.skill_name = l.skill_name)
           END::DOUBLE AS liftdb_value,
           (SELECT 'not in the store: the history''s reports ' || string_agg(u.label, ', ' ORDER BY u.idx)
                   || ' are no release of the skill the store holds (counted over the others)'
              FROM trend_release u WHERE u.source_path = l.source_path AND u.release_label IS NULL) AS definition
    FROM trend_last l
    CROSS JOIN (VALUES ('recurring_failures'), ('prune_candidates')) k(list)
    CROSS JOIN (VALUES (''), (' (given alike)')) m(what)
)
SELECT
    release_label AS release,
    skill_name AS skill,
    regexp_extract(source, '[^/]+$') AS report,
    liftdb_folder_of(source) AS folder,
    metric,
    tool_value,
    liftdb_value,
    liftdb_value - tool_value AS difference,
    abs(liftdb_value - tool_value) <= 5e-7 * greatest(1, abs(tool_value)) AS agrees,
    -- liftdb's trend views follow skill-benchmark trend's definitions; a
    -- change is named when the tool's diff pairs releases liftdb orders
    -- otherwise.
    definition
FROM (SELECT * FROM trend_coverage UNION ALL SELECT * FROM trend_series_compared
      UNION ALL SELECT * FROM trend_arms_compared UNION ALL SELECT * FROM trend_cases_compared
      UNION ALL SELECT * FROM trend_flags_compared UNION ALL SELECT * FROM trend_lists_compared)
WHERE ($release IS NULL OR release_label = $release)
  AND ($skill IS NULL OR skill_name = $skill)
  -- A trend spans experiments: --experiment keeps the trend file of that
  -- name or folder.
  AND ($experiment IS NULL
       OR liftdb_folder_of(source) = $experiment
       OR regexp_extract(source, '[^/]+$') = $experiment)
ORDER BY release, skill, folder, report, metric;
