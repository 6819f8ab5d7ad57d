-- bench/setup.sql: everything the benchmark database needs before the first timed query.
-- Run by bench/run with psql variables  n (rows per query)  and  noop_so (absolute path of
-- the no-op module built for this run; it is loaded from there, never installed).
\set ON_ERROR_STOP 1

CREATE EXTENSION idgen;
CREATE EXTENSION "uuid-ossp";

-- The no-op yardsticks (bench/noop.c). Several SQL signatures share the two C symbols so that
-- every measured function has a twin with the same argument list and return width.
-- Zero-argument ones are VOLATILE like the generators they stand next to; the others are
-- IMMUTABLE STRICT like idgen's functions.
CREATE FUNCTION bench_noop_int8() RETURNS int8
    AS :'noop_so', 'bench_noop_int8' LANGUAGE C VOLATILE;
CREATE FUNCTION bench_noop_uuid() RETURNS uuid
    AS :'noop_so', 'bench_noop_uuid' LANGUAGE C VOLATILE;
CREATE FUNCTION bench_noop_uuid(timestamptz, integer, macaddr) RETURNS uuid
    AS :'noop_so', 'bench_noop_uuid' LANGUAGE C IMMUTABLE STRICT;
CREATE FUNCTION bench_noop_int8(uuid) RETURNS timestamptz
    AS :'noop_so', 'bench_noop_int8' LANGUAGE C IMMUTABLE STRICT;
CREATE FUNCTION bench_noop_int4(uuid) RETURNS integer
    AS :'noop_so', 'bench_noop_int8' LANGUAGE C IMMUTABLE STRICT;
CREATE FUNCTION bench_noop_int2(uuid) RETURNS smallint
    AS :'noop_so', 'bench_noop_int8' LANGUAGE C IMMUTABLE STRICT;
CREATE FUNCTION bench_noop_macaddr(uuid) RETURNS macaddr
    AS :'noop_so', 'bench_noop_uuid' LANGUAGE C IMMUTABLE STRICT;

-- Seed 003's functions, the baseline idgen has to beat.
\ir ../test/fixtures/seed003.sql

CREATE SEQUENCE bench_seq_cache1 CACHE 1;
CREATE SEQUENCE bench_seq_cache100 CACHE 100;

-- The Snowflake sequencer of the benchmark (bench/run sets idgen.node_id = 1, without which
-- snowflake_next refuses to generate). max_nodes 128 leaves 15 counter bits: 32,768 ids per
-- millisecond. The default layout (8192 nodes) leaves 9 bits, only 512 ids per ms, which a
-- bulk loop outruns (at ~100 ns per call it asks for ~10,000 per ms): snowflake_next would
-- then run ahead of the clock and deliberately wait for it, and the benchmark would time that
-- wait instead of the generator.
SELECT snowflake_create('bench', max_nodes => 128) \g /dev/null

-- The tables of the pgbench INSERT scripts (bench/pgbench.tsv); bench/run empties them with
-- bench_pgbench_reset() before every pgbench run, so each run starts from an empty index.
CREATE TABLE bench_t_snowflake (id bigint PRIMARY KEY);
CREATE TABLE bench_t_nextval (id bigint PRIMARY KEY);
CREATE FUNCTION bench_pgbench_reset() RETURNS void LANGUAGE sql
    AS 'TRUNCATE bench_t_snowflake, bench_t_nextval';

-- N distinct version-1 UUIDs (one per millisecond, cycling clock sequences) for the decoders.
CREATE TABLE bench_uuids AS
    SELECT form_uuid_v1(now() + i * interval '1 millisecond', i % 16384, '00:11:22:33:44:55') AS u
    FROM generate_series(1, :n) i;
VACUUM (ANALYZE) bench_uuids;

-- The cases, scaling cases, pgbench scripts and targets (loaded from cases.tsv, scaling.tsv,
-- pgbench.tsv and targets.tsv by bench/run) and the measurements.
CREATE TABLE bench_cases (
    ord serial, name text PRIMARY KEY, expr text NOT NULL, source text NOT NULL,
    baseline text, twin text);
CREATE TABLE bench_targets (
    ord serial, description text NOT NULL, case_a text NOT NULL, case_b text NOT NULL,
    metric text NOT NULL CHECK (metric IN ('net', 'whole', 'scaling', 'tps')),
    bound text NOT NULL CHECK (bound ~ '^(<=|>=) *[0-9]+(\.[0-9]+)?$'));
CREATE TABLE bench_results (round int, name text, ns bigint, counted bigint);
-- Scaling: pgbench's tps (one query of N rows per transaction) per round, case and client count.
CREATE TABLE bench_scaling_cases (ord serial, name text PRIMARY KEY REFERENCES bench_cases (name));
CREATE TABLE bench_scaling_results (round int, case_ord int, clients int, tps float8);
-- pgbench section: tps per round and script.
CREATE TABLE bench_pgbench_scripts (ord serial, name text PRIMARY KEY, statement text NOT NULL);
CREATE TABLE bench_pgbench_results (round int, script_ord int, tps float8);

-- Times one query inside the server (no client round trip in the measurement): nanoseconds
-- from just before to just after EXECUTE, plus the count it returned. Parallel query is off
-- for the timed query only: from about 200,000 rows the planner would scan bench_uuids with
-- workers, but only for PARALLEL SAFE functions (idgen's, not the no-op twins or seed 003's),
-- and ns/call would no longer be one core's cost. Everything else keeps the defaults.
CREATE FUNCTION bench_time(query text, OUT ns bigint, OUT counted bigint) LANGUAGE plpgsql
SET max_parallel_workers_per_gather = 0 AS $$
DECLARE
    t0 timestamptz;
BEGIN
    t0 := clock_timestamp();
    EXECUTE query INTO counted;
    ns := (extract(epoch FROM clock_timestamp() - t0) * 1e9)::bigint;
END
$$;
