-- bench/report_backfill.sql: the report's views of the backfill, keys and memory sections
-- (bench_backfill_table, bench_keys_table, bench_memory_table, and the keys chart's data),
-- from bench_backfill_results, bench_key_results and bench_memory_results. Run after
-- report.sql. psql variable: sessions (the sessions of the parallel backfill).
\set ON_ERROR_STOP 1

-- The anchors of the backfill table's ratio columns: names of backfill.tsv.
\set backfill_ref1 'gen_random_uuid()'
\set backfill_ref2 'no-op'

-- Per backfill case and session count: median and spread of the UPDATE's wall seconds.
CREATE VIEW bench_backfill_stats AS
SELECT c.ord, c.name, c.expr, r.sessions,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY r.seconds) AS seconds,
       min(r.seconds) AS lo, max(r.seconds) AS hi
FROM bench_backfill_cases c JOIN bench_backfill_results r ON r.case_ord = c.ord
GROUP BY c.ord, c.name, c.expr, r.sessions;

\set ref1_header 'x ' :backfill_ref1
\set ref2_header 'x ' :backfill_ref2
\set par_header :sessions ' sessions at once, s'
CREATE VIEW bench_backfill_table AS
WITH one AS (SELECT * FROM bench_backfill_stats WHERE sessions = 1),
     par AS (SELECT * FROM bench_backfill_stats WHERE sessions = :sessions)
SELECT o.name AS "function", '`SET id = ' || o.expr || '`' AS "UPDATE bench_events",
       bench_spread(o.seconds, o.lo, o.hi) AS "1 session, s",
       bench_spread(p.seconds, p.lo, p.hi) AS :"par_header",
       bench_ratio(p.seconds / o.seconds) AS "parallel / 1",
       bench_ratio(o.seconds / r1.seconds) AS :"ref1_header",
       bench_ratio(o.seconds / r2.seconds) AS :"ref2_header"
FROM one o
LEFT JOIN par p ON p.ord = o.ord
LEFT JOIN one r1 ON r1.name = :'backfill_ref1'
LEFT JOIN one r2 ON r2.name = :'backfill_ref2'
ORDER BY o.ord;

-- Per key case: median and spread of the INSERT's time, the WAL it wrote and the sizes.
CREATE VIEW bench_keys_stats AS
SELECT c.ord, c.name, c.idtype, max(r.rows) AS rows,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY r.ns) / 1e9 AS seconds, min(r.ns) / 1e9 AS s_lo,
       max(r.ns) / 1e9 AS s_hi,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY r.wal_bytes) AS wal, min(r.wal_bytes) AS wal_lo,
       max(r.wal_bytes) AS wal_hi,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY r.index_bytes) AS idx, min(r.index_bytes) AS idx_lo,
       max(r.index_bytes) AS idx_hi,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY r.table_bytes) AS tab
FROM bench_key_cases c JOIN bench_key_results r ON r.case_ord = c.ord
GROUP BY c.ord, c.name, c.idtype;

CREATE VIEW bench_keys_table AS
SELECT name AS "key", idtype AS "type",
       bench_spread(seconds, s_lo, s_hi) AS "INSERT, s",
       bench_spread(idx / 1e6, idx_lo / 1e6, idx_hi / 1e6) AS "index, MB",
       bench_fmt(idx / rows) AS "index bytes/key",
       bench_fmt(tab / 1e6) AS "table, MB",
       bench_spread(wal / 1e6, wal_lo / 1e6, wal_hi / 1e6) AS "WAL, MB",
       bench_fmt(wal / rows) AS "WAL bytes/key"
FROM bench_keys_stats ORDER BY ord;

-- The keys chart: index and WAL megabytes per key case.
CREATE VIEW bench_chart_keys AS
SELECT name, idx / 1e6 AS index_mb, wal / 1e6 AS wal_mb FROM bench_keys_stats ORDER BY ord;

CREATE VIEW bench_memory_table AS
SELECT c.name AS "function", to_char(m.rows, 'FM999,999,999') AS "rows",
       bench_fmt(m.seconds) AS "UPDATE, s",
       coalesce(bench_fmt(m.context_bytes / 1048576.0), 'none') AS "'idgen backfill' context, MiB",
       bench_fmt(m.all_contexts_bytes / 1048576.0) AS "all memory contexts, MiB",
       bench_fmt(m.rss_anon_start_kb / 1024.0) AS "RssAnon before, MiB",
       bench_fmt(m.rss_anon_peak_kb / 1024.0) AS "RssAnon peak, MiB",
       bench_fmt((m.rss_anon_peak_kb - m.rss_anon_start_kb) / 1024.0) AS "growth, MiB"
FROM bench_memory_results m JOIN bench_backfill_cases c ON c.ord = m.case_ord
ORDER BY c.ord;
