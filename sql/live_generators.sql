-- The live generators: uuid_v1(), locality_uuid() and unique_timestamp(), their readers and
-- errors. The test server runs with idgen.node_id = 300, idgen.unique_timestamp_digits = 3
-- and idgen.locality_mac = '02:00:5e:10:00:01'.
CREATE EXTENSION idgen;
SET timezone = 'UTC';
SELECT name, setting FROM pg_settings WHERE name LIKE 'idgen.%' ORDER BY name;

-- uuid_v1(): RFC version 1; one clock sequence and one random multicast node per server;
-- the 60-bit time unique and strictly increasing in call order, near the wall clock.
CREATE TEMP TABLE v1 AS
SELECT i, u, clock_timestamp() AS at,
       ('x' || substr(u::text, 16, 3) || substr(u::text, 10, 4) || substr(u::text, 1, 8))::bit(60)::bigint AS ticks
FROM (SELECT i, uuid_v1() AS u FROM generate_series(1, 100000) i) s;
SELECT count(*) AS ids, count(DISTINCT u) AS distinct_ids,
       bool_and(uuid_version(u) = 1) AS version_1,
       count(DISTINCT uuid_v1_clock_seq(u)) AS clock_seqs, count(DISTINCT uuid_v1_node(u)) AS nodes,
       bool_and((('x' || substr(uuid_v1_node(u)::text, 1, 2))::bit(8)::int & 1) = 1) AS multicast_node,
       bool_and(uuid_v1_timestamp(u) BETWEEN at - interval '6 seconds' AND at + interval '6 seconds') AS near_clock
FROM v1;
SELECT count(*) AS not_increasing
FROM (SELECT ticks, lag(ticks) OVER (ORDER BY i) AS prev FROM v1) s WHERE ticks <= prev;

-- locality_uuid(): Groupon's layout. Groupon's published example decodes as published.
SELECT locality_uuid_counter(u) AS counter, locality_uuid_pid(u) AS pid, locality_uuid_mac(u) AS mac,
       locality_uuid_timestamp(u) AS ts
