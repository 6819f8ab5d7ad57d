-- PostgreSQL 18's and pg_uuidv7's names for version-7 UUIDs (PostgreSQL 17 has the two
-- uuid_extract_ functions of its own, 18 all four: there an unqualified call is PostgreSQL's, so
-- these calls name the extension's schema to test idgen's on every major). What they make is
-- idgen's; what they read, and PostgreSQL 18's errors, are theirs. PostgreSQL 18's own tests of
-- these names run against them in test/postgres18_names; pg_uuidv7's own suite in test/pg_uuidv7.
CREATE EXTENSION idgen;
SET timezone = 'UTC';

-- uuidv7() and uuid_generate_v7() are uuid_v7(): version 7, strictly increasing across the two.
SELECT bool_and(a < b) AS increasing, bool_and(uuid_version(a) = 7 AND uuid_version(b) = 7) AS version_7
FROM (SELECT public.uuidv7() AS a, uuid_generate_v7() AS b FROM generate_series(1, 1000)) s;

-- uuidv7(shift): a retrospective version-7 UUID of now + shift, to the microsecond, none twice;
-- PostgreSQL 18's errors outside 1970 .. the last whole millisecond of the 48-bit field.
SELECT count(DISTINCT u) = 1000 AS distinct,
       bool_and(uuid_v7_timestamp(u) BETWEEN t0 + interval '1 day' AND clock_timestamp() + interval '1 day') AS shifted
FROM (SELECT public.uuidv7(interval '1 day') AS u, now() AS t0 FROM generate_series(1, 1000)) s;
SELECT public.uuidv7(NULL) IS NULL AS strict;
\set VERBOSITY sqlstate
SELECT public.uuidv7(interval '-1000 years');
SELECT public.uuidv7(interval '9000 years');
SELECT public.uuidv7(interval '-1 year' * extract(year FROM now())::int);
\set VERBOSITY default
SELECT public.uuidv7(interval '9000 years');

-- uuid_extract_timestamp: version 1 to the microsecond, version 7 to the millisecond (RFC 9562's
-- examples, both 2022-02-22 19:22:22 UTC), NULL for other versions and variants.
SELECT public.uuid_extract_timestamp('c232ab00-9414-11ec-b3c8-9f6bdeced846') AS v1,
       public.uuid_extract_timestamp('017f22e2-79b0-7cc3-98c4-dc0c0c07398f') AS v7,
       public.uuid_extract_timestamp('919108f7-52d1-4320-9bac-f847db4148a8') AS v4,
       public.uuid_extract_timestamp('017f22e2-79b0-7cc3-18c4-dc0c0c07398f') AS ncs_variant,
       public.uuid_extract_timestamp(NULL) AS null_in;
SELECT public.uuid_extract_version('11111111-1111-5111-8111-111111111111') AS v5,
       public.uuid_extract_version('11111111-1111-1111-1111-111111111111') AS ncs_variant,
       public.uuid_extract_version(uuid_v1()) AS v1;

-- pg_uuidv7's readers: the first 48 bits as milliseconds, whatever the UUID.
SELECT uuid_v7_to_timestamptz('018570bb-4a7d-7000-8000-000000000000') AS tz,
       uuid_v7_to_timestamp('018570bb-4a7d-7000-8000-000000000000') AS ts,
       uuid_v7_to_timestamptz('018570bb-4a7d-4000-0000-000000000000') AS of_a_v4,
       uuid_v7_to_timestamptz('ffffffff-ffff-ffff-ffff-ffffffffffff') AS latest,
       uuid_v7_to_timestamptz(NULL) AS null_in;

-- pg_uuidv7's makers: with zero, the UUID of the millisecond with nothing after its time;
-- without, uuid_v7_at's retrospective UUID of exactly the time (unique, unlike pg_uuidv7's
-- random bits); a time read as UTC for timestamp; NULL in, NULL out.
SELECT uuid_timestamptz_to_v7('2023-01-02 04:26:40.637999+00', true) AS zero,
       uuid_timestamp_to_v7('2023-01-02 04:26:40.637', zero => true) AS zero_utc,
       uuid_timestamptz_to_v7(NULL, true) AS null_time,
       uuid_timestamptz_to_v7(now(), NULL) AS null_zero;
SELECT count(DISTINCT u) = 2000 AS distinct, bool_and(uuid_v7_timestamp(u) = '2023-01-02 04:26:40.637123+00') AS exact
FROM (SELECT uuid_timestamptz_to_v7('2023-01-02 04:26:40.637123+00') AS u FROM generate_series(1, 1000)
      UNION ALL
      SELECT uuid_timestamp_to_v7('2023-01-02 04:26:40.637123') FROM generate_series(1, 1000)) s;
\set VERBOSITY sqlstate
SELECT uuid_timestamptz_to_v7('1969-12-31 23:59:59.999999+00', true);
SELECT uuid_timestamptz_to_v7('infinity', true);
SELECT uuid_timestamptz_to_v7('1969-12-31 23:59:59.999999+00');
\set VERBOSITY default
SELECT uuid_timestamptz_to_v7('10889-08-02 05:31:50.656+00', true);

-- An unqualified call finds PostgreSQL's own where it has one (pg_catalog is searched first;
-- 17's uuid_extract_timestamp reads version 1 only), and idgen's otherwise; with the extension's
-- schema before pg_catalog in search_path, idgen's on every major.
SELECT uuid_extract_timestamp('c232ab00-9414-11ec-b3c8-9f6bdeced846') = public.uuid_extract_timestamp('c232ab00-9414-11ec-b3c8-9f6bdeced846') AS same_v1;
SET search_path = public, pg_catalog;
SELECT uuid_extract_timestamp('017f22e2-79b0-7cc3-98c4-dc0c0c07398f') AS v7_everywhere;
RESET search_path;
DROP EXTENSION idgen;
