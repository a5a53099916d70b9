-- source_file keyed by (path, owner_key): a file may belong to several
-- units. A handbook eval's case.json is its own unit (it defines the case)
-- and also a declared file of each mode directory under it (it names their
-- case id); a promptfoo results file owns the evidence files its rows point
-- to. Each owner keeps its own hash, so a change re-ingests every unit that
-- read the file.
CREATE TABLE source_file_v6 (
    path          VARCHAR NOT NULL,
    sha256        VARCHAR NOT NULL,
    size_bytes    BIGINT NOT NULL,
    mtime_ns      BIGINT,
    kind          VARCHAR NOT NULL,
    source_format VARCHAR NOT NULL,
    owner_key     VARCHAR NOT NULL,
    batch_id      BIGINT NOT NULL,
    PRIMARY KEY (path, owner_key)
);
INSERT INTO source_file_v6
SELECT path, sha256, size_bytes, mtime_ns, kind, source_format, coalesce(owner_key, path), batch_id
FROM source_file;
DROP TABLE source_file;
ALTER TABLE source_file_v6 RENAME TO source_file;

COMMENT ON TABLE source_file IS 'Every ingested file with its sha256, size and owning unit (run directory or report); a file read by several units has a row per owner.';
COMMENT ON COLUMN source_file.path IS 'Canonical absolute path of the file.';
COMMENT ON COLUMN source_file.sha256 IS 'sha256 of the bytes on disk (compressed files hashed as stored).';
COMMENT ON COLUMN source_file.size_bytes IS 'Size on disk when last read.';
COMMENT ON COLUMN source_file.mtime_ns IS 'Modification time (ns since the epoch) when last read; an unchanged size and mtime skips the file without reading it.';
COMMENT ON COLUMN source_file.kind IS 'What the file is to its owner: metadata, metrics, events, trace, output, grading, manifest, benchmark, declared (read from elsewhere), ...';
COMMENT ON COLUMN source_file.source_format IS 'Harness that wrote it: A_handbook, B_skill_evals, C_seh, D_skill_creator, E_promptfoo.';
COMMENT ON COLUMN source_file.owner_key IS 'The unit that read it: its run directory, or the loose file itself.';
COMMENT ON COLUMN source_file.batch_id IS 'Ingest batch that last read it for this owner.';
