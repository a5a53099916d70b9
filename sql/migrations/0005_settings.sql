-- liftdb_settings: liftdb's own bookkeeping (e.g. the hash of the view
-- definitions last created, so unchanged views are not re-created per write).
CREATE TABLE liftdb_settings (
    key   VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);

COMMENT ON TABLE liftdb_settings IS 'liftdb bookkeeping: key/value pairs (views_sha256).';
