-- bench/report_backfill.sql: the report's views of the backfill, sessions, keys and memory
-- sections (bench_backfill_table, bench_sessions_table, bench_keys_table, bench_memory_table,
-- and the keys chart's data), from bench_backfill_results, bench_session_results and _runs,
-- bench_key_results and bench_memory_results. Run after report.sql. psql variables: sessions
-- (the sessions of the parallel backfill, and the short sessions at once), session_count (the
-- short sessions of the sessions section).
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

-- Sessions section, per case, session count and round: ids per second inside the server (all
-- the ids over the sum of the timed statements' times); a round with a failed statement is left
-- out (its error is in bench_errors).
CREATE VIEW bench_sessions_rounds AS
SELECT r.round, r.case_ord, r.sessions, sum(r.ids) * 1e9 / nullif(sum(r.ns), 0) AS ids_per_s,
       u.leased, u.lease_records, u.sessions_per_s
FROM bench_session_results r
LEFT JOIN bench_session_runs u USING (round, case_ord, sessions)
GROUP BY r.round, r.case_ord, r.sessions, u.leased, u.lease_records, u.sessions_per_s
HAVING count(r.error) = 0;

-- Per case and session count: median and spread of ids/s over the rounds, and the lease work
-- of each round in round order (namespaces leased; idgen LEASE WAL records, NULL without
-- pg_walinspect).
CREATE VIEW bench_sessions_stats AS
SELECT c.ord, c.name, c.expr, x.sessions,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY x.ids_per_s) AS ids_per_s,
       min(x.ids_per_s) AS lo, max(x.ids_per_s) AS hi,
       string_agg(x.leased::text, ', ' ORDER BY x.round) AS leased,
       string_agg(coalesce(x.lease_records::text, '?'), ', ' ORDER BY x.round) AS lease_records,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY x.sessions_per_s) AS sessions_per_s
FROM bench_session_cases c JOIN bench_sessions_rounds x ON x.case_ord = c.ord
GROUP BY c.ord, c.name, c.expr, x.sessions;

\set many_header :session_count ' sessions, M ids/s'
\set many_leased_header 'leased, ' :session_count ' sessions'
\set many_wal_header 'LEASE records, ' :session_count ' sessions'
CREATE VIEW bench_sessions_table AS
WITH one AS (SELECT * FROM bench_sessions_stats WHERE sessions = 1),
     many AS (SELECT * FROM bench_sessions_stats WHERE sessions = :session_count)
SELECT o.name AS "function", '`' || o.expr || '`' AS "id",
       bench_spread(o.ids_per_s / 1e6, o.lo / 1e6, o.hi / 1e6) AS "1 session, M ids/s",
       bench_spread(m.ids_per_s / 1e6, m.lo / 1e6, m.hi / 1e6) AS :"many_header",
       bench_ratio(m.ids_per_s / o.ids_per_s) AS "many / 1",
       o.leased AS "leased, 1 session", m.leased AS :"many_leased_header",
       o.lease_records AS "LEASE records, 1 session", m.lease_records AS :"many_wal_header",
       bench_fmt(m.sessions_per_s) AS "sessions/s with connecting"
FROM one o
LEFT JOIN many m ON m.ord = o.ord
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
