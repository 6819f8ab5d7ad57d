-- bench/setup.sql: everything the benchmark database needs before the first timed query.
-- Run by bench/run with psql variables  n (rows per query)  and  noop_so (absolute path of
-- the no-op module built for this run; it is loaded from there, never installed).
\set ON_ERROR_STOP 1

CREATE EXTENSION idgen;
CREATE EXTENSION "uuid-ossp";

-- The no-op yardsticks (bench/noop.c): every measured function gets a twin with the same
-- argument list and return width, declared on one of the three C symbols (the int8 one serves
-- every by-value return, the uuid one macaddr too). Zero-argument ones are VOLATILE like the
-- generators they stand next to; the others are IMMUTABLE STRICT like idgen's functions.
SELECT format('CREATE FUNCTION %s(%s) RETURNS %s AS %L, %L LANGUAGE C %s', name, args, returns, :'noop_so',
              symbol, CASE WHEN args = '' THEN 'VOLATILE' ELSE 'IMMUTABLE STRICT' END)
FROM (VALUES
    ('bench_noop_int8', '', 'int8', 'bench_noop_int8'),
    ('bench_noop_uuid', '', 'uuid', 'bench_noop_uuid'),
    ('bench_noop_uuid', 'timestamptz, integer, macaddr', 'uuid', 'bench_noop_uuid'),
    ('bench_noop_uuid', 'timestamptz', 'uuid', 'bench_noop_uuid'),
    ('bench_noop_uuid', 'timestamptz, macaddr', 'uuid', 'bench_noop_uuid'),
    ('bench_noop_int8', 'uuid', 'timestamptz', 'bench_noop_int8'),
    ('bench_noop_int4', 'uuid', 'integer', 'bench_noop_int8'),
    ('bench_noop_int2', 'uuid', 'smallint', 'bench_noop_int8'),
    ('bench_noop_macaddr', 'uuid', 'macaddr', 'bench_noop_uuid'),
    ('bench_noop_text', 'uuid', 'text', 'bench_noop_text'),
    ('bench_noop_int8', 'bigint', 'timestamptz', 'bench_noop_int8'),
    ('bench_noop_int4', 'bigint', 'integer', 'bench_noop_int8'),
    ('bench_noop_text', 'bigint', 'text', 'bench_noop_text'),
    ('bench_noop_int8', 'text, bigint', 'timestamptz', 'bench_noop_int8'),
    ('bench_noop_int4', 'text, bigint', 'integer', 'bench_noop_int8'),
    ('bench_noop_int8', 'text, timestamptz', 'bigint', 'bench_noop_int8')
) AS twins (name, args, returns, symbol)
\gexec

-- The PL/pgSQL and SQL version-1 UUID functions that idgen's codec replaces, the baseline
-- idgen has to beat.
\ir ../test/fixtures/plpgsql_uuid_v1.sql

CREATE SEQUENCE bench_seq_cache1 CACHE 1;
CREATE SEQUENCE bench_seq_cache100 CACHE 100;

-- The Snowflake sequencer of the benchmark (bench/run sets idgen.node_id = 1, without which
-- snowflake_next refuses to generate). max_nodes 128 leaves 15 counter bits: 32,768 ids per
-- millisecond. The default layout (8192 nodes) leaves 9 bits, only 512 ids per ms, which a
-- bulk loop outruns (at ~100 ns per call it asks for ~10,000 per ms): snowflake_next would
-- then run ahead of the clock and deliberately wait for it, and the benchmark would time that
-- wait instead of the generator.
SELECT snowflake_create('bench', max_nodes => 128) \g /dev/null

-- The sequencer of snowflake_at (idgen 0.4.0): ids for past times come from the node ids it
-- reserves (backfill_nodes), above the live ones (idgen.node_id 1 < max_nodes - backfill_nodes).
-- Every session that calls snowflake_at holds one of them while it runs and parks it for the
-- next session when it ends (an idgen before 0.5.0 took it for good), and the benchmark opens
-- many: 1 for the cost rounds, one per client of each scaling measurement (15 a round), 6 a
-- round of the backfill and keys sections, 1 for memory: about 95 with the defaults, so it
-- reserves 120 of 128, enough for any version. An idgen without backfill_nodes refuses the
-- call; the cases using snowflake_at then fail, and are reported.
DO $$
BEGIN
    PERFORM snowflake_create('backfill', max_nodes => 128, backfill_nodes => 120);
EXCEPTION WHEN undefined_function THEN
    RAISE NOTICE 'no snowflake_create(..., backfill_nodes): the snowflake_at cases will not be measured';
END
$$;

-- The sequencer of the sessions section (sessions.tsv): only 4 reserved node ids, so
-- 1,000 short sessions can only go on by adopting the namespaces that earlier sessions handed
-- back (an idgen older than 0.5.0 refuses the fifth session: 54000, reported).
DO $$
BEGIN
    PERFORM snowflake_create('sessions', max_nodes => 128, backfill_nodes => 4);
EXCEPTION WHEN undefined_function THEN
    NULL;   -- reported above for 'backfill'
