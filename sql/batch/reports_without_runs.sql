-- The reports batch $1 read whose results name no stored run, with how
-- many results each holds and the releases that do hold runs (for the
-- warning that says where the runs might be).
-- Columns: report_path, results, releases_with_runs (VARCHAR[]).
SELECT g.report_path, count(*)::UBIGINT,
       (SELECT coalesce(list(DISTINCT release_label ORDER BY release_label), [])
        FROM run)::VARCHAR[]
FROM grading g
WHERE g.report_path IN (SELECT path FROM source_file WHERE batch_id = $1)
  AND g.run_id NOT IN (SELECT run_id FROM run)
GROUP BY g.report_path
ORDER BY g.report_path
