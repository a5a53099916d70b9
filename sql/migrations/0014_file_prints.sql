-- Each file's print kept in its row (#16). The quick change check compares an
-- owner's files by the XOR of their prints; worked out from every file's
-- md5 (5.3M files at a million runs), that was most of what a re-ingest spent
-- loading the store's state. liftdb writes the print with the row (and with
-- a moved mtime); it is liftdb_file_print(size_bytes, mtime_ns, path) of
-- sql/views/00_macros.sql, written out here since migrations run before the
-- views are made, and `liftdb check` holds every row to it.
ALTER TABLE source_file ADD COLUMN print UBIGINT;
UPDATE source_file SET print = (md5_number(size_bytes::BIGINT::VARCHAR || '|'
    || coalesce(mtime_ns, 0)::BIGINT::VARCHAR || '|' || path) & 18446744073709551615::UHUGEINT)::UBIGINT;
COMMENT ON COLUMN source_file.print IS 'The low 64 bits of md5(''size|mtime_ns|path''), little-endian (liftdb_file_print): what the quick change check XORs per owner.';
