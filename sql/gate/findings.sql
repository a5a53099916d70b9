-- `liftdb gate --fail-on`: each finding of each case of the gated release
-- (the split gated, or every split; the experiment gated, or every one),
-- one row per finding, with the arm it is about:
--   skill, "case", experiment   where the finding was made
--   finding   liftdb's name (gate --fail-on): saturated, forgettable, no-lift,
--             with-skill-failed, flaky, critical, below-reference-floor, floor
--   label     the harness's label as case_flags gives it
--   arm       the arm the finding is about: with_skill, without_skill or an
--             ablation arm; 'paired' when it compares the arms (saturated,
--             no lift, floor: no arm alone is answerable for it)
-- A case with no finding has one row with label, finding and arm NULL.
-- Labels are case_flags' own (sql/views/40_case_flags.sql); "floor" (both
-- arms never pass) is the harness's later label, read from the rates.
WITH cases AS (
    SELECT skill_name AS skill, case_id AS "case", experiment, with_skill, without_skill, flags
    FROM case_flag_rows
    WHERE release_label = $release
      AND ($skill IS NULL OR skill_name = $skill)
      AND ($split IS NULL OR split = $split)
      AND ($experiment IS NULL OR experiment = $experiment)
),
labels AS (
    -- Each case once with no label (NULL): every case is counted, flagged or not.
    SELECT skill, "case", experiment, unnest(list_append(flags, NULL::VARCHAR)) AS label FROM cases
    UNION ALL
    SELECT skill, "case", experiment, 'floor: fails in both arms' FROM cases
    WHERE with_skill = 0 AND without_skill = 0
)
SELECT skill, "case", experiment, label,
       CASE
           WHEN label = 'saturated/non-discriminating' THEN 'saturated'
           WHEN label = 'structurally-pass-but-forgettable' THEN 'forgettable'
           WHEN label = 'no objective lift' THEN 'no-lift'
           WHEN label = 'with-skill failure' THEN 'with-skill-failed'
           WHEN label LIKE 'flaky repeated pass rates: %' THEN 'flaky'
           WHEN label LIKE 'critical-failure: %' THEN 'critical'
           WHEN label LIKE 'below-reference-floor: %' THEN 'below-reference-floor'
           WHEN label = 'floor: fails in both arms' THEN 'floor'
       END AS finding,
       CASE
           WHEN label IN ('saturated/non-discriminating', 'no objective lift', 'floor: fails in both arms') THEN 'paired'
           -- "flaky repeated pass rates: ARM", "critical-failure: ARM (names)"
           WHEN label LIKE 'flaky repeated pass rates: %' THEN label[length('flaky repeated pass rates: ') + 1:]
           WHEN label LIKE 'critical-failure: %' THEN regexp_extract(label, '^critical-failure: (.*) \([^()]*\)$', 1)
           WHEN label IS NOT NULL THEN 'with_skill'
       END AS arm
FROM labels
ORDER BY skill, "case", experiment NULLS FIRST, label;
