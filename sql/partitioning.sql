-- Tables partitioned by the time inside their ids: bounds from idgen's own functions, rows routed
-- by the time in their id (backfill and column defaults), a default partition, pruning at plan
-- time (constant bounds) and at executor start (bounds from now()), and the immutable decoders
-- in generated columns. Which partitions a query scans is read from EXPLAIN's JSON (the same on
-- every PostgreSQL version, unlike its text).
CREATE EXTENSION idgen;
SET timezone = 'UTC';
CREATE FUNCTION scanned(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    plan jsonb;
    rels text;
    removed int;
BEGIN
    EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF) ' || query INTO plan;
    SELECT string_agg(DISTINCT r #>> '{}', ', ') INTO rels FROM jsonb_path_query(plan, 'strict $.**."Relation Name"') r;
    SELECT coalesce(sum((x #>> '{}')::int), 0) INTO removed FROM jsonb_path_query(plan, 'strict $.**."Subplans Removed"') x;
    RETURN rels || ' (' || removed || ' removed at executor start)';
END $$;

-- ---- Snowflake ids ------------------------------------------------------------------------------
SELECT snowflake_create('parts', '2020-01-01', max_nodes => 512, backfill_nodes => 8) \g /dev/null
-- The layout given explicitly gives what the sequencer's name gives, and can be IMMUTABLE.
SELECT snowflake_min_id('parts', t) = snowflake_min_id(t, '2020-01-01', 512) AS same_min_id,
       snowflake_timestamp('parts', snowflake_at('parts', t)) = snowflake_timestamp(snowflake_at('parts', t), '2020-01-01', 512) AS same_time
FROM (VALUES ('2026-03-01 00:00:00+00'::timestamptz), ('2026-03-01 12:34:56.789+00')) v(t);
SELECT provolatile, count(*) FROM pg_proc WHERE proname IN ('snowflake_timestamp', 'snowflake_min_id') GROUP BY 1 ORDER BY 1;

CREATE TABLE orders (
    id bigint NOT NULL,
    created_at timestamptz NOT NULL,
    id_time timestamptz GENERATED ALWAYS AS (snowflake_timestamp(id, '2020-01-01', 512)) STORED
) PARTITION BY RANGE (id);
CREATE TABLE orders_20260301 PARTITION OF orders
    FOR VALUES FROM (snowflake_min_id('2026-03-01', '2020-01-01', 512)) TO (snowflake_min_id('2026-03-02', '2020-01-01', 512));
CREATE TABLE orders_20260302 PARTITION OF orders
    FOR VALUES FROM (snowflake_min_id('2026-03-02', '2020-01-01', 512)) TO (snowflake_min_id('2026-03-03', '2020-01-01', 512));
CREATE TABLE orders_other PARTITION OF orders DEFAULT;
-- Backfilled rows land in the partition of their day, at the edges too: the last millisecond of
-- a day in that day's, the first of the next in the next's.
INSERT INTO orders (id, created_at)
SELECT snowflake_at('parts', t), t
FROM (VALUES ('2026-02-28 23:59:59.999+00'::timestamptz), ('2026-03-01 00:00:00+00'), ('2026-03-01 23:59:59.999+00'),
             ('2026-03-02 00:00:00+00'), ('2026-03-02 12:00:00+00'), ('2026-03-02 23:59:59.999+00'),
             ('2026-03-03 00:00:00+00')) v(t);
-- Live ids through the column default land in the partition of now: here the default one.
ALTER TABLE orders ALTER COLUMN id SET DEFAULT snowflake_next('parts');
INSERT INTO orders (created_at) VALUES (now());
SELECT tableoid::regclass AS partition, created_at, id_time = created_at AS id_time_is_created_at
FROM orders WHERE created_at < '2026-03-04' ORDER BY created_at;
SELECT tableoid::regclass AS partition, id_time BETWEEN now() - interval '1 minute' AND now() + interval '1 minute' AS live_time
FROM orders WHERE created_at > '2026-03-04';
-- Plan time: constant bounds (immutable functions) prune to the day's partition.
SELECT scanned($$SELECT * FROM orders WHERE id >= snowflake_min_id('2026-03-02', '2020-01-01', 512)
                                        AND id < snowflake_min_id('2026-03-03', '2020-01-01', 512)$$);
-- Executor start: the sequencer's name (stable) or now() leave the bound to run time; the
-- partitions outside it are removed before the scan.
SELECT scanned($$SELECT * FROM orders WHERE id >= snowflake_min_id('parts', '2026-03-02')
                                        AND id < snowflake_min_id('parts', '2026-03-03')$$);
SELECT scanned($$SELECT * FROM orders WHERE id >= snowflake_min_id(now() - interval '1 hour', '2020-01-01', 512)$$);
-- A bound before the epoch is the smallest id (0); past the layout's 41 bits of milliseconds
-- (69.7 years), or with a layout that cannot be, an error rather than a silent partition.
SELECT snowflake_min_id('2019-12-31', '2020-01-01', 512);
\set VERBOSITY sqlstate
SELECT snowflake_min_id('2090-01-01', '2020-01-01', 512);
SELECT snowflake_min_id('2026-03-02', '2020-01-01', 100);
SELECT snowflake_min_id('2026-03-02', 'infinity', 512);
SELECT snowflake_timestamp(1, '2020-01-01', 512, 'twitter');
\set VERBOSITY default

-- ---- Version-7 UUIDs ----------------------------------------------------------------------------
CREATE TABLE events (
    id uuid NOT NULL DEFAULT uuid_v7(),
    created_at timestamptz NOT NULL,
    id_time timestamptz GENERATED ALWAYS AS (uuid_v7_timestamp(id)) STORED
) PARTITION BY RANGE (id);
CREATE TABLE events_20260301 PARTITION OF events FOR VALUES FROM (uuid_v7_min('2026-03-01')) TO (uuid_v7_min('2026-03-02'));
CREATE TABLE events_20260302 PARTITION OF events FOR VALUES FROM (uuid_v7_min('2026-03-02')) TO (uuid_v7_min('2026-03-03'));
CREATE TABLE events_other PARTITION OF events DEFAULT;
INSERT INTO events (id, created_at)
SELECT uuid_v7_at(t), t
FROM (VALUES ('2026-02-28 23:59:59.999999+00'::timestamptz), ('2026-03-01 00:00:00+00'), ('2026-03-01 23:59:59.999999+00'),
             ('2026-03-02 00:00:00+00'), ('2026-03-02 23:59:59.999999+00'), ('2026-03-03 00:00:00+00')) v(t);
INSERT INTO events (created_at) VALUES (now());
SELECT tableoid::regclass AS partition, created_at, id_time = created_at AS id_time_is_created_at
FROM events WHERE created_at < '2026-03-04' ORDER BY created_at;
SELECT tableoid::regclass AS partition FROM events WHERE created_at >= '2026-03-04';
SELECT scanned($$SELECT * FROM events WHERE id >= uuid_v7_min('2026-03-01') AND id < uuid_v7_min('2026-03-02')$$);
SELECT scanned($$SELECT * FROM events WHERE id >= uuid_v7_min(now() - interval '1 hour')$$);

DROP TABLE orders, events;
DROP FUNCTION scanned(text);
DROP EXTENSION idgen;
