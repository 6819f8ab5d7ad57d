-- A short tour of idgen, run by scripts/demo against a throwaway server.
\pset footer off
SET timezone = 'UTC';
CREATE EXTENSION IF NOT EXISTS idgen;

\echo
\echo '1. Rebuild a version-1 UUID for an old row from its time, a clock sequence and a MAC address'
\echo '   (idgen does it exactly, 30x faster than the PL/pgSQL functions it replaces):'
SELECT form_uuid_v1('2022-02-22 19:22:22.123456+00', 666, '44:88:99:36:57:32') AS uuid;

\echo '2. Read the fields back out of any version-1 UUID, to the microsecond:'
SELECT uuid_v1_timestamp(u) AS "time", uuid_v1_clock_seq(u) AS clock_seq,
       uuid_v1_node(u) AS node, uuid_version(u) AS version
FROM (SELECT form_uuid_v1('2022-02-22 19:22:22.123456+00', 666, '44:88:99:36:57:32') AS u) s;

\echo '3. Other UUIDs are recognised, not misread: uuid_version tells them apart, the v1 decoders give NULL:'
SELECT u AS uuid, uuid_version(u) AS version, uuid_v1_timestamp(u) AS v1_time
FROM (VALUES (gen_random_uuid()),
             ('00000000-0000-0000-0000-000000000000'::uuid)) v(u);

\echo '4. Times a version-1 UUID cannot hold are refused with SQLSTATE 22008, never wrapped:'
\set ON_ERROR_STOP 0
\set VERBOSITY default
SELECT form_uuid_v1('1500-01-01 00:00:00+00', 0, '44:88:99:36:57:32');
\set ON_ERROR_STOP 1

\echo
\echo '5. Snowflake sequencers: 64-bit, time-ordered ids from shared memory, no lock, no round trip.'
\echo '   This server runs with idgen.node_id = 1. A sequencer with a custom epoch and 1024 nodes:'
SELECT snowflake_create('orders', epoch => '2024-01-01 00:00:00+00', max_nodes => 1024);
CREATE TABLE IF NOT EXISTS orders (id bigint PRIMARY KEY DEFAULT snowflake_next('orders'), item text);
INSERT INTO orders (item) VALUES ('tea'), ('coffee'), ('cake');
\echo '   Used as a column default; every id carries its millisecond, the node, and a counter:'
SELECT id, item, snowflake_timestamp('orders', id) AS "time", snowflake_node('orders', id) AS node,
       snowflake_counter('orders', id) AS counter
FROM orders ORDER BY id;

\echo '6. Strictly increasing, never repeated: a million ids in one statement:'
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids, bool_and(id > prev OR prev IS NULL) AS increasing
FROM (SELECT id, lag(id) OVER (ORDER BY i) AS prev
      FROM (SELECT i, snowflake_next('orders') AS id FROM generate_series(1, 1000000) i) s) t;

\echo '7. Time ranges become id ranges, so an index on id serves "the last hour":'
SELECT count(*) AS orders_in_the_last_hour
FROM orders WHERE id >= snowflake_min_id('orders', now() - interval '1 hour');

\echo '8. The sequencer as this server sees it:'
SELECT name, epoch, max_nodes, node_bits, counter_bits, node_id, state, ids_issued
FROM snowflake_sequencers;

\echo '9. Unknown names (42704) and bad definitions (22023) are clear errors:'
\set ON_ERROR_STOP 0
\set VERBOSITY default
\set SHOW_CONTEXT never
SELECT snowflake_next('no_such_sequencer');
SELECT snowflake_create('bad', max_nodes => 100000);
\set ON_ERROR_STOP 1
DROP TABLE orders;
SELECT snowflake_drop('orders');

\echo
\echo '10. Live version-1 UUIDs: 100 ns time, strictly increasing on this server, a random node'
\echo '    made once per data directory (no MAC address leaks):'
SELECT u AS uuid_v1, uuid_v1_timestamp(u) AS "time", uuid_v1_clock_seq(u) AS clock_seq, uuid_v1_node(u) AS node
FROM (SELECT uuid_v1() AS u FROM generate_series(1, 3)) s;

\echo '11. Locality UUIDs (Groupon, version digit b). Variable mode: the first characters change'
\echo '    fastest, so consecutive keys land on different shards; sequential mode keeps them together:'
SELECT locality_uuid() AS variable FROM generate_series(1, 4);
SELECT locality_uuid(true) AS sequential FROM generate_series(1, 4);
\echo '    Every field reads back; Groupon''s own published example:'
SELECT locality_uuid_counter(u) AS counter, locality_uuid_pid(u) AS pid, locality_uuid_mac(u) AS mac,
       locality_uuid_timestamp(u) AS "time"
