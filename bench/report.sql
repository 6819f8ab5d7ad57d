-- bench/report.sql: turns the raw measurements (bench_results, bench_scaling_results,
-- bench_pgbench_results) into the tables bench/run prints (views bench_table,
-- bench_scaling_table, bench_pgbench_table and bench_target_table), so every number in the
-- report comes from this run. psql variables: n (rows per query), ref_case (the case of the
-- last column).
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

-- Scaling section: per case of scaling.tsv, the median ids/s with 1 client and with 2
-- clients at once (pgbench's tps, without connection time, times the n ids of each query),
-- and the spread of the 2-client runs.
CREATE VIEW bench_scaling_stats AS
WITH per_clients AS (
    SELECT case_ord, clients, percentile_cont(0.5) WITHIN GROUP (ORDER BY tps) * :n AS ids_per_s,
           min(tps) * :n AS lo, max(tps) * :n AS hi
    FROM bench_scaling_results GROUP BY case_ord, clients
)
SELECT s.ord, s.name,
       max(p.ids_per_s) FILTER (WHERE p.clients = 1) AS ids_1,
       max(p.ids_per_s) FILTER (WHERE p.clients = 2) AS ids_2,
       max(p.lo) FILTER (WHERE p.clients = 2) AS lo_2,
       max(p.hi) FILTER (WHERE p.clients = 2) AS hi_2
FROM bench_scaling_cases s
LEFT JOIN per_clients p ON p.case_ord = s.ord
GROUP BY s.ord, s.name;

CREATE VIEW bench_scaling_table AS
SELECT name AS "case",
       bench_fmt(ids_1) AS "ids/s, 1 client (median)",
       bench_fmt(ids_2) AS "ids/s, 2 clients at once (median)",
       bench_fmt(lo_2) || '..' || bench_fmt(hi_2) AS "2 clients: spread (min..max)",
       bench_ratio(ids_2 / ids_1) AS "2 clients / 1 client"
FROM bench_scaling_stats ORDER BY ord;

-- pgbench section: per script of pgbench.tsv, the median and spread of tps over the rounds.
CREATE VIEW bench_pgbench_stats AS
SELECT s.ord, s.name, s.statement,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY r.tps) AS tps, min(r.tps) AS lo, max(r.tps) AS hi
FROM bench_pgbench_scripts s
LEFT JOIN bench_pgbench_results r ON r.script_ord = s.ord
GROUP BY s.ord, s.name, s.statement;

CREATE VIEW bench_pgbench_table AS
SELECT name AS "script", '`' || statement || '`' AS "statement",
       bench_fmt(tps) AS "tps (median)",
       bench_fmt(lo) || '..' || bench_fmt(hi) AS "spread (min..max)"
FROM bench_pgbench_stats ORDER BY ord;

-- One row per target of targets.tsv: metric(A) / metric(B) against its limit (<= or >=).
CREATE VIEW bench_target_table AS
WITH t AS (
    SELECT ord, description, case_a, case_b, metric,
           substring(bound FROM '^(<=|>=)') AS op, substring(bound FROM '[0-9.]+$') AS lim
    FROM bench_targets
), v AS (
    SELECT t.*,
           CASE t.metric WHEN 'net' THEN a.net WHEN 'whole' THEN a.median
                         WHEN 'scaling' THEN sa.ids_2 WHEN 'tps' THEN pa.tps END AS va,
           CASE t.metric WHEN 'net' THEN b.net WHEN 'whole' THEN b.median
                         WHEN 'scaling' THEN sb.ids_1 WHEN 'tps' THEN pb.tps END AS vb
    FROM t
    LEFT JOIN bench_stats a ON a.name = t.case_a
    LEFT JOIN bench_stats b ON b.name = t.case_b
    LEFT JOIN bench_scaling_stats sa ON sa.name = t.case_a
    LEFT JOIN bench_scaling_stats sb ON sb.name = t.case_b
    LEFT JOIN bench_pgbench_stats pa ON pa.name = t.case_a
    LEFT JOIN bench_pgbench_stats pb ON pb.name = t.case_b
)
SELECT CASE WHEN va IS NULL OR vb IS NULL THEN 'NOT met (no such case, or no data)'
            WHEN vb <= 0 AND metric = 'net' THEN 'NOT met (B is not above its bare loop)'
            WHEN vb <= 0 THEN 'NOT met (B is 0)'
            WHEN op = '<=' AND va / vb <= lim::float8 THEN 'met'
            WHEN op = '>=' AND va / vb >= lim::float8 THEN 'met'
            ELSE 'NOT met' END AS result,
       description AS target,
       CASE metric WHEN 'net' THEN 'net ns/call' WHEN 'whole' THEN 'whole ns/call'
                   WHEN 'scaling' THEN 'ids/s' WHEN 'tps' THEN 'pgbench tps' END AS metric,
       case_a || CASE metric WHEN 'scaling' THEN ', 2 clients' ELSE '' END
              || ': ' || coalesce(bench_fmt(va), '?') AS "A",
       case_b || CASE metric WHEN 'scaling' THEN ', 1 client' ELSE '' END
              || ': ' || coalesce(bench_fmt(vb), '?') AS "B",
       bench_ratio(va / NULLIF(vb, 0)) AS "A/B",
       op || ' ' || lim AS "limit",
       bench_ratio(vb / NULLIF(va, 0)) AS "B/A"
FROM v ORDER BY ord;

-- Queries whose count differs from n (a function returned NULL): their per-call numbers
-- are still per row, but the reader should know.
CREATE VIEW bench_count_warnings AS
SELECT DISTINCT 'warning: "' || name || '" counted ' || counted || ' non-NULL results of ' || :n
    AS warning
FROM bench_results WHERE counted <> :n;
