-- Snowflake sequencers: snowflake_create/drop/next, the decoders, the view, privileges and
-- every error. The test server runs with idgen preloaded and idgen.node_id = 300.
CREATE EXTENSION idgen;
SET timezone = 'UTC';
SHOW idgen.node_id;

-- Definitions: defaults, idempotent re-creation, max_nodes rounded up to a power of two.
SELECT snowflake_create('orders');
SELECT snowflake_create('orders');
SELECT snowflake_create('orders', '2020-01-01 00:00:00+00', 8192);
SELECT snowflake_create('events', '2024-06-01 12:00:00+00', 1000);
SELECT snowflake_create('small', '2024-01-01 00:00:00+00', 256);
SELECT snowflake_create(repeat('n', 63), '2024-01-01 00:00:00+00', 128);
SELECT name, epoch, max_nodes, node_bits, counter_bits, node_id, state, ids_issued, last_id_time
FROM snowflake_sequencers ORDER BY name;

-- Generation: unique and strictly increasing in call order, carrying node 300 and the time.
CREATE TEMP TABLE drawn AS
SELECT i, snowflake_next('orders') AS id, clock_timestamp() AS at FROM generate_series(1, 100000) i;
SELECT count(*) AS ids, count(DISTINCT id) AS distinct_ids,
       bool_and(id > prev OR prev IS NULL) AS strictly_increasing,
       bool_and(snowflake_node('orders', id) = 300) AS node_300,
       bool_and(snowflake_timestamp('orders', id) BETWEEN at - interval '6 seconds' AND at + interval '6 seconds') AS time_near_clock,
       bool_and(snowflake_counter('orders', id) BETWEEN 0 AND 511) AS counter_in_9_bits
FROM (SELECT id, at, lag(id) OVER (ORDER BY i) AS prev FROM drawn) d;
SELECT ids_issued >= 100000 AS counted, last_id_time IS NOT NULL AS has_last_time
FROM snowflake_sequencers WHERE name = 'orders';

-- As a column default.
CREATE TABLE orders (id bigint PRIMARY KEY DEFAULT snowflake_next('orders'), item text);
INSERT INTO orders (item) SELECT 'item ' || g FROM generate_series(1, 1000) g;
SELECT count(*), count(DISTINCT id), min(id) > (SELECT max(id) FROM drawn) AS after_earlier_ids FROM orders;

-- Layout for 1024 nodes: 10 node bits, 12 counter bits; decoding is exact.
SELECT snowflake_node('events', id) AS node, snowflake_counter('events', id) AS counter,
       snowflake_timestamp('events', id) AS ts
FROM (VALUES ((123456789::bigint << 22) | (300 << 12) | 4095)) v(id);
SELECT snowflake_timestamp('events', 0) AS epoch_itself;

-- min_id: a lower bound for every id of that millisecond and later; 0 before the epoch.
SELECT snowflake_min_id('orders', now() - interval '1 day') < min(id) AS below_today,
       snowflake_min_id('orders', now() + interval '1 day') > max(id) AS above_today
FROM drawn;
SELECT snowflake_min_id('events', '2024-06-01 12:00:00.001+00') AS one_ms_after_epoch,
       snowflake_min_id('events', '2000-01-01 00:00:00+00') AS before_epoch,
       snowflake_min_id('events', '-infinity') AS minus_infinity;
EXPLAIN (COSTS OFF) SELECT * FROM orders WHERE id >= snowflake_min_id('orders', '2026-01-01 00:00:00+00');

-- NULL in, NULL out.
SELECT snowflake_next(NULL) IS NULL AS a, snowflake_timestamp(NULL, 1) IS NULL AS b,
       snowflake_node('orders', NULL) IS NULL AS c, snowflake_min_id('orders', NULL) IS NULL AS d;

