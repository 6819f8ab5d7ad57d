-- A short tour of idgen, run by scripts/demo against a throwaway server.
\pset footer off
SET timezone = 'UTC';
CREATE EXTENSION IF NOT EXISTS idgen;

\echo
\echo '1. Rebuild a version-1 UUID for an old row from its time, a clock sequence and a MAC address'
\echo '   (seed 003 did this in PL/pgSQL; idgen does it exactly, in C++):'
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
\echo 'Every function, with its description (\\df+ shows the same):'
SELECT p.oid::regprocedure AS function, obj_description(p.oid, 'pg_proc') AS description
FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass
WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'idgen')
ORDER BY 1::text;
