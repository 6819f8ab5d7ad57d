-- Tables partitioned by the time inside their ids: bounds from idgen's own functions, rows routed
-- by the time in their id (backfill and column defaults), a default partition, pruning at plan
-- time (constant bounds) and at executor start (bounds from now()), and the immutable decoders
-- in generated columns; for Snowflake ids and version-7 and version-6 UUIDs. Which partitions a
-- query scans is read from EXPLAIN's JSON (the same on every PostgreSQL version, unlike its text).
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
-- An epoch off a millisecond counts from the millisecond before it, towards the past, as every
-- layout rounds times (before 1970 as after).
SELECT snowflake_timestamp(1, '1969-12-31 23:59:59.9995+00') AS before_1970, snowflake_timestamp(1, '2020-01-01 00:00:00.0005+00') AS after_1970;
\set VERBOSITY sqlstate
SELECT snowflake_min_id('2090-01-01', '2020-01-01', 512);
SELECT snowflake_min_id('2026-03-02', '2020-01-01', 100);
SELECT snowflake_min_id('2026-03-02', 'infinity', 512);
SELECT snowflake_timestamp(1, '2020-01-01', 512, 'twitter');
-- An epoch so late that an id's time is past PostgreSQL's last timestamp: an error, not a value
-- PostgreSQL cannot hold.
SELECT snowflake_timestamp(9223372036854775807, '294276-01-01 00:00:00+00');
\set VERBOSITY default
-- A long name in a message is cut at a character's edge, so the message stays valid text.
SELECT snowflake_timestamp(1, '2020-01-01', 512, repeat('€', 30));

-- ---- Version-7 and version-6 UUIDs -----------------------------------------------------------
-- One recipe for both: a uuid-keyed table partitioned by day over 2026-03-01 and 2026-03-02 with
-- a default partition, bounds from `bound` (uuid_v7_min, uuid_v6_min), ids by default from
-- `generator`, id_time decoded by `decoder`; rows backfilled by `backfill` at the edges of the
-- days (the last microsecond of a day and the first of the next), and one live row.
CREATE FUNCTION daily_uuid_table(name text, generator text, decoder text, bound text, backfill text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    day date;
BEGIN
    EXECUTE format('CREATE TABLE %I (id uuid NOT NULL DEFAULT %s(), created_at timestamptz NOT NULL,
                    id_time timestamptz GENERATED ALWAYS AS (%s(id)) STORED) PARTITION BY RANGE (id)',
                   name, generator, decoder);
    FOREACH day IN ARRAY ARRAY['2026-03-01', '2026-03-02']::date[] LOOP
        EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%s(%L)) TO (%s(%L))',
                       name || '_' || to_char(day, 'YYYYMMDD'), name, bound, day::timestamptz, bound, (day + 1)::timestamptz);
    END LOOP;
    EXECUTE format('CREATE TABLE %I PARTITION OF %I DEFAULT', name || '_other', name);
    EXECUTE format($i$INSERT INTO %I (id, created_at) SELECT %s(t), t
                   FROM unnest('{2026-02-28 23:59:59.999999+00, 2026-03-01 00:00:00+00, 2026-03-01 23:59:59.999999+00,
                                 2026-03-02 00:00:00+00, 2026-03-02 23:59:59.999999+00, 2026-03-03 00:00:00+00}'::timestamptz[]) t$i$,
                   name, backfill);
    EXECUTE format('INSERT INTO %I (created_at) VALUES (now())', name);
END $$;
-- Where each row went, in time order; the live row (created now, shown without its time) last.
CREATE FUNCTION routed(tbl regclass) RETURNS TABLE (partition regclass, created_at timestamptz, id_time_is_created_at boolean)
LANGUAGE plpgsql AS $$
BEGIN
    RETURN QUERY EXECUTE format($q$SELECT tableoid::regclass, created_at, id_time = created_at FROM %s
                                   WHERE created_at < '2026-03-04' ORDER BY created_at$q$, tbl);
    RETURN QUERY EXECUTE format($q$SELECT tableoid::regclass, NULL::timestamptz, id_time BETWEEN now() - interval '1 minute' AND now()
                                   FROM %s WHERE created_at >= '2026-03-04'$q$, tbl);
END $$;

SELECT daily_uuid_table('events', 'uuid_v7', 'uuid_v7_timestamp', 'uuid_v7_min', 'uuid_v7_at');
SELECT * FROM routed('events');
SELECT scanned($$SELECT * FROM events WHERE id >= uuid_v7_min('2026-03-01') AND id < uuid_v7_min('2026-03-02')$$);
SELECT scanned($$SELECT * FROM events WHERE id >= uuid_v7_min(now() - interval '1 hour')$$);

-- Version 6: a version-1 table converted with uuid_v1_to_v6 is partitioned by its time too.
SELECT daily_uuid_table('legacy', 'uuid_v6', 'uuid_v6_timestamp', 'uuid_v6_min', 'uuid_v6_at');
INSERT INTO legacy (id, created_at) VALUES (uuid_v1_to_v6(uuid_v1_at('2026-03-02 06:00:00+00')), '2026-03-02 06:00:00+00');
SELECT * FROM routed('legacy');
SELECT scanned($$SELECT * FROM legacy WHERE id >= uuid_v6_min('2026-03-02') AND id < uuid_v6_min('2026-03-03')$$);
SELECT scanned($$SELECT * FROM legacy WHERE id >= uuid_v6_min(now() - interval '1 hour')$$);

DROP TABLE orders, events, legacy;
DROP FUNCTION scanned(text), daily_uuid_table(text, text, text, text, text), routed(regclass);
DROP EXTENSION idgen;
