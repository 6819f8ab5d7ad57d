-- Version-7 UUIDs: uuid_v7(), uuid_v7_at(ts), uuid_v7_timestamp(u), uuid_v7_min(ts); the
-- layout against RFC 9562, the exact microsecond, range edges, errors, and uuid_v7_min as an
-- index range and a partition bound.
CREATE EXTENSION idgen;
SET timezone = 'UTC';

-- RFC 9562 appendix A.6: 017F22E2-79B0-7CC3-98C4-DC0C0C07398F, 2022-02-22 14:22:22 -05:00
-- (its 12 bits after the version, 0xCC3, read as a fraction: 797 us into the millisecond).
SELECT uuid_v7_timestamp('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'),
       uuid_version('017f22e2-79b0-7cc3-98c4-dc0c0c07398f');

-- Other versions and variants: NULL; NULL in, NULL out.
SELECT u, uuid_v7_timestamp(u)
FROM (VALUES (uuid '00000000-0000-0000-0000-000000000000'),
             (uuid 'ffffffff-ffff-ffff-ffff-ffffffffffff'),
             (uuid 'c232ab00-9414-11ec-b3c8-9f6bdeced846'),
             (uuid '017f22e2-79b0-7cc3-18c4-dc0c0c07398f'),
             (uuid '017f22e2-79b0-6cc3-98c4-dc0c0c07398f')) v(u);
SELECT uuid_v7_timestamp(NULL), uuid_v7_min(NULL);
SELECT 'not-a-uuid'::uuid;

-- uuid_v7_at: the embedded time is exactly ts, for every microsecond of a millisecond, and the
-- UUIDs are distinct (any number per timestamp).
SELECT count(*) AS microseconds,
       count(*) FILTER (WHERE uuid_v7_timestamp(u) = ts) AS exact,
       count(DISTINCT u) AS distinct_uuids,
       count(*) FILTER (WHERE uuid_version(u) = 7) AS version_7
FROM (SELECT ts, uuid_v7_at(ts) AS u
      FROM generate_series(timestamptz '2024-02-29 23:59:59.999+00',
                           timestamptz '2024-03-01 00:00:00.000999+00', interval '1 microsecond') ts) s;
SELECT count(DISTINCT u) AS uuids_of_one_microsecond,
       min(uuid_v7_timestamp(u)) = max(uuid_v7_timestamp(u)) AS all_at_ts
FROM (SELECT uuid_v7_at('1999-12-31 23:59:59.999999+00') AS u FROM generate_series(1, 100000)) s;

-- Range edges: 1970-01-01 .. 10889-08-02 05:31:50.655999 UTC; outside, 22008; NULL, 22004. (The
-- time and the retrospective bit only: the namespace and offset after them depend on which
-- namespace this session was lent, which earlier sessions may have used.)
SELECT left(uuid_v7_at(ts)::text, 20) AS time_and_kind, uuid_v7_timestamp(uuid_v7_at(ts)) = ts AS exact
FROM (VALUES (timestamptz '1970-01-01 00:00:00+00'), (timestamptz '10889-08-02 05:31:50.655999+00')) v(ts);
\set VERBOSITY sqlstate
SELECT uuid_v7_at('1969-12-31 23:59:59.999999+00');
SELECT uuid_v7_at('10889-08-02 05:31:50.656+00');
SELECT uuid_v7_at('infinity');
SELECT uuid_v7_at(NULL);
SELECT uuid_v7_min('10889-08-02 05:31:50.656+00');
\set VERBOSITY default
SELECT uuid_v7_at(NULL);
SELECT uuid_v7_at('-infinity');

-- uuid_v7(): version 7, RFC variant, strictly increasing in call order, its time the wall
-- clock's (within the lead it may run ahead), never equal to a retrospective UUID.
CREATE TABLE live AS SELECT i, uuid_v7() AS u, clock_timestamp() AS t FROM generate_series(1, 100000) i;
SELECT count(*) FILTER (WHERE u <= lag_u) AS not_increasing,
       count(*) FILTER (WHERE uuid_version(u) <> 7 OR (get_byte(uuid_send(u), 8) >> 6) <> 2) AS wrong_bits,
       count(*) FILTER (WHERE uuid_v7_timestamp(u) > t + interval '5 seconds'
                           OR uuid_v7_timestamp(u) < t - interval '5 seconds') AS far_from_the_clock
