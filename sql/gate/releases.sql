-- `liftdb gate`: the release gated ($release, else the latest) and its
-- baseline ($baseline, else the release just before it), with whether each
-- names a release the store holds.
WITH ordered AS (
    SELECT release_label, ordinal,
           lag(release_label) OVER (ORDER BY ordinal) AS previous_release
    FROM releases
),
candidate AS (
    SELECT release_label, previous_release FROM ordered
    WHERE release_label = coalesce($release, (SELECT release_label FROM ordered ORDER BY ordinal DESC LIMIT 1))
)
SELECT
    coalesce($release, (SELECT release_label FROM ordered ORDER BY ordinal DESC LIMIT 1)) AS release,
    (SELECT count(*) FROM candidate) > 0 AS release_held,
    coalesce($baseline, (SELECT previous_release FROM candidate)) AS baseline,
    coalesce($baseline, (SELECT previous_release FROM candidate)) IN (SELECT release_label FROM releases) AS baseline_held,
    (SELECT string_agg(release_label, ', ' ORDER BY ordinal) FROM releases) AS releases;
