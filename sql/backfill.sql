-- Retrospective ids: uuid_v1_at and snowflake_at give ids whose embedded time is
-- exactly the given one, distinct however often a timestamp repeats, in call order within a
-- session, apart from the live generators; and their errors. The test server runs with idgen
-- preloaded and idgen.node_id = 300.
CREATE EXTENSION idgen;
SET timezone = 'UTC';
SHOW idgen.backfill_timestamps;

-- Rows as a backfill meets them: 30,000 rows over 1,000 microseconds, in random order.
CREATE TEMP TABLE events AS
SELECT i, '2015-03-01 12:00:00.123456+00'::timestamptz + (i * 7919 % 1000) * interval '1 microsecond' AS created_at
FROM generate_series(1, 30000) i;
ALTER TABLE events ADD COLUMN id uuid;
UPDATE events SET id = uuid_v1_at(created_at);
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE uuid_v1_timestamp(id) = created_at) AS exact_times,
       count(*) FILTER (WHERE uuid_version(id) = 1) AS version_1
FROM events;

-- Automatic nodes: 03, then the node id (300), then the lease; never a network card's address.
SELECT DISTINCT ('x' || replace(uuid_v1_node(id)::text, ':', ''))::bit(48)::bigint >> 40 AS first_octet,
       (('x' || replace(uuid_v1_node(id)::text, ':', ''))::bit(48)::bigint >> 27) & 8191 AS node_id
FROM events;

-- 200,000 rows on one microsecond: two namespaces of 163,830, every UUID distinct and exact,
-- clock sequences 0 to 16,382 (the same on every server; 16,383 is used by none).
SELECT count(*) AS rows, count(DISTINCT u) AS distinct_ids, count(DISTINCT uuid_v1_node(u)) AS namespaces,
       bool_and(uuid_v1_timestamp(u) = '1999-12-31 23:59:59.999999+00') AS exact,
       min(uuid_v1_clock_seq(u)) AS lowest_clock_seq, max(uuid_v1_clock_seq(u)) AS highest_clock_seq
FROM (SELECT uuid_v1_at('1999-12-31 23:59:59.999999+00') AS u FROM generate_series(1, 200000)) s;

-- Equal timestamps come out in the order of the calls within one session.
SELECT bool_and(u > prev) AS increasing
FROM (SELECT u, lag(u) OVER (ORDER BY i) AS prev
      FROM (SELECT i, uuid_v1_at('2020-06-01 00:00:00+00') AS u FROM generate_series(1, 5000) i) s) s
WHERE prev IS NOT NULL;

-- Never equal to a live UUID, even made in the same microseconds.
SELECT count(DISTINCT u) = count(*) AS all_distinct
FROM (SELECT uuid_v1() AS u FROM generate_series(1, 2000)
      UNION ALL SELECT uuid_v1_at(clock_timestamp()) FROM generate_series(1, 2000)) s;

-- A given node: ten UUIDs per microsecond per clock sequence, so 100 rows on one microsecond
-- take ten clock sequences; the node and the time are the given ones.
SELECT count(DISTINCT u) AS distinct_ids, count(DISTINCT uuid_v1_clock_seq(u)) AS clock_seqs,
       bool_and(uuid_v1_node(u) = '08:00:2b:01:02:03') AS node,
       bool_and(uuid_v1_timestamp(u) = '1970-01-01 00:00:00+00') AS exact
FROM (SELECT uuid_v1_at('1970-01-01 00:00:00+00', '08:00:2b:01:02:03') AS u FROM generate_series(1, 100)) s;

-- The server's own live node is refused: its live UUIDs use every clock sequence of it.
\set VERBOSITY sqlstate
SELECT uuid_v1_at('2001-01-01 00:00:00+00', uuid_v1_node(uuid_v1()));
\set VERBOSITY default

-- A small table forgets often and still never repeats (counting goes on above the floor).
SET idgen.backfill_timestamps = 16;
SELECT count(*) AS rows, count(DISTINCT u) AS distinct_ids, bool_and(uuid_v1_timestamp(u) = t) AS exact
FROM (SELECT t, uuid_v1_at(t) AS u
      FROM (SELECT '2010-01-01 00:00:00+00'::timestamptz + (i * 31 % 97) * interval '1 microsecond' AS t
            FROM generate_series(1, 20000) i) s) s;
RESET idgen.backfill_timestamps;
SELECT count(*) AS backfill_memory_contexts FROM pg_backend_memory_contexts WHERE name = 'idgen backfill';