\set VERBOSITY sqlstate
-- Bad definitions: 22023; a NULL name or backfill_nodes: 22004 (a NULL epoch, max_nodes or layout
-- is one not given: snowflake_presets.sql); a different definition of an existing name: 42710.
SELECT snowflake_create('bad', '2020-01-01 00:00:00+00', 127);
SELECT snowflake_create('bad', '2020-01-01 00:00:00+00', 8193);
SELECT snowflake_create('bad', '2020-01-01 00:00:00+00', -1);
SELECT snowflake_create('bad', now() + interval '1 day');
SELECT snowflake_create('bad', '2020-01-01 00:00:00.0005+00');
SELECT snowflake_create('bad', '1900-01-01 00:00:00+00');
SELECT snowflake_create('bad', 'infinity');
SELECT snowflake_create('bad', '-infinity');
SELECT snowflake_create('', '2020-01-01 00:00:00+00');
SELECT snowflake_create(repeat('n', 64), '2020-01-01 00:00:00+00');
SELECT snowflake_create(NULL);
SELECT snowflake_create('bad', backfill_nodes => NULL);
SELECT snowflake_create('orders', '2021-01-01 00:00:00+00');
SELECT snowflake_create('orders', '2020-01-01 00:00:00+00', 4096);
SELECT count(*) AS nothing_half_created FROM snowflake_definitions WHERE name = 'bad';
-- Unknown names: 42704, also for enormous names.
SELECT snowflake_next('nope');
SELECT snowflake_next('');
SELECT snowflake_next(repeat('x', 100000));
SELECT snowflake_timestamp('nope', 1);
SELECT snowflake_node('nope', 1);
SELECT snowflake_counter('nope', 1);
SELECT snowflake_min_id('nope', now());
SELECT snowflake_drop('nope');
-- Negative ids are not Snowflake ids: 22003; times past the 41-bit field: 22008.
SELECT snowflake_timestamp('orders', -1);
SELECT snowflake_node('orders', -9223372036854775808);
SELECT snowflake_min_id('orders', 'infinity');
SELECT snowflake_min_id('orders', '2090-01-01 00:00:00+00');
-- A sequencer whose node bits cannot hold node 300 is detached: 55000.
SELECT snowflake_next('small');
\set VERBOSITY default
SELECT snowflake_next('small');
SELECT snowflake_create('orders', '2021-01-01 00:00:00+00');
\set VERBOSITY sqlstate

-- Drop: gone at once; re-created, it starts above every id the old one handed out.
SELECT max(id) AS old_max FROM drawn \gset
SELECT snowflake_drop('orders');
SELECT snowflake_next('orders');
SELECT snowflake_create('orders');
SELECT snowflake_next('orders') > :old_max AS above_old_ids;
-- New sequencers do not push each other ahead of the clock: each starts above the ids from
-- before the server started and those of dropped sequencers, not above the moving horizon.
DO $$
BEGIN
    FOR i IN 1..8 LOOP
        PERFORM snowflake_create('fresh' || i, max_nodes => 512);
        PERFORM snowflake_next('fresh' || i);
        PERFORM snowflake_drop('fresh' || i);
        PERFORM snowflake_create('fresh' || i, max_nodes => 512);
    END LOOP;
END $$;
SELECT max(snowflake_timestamp('fresh' || i, snowflake_next('fresh' || i)) - clock_timestamp()) < interval '2 seconds' AS near_the_clock
FROM generate_series(1, 8) i;
BEGIN;
SELECT snowflake_drop('events');
ROLLBACK;
SELECT snowflake_next('events') > 0 AS survives_rolled_back_drop;

-- Privileges: defining is not granted to PUBLIC, generating and reading are.
CREATE ROLE idgen_app;
SET ROLE idgen_app;
SELECT snowflake_next('events') > 0 AS app_can_generate;
SELECT count(*) > 0 AS app_can_read FROM snowflake_sequencers;
SELECT snowflake_create('mine');
SELECT snowflake_drop('events');
INSERT INTO snowflake_definitions (name, epoch, max_nodes) VALUES ('mine', now(), 128);
DELETE FROM snowflake_definitions;
RESET ROLE;
DROP ROLE idgen_app;
\set VERBOSITY default

-- Upgrade path: 0.1.0 then ALTER EXTENSION UPDATE (through every upgrade script) gives what CREATE EXTENSION gives.
DROP TABLE orders;
DROP EXTENSION idgen;
CREATE EXTENSION idgen VERSION '0.1.0';
SELECT extversion FROM pg_extension WHERE extname = 'idgen';
ALTER EXTENSION idgen UPDATE;
SELECT extversion FROM pg_extension WHERE extname = 'idgen';
SELECT snowflake_create('after_upgrade');
SELECT snowflake_next('after_upgrade') > 0 AS works;
-- A re-created extension numbers its definitions from 1 again: still a new sequencer.
DROP EXTENSION idgen;
CREATE EXTENSION idgen;
SELECT snowflake_create('after_upgrade');
SELECT snowflake_next('after_upgrade') > 0 AS works_again;
DROP EXTENSION idgen;