FROM (SELECT u, t, lag(u) OVER (ORDER BY i) AS lag_u FROM live) s;
SELECT count(*) AS live_equal_to_retrospective
FROM live JOIN (SELECT uuid_v7_at(t) AS u FROM live) b USING (u);
-- The first bit after the variant tells live (0) from retrospective (1) UUIDs; node id 300
-- (test/idgen-test.conf) follows.
SELECT (get_byte(uuid_send(u), 8) >> 5) & 1 AS retrospective_bit,
       ((get_byte(uuid_send(u), 8) & 1) << 12) | (get_byte(uuid_send(u), 9) << 4) | (get_byte(uuid_send(u), 10) >> 4) AS node_id
FROM (SELECT uuid_v7() AS u) s;
SELECT (get_byte(uuid_send(u), 8) >> 5) & 1 AS retrospective_bit,
       ((get_byte(uuid_send(u), 8) & 31) << 8) | get_byte(uuid_send(u), 9) AS node_id
FROM (SELECT uuid_v7_at('2001-01-01 00:00:00+00') AS u) s;

-- uuid_v7_min: id >= uuid_v7_min(ts) exactly when uuid_v7_timestamp(id) >= ts.
SELECT uuid_v7_min('2022-02-22 19:22:22.000797+00') AS rfc_example_min,
       uuid_v7_min('2022-02-22 19:22:22.000797+00') <= '017f22e2-79b0-7cc3-98c4-dc0c0c07398f' AS example_above,
       uuid_v7_min('2022-02-22 19:22:22.000798+00') > '017f22e2-79b0-7cc3-98c4-dc0c0c07398f' AS next_microsecond_above_example,
       uuid_v7_min('-infinity') AS smallest,
       uuid_v7_min('1960-01-01 00:00:00+00') = uuid_v7_min('-infinity') AS before_1970_is_smallest;
SELECT count(*) FILTER (WHERE (u >= uuid_v7_min(ts)) <> (uuid_v7_timestamp(u) >= ts)) AS disagreements,
       count(*) AS pairs
FROM (SELECT uuid_v7_at(t) AS u FROM generate_series(timestamptz '2024-01-01 00:00:00+00',
                                                     '2024-01-01 00:00:00.003+00', interval '7 microseconds') t) us,
     generate_series(timestamptz '2024-01-01 00:00:00+00', '2024-01-01 00:00:00.003+00', interval '11 microseconds') ts;
CREATE TABLE events (id uuid PRIMARY KEY, created_at timestamptz NOT NULL);
INSERT INTO events SELECT uuid_v7_at(t), t FROM generate_series(timestamptz '2024-01-01 00:00:00+00', '2024-01-02', interval '1 second') t;
ANALYZE events;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT count(*) FROM events WHERE id >= uuid_v7_min('2024-01-01 23:00:00+00');
SELECT count(*) AS last_hour, min(created_at) FROM events WHERE id >= uuid_v7_min('2024-01-01 23:00:00+00');
RESET enable_seqscan;
-- Partition bounds by time.
CREATE TABLE events_by_day (id uuid NOT NULL, created_at timestamptz NOT NULL) PARTITION BY RANGE (id);
CREATE TABLE events_jan1 PARTITION OF events_by_day
    FOR VALUES FROM (uuid_v7_min('2024-01-01 00:00:00+00')) TO (uuid_v7_min('2024-01-02 00:00:00+00'));
CREATE TABLE events_jan2 PARTITION OF events_by_day
    FOR VALUES FROM (uuid_v7_min('2024-01-02 00:00:00+00')) TO (uuid_v7_min('2024-01-03 00:00:00+00'));
INSERT INTO events_by_day SELECT * FROM events;
SELECT tableoid::regclass AS partition, count(*), min(created_at), max(created_at)
FROM events_by_day GROUP BY 1 ORDER BY 1;

-- Its row of idgen_state.
SELECT generator, next_id_time IS NOT NULL AS has_clock, lead < interval '5 seconds' AS within_lead
FROM idgen_state WHERE generator IN ('uuid_v7', 'uuid_v7_at') ORDER BY generator;
SELECT generator, id_space, namespaces, namespaces_leased >= 1 AS leased
FROM idgen_backfill_spaces WHERE generator = 'uuid_v7_at';
DROP TABLE live, events, events_by_day;
DROP EXTENSION idgen;
