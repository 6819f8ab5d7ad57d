-- snowcast's exact layout per sequencer (layout => 'snowcast') beside idgen's default: the same
-- (millisecond, node, counter) in both, decoded as snowcast decodes it; ids with the top bit set
-- (negative bigints); min_id across the sign; the errors. idgen.node_id is 300.
CREATE EXTENSION idgen;
SET timezone = 'UTC';

SELECT snowflake_create('wide', '2020-01-01 00:00:00+00', 128, layout => 'snowcast');
SELECT snowflake_create('wide', '2020-01-01 00:00:00+00', 128, 0, 'snowcast');  -- the same: nothing
SELECT snowflake_create('ours', '2020-01-01 00:00:00+00', 128);
SELECT name, max_nodes, layout, node_bits, counter_bits FROM snowflake_sequencers ORDER BY name;
SELECT name, layout FROM snowflake_definitions ORDER BY name;

-- epochDelta 1, node 1, counter 1: 1 << 23 | 1 << 16 | 1 = 8454145 in snowcast's layout,
-- 1 << 22 | 1 << 15 | 1 = 4227073 in idgen's; each decodes to the same three fields.
SELECT name, id, snowflake_timestamp(name, id) AS ts, snowflake_node(name, id) AS node,
       snowflake_counter(name, id) AS counter
FROM (VALUES ('wide', (1::bigint << 23) | (1 << 16) | 1), ('ours', (1::bigint << 22) | (1 << 15) | 1)) v(name, id);
SELECT (1::bigint << 23) | (1 << 16) | 1 AS wide_formula, (1::bigint << 22) | (1 << 15) | 1 AS idgen_formula;

-- snowcast's own example (its README): epoch 2014-01-01, 2014-03-03 05:12:12 (epochDelta
-- 5,289,132,000), node 1234 of 8192, counter 5, in both layouts.
SELECT snowflake_create('wide2014', '2014-01-01 00:00:00+00', 8192, layout => 'snowcast');
SELECT snowflake_create('ours2014', '2014-01-01 00:00:00+00', 8192);
SELECT name, id, snowflake_timestamp(name, id) AS ts, snowflake_node(name, id) AS node,
       snowflake_counter(name, id) AS counter
FROM (VALUES ('wide2014', (5289132000::bigint << 23) | (1234 << 10) | 5),
             ('ours2014', (5289132000::bigint << 22) | (1234 << 9) | 5)) v(name, id);

-- A negative id: millisecond 2^40 + 7 (34.8 years after the epoch), node 127, counter 65535.
SELECT snowflake_timestamp('wide', -9223372036787666945) AS ts, snowflake_node('wide', -9223372036787666945) AS node,
       snowflake_counter('wide', -9223372036787666945) AS counter;
SELECT snowflake_timestamp('wide', -1) AS last_ms, snowflake_node('wide', -1) AS node, snowflake_counter('wide', -1) AS counter;
SELECT snowflake_node('ours', -1);
\echo :LAST_ERROR_SQLSTATE

-- Flipping the top bit (# is XOR) turns the ids' unsigned order, their time order, into bigint order.
SELECT 8454145 < -9223372036787666945 AS bigint_order,
       8454145 # '-9223372036854775808'::bigint < -9223372036787666945 # '-9223372036854775808'::bigint AS flipped_order;

-- min_id: the first id of the millisecond; from 2^40 ms on it is negative.
SELECT snowflake_min_id('wide', '2020-01-01 00:00:00.001+00') AS one_ms,
       snowflake_min_id('wide', snowflake_timestamp('wide', -9223372036854775808)) AS first_negative_ms,
       snowflake_min_id('wide', snowflake_timestamp('wide', -9223372036854775808) - interval '1 ms') AS last_positive_ms,
       snowflake_min_id('wide', '2019-12-31 23:59:59+00') AS before_epoch;

-- Live ids in snowcast's layout: 512 nodes, 9 node bits, 14 counter bits; node 300.
SELECT snowflake_create('live', '2020-01-01 00:00:00+00', 512, layout => 'snowcast');
CREATE TEMP TABLE drawn AS SELECT i, snowflake_next('live') AS id, clock_timestamp() AS at FROM generate_series(1, 20000) i;
SELECT count(DISTINCT id) AS distinct_ids,
       bool_and(id > prev OR prev IS NULL) AS increasing,
       bool_and((id >> 14) & 511 = 300 AND snowflake_node('live', id) = 300) AS node_300,
       bool_and(snowflake_counter('live', id) = id & 16383) AS counter_in_14_bits,
       bool_and(snowflake_timestamp('live', id) = '2020-01-01 00:00:00+00'::timestamptz + (id >> 23) * interval '1 ms') AS time_is_id_shifted_23,
       bool_and(snowflake_timestamp('live', id) BETWEEN at - interval '6 seconds' AND at + interval '6 seconds') AS time_near_clock
FROM (SELECT id, at, lag(id) OVER (ORDER BY i) AS prev FROM drawn) d;

-- An epoch more than 34.8 years back: every id has the top bit set.
SELECT snowflake_create('old', '1970-01-01 00:00:00+00', 512, layout => 'snowcast');
SELECT id < 0 AS negative, snowflake_node('old', id) AS node,
       snowflake_timestamp('old', id) BETWEEN now() - interval '1 minute' AND clock_timestamp() + interval '6 seconds' AS time_near_clock,
       id >= snowflake_min_id('old', now() - interval '1 minute') AS above_min_id
FROM (SELECT snowflake_next('old') AS id) s;

-- Retrospective ids follow the layout: 512 nodes, the top 16 reserved.
SELECT snowflake_create('back', '2020-01-01 00:00:00+00', 512, 16, 'snowcast');
SELECT snowflake_timestamp('back', id) AS ts, snowflake_node('back', id) AS node, snowflake_counter('back', id) AS counter,
       id >> 23 = 86400000 AS ms_in_top_41_bits
FROM (SELECT snowflake_at('back', '2020-01-02 00:00:00+00') AS id) s;

-- Errors: an unknown layout (22023), an unknown preset (22023), the same name with another layout (42710).
SELECT snowflake_create('bad', layout => 'twitter');
\echo :LAST_ERROR_SQLSTATE
SELECT snowflake_create('bad', layout => 'Snowcast');
\echo :LAST_ERROR_SQLSTATE
SELECT snowflake_create('bad', preset => 'Twitter');
\echo :LAST_ERROR_SQLSTATE
SELECT snowflake_create('wide', '2020-01-01 00:00:00+00', 128);
\echo :LAST_ERROR_SQLSTATE
SELECT snowflake_create('ours', '2020-01-01 00:00:00+00', 128, layout => 'snowcast');
\echo :LAST_ERROR_SQLSTATE
SELECT count(*) AS sequencers FROM snowflake_definitions;
DROP EXTENSION idgen;
