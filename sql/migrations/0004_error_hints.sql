-- ingest_error.hint: what to do about the error, next to what went wrong.
ALTER TABLE ingest_error ADD COLUMN hint VARCHAR;

COMMENT ON COLUMN ingest_error.hint IS 'What to do about it (NULL when the reason says it all).';
