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

-- Unbiased pass@k and pass^k of c successes in n runs, k drawn without
-- replacement (docs/metrics.md §M5): 1 - C(n-c, k)/C(n, k) and C(c, k)/C(n, k).
CREATE OR REPLACE MACRO liftdb_pass_at_k(n, c, k) AS
    CASE WHEN c >= n OR n - c < k THEN 1.0
         ELSE 1 - liftdb_comb(n - c, k) / liftdb_comb(n, k) END;

CREATE OR REPLACE MACRO liftdb_pass_hat_k(n, c, k) AS
    CASE WHEN c < k THEN 0.0 ELSE liftdb_comb(c, k) / liftdb_comb(n, k) END;

-- The folder a report lies in: for a skill-creator benchmark.json, the
-- iteration it aggregates (its experiment).
CREATE OR REPLACE MACRO liftdb_folder_of(path) AS regexp_extract(path, '([^/]+)/[^/]+$', 1);

-- A run succeeds for reliability when its rate is (numerically) 1 (docs/metrics.md §M1).
CREATE OR REPLACE MACRO liftdb_is_success(rate) AS rate >= 1 - 1e-12;

-- A file's print as source_file.print keeps it: the low 64 bits of
-- md5('size|mtime_ns|path') read little-endian, as liftdb computes it when it
-- writes the row (src/batch/state.rs, file_print). The change check XORs an
-- owner's prints; `liftdb check` holds every row to this.
CREATE OR REPLACE MACRO liftdb_file_print(size_bytes, mtime_ns, path) AS
    (md5_number(size_bytes::BIGINT::VARCHAR || '|' || coalesce(mtime_ns, 0)::BIGINT::VARCHAR
        || '|' || path) & 18446744073709551615::UHUGEINT)::UBIGINT;

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

-- The mean of a list of non-negative doubles exactly as Python's
-- statistics.mean gives it (the harness's mean): the sum is exact (each value
-- scaled by 2^100 into a HUGEINT, exact for every value above 2^-47 — rates
-- and scores), and the division by n is rounded once, to nearest even. So it
-- does not depend on summation order, and equal sums give equal means: the
-- harness compares means exactly (w < n marks a negative case, W == 1 saturates).
CREATE OR REPLACE MACRO liftdb_bitlen(q) AS
    CASE WHEN q <= 0 THEN 0 ELSE
        (CAST(floor(log2(CAST(q AS DOUBLE))) AS INTEGER) + 1)
        -- the double may round q up to the next power of two
        - CASE WHEN (q >> CAST(floor(log2(CAST(q AS DOUBLE))) AS INTEGER)) = 0 THEN 1 ELSE 0 END
    END;

-- (q + r/n) rounded to nearest even at bit k, for q >= 0, 0 <= r < n.
CREATE OR REPLACE MACRO liftdb_round_shift(q, r, n, k) AS
    ((q >> k) + CASE
        WHEN 2 * ((q - ((q >> k) << k)) * n + r) > ((CAST(1 AS HUGEINT) << k) * n) THEN 1
        WHEN 2 * ((q - ((q >> k) << k)) * n + r) = ((CAST(1 AS HUGEINT) << k) * n) AND (q >> k) % 2 = 1 THEN 1
        ELSE 0 END) << k;

-- The exact mean from its two aggregates: s, the sum of the values scaled
-- by 2^100 (liftdb_scaled), and n, their count. q, r and n are bound once
-- (p), so nothing is recomputed when the macros expand.
CREATE OR REPLACE MACRO liftdb_scaled(x) AS CAST(x * 1267650600228229401496703205376.0 AS HUGEINT);

