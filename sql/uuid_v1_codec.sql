-- The version-1 codec: form_uuid_v1, uuid_v1_timestamp, uuid_v1_clock_seq, uuid_v1_node,
-- uuid_version; their error cases; and byte-identity with the PL/pgSQL version-1
-- UUID functions that idgen's codec replaces.
CREATE EXTENSION idgen;
SET timezone = 'UTC';

-- RFC 9562 appendix A.1.
SELECT form_uuid_v1('2022-02-22 19:22:22+00', 13256, '9f:6b:de:ce:d8:46');
SELECT uuid_v1_timestamp('c232ab00-9414-11ec-b3c8-9f6bdeced846'),
       uuid_v1_clock_seq('c232ab00-9414-11ec-b3c8-9f6bdeced846'),
       uuid_v1_node('c232ab00-9414-11ec-b3c8-9f6bdeced846'),
       uuid_version('c232ab00-9414-11ec-b3c8-9f6bdeced846');

-- Microseconds survive; the range edges are the documented ones.
SELECT uuid_v1_timestamp(form_uuid_v1(ts, 0, '00:00:00:00:00:00')) = ts AS round_trip, ts
FROM (VALUES (timestamptz '1582-10-15 00:00:00+00'),
             (timestamptz '1969-12-31 23:59:59.999999+00'),
             (timestamptz '1970-01-01 00:00:00+00'),
             (timestamptz '2026-11-22 12:34:56.789012+00'),
             (timestamptz '5236-03-31 21:21:00.684697+00')) v(ts);
SELECT form_uuid_v1('1582-10-15 00:00:00+00', 0, '00:00:00:00:00:00') AS first,
       form_uuid_v1('5236-03-31 21:21:00.684697+00', 16383, 'ff:ff:ff:ff:ff:ff') AS last;

-- Sub-microsecond ticks are truncated towards the past, also before 1970.
-- 1970-01-01 is tick 0x01b21dd213814000.
SELECT uuid_v1_timestamp('13814000-1dd2-11b2-8000-000000000000') AS unix_epoch,
       uuid_v1_timestamp('13813fff-1dd2-11b2-8000-000000000000') AS one_tick_before,
       uuid_v1_timestamp('1381400b-1dd2-11b2-8000-000000000000') AS eleven_ticks_after;

-- Other versions and variants: decoders give NULL, uuid_version tells them apart.
SELECT u, uuid_version(u), uuid_v1_timestamp(u), uuid_v1_clock_seq(u), uuid_v1_node(u)
FROM (VALUES (uuid '00000000-0000-0000-0000-000000000000'),
             (uuid 'ffffffff-ffff-ffff-ffff-ffffffffffff'),
             (uuid 'c232ab00-9414-11ec-33c8-9f6bdeced846'),
             (uuid 'c232ab00-9414-11ec-d3c8-9f6bdeced846'),
             (uuid 'c232ab00-9414-11ec-f3c8-9f6bdeced846'),
             (uuid 'c232ab00-9414-41ec-b3c8-9f6bdeced846'),
             (uuid '018f2b3c-4d5e-7f60-8a1b-2c3d4e5f6a7b'),
             (uuid '20be0ffc-314a-bd53-7a50-013a65ca76d2')) v(u);

-- NULL in, NULL out (STRICT).
SELECT form_uuid_v1(NULL, 0, '00:00:00:00:00:00') IS NULL AS a,
       form_uuid_v1(now(), NULL, '00:00:00:00:00:00') IS NULL AS b,
       form_uuid_v1(now(), 0, NULL) IS NULL AS c,
       uuid_v1_timestamp(NULL) IS NULL AS d, uuid_v1_clock_seq(NULL) IS NULL AS e,
       uuid_v1_node(NULL) IS NULL AS f, uuid_version(NULL) IS NULL AS g;

