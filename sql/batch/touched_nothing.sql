-- A batch that replaces nothing touched nothing yet.
CREATE OR REPLACE TEMP TABLE liftdb_touched (release_label VARCHAR, case_key VARCHAR)
