-- bench/report_targets.sql: the report's verdicts. bench_skipped lists what this run could not
-- measure and why; bench_target_table checks every target of targets.tsv against this run's
-- figures and says met, NOT met (with the reason targets.tsv gives), or not measured (with
-- the reason from bench_skipped). Run after report.sql and report_backfill.sql. psql
-- variables: sessions (the sessions of the parallel backfill), session_count (the short
-- sessions of the sessions section).
\set ON_ERROR_STOP 1

CREATE VIEW bench_skipped AS
SELECT 'cost per call' AS section, name, unavailable AS reason FROM bench_cases WHERE unavailable IS NOT NULL
UNION ALL
SELECT 'cost per call', name, min(error) FROM bench_results WHERE error IS NOT NULL GROUP BY name
UNION ALL
SELECT 'scaling', s.name, 'not measured: its cost-per-call case was not measured'
FROM bench_scaling_cases s JOIN bench_cases c USING (name)
WHERE c.unavailable IS NOT NULL OR EXISTS (SELECT FROM bench_results r WHERE r.name = c.name AND r.error IS NOT NULL)
UNION ALL
SELECT 'pgbench', name, unavailable FROM bench_pgbench_scripts WHERE unavailable IS NOT NULL
UNION ALL
SELECT 'latency', name, unavailable FROM bench_latency_scripts WHERE unavailable IS NOT NULL
UNION ALL
SELECT 'backfill', name, unavailable FROM bench_backfill_cases WHERE unavailable IS NOT NULL
UNION ALL
SELECT 'sessions', name, unavailable FROM bench_session_cases WHERE unavailable IS NOT NULL
UNION ALL
SELECT 'keys', name, unavailable FROM bench_key_cases WHERE unavailable IS NOT NULL
UNION ALL
SELECT section, name, min(message) FROM bench_errors GROUP BY section, name;

-- One row per target of targets.tsv: metric(A) / metric(B) against its limit.
CREATE VIEW bench_target_verdicts AS
WITH t AS (
    SELECT ord, description, case_a, case_b, metric, why_not,
           substring(bound FROM '^(<=|>=|<|>)') AS op, substring(bound FROM '[0-9.]+$')::float8 AS lim,
           regexp_replace(bound, ' +', ' ') AS bound
    FROM bench_targets
), v AS (
    SELECT t.*,
           CASE t.metric WHEN 'net' THEN a.net WHEN 'whole' THEN a.median
                         WHEN 'scaling' THEN sa.ids WHEN 'scaling16' THEN s16a.ids WHEN 'at16' THEN s16a.ids
                         WHEN 'tps' THEN pa.tps WHEN 'p99.9' THEN la.p999
                         WHEN 'update' THEN ua.seconds WHEN 'parallel' THEN qa.seconds
                         WHEN 'sessions' THEN ma.ids_per_s
                         WHEN 'index' THEN ka.idx WHEN 'wal' THEN ka.wal END AS va,
           CASE t.metric WHEN 'net' THEN b.net WHEN 'whole' THEN b.median
                         WHEN 'scaling' THEN sb.ids WHEN 'scaling16' THEN sb.ids WHEN 'at16' THEN s16b.ids
                         WHEN 'tps' THEN pb.tps WHEN 'p99.9' THEN lb.p999
                         WHEN 'update' THEN ub.seconds WHEN 'parallel' THEN ub.seconds
                         WHEN 'sessions' THEN mb.ids_per_s
                         WHEN 'index' THEN kb.idx WHEN 'wal' THEN kb.wal END AS vb
    FROM t
    LEFT JOIN bench_stats a ON a.name = t.case_a
    LEFT JOIN bench_stats b ON b.name = t.case_b
    LEFT JOIN bench_scaling_stats sa ON sa.name = t.case_a AND sa.clients = 2
    LEFT JOIN bench_scaling_stats sb ON sb.name = t.case_b AND sb.clients = 1
    LEFT JOIN bench_scaling_stats s16a ON s16a.name = t.case_a AND s16a.clients = 16
    LEFT JOIN bench_scaling_stats s16b ON s16b.name = t.case_b AND s16b.clients = 16
    LEFT JOIN bench_pgbench_stats pa ON pa.name = t.case_a
    LEFT JOIN bench_pgbench_stats pb ON pb.name = t.case_b
    LEFT JOIN bench_latency_stats la ON la.name = t.case_a
    LEFT JOIN bench_latency_stats lb ON lb.name = t.case_b
    LEFT JOIN bench_backfill_stats ua ON ua.name = t.case_a AND ua.sessions = 1
    LEFT JOIN bench_backfill_stats ub ON ub.name = t.case_b AND ub.sessions = 1
    LEFT JOIN bench_backfill_stats qa ON qa.name = t.case_a AND qa.sessions = :sessions
    LEFT JOIN bench_sessions_stats ma ON ma.name = t.case_a AND ma.sessions = :session_count
    LEFT JOIN bench_sessions_stats mb ON mb.name = t.case_b AND mb.sessions = 1
    LEFT JOIN bench_keys_stats ka ON ka.name = t.case_a
    LEFT JOIN bench_keys_stats kb ON kb.name = t.case_b
)
SELECT v.*, va / NULLIF(vb, 0) AS ratio,
       CASE WHEN va IS NULL OR vb IS NULL OR vb <= 0 THEN 'not measured'
            WHEN op = '<=' AND va / vb <= lim OR op = '>=' AND va / vb >= lim
              OR op = '<' AND va / vb < lim OR op = '>' AND va / vb > lim THEN 'met'
            ELSE 'NOT met' END AS result