FROM (VALUES ('20be0ffc-314a-bd53-7a50-013a65ca76d2'::uuid)) v(u);

\echo '12. Unique nanosecond timestamps (Chronicle): the last two digits are this server''s node id (1):'
SELECT t AS unique_timestamp, unique_timestamp_text(t) AS text, unique_timestamp_host(t) AS host
FROM (SELECT unique_timestamp() AS t FROM generate_series(1, 3)) s;

\echo
\echo '13. Retrospective ids for rows that already exist. 100,000 old events, in random'
\echo '    order, half of them sharing one timestamp (rows inserted in one transaction share now()):'
CREATE TABLE old_events AS
SELECT g AS n, CASE WHEN g % 2 = 0 THEN '2015-06-15 12:00:00.123456+00'::timestamptz
                    ELSE '2015-01-01 00:00:00+00'::timestamptz + g * interval '1 second 7 microseconds' END AS created_at
FROM generate_series(1, 100000) g ORDER BY random();
ALTER TABLE old_events ADD COLUMN id uuid;
\timing on
UPDATE old_events SET id = uuid_v1_at(created_at);
\timing off
\echo '    Every UUID is different, and each carries its row''s time to the microsecond:'
SELECT count(*) AS rows, count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE uuid_v1_timestamp(id) = created_at) AS exact_times
FROM old_events;
SELECT id, uuid_v1_timestamp(id) AS "time", uuid_v1_node(id) AS node FROM old_events ORDER BY n LIMIT 3;
\echo '    The same for a Snowflake sequencer that reserves its top 16 node ids for backfill;'
\echo '    new rows then get live ids from the node ids below:'
SELECT snowflake_create('events', '2010-01-01 00:00:00+00', max_nodes => 128, backfill_nodes => 16);
ALTER TABLE old_events ADD COLUMN sid bigint;
UPDATE old_events SET sid = snowflake_at('events', created_at);
SELECT count(DISTINCT sid) AS distinct_ids,
       count(*) FILTER (WHERE snowflake_timestamp('events', sid) = date_trunc('milliseconds', created_at)) AS exact_ms,
       min(snowflake_node('events', sid)) || '..' || max(snowflake_node('events', sid)) AS backfill_nodes_used,
       snowflake_node('events', snowflake_next('events')) AS live_node
FROM old_events;
DROP TABLE old_events;
SELECT snowflake_drop('events');

\echo
\echo '14. Layouts people already use, by name: Twitter''s, Discord''s, Sony''s Sonyflake (10 ms ticks),'
\echo '    and one whose ids stay below 2^53 for JavaScript; each says when its time field runs out:'
SELECT snowflake_create('tweets', preset => 'twitter'), snowflake_create('web', preset => 'javascript') \gset
SELECT name, epoch, max_nodes, layout, runs_out, snowflake_next(name) AS an_id FROM snowflake_sequencers
WHERE name IN ('tweets', 'web') ORDER BY name;
SELECT snowflake_drop('tweets'), snowflake_drop('web') \gset

\echo
\echo '15. An existing serial key moves to Snowflake ids in place, in one transaction: the integer'
\echo '    column widened (asked for), new ids above the old ones, the old sequence dropped:'
CREATE TABLE legacy (id serial PRIMARY KEY, name text);
INSERT INTO legacy (name) VALUES ('one'), ('two'), ('three');
SELECT * FROM snowflake_convert('legacy', 'id', widen => true);
INSERT INTO legacy (name) VALUES ('four');
SELECT id, name FROM legacy ORDER BY id;
DROP TABLE legacy;
SELECT snowflake_drop('legacy_id_seq') \gset

\echo
\echo '16. What a DBA reads first after a failover (idgen_state): this server''s role, the durable'
\echo '    horizon every id stays under and the WAL position that made it durable, how far each'
\echo '    generator runs ahead of the wall clock, waits and errors. The same state travels in WAL to'
\echo '    standbys (which refuse to generate, 25006) and in the table reserved_state through pg_dump:'
SELECT generator, role, durable_horizon, horizon_lsn, lead, waits, clock_errors, namespaces_leased
FROM idgen_state;

\echo
\echo 'Every function users call, with its description (\\df+ shows the same; idgen''s own'
\echo 'helpers are out of sight, in the schema idgen_internal):'
SELECT p.oid::regprocedure AS function, obj_description(p.oid, 'pg_proc') AS description
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'idgen')
  AND p.pronamespace = (SELECT extnamespace FROM pg_extension WHERE extname = 'idgen')
ORDER BY 1::text;
