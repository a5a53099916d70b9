-- release_changes: for each release and the one before it (by releases.ordinal),
-- the change of every matched (case, model) unit's objective delta, overall,
-- per model and per case, and of every matched repetition's delta per
-- (case, model); the sign-flip test over these changes is materialized in
-- trend_stats.
-- release_changes_in(releases): the changes between consecutive releases
-- both listed (NULL: every release), read from those releases' rows only.
CREATE OR REPLACE MACRO release_changes_in(releases) AS TABLE
WITH ordered AS (
    SELECT * FROM (
        SELECT release_label, ordinal,
               lag(release_label) OVER (ORDER BY ordinal) AS previous_release
        FROM releases
    )
    WHERE releases IS NULL
       OR (list_contains(releases, release_label) AND list_contains(releases, previous_release))
),
units AS (
    -- Release units: each (case, model) once, its experiments' pairs pooled.
    SELECT release_label, skill_name, case_id, model, delta
    FROM lift_unit_rows
    WHERE channel = 'objective' AND control_arm = 'without_skill' AND eligible_pairs > 0
      AND row_kind = 'release'
      AND (releases IS NULL OR list_contains(releases, release_label))
),
matched AS (
    SELECT o.release_label, o.previous_release, cur.skill_name, cur.case_id, cur.model,
           cur.delta - old.delta AS change
    FROM ordered o
    JOIN units cur ON cur.release_label = o.release_label
    JOIN units old ON old.release_label = o.previous_release AND old.skill_name = cur.skill_name
                  AND old.case_id = cur.case_id AND old.model IS NOT DISTINCT FROM cur.model
),
reps AS (
    -- Each (case, model)'s eligible pairs by repetition, its experiments'
    -- pairs of one repetition averaged (release units pool experiments).
    SELECT release_label, skill_name, case_id, model, repetition AS rep, avg(with_rate - control_rate) AS delta
    FROM pairs_in(releases)
    WHERE eligible AND control_arm = 'without_skill'
    GROUP BY ALL
),
matched_reps AS (
    SELECT o.release_label, o.previous_release, cur.skill_name, cur.case_id, cur.model, cur.rep,
           cur.delta - old.delta AS change
    FROM ordered o
    JOIN reps cur ON cur.release_label = o.release_label
    JOIN reps old ON old.release_label = o.previous_release AND old.skill_name = cur.skill_name
                 AND old.case_id = cur.case_id AND old.model IS NOT DISTINCT FROM cur.model
                 AND old.rep = cur.rep
)
-- Each list is gathered unordered and sorted by its leading fields, as lift's
-- unit lists are: units by model (unknown last) then case, repetitions by
-- number.
SELECT skill_name, release_label, previous_release, 'overall' AS scope, NULL::VARCHAR AS model,
       NULL::VARCHAR AS case_id,
       list_transform(list_sort(list({'m0': model IS NULL, 'm': model, 'c0': case_id IS NULL, 'c': case_id,
                                      'change': change})), lambda u: u.change) AS unit_changes
FROM matched GROUP BY ALL
UNION ALL
SELECT skill_name, release_label, previous_release, 'model', model, NULL,
       list_transform(list_sort(list({'c0': case_id IS NULL, 'c': case_id, 'change': change})),
                      lambda u: u.change)
FROM matched WHERE model IS NOT NULL GROUP BY ALL
UNION ALL
-- A case's matched units are its models.
SELECT skill_name, release_label, previous_release, 'case', NULL, case_id,
       list_transform(list_sort(list({'m0': model IS NULL, 'm': model, 'change': change})),
                      lambda u: u.change)
FROM matched GROUP BY ALL
UNION ALL
-- A (case, model)'s change over its matched repetitions.
SELECT skill_name, release_label, previous_release, 'case_model', model, case_id,
       list_transform(list_sort(list({'r0': rep IS NULL, 'r': rep, 'change': change})),
                      lambda u: u.change)
FROM matched_reps GROUP BY ALL;

CREATE OR REPLACE VIEW release_changes AS SELECT * FROM release_changes_in(NULL);

COMMENT ON VIEW release_changes IS 'Per release and its predecessor: the change of each matched unit''s delta overall, per model and per case, and of each matched repetition per (case, model) (input of trend_stats).';