-- Errors: times outside 60 bits of ticks (22008), clock sequences outside 14 bits (22003).
\set VERBOSITY sqlstate
SELECT form_uuid_v1('1582-10-14 23:59:59.999999+00', 0, '00:00:00:00:00:00');
SELECT form_uuid_v1('5236-03-31 21:21:00.684698+00', 0, '00:00:00:00:00:00');
SELECT form_uuid_v1('infinity', 0, '00:00:00:00:00:00');
SELECT form_uuid_v1('-infinity', 0, '00:00:00:00:00:00');
SELECT form_uuid_v1('4713-01-01 00:00:00+00 BC', 0, '00:00:00:00:00:00');
SELECT form_uuid_v1('294276-12-31 23:59:59+00', 0, '00:00:00:00:00:00');
SELECT form_uuid_v1(now(), -1, '00:00:00:00:00:00');
SELECT form_uuid_v1(now(), 16384, '00:00:00:00:00:00');
SELECT form_uuid_v1(now(), 2147483647, '00:00:00:00:00:00');
SELECT form_uuid_v1(now(), 0, 'not a mac');
\set VERBOSITY default
SELECT form_uuid_v1('1582-10-14 23:59:59.999999+00', 0, '00:00:00:00:00:00');
SELECT form_uuid_v1(now(), 16384, '00:00:00:00:00:00');

-- Oracle: the PL/pgSQL functions idgen's codec replaces, verbatim, in a schema of its own.
\i test/fixtures/plpgsql_uuid_v1.sql

-- 10,000 random microsecond-exact times spread over 1583..5235 and every edge, random clock
-- sequences and nodes: byte-identical to the oracle, and the time reads back exactly.
SELECT setseed(0.3);
CREATE TEMP TABLE oracle AS
WITH bounds AS (
    SELECT (extract(epoch FROM timestamptz '1583-01-01 00:00:00+00') * 1000000)::bigint AS lo,
           (extract(epoch FROM timestamptz '5235-12-31 23:59:59.999999+00') * 1000000)::bigint AS hi
), random_micros AS (
    SELECT lo + (floor(random() * ((hi - lo) / 1000000)) * 1000000 + floor(random() * 1000000))::bigint AS us
    FROM bounds, generate_series(1, 10000)
), edge_micros AS (
    SELECT unnest(ARRAY[-12219292800000000, -12219292799999999, -1, 0, 1,
                        103072857660684696, 103072857660684697]::bigint[]) AS us
)
SELECT timestamptz 'epoch' + (us::text || ' microseconds')::interval AS ts,
       floor(random() * 16384)::integer AS clock_seq,
       lpad(to_hex(floor(random() * 281474976710656)::bigint), 12, '0')::macaddr AS node
FROM (SELECT us FROM random_micros UNION ALL SELECT us FROM edge_micros) u;
SELECT count(*) AS inputs,
       count(*) FILTER (WHERE form_uuid_v1(ts, clock_seq, node) <> plpgsql_uuid_v1.form_uuid_v1(ts, clock_seq, node)) AS differ_from_oracle,
       count(*) FILTER (WHERE uuid_v1_timestamp(form_uuid_v1(ts, clock_seq, node)) <> ts) AS time_not_exact,
       count(*) FILTER (WHERE plpgsql_uuid_v1.uuid_v1_timestamp(form_uuid_v1(ts, clock_seq, node)) <> ts) AS oracle_time_not_exact,
       count(*) FILTER (WHERE uuid_v1_clock_seq(form_uuid_v1(ts, clock_seq, node)) <> clock_seq) AS clock_seq_differs,
       count(*) FILTER (WHERE uuid_v1_node(form_uuid_v1(ts, clock_seq, node)) <> node) AS node_differs,
       min(ts) AS earliest, max(ts) AS latest
FROM oracle;

-- Every function explains itself in \df+.
SELECT p.proname
FROM pg_depend d JOIN pg_proc p ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
WHERE d.refclassid = 'pg_extension'::regclass
  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'idgen')
  AND obj_description(p.oid, 'pg_proc') IS NULL;

DROP SCHEMA plpgsql_uuid_v1 CASCADE;
DROP EXTENSION idgen;
