-- run_provenance: where each run came from: its harness format and version,
-- the files it was read from (with sha256 and size), and the report that
-- graded it.
CREATE OR REPLACE VIEW run_provenance AS
SELECT
    r.run_id,
    r.release_label,
    r.source_format,
    r.native_batch,
    CASE r.source_format
        WHEN 'A_handbook' THEN 'evals.skill_eval (Agent Skills Evaluations)'
        WHEN 'B_skill_evals' THEN 'Agent Skill Evals on promptfoo'
        WHEN 'C_seh' THEN 'skill-eval-harness'
        WHEN 'D_skill_creator' THEN 'Anthropic skill-creator'
        WHEN 'E_promptfoo' THEN 'promptfoo'
    END AS harness_name,
    any_value(s.harness_version) FILTER (WHERE s.source_format = r.source_format) AS harness_version,
    r.run_dir,
    -- sorted by path: the same list whatever order the join gives
    list_sort(list(DISTINCT {'path': f.path, 'sha256': f.sha256, 'kind': f.kind, 'bytes': f.size_bytes})
        FILTER (WHERE f.path IS NOT NULL)) AS files,
    any_value(g.report_path) AS graded_by
FROM run r
LEFT JOIN suite s ON s.release_label = r.release_label AND s.skill_name = r.skill_name
-- the files read for the run's release: a folder re-used for the next
-- release holds another release's files at the same paths
LEFT JOIN source_file f ON f.owner_key = split_part(r.run_dir, '#', 1)
    AND f.release_label IS NOT DISTINCT FROM r.release_label
LEFT JOIN runs v ON v.run_id = r.run_id
LEFT JOIN grading g ON g.grading_id = v.grading_id
GROUP BY r.run_id, r.release_label, r.source_format, r.native_batch, r.run_dir;

COMMENT ON VIEW run_provenance IS 'Per run: harness format and version, source files with sha256, the report that graded it.';
