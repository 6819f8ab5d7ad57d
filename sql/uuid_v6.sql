-- Version-6 UUIDs: version 1's fields sorted by time. uuid_v6(), uuid_v6_at(ts [, node]),
-- uuid_v6_timestamp(u), uuid_v1_to_v6(u), uuid_v6_to_v1(u).
CREATE EXTENSION idgen;
SET timezone = 'UTC';

-- RFC 9562 appendices A.1 and A.5: the same fields in both layouts.
SELECT uuid_v1_to_v6('c232ab00-9414-11ec-b3c8-9f6bdeced846') AS v6,
       uuid_v6_to_v1('1ec9414c-232a-6b00-b3c8-9f6bdeced846') AS v1,
       uuid_v6_timestamp('1ec9414c-232a-6b00-b3c8-9f6bdeced846') AS ts,
       uuid_version('1ec9414c-232a-6b00-b3c8-9f6bdeced846');

-- Other versions: NULL; NULL in, NULL out.
SELECT u, uuid_v6_timestamp(u), uuid_v1_to_v6(u), uuid_v6_to_v1(u)
FROM (VALUES (uuid '00000000-0000-0000-0000-000000000000'),
             (uuid 'c232ab00-9414-11ec-33c8-9f6bdeced846'),
             (uuid '017f22e2-79b0-7cc3-98c4-dc0c0c07398f')) v(u);
SELECT uuid_v6_timestamp(NULL), uuid_v1_to_v6(NULL), uuid_v6_to_v1(NULL);

-- Lossless both ways over the whole field range, and version 6 sorts by time where version 1
-- does not.
SELECT count(*) AS uuids,
       count(*) FILTER (WHERE uuid_v6_to_v1(uuid_v1_to_v6(v1)) = v1) AS round_trips,
       count(*) FILTER (WHERE uuid_v6_timestamp(uuid_v1_to_v6(v1)) = uuid_v1_timestamp(v1)) AS same_time,
       count(*) FILTER (WHERE uuid_v1_node(uuid_v6_to_v1(uuid_v1_to_v6(v1))) = uuid_v1_node(v1)) AS same_node
FROM (SELECT form_uuid_v1(timestamptz '1582-10-15 00:00:00+00' + i * interval '7 days 3 hours 1.000001 seconds',
                          (i * 7919) % 16384, ('00:00:00:00:' || lpad(to_hex(i % 256), 2, '0') || ':01')::macaddr) AS v1
      FROM generate_series(0, 20000) i) s;
SELECT count(*) FILTER (WHERE v6 <= lag6) AS v6_out_of_time_order,
       count(*) FILTER (WHERE v1 <= lag1) > 0 AS v1_out_of_time_order
FROM (SELECT v1, v6, lag(v1) OVER (ORDER BY t) AS lag1, lag(v6) OVER (ORDER BY t) AS lag6
      FROM (SELECT t, form_uuid_v1(t, 1, '01:02:03:04:05:06') AS v1,
                   uuid_v1_to_v6(form_uuid_v1(t, 1, '01:02:03:04:05:06')) AS v6
            FROM generate_series(timestamptz '2024-01-01 00:00:00+00', '2024-01-01 01:00:00+00', interval '1 second') t) s) s;

-- uuid_v6(): version 6, strictly increasing, from uuid_v1()'s clock: as version 1, never equal
-- to a uuid_v1() UUID.
CREATE TABLE live AS SELECT i, uuid_v6() AS v6, uuid_v1() AS v1 FROM generate_series(1, 50000) i;
SELECT count(*) FILTER (WHERE uuid_version(v6) <> 6) AS not_v6,
       count(*) FILTER (WHERE v6 <= lag6) AS not_increasing,
       count(*) FILTER (WHERE uuid_v1_node(uuid_v6_to_v1(v6)) <> uuid_v1_node(v1)) AS other_node
FROM (SELECT v6, v1, lag(v6) OVER (ORDER BY i) AS lag6 FROM live) s;
SELECT count(*) AS converted_equal_to_live_v1 FROM live a JOIN live b ON uuid_v6_to_v1(a.v6) = b.v1;

-- uuid_v6_at: uuid_v1_at in version 6's layout, exactly ts, distinct from uuid_v1_at's UUIDs
-- once converted (one set of namespaces).
SELECT count(DISTINCT u) AS uuids, count(*) FILTER (WHERE uuid_v6_timestamp(u) = '2020-02-02 02:02:02.020202+00') AS exact
FROM (SELECT uuid_v6_at('2020-02-02 02:02:02.020202+00') AS u FROM generate_series(1, 1000)) s;
SELECT count(*) AS equal_after_conversion
FROM (SELECT uuid_v6_to_v1(uuid_v6_at('2020-02-02 02:02:02.020202+00')) AS u FROM generate_series(1, 1000)) a
JOIN (SELECT uuid_v1_at('2020-02-02 02:02:02.020202+00') AS u FROM generate_series(1, 1000)) b USING (u);
SELECT uuid_v1_node(uuid_v6_to_v1(uuid_v6_at('2020-02-02 00:00:00+00', '08:00:2b:01:02:03'))) AS node,
       uuid_v6_timestamp(uuid_v6_at('2020-02-02 00:00:00+00', '08:00:2b:01:02:03')) AS ts;
SELECT uuid_v6_at(NULL);
SELECT uuid_v6_at(now(), NULL);
SELECT uuid_v6_at('1582-10-14 23:59:59.999999+00');
SELECT uuid_v6_at(now(), '03:00:00:00:00:01');

-- uuid_v6_min: id >= uuid_v6_min(ts) exactly when uuid_v6_timestamp(id) >= ts; clock sequence
-- and node zero; before the Gregorian reform the smallest version-6 UUID; past 60 bits, 22008.
SELECT uuid_v6_min('2022-02-22 19:22:22+00') AS rfc_example_min,
       uuid_v6_min('2022-02-22 19:22:22+00') <= '1ec9414c-232a-6b00-b3c8-9f6bdeced846' AS example_above,
       uuid_v6_min('2022-02-22 19:22:22.000001+00') > '1ec9414c-232a-6b00-b3c8-9f6bdeced846' AS next_microsecond_above_example,
       uuid_v6_min('-infinity') AS smallest,
       uuid_v6_min('1500-01-01 00:00:00+00') = uuid_v6_min('-infinity') AS before_1582_is_smallest,
       uuid_v6_min('5236-03-31 21:21:00.684697+00') AS largest;
SELECT count(*) FILTER (WHERE (u >= uuid_v6_min(t)) <> (uuid_v6_timestamp(u) >= t)) AS disagreements
FROM (SELECT uuid_v6_at('2020-02-02 00:00:00+00'::timestamptz + i * interval '1 microsecond') AS u,
             '2020-02-02 00:00:00+00'::timestamptz + j * interval '1 microsecond' AS t
      FROM generate_series(0, 40) i, generate_series(0, 40) j) s;
SELECT uuid_v6_min(NULL);
SELECT uuid_v6_min('5236-03-31 21:21:00.684698+00');
SELECT uuid_v6_min('infinity');
DROP TABLE live;
DROP EXTENSION idgen;
