-- idgen 0.4.0: retrospective ids for backfilling historical rows: uuid_v1_at and
-- snowflake_at, and Snowflake sequencers that reserve node ids for them (backfill_nodes).
\echo Use "ALTER EXTENSION idgen UPDATE TO '0.4.0'" to load this file. \quit

-- The top backfill_nodes node ids of a sequencer belong to snowflake_at; live generation
-- (snowflake_next) uses the node ids below them.
ALTER TABLE @extschema@.snowflake_definitions
    ADD COLUMN backfill_nodes integer NOT NULL DEFAULT 0
    CONSTRAINT snowflake_definitions_backfill_nodes_check CHECK (backfill_nodes >= 0 AND backfill_nodes < max_nodes);

CREATE FUNCTION @extschema@._snowflake_check_definition(name text, epoch timestamptz, max_nodes integer,
        backfill_nodes integer)
    RETURNS integer
    AS 'MODULE_PATHNAME', 'idgen_snowflake_check_definition'
    LANGUAGE C STABLE STRICT;
COMMENT ON FUNCTION @extschema@._snowflake_check_definition(text, timestamptz, integer, integer) IS
    'internal: validates a sequencer definition and returns max_nodes rounded up to a power of two';
DROP FUNCTION @extschema@._snowflake_check_definition(text, timestamptz, integer);

CREATE FUNCTION @extschema@.snowflake_create(name text,
        epoch timestamptz DEFAULT '2020-01-01 00:00:00+00', max_nodes integer DEFAULT 8192,
        backfill_nodes integer DEFAULT 0)
    RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    nodes integer;
    existing @extschema@.snowflake_definitions;
BEGIN
    IF name IS NULL OR epoch IS NULL OR max_nodes IS NULL OR backfill_nodes IS NULL THEN
        RAISE EXCEPTION 'snowflake_create: name, epoch, max_nodes and backfill_nodes must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    nodes := @extschema@._snowflake_check_definition(name, epoch, max_nodes, backfill_nodes);
    INSERT INTO @extschema@.snowflake_definitions AS d (name, epoch, max_nodes, backfill_nodes)
    VALUES (snowflake_create.name, snowflake_create.epoch, nodes, snowflake_create.backfill_nodes)
    ON CONFLICT ON CONSTRAINT snowflake_definitions_name_key DO NOTHING;
    IF NOT FOUND THEN
        SELECT * INTO existing FROM @extschema@.snowflake_definitions d WHERE d.name = snowflake_create.name;
        IF existing.epoch IS DISTINCT FROM snowflake_create.epoch OR existing.max_nodes <> nodes
           OR existing.backfill_nodes <> snowflake_create.backfill_nodes THEN
            RAISE EXCEPTION 'Snowflake sequencer "%" already exists with a different definition', name
                USING ERRCODE = 'duplicate_object',
                      DETAIL = format('It has epoch %s, max_nodes %s and backfill_nodes %s.',
                                      existing.epoch, existing.max_nodes, existing.backfill_nodes),
                      HINT = 'Every server must define a sequencer identically; drop it first to change it.';
        END IF;
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@.snowflake_create(text, timestamptz, integer, integer) IS
    'Defines a Snowflake sequencer: 41 bits of milliseconds since epoch, log2(max_nodes) node bits (max_nodes a power of two, 128..8192), the rest a per-millisecond counter; the top backfill_nodes node ids are reserved for snowflake_at; does nothing if it exists with the same definition';
REVOKE ALL ON FUNCTION @extschema@.snowflake_create(text, timestamptz, integer, integer) FROM PUBLIC;
-- Roles an administrator allowed to define sequencers keep that right.
DO $$
DECLARE
    g record;
BEGIN
    FOR g IN
        SELECT a.grantee::pg_catalog.regrole::pg_catalog.text AS role
        FROM pg_catalog.pg_proc p, pg_catalog.aclexplode(p.proacl) a
        WHERE p.oid = '@extschema@.snowflake_create(text, timestamptz, integer)'::pg_catalog.regprocedure
          AND a.privilege_type = 'EXECUTE' AND a.grantee <> 0 AND a.grantee <> p.proowner
    LOOP
        EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION @extschema@.snowflake_create(text, timestamptz, integer, integer) TO %s', g.role);
    END LOOP;
END
$$;
DROP FUNCTION @extschema@.snowflake_create(text, timestamptz, integer);

DROP VIEW @extschema@.snowflake_sequencers;
DROP FUNCTION @extschema@._snowflake_state(oid, bigint, integer);
CREATE FUNCTION @extschema@._snowflake_state(definitions oid, definition_id bigint, max_nodes integer,
        backfill_nodes integer,
        OUT node_bits integer, OUT counter_bits integer, OUT node_id integer, OUT state text,
        OUT ids_issued bigint, OUT last_id_time timestamptz)
    AS 'MODULE_PATHNAME', 'idgen_snowflake_state'
    LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION @extschema@._snowflake_state(oid, bigint, integer, integer) IS
    'internal: the live state of a sequencer on this server, for the snowflake_sequencers view';
CREATE VIEW @extschema@.snowflake_sequencers AS
SELECT d.name, d.epoch, d.max_nodes, d.backfill_nodes, s.node_bits, s.counter_bits, s.node_id, s.state,
       s.ids_issued, s.last_id_time
FROM @extschema@.snowflake_definitions d,
     LATERAL @extschema@._snowflake_state(d.tableoid, d.id, d.max_nodes, d.backfill_nodes) s;
COMMENT ON VIEW @extschema@.snowflake_sequencers IS
    'Snowflake sequencers of this database and their state on this server (attached when this server can generate with them)';
GRANT SELECT ON @extschema@.snowflake_sequencers TO PUBLIC;

-- Not STRICT: a NULL timestamp is an error (22004), never a NULL id.
CREATE FUNCTION @extschema@.snowflake_at(name text, ts timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'idgen_snowflake_at'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_at(text, timestamptz) IS
    'A retrospective Snowflake id whose time field is the millisecond of ts, on a node id the sequencer reserves for backfill; never equal to another id of the sequencer from this server';

CREATE FUNCTION @extschema@.uuid_v1_at(ts timestamptz) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_v1_at'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_v1_at(timestamptz) IS
    'A retrospective version-1 UUID whose time is exactly ts (to the microsecond), different from every other UUID idgen hands out on this server; needs idgen.node_id';
CREATE FUNCTION @extschema@.uuid_v1_at(ts timestamptz, node macaddr) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_v1_at'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_v1_at(timestamptz, macaddr) IS
    'A retrospective version-1 UUID with the given node whose time is exactly ts (to the microsecond), different from every other UUID idgen hands out on this server';
