-- idgen 0.2.0: Snowflake sequencers in shared memory (seeds 003 and 004).
\echo Use "ALTER EXTENSION idgen UPDATE TO '0.2.0'" to load this file. \quit

-- Definitions, per database; dumped by pg_dump and replicated like any table. Change them
-- only through snowflake_create / snowflake_drop, which keep shared memory in step.
CREATE SEQUENCE @extschema@.snowflake_definitions_id_seq;
CREATE TABLE @extschema@.snowflake_definitions (
    id bigint PRIMARY KEY DEFAULT nextval('@extschema@.snowflake_definitions_id_seq'),
    name text NOT NULL UNIQUE CHECK (octet_length(name) BETWEEN 1 AND 63),
    epoch timestamptz NOT NULL,
    max_nodes integer NOT NULL CHECK (max_nodes IN (128, 256, 512, 1024, 2048, 4096, 8192))
);
ALTER SEQUENCE @extschema@.snowflake_definitions_id_seq OWNED BY @extschema@.snowflake_definitions.id;
SELECT pg_catalog.pg_extension_config_dump('@extschema@.snowflake_definitions', '');
SELECT pg_catalog.pg_extension_config_dump('@extschema@.snowflake_definitions_id_seq', '');
REVOKE ALL ON @extschema@.snowflake_definitions FROM PUBLIC;
GRANT SELECT ON @extschema@.snowflake_definitions TO PUBLIC;
COMMENT ON TABLE @extschema@.snowflake_definitions IS
    'Snowflake sequencer definitions of this database; change them with snowflake_create and snowflake_drop';

-- Internal helpers.
CREATE FUNCTION @extschema@._snowflake_check_definition(name text, epoch timestamptz, max_nodes integer)
    RETURNS integer
    AS 'MODULE_PATHNAME', 'idgen_snowflake_check_definition'
    LANGUAGE C STABLE STRICT;
COMMENT ON FUNCTION @extschema@._snowflake_check_definition(text, timestamptz, integer) IS
    'internal: validates a sequencer definition and returns max_nodes rounded up to a power of two';
CREATE FUNCTION @extschema@._snowflake_release(definitions oid, definition_id bigint) RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_snowflake_release'
    LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION @extschema@._snowflake_release(oid, bigint) IS
    'internal: frees the shared-memory slot of a dropped sequencer when the transaction commits';
REVOKE ALL ON FUNCTION @extschema@._snowflake_release(oid, bigint) FROM PUBLIC;
CREATE FUNCTION @extschema@._snowflake_state(definitions oid, definition_id bigint, max_nodes integer,
        OUT node_bits integer, OUT counter_bits integer, OUT node_id integer, OUT state text,
        OUT ids_issued bigint, OUT last_id_time timestamptz)
    AS 'MODULE_PATHNAME', 'idgen_snowflake_state'
    LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION @extschema@._snowflake_state(oid, bigint, integer) IS
    'internal: the live state of a sequencer on this server, for the snowflake_sequencers view';

CREATE FUNCTION @extschema@.snowflake_create(name text,
        epoch timestamptz DEFAULT '2020-01-01 00:00:00+00', max_nodes integer DEFAULT 8192)
    RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    nodes integer;
    existing @extschema@.snowflake_definitions;
BEGIN
    IF name IS NULL OR epoch IS NULL OR max_nodes IS NULL THEN
        RAISE EXCEPTION 'snowflake_create: name, epoch and max_nodes must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    nodes := @extschema@._snowflake_check_definition(name, epoch, max_nodes);
    INSERT INTO @extschema@.snowflake_definitions AS d (name, epoch, max_nodes)
    VALUES (snowflake_create.name, snowflake_create.epoch, nodes)
    ON CONFLICT ON CONSTRAINT snowflake_definitions_name_key DO NOTHING;
    IF NOT FOUND THEN
        SELECT * INTO existing FROM @extschema@.snowflake_definitions d WHERE d.name = snowflake_create.name;
        IF existing.epoch IS DISTINCT FROM snowflake_create.epoch OR existing.max_nodes <> nodes THEN
            RAISE EXCEPTION 'Snowflake sequencer "%" already exists with a different definition', name
                USING ERRCODE = 'duplicate_object',
                      DETAIL = format('It has epoch %s and max_nodes %s.', existing.epoch, existing.max_nodes),
                      HINT = 'Every server must define a sequencer identically; drop it first to change it.';
        END IF;
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@.snowflake_create(text, timestamptz, integer) IS
    'Defines a Snowflake sequencer: 41 bits of milliseconds since epoch, log2(max_nodes) node bits (max_nodes a power of two, 128..8192), the rest a per-millisecond counter; does nothing if it exists with the same definition';
REVOKE ALL ON FUNCTION @extschema@.snowflake_create(text, timestamptz, integer) FROM PUBLIC;

CREATE FUNCTION @extschema@.snowflake_drop(name text) RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    dropped bigint;
BEGIN
    DELETE FROM @extschema@.snowflake_definitions d WHERE d.name = snowflake_drop.name RETURNING d.id INTO dropped;
    IF dropped IS NULL THEN
        RAISE EXCEPTION 'Snowflake sequencer "%" does not exist', name USING ERRCODE = 'undefined_object';
    END IF;
    PERFORM @extschema@._snowflake_release('@extschema@.snowflake_definitions'::regclass, dropped);
END
$$;
COMMENT ON FUNCTION @extschema@.snowflake_drop(text) IS
    'Drops a Snowflake sequencer; once the transaction commits, snowflake_next on it fails in every session';
REVOKE ALL ON FUNCTION @extschema@.snowflake_drop(text) FROM PUBLIC;

CREATE FUNCTION @extschema@.snowflake_next(name text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'idgen_snowflake_next'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_next(text) IS
    'The next id of a Snowflake sequencer: unique and strictly increasing across all sessions of this server, across crashes and clock steps; needs shared_preload_libraries and idgen.node_id';

CREATE FUNCTION @extschema@.snowflake_timestamp(name text, id bigint) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'idgen_snowflake_timestamp'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_timestamp(text, bigint) IS
    'The millisecond a Snowflake id was issued in';
CREATE FUNCTION @extschema@.snowflake_node(name text, id bigint) RETURNS integer
    AS 'MODULE_PATHNAME', 'idgen_snowflake_node'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_node(text, bigint) IS
    'The node id of the server that issued a Snowflake id';
CREATE FUNCTION @extschema@.snowflake_counter(name text, id bigint) RETURNS integer
    AS 'MODULE_PATHNAME', 'idgen_snowflake_counter'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_counter(text, bigint) IS
    'The per-millisecond counter of a Snowflake id';
CREATE FUNCTION @extschema@.snowflake_min_id(name text, ts timestamptz) RETURNS bigint
    AS 'MODULE_PATHNAME', 'idgen_snowflake_min_id'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_min_id(text, timestamptz) IS
    'The smallest id any node can issue in the millisecond of ts (0 before the epoch): WHERE id >= snowflake_min_id(...) is an index range scan';

CREATE VIEW @extschema@.snowflake_sequencers AS
SELECT d.name, d.epoch, d.max_nodes, s.node_bits, s.counter_bits, s.node_id, s.state,
       s.ids_issued, s.last_id_time
FROM @extschema@.snowflake_definitions d,
     LATERAL @extschema@._snowflake_state(d.tableoid, d.id, d.max_nodes) s;
COMMENT ON VIEW @extschema@.snowflake_sequencers IS
    'Snowflake sequencers of this database and their state on this server (attached when this server can generate with them)';
GRANT SELECT ON @extschema@.snowflake_sequencers TO PUBLIC;
