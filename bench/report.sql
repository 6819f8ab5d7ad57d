-- bench/report.sql: turns the raw timings in bench_results into the two tables bench/run
-- prints (views bench_table and bench_target_table), so every number in the report comes
-- from this run. psql variables: n (rows per query), ref_case (the case of the last column).
\set ON_ERROR_STOP 1

-- Numbers as the report shows them: ns with one decimal below 100, whole ns above; ratios
-- with two decimals (three below 1).
CREATE FUNCTION bench_fmt(x float8) RETURNS text IMMUTABLE LANGUAGE sql AS $$
    SELECT CASE WHEN x IS NULL THEN NULL
                WHEN abs(x) >= 100 THEN to_char(x, 'FM999,999,999,990')
                ELSE to_char(x, 'FM990.0') END
$$;
CREATE FUNCTION bench_ratio(x float8) RETURNS text IMMUTABLE LANGUAGE sql AS $$
    SELECT CASE WHEN x IS NULL THEN NULL
                WHEN abs(x) >= 1 THEN to_char(x, 'FM999,999,990.00') || 'x'
                ELSE to_char(x, 'FM0.000') || 'x' END
$$;

-- Per case over the timed rounds (round 0 is the warm-up): median, min and max ns per call,
-- the net cost (median minus the median of its bare loop) and its twin's and the reference
-- case's medians. Ratios of per-call medians are ratios of whole-query medians.
CREATE VIEW bench_stats AS
WITH per_call AS (
    SELECT name, ns::float8 / :n AS ns FROM bench_results WHERE round > 0
), agg AS (
    SELECT name, percentile_cont(0.5) WITHIN GROUP (ORDER BY ns) AS median,
           min(ns) AS lo, max(ns) AS hi
    FROM per_call GROUP BY name
)
SELECT c.ord, c.name, s.median, s.lo, s.hi,
       s.median - b.median AS net, t.median AS twin_median, r.median AS ref_median
FROM bench_cases c
JOIN agg s ON s.name = c.name
LEFT JOIN agg b ON b.name = NULLIF(c.baseline, '')
LEFT JOIN agg t ON t.name = NULLIF(c.twin, '')
LEFT JOIN agg r ON r.name = :'ref_case';

\set ref_header 'x ' :ref_case ' (whole query)'
CREATE VIEW bench_table AS
SELECT name AS "case",
       bench_fmt(median) AS "ns/call (median)",
       bench_fmt(lo) || '..' || bench_fmt(hi) AS "spread (min..max)",
       bench_fmt(net) AS "net ns/call (minus bare loop)",
       bench_ratio(median / twin_median) AS "x no-op twin (whole query)",
       bench_ratio(median / ref_median) AS :"ref_header"
FROM bench_stats ORDER BY ord;

-- One row per target of targets.tsv: metric(A) / metric(B) against its limit.
CREATE VIEW bench_target_table AS
WITH v AS (
    SELECT t.ord, t.description, t.metric, t.max_ratio, t.case_a, t.case_b,
           CASE t.metric WHEN 'net' THEN a.net ELSE a.median END AS va,
           CASE t.metric WHEN 'net' THEN b.net ELSE b.median END AS vb
    FROM bench_targets t
    LEFT JOIN bench_stats a ON a.name = t.case_a
    LEFT JOIN bench_stats b ON b.name = t.case_b
)
SELECT CASE WHEN va IS NULL OR vb IS NULL THEN 'NOT met (no such case, or no bare loop)'
            WHEN vb <= 0 THEN 'NOT met (B is not above its bare loop)'
            WHEN va / vb <= max_ratio THEN 'met'
            ELSE 'NOT met' END AS result,
       description AS target,
       metric || ' ns/call' AS metric,
       case_a || ': ' || coalesce(bench_fmt(va), '?') AS "A",
       case_b || ': ' || coalesce(bench_fmt(vb), '?') AS "B",
       bench_ratio(va / NULLIF(vb, 0)) AS "A/B",
       '<= ' || max_ratio AS "limit",
       bench_ratio(vb / NULLIF(va, 0)) AS "B/A"
FROM v ORDER BY ord;

-- Queries whose count differs from n (a function returned NULL): their per-call numbers
-- are still per row, but the reader should know.
CREATE VIEW bench_count_warnings AS
SELECT DISTINCT 'warning: "' || name || '" counted ' || counted || ' non-NULL results of ' || :n
    AS warning
FROM bench_results WHERE counted <> :n;
