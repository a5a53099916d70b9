-- lift_units: the unit of the paired lift (formats.md M3) is (case, model),
-- or the case alone for runs whose model is unknown. Repetitions are averaged
-- inside a unit: w_u and n_u are means over the unit's eligible pairs.
CREATE OR REPLACE VIEW lift_units AS
SELECT
    release_label,
    skill_name,
    control_arm,
    split,
    case_id,
    model,
    count(*) FILTER (WHERE eligible) AS eligible_pairs,
    count(*) FILTER (WHERE NOT eligible) AS blocked_pairs,
    avg(with_rate) FILTER (WHERE eligible) AS with_rate,
    avg(control_rate) FILTER (WHERE eligible) AS without_rate,
    avg(with_rate) FILTER (WHERE eligible) - avg(control_rate) FILTER (WHERE eligible) AS delta
FROM pairs
GROUP BY ALL;

COMMENT ON VIEW lift_units IS 'Per (case, model) unit means of with_skill and control rates over eligible pairs.';
