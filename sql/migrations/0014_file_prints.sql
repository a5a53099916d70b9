-- Each file's print kept in its row (#16). The quick change check compares an
-- owner's files by the XOR of their prints; worked out from every file's
-- md5 (5.3M files at a million runs), that was most of what a re-ingest spent
-- loading the store's state. liftdb writes the print with the row (and with
-- a moved mtime); it is liftdb_file_print(size_bytes, mtime_ns, path) of
-- sql/views/00_macros.sql, written out here since migrations run before the
-- views are made, and `liftdb check` holds every row to it. The table is
-- written anew, as 0012 and 0013 did: an UPDATE of every row kept both
-- versions of each row group (a million-run store grew by 300 MB).
CREATE TABLE source_file_v14 (path VARCHAR NOT NULL, sha256 VARCHAR NOT NULL, size_bytes BIGINT NOT NULL, mtime_ns BIGINT, kind VARCHAR NOT NULL, source_format VARCHAR NOT NULL, owner_key VARCHAR NOT NULL, batch_id BIGINT NOT NULL, print UBIGINT);
INSERT INTO source_file_v14 SELECT *, (md5_number(size_bytes::BIGINT::VARCHAR || '|'
    || coalesce(mtime_ns, 0)::BIGINT::VARCHAR || '|' || path) & 18446744073709551615::UHUGEINT)::UBIGINT
FROM source_file;
DROP TABLE source_file;
ALTER TABLE source_file_v14 RENAME TO source_file;
COMMENT ON TABLE source_file IS 'Every ingested file with its sha256, size and owning unit (run directory or report); a file read by several units has a row per owner. Unique per (path, owner_key) by construction (checked by liftdb check).';
COMMENT ON COLUMN source_file.path IS 'Canonical absolute path of the file.';
COMMENT ON COLUMN source_file.sha256 IS 'sha256 of the bytes on disk (compressed files hashed as stored).';
COMMENT ON COLUMN source_file.size_bytes IS 'Size on disk when last read.';
COMMENT ON COLUMN source_file.mtime_ns IS 'Modification time (ns since the epoch) when last read; an unchanged size and mtime skips the file without reading it.';
COMMENT ON COLUMN source_file.kind IS 'What the file is to its owner: metadata, metrics, events, trace, output, grading, manifest, benchmark, declared (read from elsewhere), ...';
COMMENT ON COLUMN source_file.source_format IS 'Harness that wrote it: A_handbook, B_skill_evals, C_seh, D_skill_creator, E_promptfoo.';
COMMENT ON COLUMN source_file.owner_key IS 'The unit that read it: its run directory, or the loose file itself.';
COMMENT ON COLUMN source_file.batch_id IS 'Ingest batch that last read it for this owner.';
COMMENT ON COLUMN source_file.print IS 'The low 64 bits of md5(''size|mtime_ns|path''), little-endian (liftdb_file_print): what the quick change check XORs per owner.';