CREATE OR REPLACE MACRO liftdb_mean_of(s, n) AS
    CASE WHEN n > 0 THEN
        list_transform([{'q': CAST(s AS HUGEINT) // n, 'r': CAST(s AS HUGEINT) % n, 'n': n}],
            lambda p: CAST(liftdb_round_shift(p.q, p.r, p.n, greatest(liftdb_bitlen(p.q) - 53, 0)) AS DOUBLE))[1]
            / 1267650600228229401496703205376.0
    END;

-- The same for values of either sign (deltas): the exact sum's magnitude
-- divided as above, its sign put back.
CREATE OR REPLACE MACRO liftdb_mean_signed_of(s, n) AS
    CASE WHEN n > 0 THEN
        list_transform([{'s': sign(s), 'q': abs(s) // n, 'r': abs(s) % n, 'n': n}],
            lambda p: p.s * CAST(liftdb_round_shift(p.q, p.r, p.n, greatest(liftdb_bitlen(p.q) - 53, 0)) AS DOUBLE))[1]
            / 1267650600228229401496703205376.0
    END;

-- The exact mean as an aggregate (statistics.mean over a group's non-NULL
-- values; a condition goes in a CASE, as FILTER does not apply to a macro).
-- Its state is a sum and a count: a group by it spills to disk under a
-- memory limit, where list() gathered per group does not (DuckDB issues
-- #5920, #6538), and the sum being exact, the mean is the list form's.
CREATE OR REPLACE MACRO liftdb_mean_agg(x) AS liftdb_mean_of(sum(liftdb_scaled(x)), count(x));

CREATE OR REPLACE MACRO liftdb_mean_signed_agg(x) AS liftdb_mean_signed_of(sum(liftdb_scaled(x)), count(x));

-- For values of any size (token deltas, ratios): liftdb_sum_scale(m, n) is
-- the power of two k that scales n values of magnitude at most m to integers
-- whose sum stays inside a HUGEINT (below 2^125), at most 2^100 as above;
-- liftdb_scaled_by(x, k) scales one value by it, and
-- liftdb_mean_signed_scaled(s, n, k) is the exact mean of the scaled sum s.
-- Summed as integers the mean is the same whatever order the values come
-- in, and exact wherever x * 2^k is an integer (every value of a realistic
-- spread); the state is a sum and a count, which spills.
CREATE OR REPLACE MACRO liftdb_sum_scale(m, n) AS
    CASE WHEN coalesce(m, 0) = 0 OR n = 0 THEN 100
         ELSE CAST(least(100, greatest(-1000, 125 - ceil(log2(m) + log2(n)))) AS INTEGER) END;

CREATE OR REPLACE MACRO liftdb_scaled_by(x, k) AS
    CASE WHEN isfinite(x) THEN CAST(x * pow(2.0, k) AS HUGEINT) END;

CREATE OR REPLACE MACRO liftdb_mean_signed_scaled(s, n, k) AS
    CASE WHEN n > 0 THEN
        list_transform([{'s': sign(s), 'q': abs(s) // n, 'r': abs(s) % n, 'n': n}],
            lambda p: p.s * CAST(liftdb_round_shift(p.q, p.r, p.n, greatest(liftdb_bitlen(p.q) - 53, 0)) AS DOUBLE))[1]
            / pow(2.0, k)
    END;

-- The exact mean of a list (NULLs are skipped, as avg() skips them).
CREATE OR REPLACE MACRO liftdb_mean(xs) AS
    list_transform([list_transform(list_filter(xs, lambda x: x IS NOT NULL), lambda x: liftdb_scaled(x))],
        lambda v: liftdb_mean_of(list_sum(v), len(v)))[1];

CREATE OR REPLACE MACRO liftdb_mean_signed(xs) AS
    list_transform([list_transform(list_filter(xs, lambda x: x IS NOT NULL), lambda x: liftdb_scaled(x))],
        lambda v: liftdb_mean_signed_of(list_sum(v), len(v)))[1];

-- liftdb_mean_signed where its exact sum fits a HUGEINT (every |x| times
-- the count below 2^26: the scaled sum stays below 2^126), else the mean
-- of the values summed in sorted order (a ratio with a tiny denominator,
-- thousands of large token deltas): exact where the harness's
-- statistics.mean can differ in the last printed digit, never an overflow,
-- and in any case the same whatever order the values come in.
CREATE OR REPLACE MACRO liftdb_mean_signed_bounded(xs) AS
    CASE WHEN coalesce(list_max(list_transform(xs, lambda x: abs(x))), 0) * len(xs) < 67108864
         THEN liftdb_mean_signed(xs) ELSE list_avg(list_sort(xs)) END;

-- A token count as an integer; NULL for a value no run spends (beyond
-- 10^12, or below 0): what a harness wrote there is not a count, and sums
-- of counts stay inside a BIGINT.
CREATE OR REPLACE MACRO liftdb_token_count(x) AS
    CASE WHEN x BETWEEN 0 AND 1e12 THEN CAST(x AS BIGINT) END;

-- Python's round(x, d): the double's exact value, scaled by 2^k to an
-- integer, rounded half to even at the d-th decimal. DuckDB's round() rounds
-- half away from zero and round_even works on x * 10^d in floating point,
-- which moves near-ties: 0.78125 is 0.7812 in Python, 0.7813 in DuckDB.
-- The scale 2^100 is exact for |x| >= 2^-48 and fits a HUGEINT up to
-- |x| < 2^27 / 10^d (rates, scores, deltas); larger values, whose last bit
-- is worth 2^-45 or more, use 2^70, up to |x| < 2^57 / 10^d; beyond that a
-- double has no fraction left at d places and round_even is exact.
CREATE OR REPLACE MACRO liftdb_pyround_scaled(x, d, scale) AS
    sign(x) * list_transform(
        [CAST(abs(x) * CAST(scale AS DOUBLE) AS HUGEINT) * CAST(10 ** d AS HUGEINT)],
        lambda e: list_transform(
            [{'q': e // scale, 'r': e % scale}],
            lambda p: CAST(p.q + CASE
                WHEN 2 * p.r > scale THEN 1
                WHEN 2 * p.r = scale AND p.q % 2 = 1 THEN 1
                ELSE 0 END AS DOUBLE) / CAST(10 ** d AS DOUBLE))[1])[1];

-- liftdb_pyround_clear(y): whether y = x * 10^d, as a double, rounds to the
-- digit Python's round gives without the exact path, which costs HUGEINT
-- arithmetic on every row. The product is rounded once, to the nearest
-- double; a half (k + 1/2) is itself a double below 2^52, so rounding may
-- land on it but never crosses it: a y that is not a half lies on the same
-- side of it as the exact product and rounds as it does. Halves (a binary
-- tie, or an exact product that rounded onto one) take the exact path.
CREATE OR REPLACE MACRO liftdb_pyround_clear(y) AS
    abs(y) < 4503599627370496.0 AND abs(y) - floor(abs(y)) <> 0.5;

CREATE OR REPLACE MACRO liftdb_pyround(x, d) AS
    CASE
        WHEN liftdb_pyround_clear(x * 10 ** d)
            THEN sign(x) * round(abs(x * 10 ** d)) / CAST(10 ** d AS DOUBLE)
        WHEN x IS NULL THEN NULL
        WHEN abs(x) < 134217728.0 / 10 ** d
            THEN liftdb_pyround_scaled(x, d, CAST(1267650600228229401496703205376 AS HUGEINT))
        WHEN abs(x) < 144115188075855872.0 / 10 ** d
            THEN liftdb_pyround_scaled(x, d, CAST(1180591620717411303424 AS HUGEINT))
        ELSE round_even(x, d)
    END;

CREATE OR REPLACE MACRO liftdb_round4(x) AS liftdb_pyround(x, 4);

-- liftdb_case_label(case_id, case_name): a case as a reader is shown it, its
-- id and, where its harness gives one, its name (`6 run-as-non-root`).
CREATE OR REPLACE MACRO liftdb_case_label(case_id, case_name) AS
    case_id || coalesce(' ' || case_name, '');

-- liftdb_sampled_p_upper(p): the upper confidence bound (99.9%) of a sampled
-- sign-flip p = (hits + 1)/(4096 + 1), skill-eval-harness main's decision
-- rule for a sampled test (docs/metrics.md §M6): min(1, hits/m +
-- sqrt(ln(1/0.001)/(2m))), m = 4096. The lift interval inverts the same rule.
CREATE OR REPLACE MACRO liftdb_sampled_p_upper(p) AS
    least(1.0, (p * 4097 - 1) / 4096 + sqrt(ln(1000.0) / (2 * 4096)));

-- liftdb_bound_text(x): an interval bound to 2 decimals, or 3 where 2 would
-- print a bound that is not 0 as 0.00 (a reader would take it to hold 0).
CREATE OR REPLACE MACRO liftdb_bound_text(x) AS
    CASE WHEN x <> 0 AND abs(x) < 0.005 THEN printf('%.3f', x) ELSE printf('%.2f', x) END;

-- Wilson score interval (95%, z = 1.959963984540054) of k successes in n
-- trials: the per-arm interval for small n (docs/metrics.md §M3a). NULL for n = 0.
CREATE OR REPLACE MACRO liftdb_wilson_lower(k, n) AS
    CASE WHEN n > 0 THEN
        (k / n + 1.959963984540054 ^ 2 / (2 * n)
         - 1.959963984540054 * sqrt(k / n * (1 - k / n) / n + 1.959963984540054 ^ 2 / (4 * n * n)))
        / (1 + 1.959963984540054 ^ 2 / n)
    END;
CREATE OR REPLACE MACRO liftdb_wilson_upper(k, n) AS
    CASE WHEN n > 0 THEN
        (k / n + 1.959963984540054 ^ 2 / (2 * n)
         + 1.959963984540054 * sqrt(k / n * (1 - k / n) / n + 1.959963984540054 ^ 2 / (4 * n * n)))
        / (1 + 1.959963984540054 ^ 2 / n)
    END;

-- liftdb_same_skill: two runs' skills agree, or one is a skill nothing
-- named (a run folder ingested without its manifest, a report without
-- metadata.skill_name): how an Anthropic-format report's row finds the
-- folder's run it describes.
CREATE OR REPLACE MACRO liftdb_same_skill(a, b) AS
    a = b OR a = '(unknown skill)' OR b = '(unknown skill)';

-- liftdb_case_key: one text key per (release, skill, case), the unit a batch
-- refills the case-grained stored aggregates by (src/store/aggregates/mod.rs).
CREATE OR REPLACE MACRO liftdb_case_key(release_label, skill_name, case_id) AS
    release_label || chr(31) || coalesce(skill_name, '') || chr(31) || coalesce(case_id, '');

-- liftdb_in_scope: whether a row is among the releases listed (NULL: every
-- release) or the cases listed (keys made by liftdb_case_key; NULL: none),
-- and in the part of the cases a refill is at when it works in parts: the
-- variable liftdb_refill_part, [part, parts], keeps the cases whose key
-- hashes to part modulo parts (unset, as in any other session: every case).
CREATE OR REPLACE MACRO liftdb_in_scope(releases, cases, release_label, skill_name, case_id) AS
    (releases IS NULL
     OR list_contains(releases, release_label)
     -- (cases NULL: folded away before any key is built)
     OR (cases IS NOT NULL AND list_contains(cases, liftdb_case_key(release_label, skill_name, case_id))))
    AND (getvariable('liftdb_refill_part') IS NULL
         OR hash(liftdb_case_key(release_label, skill_name, case_id)) % getvariable('liftdb_refill_part')[2]
            = getvariable('liftdb_refill_part')[1]);
