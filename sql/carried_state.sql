-- The state that travels with a database (the table reserved_state, which pg_dump includes and
-- pg_upgrade carries) and the view idgen_state. The test server runs with idgen preloaded and
-- idgen.node_id = 300. The moves themselves are tested in test/tap/062.
SET timezone = 'UTC';

-- A 0.4.0 schema kept its state only in the data directory; the update to 0.5.0 saves it into
-- this database's rows: the horizon, and the lease counters of the spaces used.
CREATE EXTENSION idgen VERSION '0.4.0';
SELECT snowflake_create('carried', '2020-01-01 00:00:00+00', 512, backfill_nodes => 8);
SELECT count(DISTINCT uuid_v1_at('2015-01-01 00:00:00+00')) AS uuids,
       count(DISTINCT uuid_v1_at('2015-01-01 00:00:00+00', '08:00:2b:01:02:03')) AS given_node_uuids,
       count(DISTINCT snowflake_at('carried', '2021-01-01 00:00:00+00')) AS snowflakes,
       count(DISTINCT uuid_v1()) AS live_uuids
FROM generate_series(1, 3);
ALTER EXTENSION idgen UPDATE;
SELECT count(*) AS rows FROM reserved_state;
-- (the spaces this test used: automatic nodes, the given node, the sequencer; earlier tests of
-- this database leave theirs too)
SELECT kind, value >= 1 AS leased, bound > 0 AS bounded,
       writer = (SELECT system_identifier FROM pg_control_system()) AS written_here
FROM reserved_state
WHERE slot > 0 AND (kind = 5 OR (kind = 6 AND key = x'08002b010203'::bigint)
                    OR (kind = 3 AND key = idgen_internal._backfill_space_key('carried')))
ORDER BY kind;
SELECT to_timestamp(value / 1e6) > now() AS horizon_reserved_ahead,
       writer = (SELECT system_identifier FROM pg_control_system()) AS written_here
FROM reserved_state WHERE slot = 0;

-- Generation keeps the horizon row ahead of every id of this database.
SELECT snowflake_timestamp('carried', snowflake_next('carried')) < (SELECT to_timestamp(value / 1e6) FROM reserved_state WHERE slot = 0)
    AS covered;

-- Rows another cluster wrote (a restore loads them through the table's trigger): adopted at
-- once, merged into the fixed rows, none added. A horizon 3 s ahead (more than the 1 s the
-- server's own horizon reserves): ids follow it at once, ahead of the wall clock, without
-- waiting for it.
INSERT INTO reserved_state VALUES
    (0, 0, 0, (extract(epoch FROM clock_timestamp() + interval '3 seconds') * 1e6)::bigint, 42, 0, 0),
    (7, 3, 12345, 5, 42, 100, 10);
SELECT count(*) AS rows FROM reserved_state;
SELECT uuid_v1_timestamp(uuid_v1()) > clock_timestamp() + interval '2 seconds' AS uuid_v1_above_restored_horizon,
       snowflake_timestamp('carried', snowflake_next('carried')) > clock_timestamp() + interval '2 seconds' AS snowflake_above;
SELECT adopted_from, adopted_horizon > clock_timestamp() + interval '2 seconds' AS adopted_ahead,
       lead > interval '2 seconds' AS runs_ahead
FROM idgen_state WHERE generator = 'uuid_v1';
SELECT kind, key, value, bound, step, writer = (SELECT system_identifier FROM pg_control_system()) AS written_here
FROM reserved_state WHERE key = 12345;

-- A horizon further ahead of the clock than idgen.max_adopted_lead (10 min) is refused, and
-- nothing of it adopted: a day ahead (a source whose clock jumped), and a damaged value near the
-- end of int64.
DO $$
DECLARE far bigint;
BEGIN
    FOREACH far IN ARRAY ARRAY[(extract(epoch FROM clock_timestamp() + interval '1 day') * 1e6)::bigint,
                               9223372036854775000] LOOP
        BEGIN
            INSERT INTO reserved_state VALUES (0, 0, 0, far, 42, 0, 0);
        EXCEPTION WHEN object_not_in_prerequisite_state THEN
            RAISE NOTICE '%', regexp_replace(SQLERRM, '[0-9]+ s', 'N s');
        END;
    END LOOP;
END $$;
SELECT max(adopted_horizon) < clock_timestamp() + interval '1 hour' AS nothing_adopted,
       max(durable_horizon) < clock_timestamp() + interval '1 hour' AS horizon_unmoved
FROM idgen_state;

-- Every lease of a session reaches its row, not only the first: 25 ids on one microsecond of a
-- given node take three namespaces (10 each), each carried before it is used.
SELECT count(DISTINCT uuid_v1_at('2016-06-01 00:00:00+00', '08:00:2b:0a:0b:0c')) AS ids FROM generate_series(1, 25);
SELECT value AS namespaces_carried FROM reserved_state WHERE slot > 0 AND kind = 6 AND key = x'08002b0a0b0c'::bigint;

-- A row of 0.6.0's dump (kind 2: a given node counted under the mapping that skipped the old
-- server's live clock sequence) is taken over as the same node's space with one namespace
-- more; its clock sequences up to 5 may hold the old server's UUIDs, so namespaces start at 6.
INSERT INTO reserved_state VALUES (9, 2, x'08002b0d0e0f'::bigint, 5, 42, 3, 1);
SELECT kind, value, bound, step FROM reserved_state WHERE slot > 0 AND key = x'08002b0d0e0f'::bigint;
SELECT DISTINCT uuid_v1_clock_seq(uuid_v1_at('2016-06-01 00:00:00+00', '08:00:2b:0d:0e:0f')) AS first_clock_seq;

-- The view: one row per generator, this server a primary.
SELECT generator, role, durable_horizon IS NOT NULL AS has_horizon, horizon_lsn IS NOT NULL AS has_lsn,
       namespaces_leased > 0 AS leased, failover_margin
FROM idgen_state ORDER BY generator;
-- Only idgen writes the table (it is not granted to PUBLIC).
CREATE ROLE idgen_reader;
SET ROLE idgen_reader;
SELECT count(*) FROM reserved_state;
SELECT count(*) FROM idgen_state;
RESET ROLE;
DROP ROLE idgen_reader;

-- A data-only restore with the table's triggers disabled (pg_restore --disable-triggers) appends
-- its 65 rows unmerged after the table's own: every one is adopted when a session first needs
-- the state, the last row included (here its only lease row, after 63 rows another server
-- once wrote and freed).
ALTER TABLE reserved_state DISABLE TRIGGER ALL;
INSERT INTO reserved_state VALUES (0, 0, 0, 1, 42, 0, 0);
INSERT INTO reserved_state SELECT g, 0, 0, 0, 42, 0, 0 FROM generate_series(1, 63) g;
INSERT INTO reserved_state VALUES (64, 6, x'08002b999999'::bigint, 40, 42, 100, 10);
ALTER TABLE reserved_state ENABLE ALWAYS TRIGGER merge_restored_rows;
SELECT count(*) AS rows FROM reserved_state;
\c
SELECT min(uuid_v1_clock_seq(uuid_v1_at('2016-06-01 00:00:00+00', '08:00:2b:99:99:99'))) >= 40
    AS above_the_last_appended_row
FROM generate_series(1, 3);
DROP EXTENSION idgen;
-- The tests after this one want ids near the wall clock again.
SELECT pg_sleep(4);
