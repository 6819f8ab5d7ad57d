-- bench/report.sql: turns the raw measurements of the cost, scaling, pgbench and latency sections
-- (bench_results, bench_scaling_results, bench_pgbench_results, bench_latency_results and
-- bench_latency_samples) into the tables of the report (views bench_table, bench_scaling_table,
-- bench_pgbench_table, bench_latency_table) and the data of its charts, so
-- every number in the report comes from this run. report_backfill.sql and report_targets.sql
-- follow. psql variables: n (rows per query), ref_case (the case of the cost table's last
-- column).
\set ON_ERROR_STOP 1

-- Numbers as the report shows them: whole numbers from 100, three significant digits below;
-- ratios with two decimals (three below 1); "median (min..max)" for a figure with its spread.
CREATE FUNCTION bench_fmt(x float8) RETURNS text IMMUTABLE LANGUAGE sql AS $$
    SELECT CASE WHEN x IS NULL THEN NULL
                WHEN abs(x) >= 100 THEN to_char(x, 'FM999,999,999,990')
                WHEN abs(x) >= 10 THEN to_char(x, 'FM9990.0')
                WHEN abs(x) >= 1 THEN to_char(x, 'FM90.00')
                ELSE to_char(x, 'FM0.000') END
$$;
CREATE FUNCTION bench_ratio(x float8) RETURNS text IMMUTABLE LANGUAGE sql AS $$
    SELECT CASE WHEN x IS NULL THEN NULL
                WHEN abs(x) >= 1 THEN to_char(x, 'FM999,999,990.00') || 'x'
                ELSE to_char(x, 'FM0.000') || 'x' END
$$;
CREATE FUNCTION bench_spread(median float8, lo float8, hi float8) RETURNS text IMMUTABLE LANGUAGE sql AS $$
    SELECT bench_fmt(median) || ' (' || bench_fmt(lo) || '..' || bench_fmt(hi) || ')'
$$;

-- Per case over the timed rounds (round 0 is the warm-up): median, min and max ns per call,
-- the net cost (median minus the median of its bare loop) and its twin's and the reference
-- case's medians. Ratios of per-call medians are ratios of whole-query medians.
CREATE VIEW bench_stats AS
WITH per_call AS (
    SELECT name, ns::float8 / :n AS ns FROM bench_results WHERE round > 0 AND error IS NULL
), agg AS (
    SELECT name, percentile_cont(0.5) WITHIN GROUP (ORDER BY ns) AS median,
           min(ns) AS lo, max(ns) AS hi
    FROM per_call GROUP BY name
)
SELECT c.ord, c.name, c.kind, s.median, s.lo, s.hi,
       s.median - b.median AS net, t.median AS twin_median, r.median AS ref_median
FROM bench_cases c
JOIN agg s ON s.name = c.name
LEFT JOIN agg b ON b.name = NULLIF(c.baseline, '')
LEFT JOIN agg t ON t.name = NULLIF(c.twin, '')
LEFT JOIN agg r ON r.name = :'ref_case';

\set ref_header 'x ' :ref_case ' (whole query)'
CREATE VIEW bench_table AS
SELECT CASE kind WHEN 'idgen' THEN '**' || name || '**' ELSE name END AS "case",
       bench_fmt(median) AS "ns/call (median)",
       bench_fmt(lo) || '..' || bench_fmt(hi) AS "spread (min..max)",
       bench_fmt(net) AS "net ns/call (minus bare loop)",
       bench_ratio(median / twin_median) AS "x no-op twin (whole query)",
       bench_ratio(median / ref_median) AS :"ref_header"
FROM bench_stats ORDER BY ord;

-- The cost chart: the charted kinds with their medians, spreads and their bare loop's median,
-- in the order of cases.tsv.
CREATE VIEW bench_chart_cost AS
SELECT name, median, lo, hi, CASE kind WHEN 'anchor' THEN 0 WHEN 'idgen' THEN 1 ELSE 2 END AS color,
       median - net AS bare
FROM bench_stats WHERE kind IN ('anchor', 'idgen', 'plpgsql') ORDER BY ord;

-- Scaling section: per case of scaling.tsv and client count, the median and spread of ids/s
-- (pgbench's tps, without connection time, times the n ids of each query).
CREATE VIEW bench_scaling_stats AS
SELECT s.ord, s.name, r.clients,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY r.tps) * :n AS ids, min(r.tps) * :n AS lo,
       max(r.tps) * :n AS hi
FROM bench_scaling_cases s JOIN bench_scaling_results r ON r.case_ord = s.ord
GROUP BY s.ord, s.name, r.clients;

