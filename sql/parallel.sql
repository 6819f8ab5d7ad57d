-- Parallel query. Generators are PARALLEL RESTRICTED: they run in the leader
-- only (a worker is another backend, with its own retrospective-id allocators, its own process
-- id in locality UUIDs, and no business writing the durable horizon), so the ids of a
-- statement stay unique and increasing in call order however the scan below them is split.
-- Decoders are PARALLEL SAFE and run in the workers, the sequencer lookup included.
CREATE EXTENSION idgen;
SET timezone = 'UTC';
SELECT snowflake_create('par', max_nodes => 512);
SELECT snowflake_create('parbf', max_nodes => 512, backfill_nodes => 16);
CREATE TABLE big AS
SELECT g, timestamptz '2024-01-01 00:00:00+00' + (g / 3) * interval '1 ms' AS ts FROM generate_series(1, 300000) g;
ANALYZE big;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;

-- Labels: generators restricted, decoders and the codec safe.
SELECT p.proname, p.proparallel, count(*) AS overloads
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid AND e.extname = 'idgen'
WHERE p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'c') AND p.proname NOT LIKE '\_%'
GROUP BY 1, 2 ORDER BY 2, 1;

-- A real parallel plan: the generators sit above the Gather, in the leader.
EXPLAIN (COSTS OFF)
SELECT snowflake_next('par'), uuid_v1(), locality_uuid(), unique_timestamp(), uuid_v1_at(ts), snowflake_at('parbf', ts),
       uuid_v7(), uuid_v7_at(ts), uuid_v6(), uuid_v6_at(ts)
FROM big;
CREATE TABLE ids AS
SELECT g, ts, snowflake_next('par') AS sf, uuid_v1() AS u1, locality_uuid() AS lu, locality_uuid(true) AS lus,
       unique_timestamp() AS ut, uuid_v1_at(ts) AS u1at, snowflake_at('parbf', ts) AS sfat,
       uuid_v7() AS u7, uuid_v7_at(ts) AS u7at, uuid_v6() AS u6, uuid_v6_at(ts) AS u6at
FROM big;
-- Unique; increasing in call order (the heap order of the new table is the order of the calls).
SELECT count(*) AS rows, count(DISTINCT sf) = count(*) AS sf_unique, count(DISTINCT u1) = count(*) AS u1_unique,
       count(DISTINCT lu) = count(*) AS lu_unique, count(DISTINCT lus) = count(*) AS lus_unique,
       count(DISTINCT ut) = count(*) AS ut_unique, count(DISTINCT u1at) = count(*) AS u1at_unique,
       count(DISTINCT sfat) = count(*) AS sfat_unique, count(DISTINCT u7) = count(*) AS u7_unique,
       count(DISTINCT u7at) = count(*) AS u7at_unique, count(DISTINCT u6) = count(*) AS u6_unique,
       count(DISTINCT u6at) = count(*) AS u6at_unique
FROM ids;
SELECT bool_and(sf > prev_sf) AS sf_increasing, bool_and(ut > prev_ut) AS ut_increasing,
       bool_and(uuid_v1_timestamp(u1) >= uuid_v1_timestamp(prev_u1)) AS u1_time_not_decreasing,
       bool_and(u7 > prev_u7) AS u7_increasing, bool_and(u6 > prev_u6) AS u6_increasing
FROM (SELECT sf, ut, u1, u7, u6, lag(sf) OVER w AS prev_sf, lag(ut) OVER w AS prev_ut, lag(u1) OVER w AS prev_u1,
             lag(u7) OVER w AS prev_u7, lag(u6) OVER w AS prev_u6
      FROM ids WINDOW w AS (ORDER BY ctid)) s
WHERE prev_sf IS NOT NULL;
-- Retrospective ids carry their row's exact time, from this session's allocators: one reserved
-- node of 'parbf' (a worker would lease its own), the process id of this backend.
SELECT bool_and(uuid_v1_timestamp(u1at) = ts) AS u1at_exact,
       bool_and(uuid_v7_timestamp(u7at) = ts) AS u7at_exact, bool_and(uuid_v6_timestamp(u6at) = ts) AS u6at_exact,
       bool_and(snowflake_timestamp('parbf', sfat) = date_trunc('milliseconds', ts)) AS sfat_exact,
       count(DISTINCT snowflake_node('parbf', sfat)) AS sfat_nodes,
       bool_and(locality_uuid_pid(lu) = pg_backend_pid() % 65536) AS lu_leader_pid
FROM ids;

-- Decoders in the workers: the filter runs below the Gather and finds every row.
EXPLAIN (COSTS OFF)
SELECT count(*) FROM ids WHERE snowflake_node('par', sf) = 300 AND snowflake_timestamp('parbf', sfat) >= '2024-01-01';
SELECT count(*) FROM ids WHERE snowflake_node('par', sf) = 300 AND snowflake_timestamp('parbf', sfat) >= '2024-01-01';

-- force_parallel_mode (debug_parallel_query from PostgreSQL 16 on): safe functions run in a
-- worker, restricted ones stay in the leader.
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'on', false) AS forced;
SELECT snowflake_timestamp('par', snowflake_min_id('par', '2024-06-01 12:00:00+00')) AS decoded_in_worker,
       snowflake_counter('par', 7) AS counter;
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids FROM (SELECT snowflake_next('par') AS id FROM generate_series(1, 10000)) s;
SELECT uuid_v1_timestamp(uuid_v1_at('2024-03-01 10:00:00.123456+00')) AS u1at_exact,
       snowflake_timestamp('parbf', snowflake_at('parbf', '2024-03-01 10:00:00.123456+00')) AS sfat_ms;
SELECT locality_uuid_pid(locality_uuid()) = pg_backend_pid() % 65536 AS generated_in_this_backend;
-- Twenty statements of retrospective ids: all from this session's one reserved node (in a
-- worker each statement would lease another of the 16 and run out).
\o /dev/null
SELECT format('SELECT snowflake_at(''parbf'', now())') FROM generate_series(1, 20) \gexec
\o
SELECT snowflake_node('parbf', snowflake_at('parbf', now())) AS node_after_twenty_statements;
SELECT set_config(CASE WHEN current_setting('server_version_num')::int >= 160000
                       THEN 'debug_parallel_query' ELSE 'force_parallel_mode' END, 'off', false) AS forced;

DROP TABLE ids;
DROP TABLE big;
DROP EXTENSION idgen;
