-- ablation_evidence: per expected regression of a manifest ablation, per
-- cited case and model cohort (docs/metrics.md §M8): pairs of with_skill and
-- ablation:<id> runs on combined_pass_rate, whether a named assertion flipped
-- (lower pass rate in the ablation arm over pairs where both arms have exactly
-- one boolean result for it), whether the score dropped, and the per-pair
-- deltas the sign-flip test runs on (materialized in ablation_stats).
-- ablation_evidence_in(releases): the evidence of the releases listed (NULL: every release).
CREATE OR REPLACE MACRO ablation_evidence_in(releases) AS TABLE
WITH expected AS (
    SELECT
        s.release_label,
        s.skill_name,
        a.value ->> 'id' AS ablation_id,
        coalesce(TRY_CAST(a.value ->> 'invalid_skill' AS BOOLEAN), false) AS invalid_skill,
        CAST(r.key AS INTEGER) AS regression_index,
        CASE WHEN json_type(r.value) = 'VARCHAR' THEN r.value ->> '$' ELSE r.value ->> 'summary' END AS summary,
        coalesce(from_json(r.value -> 'cases', '["VARCHAR"]'), []) AS cases,
        coalesce(from_json(r.value -> 'assertions', '["VARCHAR"]'), []) AS assertions
    FROM suite s,
         json_each(s.ablations) a,
         json_each(coalesce(a.value -> 'expected_regressions', '[]')) r
    WHERE json_type(coalesce(a.value -> 'components', a.value -> 'mechanism', 'null')) <> 'NULL'
      AND (releases IS NULL OR list_contains(releases, s.release_label))
),
arm_pairs AS (
    SELECT
        e.release_label, e.skill_name, e.ablation_id, e.invalid_skill, e.regression_index,
        e.summary, e.cases, e.assertions,
        p.case_id, p.model, p.repetition, p.with_run_id, p.control_run_id,
        p.with_combined_rate, p.control_combined_rate,
        w.scorable AND c.scorable
            AND p.with_combined_rate BETWEEN 0 AND 1
            AND p.control_combined_rate BETWEEN 0 AND 1 AS valid_pair,
        w.grading_id AS with_grading, c.grading_id AS control_grading
    FROM expected e
    JOIN pairs_in(releases) p
      ON p.release_label = e.release_label AND p.skill_name = e.skill_name
     AND p.control_arm = 'ablation:' || e.ablation_id
     AND list_contains(e.cases, p.case_id)
    JOIN run_rows_in(releases) w ON w.run_id = p.with_run_id
    JOIN run_rows_in(releases) c ON c.run_id = p.control_run_id
    -- Blocked pairs are no evidence (the harness's cohorts hold only the
    -- pairs its eligibility admits): they count neither in a cohort's pairs
    -- nor in its coverage, and cannot veto its score drop.
    WHERE w.scorable AND c.scorable
      AND p.with_combined_rate BETWEEN 0 AND 1
      AND p.control_combined_rate BETWEEN 0 AND 1
),
assertion_obs AS (
    -- Per pair and cited assertion: the boolean result on each arm, when the
    -- arm has exactly one for it.
    SELECT
        ap.release_label, ap.skill_name, ap.ablation_id, ap.regression_index,
        ap.case_id, ap.model, ap.repetition, an.assertion,
        (SELECT CASE WHEN count(*) = 1 THEN any_value(x.passed) END
           FROM assertion_result x
          WHERE x.grading_id = ap.with_grading AND x.name = an.assertion AND x.passed IS NOT NULL) AS with_passed,
        (SELECT CASE WHEN count(*) = 1 THEN any_value(x.passed) END
           FROM assertion_result x
          WHERE x.grading_id = ap.control_grading AND x.name = an.assertion AND x.passed IS NOT NULL) AS ablation_passed
    FROM arm_pairs ap, (SELECT unnest(ap.assertions) AS assertion) an
),
assertion_rates AS (
    SELECT
        release_label, skill_name, ablation_id, regression_index, case_id, model, assertion,
        count(*) AS pairs,
        count(*) FILTER (WHERE with_passed IS NOT NULL AND ablation_passed IS NOT NULL) AS paired_observations,
        avg(with_passed::INTEGER) FILTER (WHERE with_passed IS NOT NULL AND ablation_passed IS NOT NULL) AS with_skill_rate,
        avg(ablation_passed::INTEGER) FILTER (WHERE with_passed IS NOT NULL AND ablation_passed IS NOT NULL) AS ablation_rate
    FROM assertion_obs
    GROUP BY ALL
),
cohorts AS (
    SELECT
        release_label, skill_name, ablation_id, any_value(invalid_skill) AS invalid_skill,
        regression_index, any_value(summary) AS summary, case_id, model,
        count(*) AS pairs,
        bool_and(valid_pair) AS all_pairs_valid,
        avg(with_combined_rate - control_combined_rate) FILTER (WHERE valid_pair) AS mean_delta,
        -- In repetition order: gathered unordered and sorted, as lift's unit
        -- lists are.
        list_transform(list_sort(list({'repetition_unknown': repetition IS NULL, 'repetition': repetition,
                                       'delta': with_combined_rate - control_combined_rate})
                                 FILTER (WHERE valid_pair)),
                       lambda r: r.delta) AS deltas
    FROM arm_pairs
    GROUP BY release_label, skill_name, ablation_id, regression_index, case_id, model
),
flips AS (
    SELECT
        release_label, skill_name, ablation_id, regression_index, case_id, model,
        -- Sorted by assertion (its first field; one row per assertion).
        list_sort(list({'assertion': assertion, 'with_skill_rate': with_skill_rate, 'ablation_rate': ablation_rate,
              'paired_observations': paired_observations})) AS assertion_evidence,
        bool_or(paired_observations > 0 AND ablation_rate < with_skill_rate) AS flipped,
        bool_or(paired_observations < pairs) AS coverage_gap
    FROM assertion_rates
    GROUP BY ALL
)
SELECT
    c.release_label,
    c.skill_name,
    c.ablation_id,
    c.invalid_skill,
    c.regression_index,
    c.summary,
    c.case_id,
    c.model,
    c.pairs,
    coalesce(f.flipped, false) AS flipped,
    coalesce(f.coverage_gap, false) AS coverage_gap,
    c.all_pairs_valid AND c.mean_delta > 0 AS score_dropped,
    coalesce(f.flipped, false) AND c.all_pairs_valid AND c.mean_delta > 0 AS confirmed,
    c.mean_delta,
    c.deltas,
    f.assertion_evidence
FROM cohorts c
LEFT JOIN flips f USING (release_label, skill_name, ablation_id, regression_index, case_id, model);

CREATE OR REPLACE VIEW ablation_evidence AS SELECT * FROM ablation_evidence_in(NULL);

COMMENT ON VIEW ablation_evidence IS 'Per ablation expected regression and (case, model) cohort: assertion flips, score drop, per-pair deltas (M8).';
