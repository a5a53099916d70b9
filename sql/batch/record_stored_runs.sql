-- The runs this batch stored, recorded where a replacement cannot erase
-- them: the sequential gate places a pair by the batch that first stored it.
INSERT INTO run_stored SELECT run_id, batch_id, release_label, skill_name, case_id FROM run WHERE batch_id = $1
