-- Helper macros shared by the views. Stored in the file, so they work from
-- any DuckDB client that opens the store.

-- Exact binomial coefficient C(n, k) as HUGEINT (0 when k > n or k < 0).
-- Each partial product C(n-k+i, i) is an integer, so integer division is exact.
CREATE OR REPLACE MACRO liftdb_comb(n, k) AS
    CASE
        WHEN k < 0 OR k > n THEN 0::HUGEINT
        ELSE list_reduce(
            [1::HUGEINT] || list_transform(range(1, k + 1), lambda i: i::HUGEINT),
            lambda acc, i: acc * (n - k + i) // i)
    END;

-- A run succeeds for reliability when its rate is (numerically) 1 (formats.md M1).
CREATE OR REPLACE MACRO liftdb_is_success(rate) AS rate >= 1 - 1e-12;

-- Manifest arm order: with_skill, without_skill, old_skill, then ablations in
-- manifest order, then anything else alphabetically (used to order flags).
CREATE OR REPLACE MACRO liftdb_arm_order(arm, ablation_ids) AS
    CASE
        WHEN arm = 'with_skill' THEN 0
        WHEN arm = 'without_skill' THEN 1
        WHEN arm = 'old_skill' THEN 2
        WHEN arm LIKE 'ablation:%'
             AND list_position(ablation_ids, substr(arm, 10)) IS NOT NULL
            THEN 10 + list_position(ablation_ids, substr(arm, 10))
        ELSE 100000
    END;