FROM (VALUES (uuid '20be0ffc-314a-bd53-7a50-013a65ca76d2')) v(u);
-- Variable mode: version digit b; this backend's pid; the MAC's last 28 bits; the time near the
-- clock. Consecutive counters differ by the prime 198491317 times the step of the server-wide
-- sequence: 1, except where idgen.ordering = 'session' (the default) dropped the rest of a run
-- (at most 63 values) when its millisecond passed. (3127333277 is the prime's inverse mod 2^32.)
CREATE TEMP TABLE loc AS
SELECT i, u, clock_timestamp() AS at FROM (SELECT i, locality_uuid() AS u FROM generate_series(1, 10000) i) s;
SELECT count(DISTINCT u) AS distinct_ids,
       bool_and(substr(u::text, 15, 1) = 'b') AS version_b,
       bool_and(locality_uuid_pid(u) = pg_backend_pid() % 65536) AS our_pid,
       bool_and(locality_uuid_mac(u) = 'e100001') AS mac_fragment,
       bool_and(locality_uuid_timestamp(u) BETWEEN at - interval '6 seconds' AND at + interval '6 seconds') AS near_clock
FROM loc;
SELECT count(*) AS steps, bool_and(k BETWEEN 1 AND 64) AS sequence_steps_1_to_64, count(*) FILTER (WHERE k = 1) > 9000 AS mostly_1
FROM (SELECT (((c - prev + 4294967296) % 4294967296)::numeric * 3127333277 % 4294967296) AS k
      FROM (SELECT locality_uuid_counter(u) AS c, lag(locality_uuid_counter(u)) OVER (ORDER BY i) AS prev FROM loc) s
      WHERE prev IS NOT NULL) k;
-- Sequential mode: the first eight hex digits count up (a new start every ten minutes), by one
-- except where a run was dropped.
CREATE TEMP TABLE seq AS
SELECT i, ('x' || substr(u::text, 1, 8))::bit(32)::bigint AS raw,
       floor(extract(epoch FROM locality_uuid_timestamp(u)) / 600) AS win
FROM (SELECT i, locality_uuid(true) AS u FROM generate_series(1, 10000) i) s;
SELECT bool_and((raw - prev + 4294967296) % 4294967296 BETWEEN 1 AND 64) AS counting_up
FROM (SELECT raw, win, lag(raw) OVER (ORDER BY i) AS prev, lag(win) OVER (ORDER BY i) AS prev_win FROM seq) s
WHERE prev IS NOT NULL AND win = prev_win;
-- With idgen.ordering = 'strict' (a reload) every id takes the next value of the sequence: steps
-- of exactly the prime, and exactly one.
ALTER SYSTEM SET idgen.ordering = 'strict';
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
SHOW idgen.ordering;
SELECT count(*) AS steps, count(*) FILTER (WHERE (c - prev + 4294967296) % 4294967296 = 198491317) AS by_the_prime
FROM (SELECT i, locality_uuid_counter(u) AS c, lag(locality_uuid_counter(u)) OVER (ORDER BY i) AS prev
      FROM (SELECT i, locality_uuid() AS u FROM generate_series(1, 10000) i) s) s
WHERE prev IS NOT NULL;
SELECT count(*) FILTER (WHERE (raw - prev + 4294967296) % 4294967296 <> 1 AND win = prev_win) AS not_plus_one
FROM (SELECT raw, win, lag(raw) OVER (ORDER BY i) AS prev, lag(win) OVER (ORDER BY i) AS prev_win
      FROM (SELECT i, ('x' || substr(u::text, 1, 8))::bit(32)::bigint AS raw,
                   floor(extract(epoch FROM locality_uuid_timestamp(u)) / 600) AS win
            FROM (SELECT i, locality_uuid(true) AS u FROM generate_series(1, 10000) i) s) s) s
WHERE prev IS NOT NULL;
ALTER SYSTEM RESET idgen.ordering;
SELECT pg_reload_conf();
SELECT pg_sleep(0.5);
SHOW idgen.ordering;
-- idgen.locality_mode chooses the mode of locality_uuid() without an argument.
SET idgen.locality_mode = 'sequential';
SELECT (('x' || substr(b::text, 1, 8))::bit(32)::bigint - ('x' || substr(a::text, 1, 8))::bit(32)::bigint + 4294967296) % 4294967296
       BETWEEN 1 AND 64 AS sequential_step
FROM (SELECT locality_uuid() AS a, locality_uuid() AS b) s;
RESET idgen.locality_mode;

-- unique_timestamp(): nanoseconds whose last 3 digits are node 300, strictly increasing.
CREATE TEMP TABLE uts AS
SELECT i, t, clock_timestamp() AS at FROM (SELECT i, unique_timestamp() AS t FROM generate_series(1, 100000) i) s;
SELECT count(DISTINCT t) AS distinct_ids, bool_and(t % 1000 = 300) AS ends_in_300,
       bool_and(unique_timestamp_host(t) = 300) AS host_300,
       bool_and(unique_timestamp_to_timestamptz(t) BETWEEN at - interval '6 seconds' AND at + interval '6 seconds') AS near_clock,
       bool_and(unique_timestamp_text(t) ~ '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}$') AS text_shape
FROM uts;
SELECT count(*) AS not_increasing
FROM (SELECT t, lag(t) OVER (ORDER BY i) AS prev FROM uts) s WHERE t <= prev;
-- Chronicle's example, and the edges of the type.
SELECT unique_timestamp_text(1640700422954100128) AS chronicle_example,
       unique_timestamp_host(1640700422954100128) AS host_3_digits,
       unique_timestamp_to_timestamptz(1640700422954100128) AS ts,
       unique_timestamp_text(0) AS zero, unique_timestamp_text(9223372036854775807) AS max;

-- NULL in, NULL out.
SELECT locality_uuid(NULL) IS NULL AS a, locality_uuid_counter(NULL) IS NULL AS b,
       unique_timestamp_text(NULL) IS NULL AS c, unique_timestamp_host(NULL) IS NULL AS d;

-- Errors.
\set VERBOSITY sqlstate
SELECT locality_uuid_counter('c232ab00-9414-11ec-b3c8-9f6bdeced846');
SELECT locality_uuid_pid(gen_random_uuid());
SELECT locality_uuid_mac('00000000-0000-0000-0000-000000000000');
SELECT locality_uuid_timestamp('20be0ffc-314a-4d53-7a50-013a65ca76d2');
SELECT unique_timestamp_text(-1);
SELECT unique_timestamp_host(-9223372036854775808);
SELECT unique_timestamp_to_timestamptz(-1);
SET idgen.locality_mode = 'random';
\set VERBOSITY default
SELECT locality_uuid_counter('c232ab00-9414-11ec-b3c8-9f6bdeced846');

DROP EXTENSION idgen;
