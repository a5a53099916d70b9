-- stored: case_flag_release_rows
-- stored grain: case
-- stored comments from: case_flags
-- case_flags_release: the harness's case-level findings (docs/metrics.md §M4)
-- per release, every experiment and model of the release pooled: what the
-- tool's report of one tree holding all of the release's runs roots flags,
-- and so what its trend compares from one release to the next (§M11).
-- case_flags keeps them per experiment, as each root's own report flags.
-- Same rules and columns (and their comments) as case_flags, without the experiment.
-- case_flags_release_of(releases, cases): the releases listed (NULL: every
-- release) and the cases listed (liftdb_case_key).
CREATE OR REPLACE MACRO case_flags_release_of(releases, cases) AS TABLE
SELECT * EXCLUDE (experiment) FROM case_flags_by(releases, cases, true);

-- case_flags_release_in(releases): the releases listed (NULL: every release).
CREATE OR REPLACE MACRO case_flags_release_in(releases) AS TABLE
SELECT * FROM case_flags_release_of(releases, NULL);

CREATE OR REPLACE VIEW case_flags_release AS SELECT * FROM case_flags_release_in(NULL);

COMMENT ON VIEW case_flags_release IS 'Case-level findings with the harness labels per release, every experiment and model pooled (what skill-benchmark trend compares between releases).';

-- case_flag_release_rows: case_flags_release stored, refilled at the end of
-- every batch in its transaction: what the trend history reads.
CREATE OR REPLACE TABLE case_flag_release_rows AS SELECT * FROM case_flags_release_in(NULL) LIMIT 0;
COMMENT ON TABLE case_flag_release_rows IS 'case_flags_release stored by every batch (what the trend history reads); equal to case_flags_release (liftdb check verifies).';
