-- The reports that hold the duplicated grading key $1 (duplicate_grading_keys.sql).
SELECT string_agg(DISTINCT report_path, ' and ' ORDER BY report_path) FROM grading WHERE grading_id = $1
