-- Hostile input for every SQL function: NULLs, ±infinity, the edges of every range and one
-- past them, negative and huge numbers, empty and enormous names, UUIDs of every version and
-- variant, text that is almost a UUID. Each gets its documented result or SQLSTATE, and the
-- backend survives to print the table.
CREATE EXTENSION idgen;
SET timezone = 'UTC';
CREATE FUNCTION try(expr text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE result text;
BEGIN
    EXECUTE 'SELECT (' || expr || ')::text' INTO result;
    RETURN coalesce(result, 'NULL');
EXCEPTION WHEN others THEN
    RETURN 'ERROR ' || SQLSTATE;
END $$;
SELECT snowflake_create('h', '2020-01-01 00:00:00+00', 512);
SELECT snowflake_create('hb', '2020-01-01 00:00:00+00', 512, backfill_nodes => 1);
SELECT snowflake_create('name with "quotes" and ''apostrophes''', '2020-01-01 00:00:00+00', 1024);

SELECT expr, try(expr) AS result FROM (VALUES
    -- the codec: times at and past both ends, clock sequences at and past both ends
    ($$form_uuid_v1('-infinity', 0, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1('infinity', 0, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1('1582-10-15 00:00:00+00', 0, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1('1582-10-14 23:59:59.999999+00', 0, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1('5236-03-31 21:21:00.684697+00', 16383, 'ff:ff:ff:ff:ff:ff')$$),
    ($$form_uuid_v1('5236-03-31 21:21:00.684698+00', 0, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1('4714-11-24 00:00:00+00 BC', 0, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1('294276-12-31 23:59:59.999999+00', 0, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1(now(), -2147483648, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1(now(), 2147483647, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1(now(), 0, 'ff:ff:ff:ff:ff')$$),
    ($$form_uuid_v1(NULL, NULL, NULL)$$),
    -- readers over every version and variant
    ($$uuid_version('00000000-0000-0000-0000-000000000000')$$),
    ($$uuid_version('ffffffff-ffff-ffff-ffff-ffffffffffff')$$),
    ($$uuid_version('00000000-0000-8000-8000-000000000000')$$),
    ($$uuid_version('00000000-0000-f000-bfff-000000000000')$$),
    ($$uuid_version('00000000-0000-1000-7fff-000000000000')$$),
    ($$uuid_version('00000000-0000-1000-c000-000000000000')$$),
    ($$uuid_version('00000000-0000-1000-e000-000000000000')$$),
    ($$uuid_v1_timestamp('00000000-0000-1000-8000-000000000000')$$),
    ($$uuid_v1_timestamp('ffffffff-ffff-1fff-bfff-ffffffffffff')$$),
    ($$uuid_v1_timestamp('ffffffff-ffff-2fff-bfff-ffffffffffff')$$),
    ($$uuid_v1_clock_seq('ffffffff-ffff-1fff-bfff-ffffffffffff')$$),
    ($$uuid_v1_node('ffffffff-ffff-1fff-7fff-ffffffffffff')$$),
    ($$uuid_v1_timestamp('00000000-0000-1000-8000-00000000000')$$),
    ($$uuid_v1_timestamp('g0000000-0000-1000-8000-000000000000')$$),
    ($$uuid_v1_timestamp('')$$),
    -- Snowflake: names, ids and times at the edges
    ($$snowflake_next('')$$),
    ($$snowflake_next(repeat('n', 63))$$),
    ($$snowflake_next(repeat('n', 64))$$),
    ($$snowflake_next(repeat('n', 1000000))$$),
    ($$snowflake_next(E'h\n')$$),
    ($$snowflake_next('H')$$),
    ($$snowflake_next('name with "quotes" and ''apostrophes''') > 0$$),
    ($$snowflake_timestamp('h', 0)$$),
    ($$snowflake_timestamp('h', 9223372036854775807)$$),
    ($$snowflake_timestamp('h', -1)$$),
    ($$snowflake_timestamp('h', -9223372036854775808)$$),
    ($$snowflake_node('h', 9223372036854775807)$$),
    ($$snowflake_counter('h', 9223372036854775807)$$),
    ($$snowflake_min_id('h', '-infinity')$$),
    ($$snowflake_min_id('h', 'infinity')$$),
    ($$snowflake_min_id('h', '2020-01-01 00:00:00+00')$$),
    ($$snowflake_min_id('h', '2089-09-06 15:47:35.551+00')$$),
    ($$snowflake_min_id('h', '2089-09-06 15:47:35.552+00')$$),
    ($$snowflake_min_id('h', '294270-01-01 00:00:00+00')$$),
    ($$form_uuid_v1('294270-01-01 00:00:00+00', 0, '00:00:00:00:00:00')$$),
    -- retrospective ids: both ends of each time range and one past them, NULLs, reserved nodes
    ($$uuid_v1_timestamp(uuid_v1_at('1582-10-15 00:00:00+00'))$$),
    ($$uuid_v1_timestamp(uuid_v1_at('5236-03-31 21:21:00.684697+00'))$$),
    ($$uuid_v1_at('5236-03-31 21:21:00.684698+00')$$),
    ($$uuid_v1_at('infinity')$$),
    ($$uuid_v1_at(NULL)$$),
    ($$uuid_v1_node(uuid_v1_at(now(), 'ff:ff:ff:ff:ff:ff'))$$),
    ($$uuid_v1_at(now(), '03:ff:ff:ff:ff:ff')$$),
    ($$uuid_v1_at(now(), NULL)$$),
    ($$snowflake_at('hb', '2020-01-01 00:00:00+00')$$),
    ($$snowflake_at('hb', '2089-09-06 15:47:35.551+00')$$),
    ($$snowflake_at('hb', '2089-09-06 15:47:35.552+00')$$),
    ($$snowflake_at('hb', '2019-12-31 23:59:59.999+00')$$),
    ($$snowflake_at('hb', '-infinity')$$),
    ($$snowflake_at('hb', NULL)$$),
    ($$snowflake_at(NULL, now())$$),
    ($$snowflake_at('h', now())$$),
    ($$snowflake_at('', now())$$),
    ($$snowflake_at(repeat('x', 100000), now())$$),
    ($$snowflake_create('e', '2020-01-01 00:00:00+00', 128, 128)$$),
    ($$snowflake_create('e', '2020-01-01 00:00:00+00', 128, 2147483647)$$),
    ($$snowflake_create('e', '294276-12-31 23:59:59+00')$$),
    ($$snowflake_create('e', '4714-11-24 00:00:00+00 BC')$$),
    ($$snowflake_create('e', '2020-01-01 00:00:00+00', -2147483648)$$),
    ($$snowflake_create('e', '2020-01-01 00:00:00+00', 2147483647)$$),
    ($$snowflake_create('e', '2020-01-01 00:00:00+00', -1)$$),
    ($$snowflake_drop('')$$),
    ($$snowflake_drop(NULL)$$),
    -- locality readers
    ($$locality_uuid_counter('20be0ffc-314a-bd53-7a50-013a65ca76d2')$$),
    ($$locality_uuid_counter('ffffffff-ffff-bfff-ffff-ffffffffffff')$$),
    ($$locality_uuid_timestamp('ffffffff-ffff-bfff-ffff-ffffffffffff')$$),
    ($$locality_uuid_mac('00000000-0000-b000-0000-000000000000')$$),
    ($$locality_uuid_pid('00000000-0000-0000-0000-000000000000')$$),
    ($$locality_uuid_counter('ffffffff-ffff-afff-ffff-ffffffffffff')$$),
    ($$locality_uuid(NULL)$$),
    -- unique timestamp readers
    ($$unique_timestamp_text(0)$$),
    ($$unique_timestamp_text(9223372036854775807)$$),
    ($$unique_timestamp_text(-1)$$),
    ($$unique_timestamp_text(-9223372036854775808)$$),
    ($$unique_timestamp_host(9223372036854775807)$$),
    ($$unique_timestamp_to_timestamptz(9223372036854775807)$$),
    ($$unique_timestamp_to_timestamptz(-1)$$)
) v(expr);

SELECT 'the backend is still here' AS survived;
SELECT snowflake_drop('h');
DROP FUNCTION try(text);
DROP EXTENSION idgen;
