-- Whether the store holds the release $1 (`ingest --release` names it).
SELECT count(*) > 0 FROM release_record WHERE release_label = $1
