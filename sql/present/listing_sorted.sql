-- Whether a listing report (`-- lists:`) runs with its final ORDER BY: on a
-- lake, whose catalog gives a table's files in no set order (DuckLake lists
-- them without one), so its rows come back in no set order either; a
-- DuckDB file returns them as it stored them, the order `liftdb check`
-- verifies. Column: sorted, true on a lake.
SELECT coalesce(any_value(type = 'ducklake'), false) AS sorted
FROM duckdb_databases()
WHERE database_name = current_database();