-- Snowflake: 512 nodes, the top 16 (496..511) reserved for backfill; node 300 stays live.
SELECT snowflake_create('bf', '2020-01-01 00:00:00+00', 512, backfill_nodes => 16);
SELECT snowflake_create('bf', '2020-01-01 00:00:00+00', 512, backfill_nodes => 16);  -- same: nothing
SELECT name, max_nodes, backfill_nodes, node_bits, counter_bits, state FROM snowflake_sequencers;
CREATE TEMP TABLE sf AS
SELECT i, '2021-07-01 00:00:00+00'::timestamptz + (i * 7919 % 500) * interval '1 millisecond' AS t
FROM generate_series(1, 20000) i;
INSERT INTO sf SELECT 20000 + i, '2021-07-01 00:00:00.250+00' FROM generate_series(1, 10000) i;  -- 10,000 on one ms
ALTER TABLE sf ADD COLUMN id bigint;
UPDATE sf SET id = snowflake_at('bf', t);
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids,
       bool_and(snowflake_timestamp('bf', id) = date_trunc('milliseconds', t)) AS exact_ms,
       min(snowflake_node('bf', id)) AS min_node, max(snowflake_node('bf', id)) AS max_node
FROM sf;
-- In call order within a session, and never equal to live ids.
SELECT bool_and(id > prev) AS increasing
FROM (SELECT id, lag(id) OVER (ORDER BY i) AS prev
      FROM (SELECT i, snowflake_at('bf', '2022-01-01 00:00:00+00') AS id FROM generate_series(1, 20000) i) s) s
WHERE prev IS NOT NULL;
SELECT count(DISTINCT id) = count(*) AS all_distinct, count(*) FILTER (WHERE snowflake_node('bf', id) = 300) AS live
FROM (SELECT snowflake_next('bf') AS id FROM generate_series(1, 3000)
      UNION ALL SELECT snowflake_at('bf', clock_timestamp()) FROM generate_series(1, 3000)) s;

-- Running out: one reserved node holds 512 ids per millisecond, and a 513th is an error,
-- never a reuse; other milliseconds go on.
SELECT snowflake_create('tiny', '2020-01-01 00:00:00+00', 8192, backfill_nodes => 1);
SELECT count(DISTINCT snowflake_at('tiny', '2023-05-05 05:05:05.005+00')) FROM generate_series(1, 512);
SELECT snowflake_at('tiny', '2023-05-05 05:05:05.005+00');
SELECT snowflake_counter('tiny', snowflake_at('tiny', '2023-05-05 05:05:05.006+00')) AS next_ms_counter;

-- A backfill range that covers this server's node id detaches it for live ids.
SELECT snowflake_create('cover', '2020-01-01 00:00:00+00', 512, backfill_nodes => 300);
SELECT name, backfill_nodes, state FROM snowflake_sequencers WHERE name = 'cover';
SELECT snowflake_next('cover');
SELECT snowflake_node('cover', snowflake_at('cover', '2024-01-01 00:00:00+00')) AS backfill_node;

-- Errors.
SELECT uuid_v1_at(NULL);
SELECT uuid_v1_at(now(), NULL);
SELECT uuid_v1_at('-infinity');
SELECT uuid_v1_at('1582-10-14 23:59:59.999999+00');
SELECT uuid_v1_at('5236-03-31 21:21:00.684698+00');
SELECT uuid_v1_at(now(), '03:00:00:00:00:01');
SELECT uuid_v1_at(now(), '08:00:2b');
SELECT snowflake_at('missing', now());
SELECT snowflake_at('bf', NULL);
SELECT snowflake_at('bf', '2019-12-31 23:59:59.999+00');
SELECT snowflake_at('bf', 'infinity');
SELECT snowflake_create('nobf', '2020-01-01 00:00:00+00', 512);
SELECT snowflake_at('nobf', now());
SELECT snowflake_create('bad', '2020-01-01 00:00:00+00', 512, backfill_nodes => 512);
SELECT snowflake_create('bad', '2020-01-01 00:00:00+00', 512, backfill_nodes => -1);
SELECT snowflake_create('bad', '2020-01-01 00:00:00+00', 512, backfill_nodes => NULL);
SELECT snowflake_create('bf', '2020-01-01 00:00:00+00', 512, backfill_nodes => 17);

-- Upgrade from 0.3.0: this library serves the old schema until ALTER EXTENSION UPDATE; then
-- existing sequencers reserve no backfill nodes and keep idgen's layout, and roles an
-- administrator allowed to define sequencers keep that right (others still do not have it).
DROP EXTENSION idgen;
CREATE EXTENSION idgen VERSION '0.3.0';
SELECT snowflake_create('old');
SELECT snowflake_next('old') > 0 AS works_before_update;
CREATE ROLE idgen_admin;
CREATE ROLE idgen_plain;
GRANT EXECUTE ON FUNCTION snowflake_create(text, timestamptz, integer) TO idgen_admin;
ALTER EXTENSION idgen UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'idgen';
SELECT name, max_nodes, backfill_nodes, layout, state FROM snowflake_sequencers;
SELECT snowflake_next('old') > 0 AS works_after_update;
SELECT has_function_privilege('idgen_admin', 'snowflake_create(text, timestamptz, integer, integer, text, text, integer, integer)', 'EXECUTE') AS admin_may_create,
       has_function_privilege('idgen_plain', 'snowflake_create(text, timestamptz, integer, integer, text, text, integer, integer)', 'EXECUTE') AS plain_may_create;
DROP EXTENSION idgen;
DROP ROLE idgen_admin;
DROP ROLE idgen_plain;
