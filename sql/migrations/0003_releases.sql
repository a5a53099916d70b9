-- releases: every release label seen, in order (the order trends follow).
-- A label gets the next ordinal the first time a batch uses it.
CREATE TABLE releases (
    release_label     VARCHAR PRIMARY KEY,
    ordinal           INTEGER NOT NULL UNIQUE,
    first_ingested_at TIMESTAMP NOT NULL,
    derived_from      VARCHAR          -- how the label was chosen: --release, skill_tree_hash, generated_at, default
);

INSERT INTO releases
SELECT release_label, row_number() OVER (ORDER BY min(started_at)), min(started_at), 'existing'
FROM ingest_batch GROUP BY release_label;

-- trend_stats: significance of the change in lift between consecutive
-- releases: the sign-flip test over matched (case, model) units' change in
-- their with-minus-without delta. Recomputed after every ingest.
CREATE TABLE trend_stats (
    skill_name          VARCHAR NOT NULL,
    release_label       VARCHAR NOT NULL,
    previous_release    VARCHAR NOT NULL,
    scope               VARCHAR NOT NULL,   -- overall | model
    model               VARCHAR,
    matched_units       INTEGER NOT NULL,
    mean_change         DOUBLE,
    method              VARCHAR NOT NULL,
    p_value             DOUBLE,
    significant_at_0_05 BOOLEAN NOT NULL
);

COMMENT ON TABLE releases IS 'Release labels in the order trends follow; a new label takes the next ordinal.';
COMMENT ON TABLE trend_stats IS 'Sign-flip significance of the lift change between consecutive releases over matched units.';