-- One row per case: for 1, 2, 4, 8 and 16 clients (those measured), millions of ids/s, median
-- (min..max); what that count gives over 1 client of the same case (speedup); and over the
-- no-op at the same count (the floor: a generator can at most match it).
CREATE VIEW bench_scaling_table AS
WITH cell AS (
    SELECT s.ord, s.name, s.clients, s.ids,
           bench_spread(s.ids / 1e6, s.lo / 1e6, s.hi / 1e6) || ' · ' ||
           bench_ratio(s.ids / NULLIF(one.ids, 0)) || ' · ' || coalesce(bench_ratio(s.ids / NULLIF(noop.ids, 0)), '?') AS text
    FROM bench_scaling_stats s
    LEFT JOIN bench_scaling_stats one ON one.name = s.name AND one.clients = 1
    LEFT JOIN bench_scaling_stats noop ON noop.name = 'no-op int8 ()' AND noop.clients = s.clients
)
SELECT name AS "case",
       max(text) FILTER (WHERE clients = 1) AS "1 client",
       max(text) FILTER (WHERE clients = 2) AS "2 clients",
       max(text) FILTER (WHERE clients = 4) AS "4 clients",
       max(text) FILTER (WHERE clients = 8) AS "8 clients",
       max(text) FILTER (WHERE clients = 16) AS "16 clients"
FROM cell GROUP BY ord, name ORDER BY ord;

-- The scaling chart: millions of ids/s per case and client count.
CREATE VIEW bench_chart_scaling AS
SELECT name, clients, ids / 1e6 AS ids, lo / 1e6 AS lo, hi / 1e6 AS hi
FROM bench_scaling_stats ORDER BY ord, clients;

-- pgbench section: per script of pgbench.tsv, the median and spread of tps over the rounds.
CREATE VIEW bench_pgbench_stats AS
SELECT s.ord, s.name, s.statement, s.anchor,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY r.tps) AS tps, min(r.tps) AS lo, max(r.tps) AS hi
FROM bench_pgbench_scripts s
JOIN bench_pgbench_results r ON r.script_ord = s.ord
GROUP BY s.ord, s.name, s.statement, s.anchor;

CREATE VIEW bench_pgbench_table AS
SELECT s.name AS "script",
       '`' || s.statement || '`' AS "statement",
       bench_fmt(s.tps) AS "tps (median)",
       bench_fmt(s.lo) || '..' || bench_fmt(s.hi) AS "spread (min..max)",
       bench_ratio(s.tps / a.tps) || ' ' || s.anchor AS "x anchor"
FROM bench_pgbench_stats s LEFT JOIN bench_pgbench_stats a ON a.name = NULLIF(s.anchor, '')
ORDER BY s.ord;

-- Latency section: per script of latency.tsv, its transactions (failed ones have no latency),
-- pgbench's tps and the percentiles of the latencies in µs (percentile_disc: latencies that
-- some transaction had). Materialized: the millions of samples are sorted once, not at every
-- use (the table, its anchor column, the targets).
CREATE MATERIALIZED VIEW bench_latency_stats AS
WITH agg AS (
    SELECT s.ord, s.name, s.statement, s.anchor, r.tps, count(*) AS transactions,
           count(*) - count(l.us) AS failed, max(l.us) AS max,
           percentile_disc(ARRAY[0.5, 0.99, 0.999]) WITHIN GROUP (ORDER BY l.us) AS p
    FROM bench_latency_scripts s
    JOIN bench_latency_results r ON r.script_ord = s.ord
    JOIN bench_latency_samples l ON l.script_ord = s.ord
    GROUP BY s.ord, s.name, s.statement, s.anchor, r.tps
)
SELECT ord, name, statement, anchor, tps, transactions, failed, p[1] AS p50, p[2] AS p99, p[3] AS p999, max
FROM agg;

CREATE VIEW bench_latency_table AS
SELECT s.name AS "script",
       '`' || s.statement || '`' AS "statement",
       bench_fmt(s.transactions) || CASE WHEN s.failed > 0 THEN ' (' || s.failed || ' failed)' ELSE '' END
           AS "transactions",
       bench_fmt(s.tps) AS "tps",
       bench_fmt(s.p50) AS "p50 µs", bench_fmt(s.p99) AS "p99 µs", bench_fmt(s.p999) AS "p99.9 µs",
       bench_fmt(s.max) AS "max µs",
       bench_ratio(s.p999::float8 / a.p999) || ' ' || s.anchor AS "p99.9 x anchor"
FROM bench_latency_stats s LEFT JOIN bench_latency_stats a ON a.name = NULLIF(s.anchor, '')
ORDER BY s.ord;
