-- idgen 0.5.0: the promise across replication and moves.

\echo Use "ALTER EXTENSION idgen UPDATE" to load this file. \quit

-- What protects uniqueness, carried with the database through pg_dump/pg_restore and
-- pg_upgrade (src/pg/moves/carried_state.hpp): row 0 is a horizon reserved ahead, rows 1..64 the
-- lease counters and offset bounds of the id spaces this database's sessions used. idgen writes the rows in place
-- (non-transactionally, WAL-logged); the set of rows is fixed.
CREATE TABLE @extschema@.reserved_state (
    slot integer NOT NULL,
    kind integer NOT NULL,
    key bigint NOT NULL,
    value bigint NOT NULL,
    writer bigint NOT NULL,
    bound integer NOT NULL,
    step integer NOT NULL
);
COMMENT ON TABLE @extschema@.reserved_state IS
    'internal: the state that protects uniqueness, carried with the database by pg_dump and pg_upgrade; written by idgen in place';
INSERT INTO @extschema@.reserved_state SELECT g, 0, 0, 0, 0, 0, 0 FROM pg_catalog.generate_series(0, 64) g;
SELECT pg_catalog.pg_extension_config_dump('@extschema@.reserved_state', '');
REVOKE ALL ON @extschema@.reserved_state FROM PUBLIC;

-- pg_restore loads the rows of the dumped database through this trigger, which adopts them and
-- merges them into the table's own rows instead of adding rows.
CREATE FUNCTION @extschema@._reserved_state_merge() RETURNS trigger
    AS 'MODULE_PATHNAME', 'idgen_reserved_state_merge'
    LANGUAGE C;
COMMENT ON FUNCTION @extschema@._reserved_state_merge() IS
    'internal: adopts and merges restored rows of reserved_state';
CREATE TRIGGER merge_restored_rows BEFORE INSERT ON @extschema@.reserved_state
    FOR EACH ROW EXECUTE FUNCTION @extschema@._reserved_state_merge();

CREATE FUNCTION @extschema@._reserved_state_save() RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_reserved_state_save'
    LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@._reserved_state_save() IS
    'internal: writes this server''s state into reserved_state (at install and update)';
REVOKE ALL ON FUNCTION @extschema@._reserved_state_save() FROM PUBLIC;
-- The state of 0.4.0 lived only in the data directory: it is carried from now on.
SELECT @extschema@._reserved_state_save();

CREATE FUNCTION @extschema@._idgen_state(
        OUT generator text, OUT role text, OUT durable_horizon timestamptz, OUT horizon_lsn pg_lsn,
        OUT next_id_time timestamptz, OUT lead interval, OUT waits bigint, OUT clock_errors bigint,
        OUT namespaces_leased bigint, OUT adopted_from text, OUT adopted_horizon timestamptz,
        OUT adopted_at timestamptz, OUT failover_margin interval)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'idgen_state'
    LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@._idgen_state() IS 'internal: the rows of the idgen_state view';
CREATE VIEW @extschema@.idgen_state AS SELECT * FROM @extschema@._idgen_state();
COMMENT ON VIEW @extschema@.idgen_state IS
    'One row per generator: this server''s role, the durable horizon and the WAL position that made it durable, how far ids run ahead of the wall clock, waits, errors, namespaces leased, and the state adopted at the last promotion or from a moved database';
GRANT SELECT ON @extschema@.idgen_state TO PUBLIC;