END
$$;

-- The sessions section counts idgen's WAL records of leases (resource manager idgen, record
-- LEASE: a namespace leased or a space's offset bound raised) with pg_walinspect; without it
-- (a server without contrib) that column stays empty.
DO $$
BEGIN
    CREATE EXTENSION pg_walinspect;
EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'no pg_walinspect (%): lease WAL records will not be counted', SQLERRM;
END
$$;

-- The tables of the pgbench INSERT scripts (bench/pgbench.tsv), one per key type; bench/run
-- empties them with bench_pgbench_reset() before every pgbench run, so each run starts from an
-- empty index.
CREATE TABLE bench_t_bigint (id bigint PRIMARY KEY);
CREATE TABLE bench_t_uuid (id uuid PRIMARY KEY);
CREATE FUNCTION bench_pgbench_reset() RETURNS void LANGUAGE sql
    AS 'TRUNCATE bench_t_bigint, bench_t_uuid';

-- The time of event I: spread over the year 2025 by a hash (the same on every run); the
-- events of the backfill (backfill.sql) and ts of bench_ids.
-- Rows 10k, 10k+1 and 10k+2 share one time: 30% of the rows share their time with two others.
CREATE FUNCTION bench_event_time(i bigint) RETURNS timestamptz IMMUTABLE LANGUAGE sql AS $$
    SELECT '2025-01-01 00:00:00+00'::timestamptz
           + (abs(hashint8extended(CASE WHEN i % 10 < 3 THEN -(i / 10) - 1 ELSE i END, 7))
              % (365::bigint * 86400 * 1000000)) * interval '1 microsecond'
$$;

-- N rows of ids for the decoders, so each gets varying input: u distinct version-1 UUIDs (one
-- per millisecond, cycling clock sequences), s Snowflake ids, l locality UUIDs, t unique
-- timestamps; and ts, the times of N events as the backfill has them (30% shared, in random
-- order), for the retrospective generators. The rows are in random order (a hash, the same on
-- every run).
CREATE TABLE bench_ids AS
    SELECT form_uuid_v1(now() + i * interval '1 millisecond', i % 16384, '00:11:22:33:44:55') AS u,
           snowflake_next('bench') AS s, locality_uuid() AS l, unique_timestamp() AS t,
           bench_event_time(i) AS ts
    FROM generate_series(1, :n) i ORDER BY hashint8extended(i, 11);
VACUUM (ANALYZE) bench_ids;

-- The same UUIDs as text, for the text decoders: ut as uuid_out writes them (for uuid_in), ul
-- as ULIDs and tid as TypeIDs (where this idgen writes them; else NULL, and the cases that read
-- them are marked unavailable).
DO $$
BEGIN
    IF to_regprocedure('uuid_to_ulid(uuid)') IS NOT NULL THEN
        CREATE TABLE bench_texts AS
            SELECT u::text AS ut, uuid_to_ulid(u) AS ul, typeid_text('user', u) AS tid FROM bench_ids;
    ELSE
        CREATE TABLE bench_texts AS SELECT u::text AS ut, NULL::text AS ul, NULL::text AS tid FROM bench_ids;
    END IF;
END
$$;
VACUUM (ANALYZE) bench_texts;

-- The key of the masking cases (where this idgen masks; elsewhere they are marked unavailable).
DO $$
BEGIN
    IF to_regprocedure('id_mask_key_create(text,integer)') IS NOT NULL THEN
        PERFORM id_mask_key_create('bench');
    END IF;
END
$$;

-- What bench/run measures (loaded from cases.tsv, scaling.tsv, pgbench.tsv, backfill.tsv,
-- sessions.tsv, latency.tsv, keys.tsv and targets.tsv). "unavailable" is set by bench_check before the first round: the
-- reason an item cannot run on this server (say, a function of a newer idgen); such items are
-- skipped and listed in the report.
CREATE TABLE bench_cases (
    ord serial, name text PRIMARY KEY, expr text NOT NULL, source text NOT NULL,
    baseline text, twin text, kind text NOT NULL, unavailable text);
CREATE TABLE bench_scaling_cases (ord serial, name text PRIMARY KEY REFERENCES bench_cases (name));
CREATE TABLE bench_pgbench_scripts (
    ord serial, name text PRIMARY KEY, statement text NOT NULL, anchor text, unavailable text);
CREATE TABLE bench_latency_scripts (
    ord serial, name text PRIMARY KEY, statement text NOT NULL, anchor text, unavailable text);
CREATE TABLE bench_backfill_cases (
    ord serial, name text PRIMARY KEY, idtype text NOT NULL, expr text NOT NULL,
    parallel text NOT NULL CHECK (parallel IN ('yes', '')), memory text NOT NULL CHECK (memory IN ('yes', '')),
    unavailable text);
CREATE TABLE bench_session_cases (ord serial, name text PRIMARY KEY, expr text NOT NULL, unavailable text);
CREATE TABLE bench_key_cases (
    ord serial, name text PRIMARY KEY, idtype text NOT NULL, expr text NOT NULL, source text NOT NULL,
    unavailable text);