-- trend: per skill (overall and per model) per release, in release order:
-- pass rates, lift with its p and interval, cost, and the change from the
-- previous release with its significance.
CREATE OR REPLACE VIEW trend AS
WITH l AS (
    SELECT l.*, r.ordinal
    FROM lift_rows l JOIN releases r USING (release_label)
    WHERE l.channel = 'objective' AND l.control_arm = 'without_skill' AND l.row_kind = 'release'
      AND l.split = 'all' AND l.scope IN ('overall', 'model')
),
costs AS (
    -- from the runs stored summed per case (run_total_rows)
    SELECT release_label, skill_name, model, GROUPING(model) = 1 AS all_models,
           sum(known_cost_usd) AS known_cost_usd, sum(runs)::BIGINT AS runs,
           sum(runs_with_cost)::BIGINT AS runs_with_cost,
           sum(known_total_tokens)::BIGINT AS known_total_tokens
    FROM run_total_rows GROUP BY GROUPING SETS ((release_label, skill_name), (release_label, skill_name, model))
)
SELECT
    l.skill_name,
    l.scope,
    l.model,
    l.ordinal AS release_order,
    l.release_label,
    l.units,
    l.eligible_pairs,
    l.with_rate,
    l.without_rate,
    l.absolute_delta AS lift,
    s.p_value,
    s.p_upper,
    s.significant,
    s.ci_lower,
    s.ci_upper,
    s.noise_verdict,
    c.runs,
    c.runs_with_cost,
    c.known_cost_usd,
    c.known_total_tokens,
    lag(l.release_label) OVER w AS previous_release,
    l.absolute_delta - lag(l.absolute_delta) OVER w AS lift_change,
    t.matched_units AS change_matched_units,
    t.p_value AS change_p_value,
    -- liftdb's significance (docs/metrics.md §M6): the p the change's test
    -- decides on (p, or a sampled test's upper bound) at most 0.05.
    t.p_upper AS change_p_upper,
    t.significant AS change_significant,
    -- the reports' names
    l.release_label AS release, l.skill_name AS skill,
    l.with_rate AS with_skill, l.without_rate AS without_skill, s.p_value AS p
FROM l
LEFT JOIN lift_stats s
    ON s.release_label = l.release_label AND s.skill_name = l.skill_name AND s.control_arm = l.control_arm
   AND s.channel = l.channel AND s.split = l.split AND s.scope = l.scope AND s.row_kind = l.row_kind
   AND s.model IS NOT DISTINCT FROM l.model AND s.case_id IS NULL
LEFT JOIN costs c
    ON c.release_label = l.release_label AND c.skill_name = l.skill_name
   AND ((l.scope = 'overall' AND c.all_models) OR (l.scope = 'model' AND NOT c.all_models AND c.model = l.model))
LEFT JOIN trend_stats t
    ON t.release_label = l.release_label AND t.skill_name = l.skill_name AND t.scope = l.scope
   AND t.model IS NOT DISTINCT FROM l.model
WINDOW w AS (PARTITION BY l.skill_name, l.scope, l.model ORDER BY l.ordinal);

COMMENT ON VIEW trend IS 'Per skill (and model) per release: pass rates, lift with p and interval, cost, change from the previous release with its significance.';
COMMENT ON COLUMN trend.release IS 'The same as release_label, as the reports name it.';
COMMENT ON COLUMN trend.skill IS 'The same as skill_name, as the reports name it.';
COMMENT ON COLUMN trend.with_skill IS 'The same as with_rate, as the reports name it.';
COMMENT ON COLUMN trend.without_skill IS 'The same as without_rate, as the reports name it.';
COMMENT ON COLUMN trend.p IS 'The same as p_value, as the reports name it.';

-- Columns
COMMENT ON COLUMN trend.skill_name IS 'Skill under test.';
COMMENT ON COLUMN trend.scope IS 'overall or model.';
COMMENT ON COLUMN trend.model IS 'The model of a model row.';
COMMENT ON COLUMN trend.release_order IS 'Position of the release in ingest order (releases.ordinal).';
COMMENT ON COLUMN trend.release_label IS 'Release.';
COMMENT ON COLUMN trend.units IS '(case, model) units of the lift.';
COMMENT ON COLUMN trend.eligible_pairs IS 'Eligible pairs.';
COMMENT ON COLUMN trend.with_rate IS 'with_skill rate (docs/metrics.md §M3).';
COMMENT ON COLUMN trend.without_rate IS 'Control rate.';
COMMENT ON COLUMN trend.lift IS 'with_rate - without_rate.';
COMMENT ON COLUMN trend.p_value IS 'Sign-flip p of the lift, as the harness prints it.';
COMMENT ON COLUMN trend.p_upper IS 'The p the lift''s test decides on: p for an exact test, a sampled test''s upper bound (lift_stats.p_upper).';
COMMENT ON COLUMN trend.significant IS 'p_upper <= 0.05 (liftdb''s significance, docs/metrics.md §M6); NULL when untested.';
COMMENT ON COLUMN trend.ci_lower IS 'Lower end of the 95% interval (NULL when unbounded).';
COMMENT ON COLUMN trend.ci_upper IS 'Upper end of the 95% interval.';
COMMENT ON COLUMN trend.noise_verdict IS 'Noise check: resolvable, too-few-cases-moved, unbounded, noise-exceeds-headroom, ...';
COMMENT ON COLUMN trend.runs IS 'Runs in the release.';
COMMENT ON COLUMN trend.runs_with_cost IS 'Runs with an available cost.';
COMMENT ON COLUMN trend.known_cost_usd IS 'Sum of the available USD costs (a lower bound when some are missing).';
COMMENT ON COLUMN trend.known_total_tokens IS 'Sum of the available total tokens.';
COMMENT ON COLUMN trend.previous_release IS 'The release before this one.';
COMMENT ON COLUMN trend.lift_change IS 'The lift less the previous release''s (every unit of each); the change''s test is over the matched units only (change_matched_units, docs/metrics.md §M11).';
COMMENT ON COLUMN trend.change_matched_units IS 'Units present in both releases.';
COMMENT ON COLUMN trend.change_p_value IS 'Sign-flip p of that change.';
COMMENT ON COLUMN trend.change_p_upper IS 'The p the change''s test decides on, unrounded: its p for an exact test, for a sampled one the upper bound of its estimate (trend_stats.p_upper).';
COMMENT ON COLUMN trend.change_significant IS 'change_p_upper <= 0.05; NULL when untested.';