FROM v;

CREATE VIEW bench_target_table AS
SELECT CASE result WHEN 'NOT met' THEN '**NOT met**' ELSE result END AS result,
       description AS target,
       case_a || CASE metric WHEN 'scaling' THEN ', 2 clients' WHEN 'scaling16' THEN ', 16 clients'
                             WHEN 'at16' THEN ', 16 clients' WHEN 'parallel' THEN ', ' || :sessions || ' sessions'
                             WHEN 'sessions' THEN ', ' || :session_count || ' sessions' ELSE '' END
              || ': ' || coalesce(bench_fmt(va), '?') AS "A",
       case_b || CASE metric WHEN 'scaling' THEN ', 1 client' WHEN 'scaling16' THEN ', 1 client'
                             WHEN 'at16' THEN ', 16 clients' WHEN 'parallel' THEN ', 1 session'
                             WHEN 'sessions' THEN ', 1 session' ELSE '' END
              || ': ' || coalesce(bench_fmt(vb), '?') AS "B",
       CASE metric WHEN 'net' THEN 'net ns/call' WHEN 'whole' THEN 'ns/call' WHEN 'scaling' THEN 'ids/s'
                   WHEN 'scaling16' THEN 'ids/s' WHEN 'at16' THEN 'ids/s'
                   WHEN 'tps' THEN 'pgbench tps' WHEN 'p99.9' THEN 'p99.9 latency µs'
                   WHEN 'sessions' THEN 'ids/s inside the server' WHEN 'index' THEN 'index bytes'
                   WHEN 'wal' THEN 'WAL bytes' ELSE 'UPDATE s' END AS metric,
       bench_ratio(ratio) AS "A/B", bound AS "limit",
       CASE result
           WHEN 'met' THEN ''
           WHEN 'NOT met' THEN coalesce(why_not, '')
           ELSE coalesce((SELECT string_agg(DISTINCT s.name || ': ' || s.reason, '; ')
                          FROM bench_skipped s WHERE s.name IN (case_a, case_b)),
                         CASE WHEN vb <= 0 THEN 'B is not above its bare loop'
                              WHEN metric IN ('scaling16', 'at16') THEN '16 clients were not measured (fewer than 16 cores: IDGEN_BENCH_CLIENTS)'
                              ELSE 'no data' END)
       END AS "why not"
FROM bench_target_verdicts ORDER BY ord;