CREATE TABLE bench_targets (
    ord serial, description text NOT NULL, case_a text NOT NULL, case_b text NOT NULL,
    metric text NOT NULL CHECK (metric IN ('net', 'whole', 'scaling', 'scaling16', 'at16', 'tps', 'p99.9', 'update', 'parallel', 'sessions', 'index', 'wal')),
    bound text NOT NULL CHECK (bound ~ '^(<=|>=|<|>) *[0-9]+(\.[0-9]+)?$'),
    why_not text);

-- The measurements. A failed measurement is kept with its error (in place of the figure).
CREATE TABLE bench_results (round int, name text, ns bigint, counted bigint, error text);
-- Scaling: pgbench's tps (one query of N rows per transaction) per round, case and client count.
CREATE TABLE bench_scaling_results (round int, case_ord int, clients int, tps float8);
-- pgbench section: tps per round and script.
CREATE TABLE bench_pgbench_results (round int, script_ord int, tps float8);
-- Latency section: pgbench's tps per script, and every transaction's latency in microseconds
-- from its per-transaction log (NULL: a failed transaction). Unlogged: millions of rows that
-- need no WAL, and the CHECKPOINT before each run does not write them out.
CREATE TABLE bench_latency_results (script_ord int, tps float8);
CREATE UNLOGGED TABLE bench_latency_samples (script_ord int, client int, us bigint);
-- Backfill: wall seconds of the UPDATE of the whole table by 1 session, or by several at once.
CREATE TABLE bench_backfill_results (round int, case_ord int, sessions int, seconds float8);
-- Sessions: one row per timed statement (sessions = 1: the single session's one statement;
-- sessions > 1: one of that many short sessions), ids made and nanoseconds inside the server;
-- and per measurement the lease work it caused (namespaces leased, lease WAL records) and
-- pgbench's sessions per second including their connections.
CREATE TABLE bench_session_results (
    round int, case_ord int, sessions int, session int, ids bigint, ns bigint, error text);
CREATE TABLE bench_session_runs (
    round int, case_ord int, sessions int, leased bigint, lease_records bigint, sessions_per_s float8);
-- Keys: one INSERT of many generated keys into a table with a primary key.
CREATE TABLE bench_key_results (
    round int, case_ord int, rows bigint, ns bigint, wal_bytes numeric, table_bytes bigint,
    index_bytes bigint);
-- Memory of one session backfilling a large table (bench/run reads /proc for the RSS figures).
CREATE TABLE bench_memory_results (
    case_ord int, rows bigint, seconds float8, context_bytes bigint, all_contexts_bytes bigint,
    rss_anon_start_kb bigint, rss_anon_peak_kb bigint);
-- Failures while measuring (pgbench runs that stopped with an error), by section and item.
CREATE TABLE bench_errors (section text, name text, message text);

-- NULL when QUERY can be planned here, else the error (a missing function, a wrong argument).
CREATE FUNCTION bench_check(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE 'EXPLAIN ' || query;
    RETURN NULL;
EXCEPTION WHEN OTHERS THEN
    RETURN SQLERRM;
END
$$;

-- Marks every item that cannot run here (bench_check), once the bench TSV files are loaded.
CREATE FUNCTION bench_check_all() RETURNS void LANGUAGE sql AS $$
    UPDATE bench_cases
    SET unavailable = bench_check(format('SELECT count(%s) FROM %s', expr, replace(source, '{N}', '1')));
    UPDATE bench_pgbench_scripts SET unavailable = bench_check(rtrim(statement, ';'));
    UPDATE bench_latency_scripts SET unavailable = bench_check(rtrim(statement, ';'));
    UPDATE bench_backfill_cases SET unavailable = bench_check(format('SELECT %s FROM bench_events_template', expr));
    UPDATE bench_session_cases SET unavailable = bench_check(format('SELECT %s FROM bench_events_template', expr));
    UPDATE bench_key_cases
    SET unavailable = bench_check(format('SELECT %s FROM %s', expr, replace(source, '{ROWS}', '1')));
$$;

-- Times one query inside the server (no client round trip in the measurement): nanoseconds
-- from just before to just after EXECUTE, plus the count it returned, or the error it raised.
-- Parallel query is off for the timed query only: from about 200,000 rows the planner would
-- scan bench_ids with workers, but only for PARALLEL SAFE functions (idgen's, not the no-op
-- twins or the PL/pgSQL ones), and ns/call would no longer be one core's cost. Everything
-- else keeps the defaults.
CREATE FUNCTION bench_time(query text, OUT ns bigint, OUT counted bigint, OUT error text)
LANGUAGE plpgsql SET max_parallel_workers_per_gather = 0 AS $$
DECLARE
    t0 timestamptz;
BEGIN
    t0 := clock_timestamp();
    EXECUTE query INTO counted;
    ns := (extract(epoch FROM clock_timestamp() - t0) * 1e9)::bigint;
EXCEPTION WHEN OTHERS THEN
    error := SQLERRM;
END
$$;
