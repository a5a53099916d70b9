-- The --arm filter a report (or gate, plan) is given: NULL when $value is
-- an arm of its runs (whole values, as the reports compare them), else
-- the values there are, comma-separated ('' when none): the message names them.
-- Read from the stored runs (run_rows: what the reports read).
SELECT CASE WHEN coalesce(bool_or(x = $value), false) THEN NULL
            ELSE coalesce(string_agg(DISTINCT x, ', ' ORDER BY x), '') END AS existing
FROM (SELECT arm FROM run_rows) t(x)
WHERE x IS NOT NULL;