-- ---- Parallel labels -------------------------------------------------------------------
-- Generators are PARALLEL RESTRICTED: they run in the leader, never in a parallel worker.
-- A worker is another backend: uuid_v1_at and snowflake_at would draw from the worker's own
-- per-session allocator (leasing a namespace, for snowflake_at one of the sequencer's few
-- reserved node ids, per worker and statement), locality_uuid would carry the worker's process
-- id, and every generator may move the durable horizon on its slow path (a file write, a WAL
-- record, an in-place write of reserved_state), which has no place in a worker. In the leader,
-- calls happen in the order rows come out of the Gather, so "increasing in call order" holds
-- as without parallelism. The decoders and the codec stay PARALLEL SAFE (the sequencer lookup of the
-- snowflake decoders reads the statement's snapshot in parallel mode).
ALTER FUNCTION @extschema@.snowflake_next(text) PARALLEL RESTRICTED;
ALTER FUNCTION @extschema@.snowflake_at(text, timestamptz) PARALLEL RESTRICTED;
ALTER FUNCTION @extschema@.uuid_v1() PARALLEL RESTRICTED;
ALTER FUNCTION @extschema@.uuid_v1_at(timestamptz) PARALLEL RESTRICTED;
ALTER FUNCTION @extschema@.uuid_v1_at(timestamptz, macaddr) PARALLEL RESTRICTED;
ALTER FUNCTION @extschema@.locality_uuid() PARALLEL RESTRICTED;
ALTER FUNCTION @extschema@.locality_uuid(boolean) PARALLEL RESTRICTED;
ALTER FUNCTION @extschema@.unique_timestamp() PARALLEL RESTRICTED;
-- ---- end of the parallel labels ----------------------------------------------------------

-- Retrospective ids that never run out: namespaces handed back when a session ends
-- and adopted by the next; what each id space has leased, parked and in use.
CREATE FUNCTION @extschema@._backfill_space_key(name text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'idgen_backfill_space_key'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@._backfill_space_key(text) IS
    'internal: the key of a sequencer''s lease space of snowflake_at';
CREATE FUNCTION @extschema@._idgen_backfill_spaces(
        OUT generator text, OUT database oid, OUT space_key bigint, OUT node macaddr,
        OUT namespaces bigint, OUT leased bigint, OUT pooled bigint, OUT in_use bigint)
    RETURNS SETOF record
    AS 'MODULE_PATHNAME', 'idgen_backfill_spaces'
    LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@._idgen_backfill_spaces() IS
    'internal: the rows of the idgen_backfill_spaces view';
CREATE VIEW @extschema@.idgen_backfill_spaces AS
SELECT s.generator,
       CASE WHEN s.generator = 'uuid_v1_at' AND s.node IS NULL THEN 'automatic nodes'
            WHEN s.generator = 'uuid_v1_at' THEN 'node ' || s.node::text
            WHEN s.generator = 'uuid_v7_at' THEN 'node id ' || pg_catalog.current_setting('idgen.node_id')
            ELSE 'sequencer ' || coalesce(d.name, '(dropped, key ' || s.space_key || ')') END AS id_space,
       coalesce(s.namespaces, d.backfill_nodes) AS namespaces,
       s.leased AS namespaces_leased,
       s.pooled AS namespaces_pooled,
       s.in_use AS namespaces_in_use,
       s.leased - s.pooled - s.in_use AS namespaces_spent,
       coalesce(s.namespaces, d.backfill_nodes) - s.leased AS namespaces_never_leased
FROM @extschema@._idgen_backfill_spaces() s
LEFT JOIN @extschema@.snowflake_definitions d
       ON s.generator = 'snowflake_at' AND s.space_key = @extschema@._backfill_space_key(d.name)
WHERE s.generator IN ('uuid_v1_at', 'uuid_v7_at')
   OR s.database = (SELECT oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database());
COMMENT ON VIEW @extschema@.idgen_backfill_spaces IS
    'Per id space of retrospective ids (automatic UUID nodes, each given node, version-7 UUIDs, each sequencer of this database): namespaces in all, leased for good, parked for the next session, held by running sessions, spent, and never leased';
GRANT SELECT ON @extschema@.idgen_backfill_spaces TO PUBLIC;

-- One server per sequencer's backfill: snowflake_at leases a sequencer's reserved
-- node ids from the server's own counter, so two servers backfilling one sequencer would
-- collide. The server that creates a sequencer owns its backfill (the column's default is its
-- idgen.node_id, taken at insert, so pg_dump and logical replication carry the owner along);
-- snowflake_at elsewhere is refused (55000). Existing sequencers belong to the server that
-- runs this update. NULL: a server without idgen.node_id created it; any server may backfill.
ALTER TABLE @extschema@.snowflake_definitions
    ADD COLUMN backfill_owner integer
    DEFAULT NULLIF(pg_catalog.current_setting('idgen.node_id', true)::pg_catalog.int4, -1);
COMMENT ON COLUMN @extschema@.snowflake_definitions.backfill_owner IS
    'The node id of the one server that may run snowflake_at on this sequencer (the creating server''s idgen.node_id); NULL: any';

-- UUID versions 7 and 6 (RFC 9562). Version 7: a live generator on the server's shared
-- clock and a retrospective one on leased namespaces, like version 1 (layout: src/core/layouts/uuid_v7.hpp).
-- Version 6: version 1's fields sorted by time, from version 1's clock and namespaces.
-- PARALLEL RESTRICTED as the other generators: a parallel worker cannot write the WAL that
-- moves the horizon.
CREATE FUNCTION @extschema@.uuid_v7() RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_v7'
    LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.uuid_v7() IS
    'RFC 9562 version-7 UUID: milliseconds and a 12-bit sub-millisecond fraction of the wall clock, strictly increasing within a session and across sessions by millisecond (across all sessions with idgen.ordering = strict), across crashes and clock steps; idgen.node_id and 44 random bits follow';
-- Not STRICT: a NULL timestamp is an error (22004), never a NULL id.
CREATE FUNCTION @extschema@.uuid_v7_at(ts timestamptz) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_v7_at'
    LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.uuid_v7_at(timestamptz) IS
    'A retrospective version-7 UUID whose time is exactly ts (to the microsecond, 1970-01-01 .. 10889-08-02), different from every other UUID idgen hands out; needs idgen.node_id';
CREATE FUNCTION @extschema@.uuid_v7_timestamp(u uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'idgen_uuid_v7_timestamp'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_v7_timestamp(uuid) IS
    'The time embedded in a version-7 UUID: its millisecond and the sub-millisecond fraction after it (RFC 9562 method 3), to the microsecond; NULL if the UUID is not version 7';
CREATE FUNCTION @extschema@.uuid_v7_min(ts timestamptz) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_v7_min'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_v7_min(timestamptz) IS
    'The smallest version-7 UUID whose time is at or after ts: id >= uuid_v7_min(ts) exactly when uuid_v7_timestamp(id) >= ts, for index range scans and partition bounds';
CREATE FUNCTION @extschema@.uuid_v6() RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_v6'
    LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.uuid_v6() IS
    'RFC 9562 version-6 UUID: uuid_v1()''s fields from the same clock, the time''s most significant bits first so that it sorts by time';
CREATE FUNCTION @extschema@.uuid_v6_at(ts timestamptz) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_v6_at'
    LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.uuid_v6_at(timestamptz) IS
    'uuid_v1_at(ts) in version 6''s layout: time exactly ts, from the same namespaces; needs idgen.node_id';
CREATE FUNCTION @extschema@.uuid_v6_at(ts timestamptz, node macaddr) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_v6_at'
    LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.uuid_v6_at(timestamptz, macaddr) IS
    'uuid_v1_at(ts, node) in version 6''s layout: time exactly ts, with the given node, from the same namespaces';
CREATE FUNCTION @extschema@.uuid_v6_timestamp(u uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'idgen_uuid_v6_timestamp'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_v6_timestamp(uuid) IS
    'The time embedded in a version-6 UUID, exact to the microsecond (sub-microsecond ticks truncated); NULL if the UUID is not version 6';
CREATE FUNCTION @extschema@.uuid_v1_to_v6(u uuid) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_v1_to_v6'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_v1_to_v6(uuid) IS
    'The version-6 UUID with the same time, clock sequence and node as a version-1 UUID (lossless); NULL if the UUID is not version 1';
CREATE FUNCTION @extschema@.uuid_v6_to_v1(u uuid) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_v6_to_v1'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_v6_to_v1(uuid) IS
    'The version-1 UUID with the same time, clock sequence and node as a version-6 UUID (lossless); NULL if the UUID is not version 6';

-- idgen.ordering: the live generators are ordered within a session and across sessions by
-- millisecond unless the setting asks for the strict server-wide order.
COMMENT ON FUNCTION @extschema@.snowflake_next(text) IS
    'The next id of a Snowflake sequencer: unique, strictly increasing within a session and across sessions by millisecond (across all sessions with idgen.ordering = strict), across crashes and clock steps; needs shared_preload_libraries and idgen.node_id';
COMMENT ON FUNCTION @extschema@.uuid_v1() IS
    'RFC 4122 version-1 UUID from the wall clock at 100 ns resolution; its 60-bit time is unique, strictly increasing within a session and across sessions by millisecond (across all sessions with idgen.ordering = strict), across crashes and clock steps';
COMMENT ON FUNCTION @extschema@.unique_timestamp() IS
    'Nanoseconds since 1970 whose last idgen.unique_timestamp_digits digits are idgen.node_id: unique, strictly increasing within a session and across sessions by millisecond (across all sessions with idgen.ordering = strict), across crashes and clock steps';
