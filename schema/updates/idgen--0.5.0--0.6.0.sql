-- idgen 0.6.0: snowcast's exact Snowflake layout as an option per sequencer.

\echo Use "ALTER EXTENSION idgen UPDATE" to load this file. \quit

-- ---- Snowflake layouts ------------------------------------------------------------------
-- 'idgen' (the default, every sequencer so far): 41 time bits, node and counter in 22, the sign
-- bit 0. 'snowcast': snowcast's layout, node and counter in 23, all 64 bits, for sequencers
-- whose ids must decode as snowcast's own decoders do.
ALTER TABLE @extschema@.snowflake_definitions
    ADD COLUMN layout text NOT NULL DEFAULT 'idgen'
    CONSTRAINT snowflake_definitions_layout_check CHECK (layout IN ('idgen', 'snowcast'));
COMMENT ON COLUMN @extschema@.snowflake_definitions.layout IS
    'idgen: 41 time bits, node and counter in 22, the sign bit 0; snowcast: snowcast''s layout, node and counter in 23, all 64 bits';

CREATE FUNCTION @extschema@._snowflake_check_definition(name text, epoch timestamptz, max_nodes integer,
        backfill_nodes integer, layout text)
    RETURNS integer
    AS 'MODULE_PATHNAME', 'idgen_snowflake_check_definition'
    LANGUAGE C STABLE STRICT;
COMMENT ON FUNCTION @extschema@._snowflake_check_definition(text, timestamptz, integer, integer, text) IS
    'internal: validates a sequencer definition and returns max_nodes rounded up to a power of two';
DROP FUNCTION @extschema@._snowflake_check_definition(text, timestamptz, integer, integer);

CREATE FUNCTION @extschema@.snowflake_create(name text,
        epoch timestamptz DEFAULT '2020-01-01 00:00:00+00', max_nodes integer DEFAULT 8192,
        backfill_nodes integer DEFAULT 0, layout text DEFAULT 'idgen')
    RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    nodes integer;
    existing @extschema@.snowflake_definitions;
BEGIN
    IF name IS NULL OR epoch IS NULL OR max_nodes IS NULL OR backfill_nodes IS NULL OR layout IS NULL THEN
        RAISE EXCEPTION 'snowflake_create: name, epoch, max_nodes, backfill_nodes and layout must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    nodes := @extschema@._snowflake_check_definition(name, epoch, max_nodes, backfill_nodes, layout);
    INSERT INTO @extschema@.snowflake_definitions AS d (name, epoch, max_nodes, backfill_nodes, layout)
    VALUES (snowflake_create.name, snowflake_create.epoch, nodes, snowflake_create.backfill_nodes,
            snowflake_create.layout)
    ON CONFLICT ON CONSTRAINT snowflake_definitions_name_key DO NOTHING;
    IF NOT FOUND THEN
        SELECT * INTO existing FROM @extschema@.snowflake_definitions d WHERE d.name = snowflake_create.name;
        IF existing.epoch IS DISTINCT FROM snowflake_create.epoch OR existing.max_nodes <> nodes
           OR existing.backfill_nodes <> snowflake_create.backfill_nodes
           OR existing.layout <> snowflake_create.layout THEN
            RAISE EXCEPTION 'Snowflake sequencer "%" already exists with a different definition', name
                USING ERRCODE = 'duplicate_object',
                      DETAIL = format('It has epoch %s, max_nodes %s, backfill_nodes %s and layout %s.',
                                      existing.epoch, existing.max_nodes, existing.backfill_nodes,
                                      existing.layout),
                      HINT = 'Every server must define a sequencer identically; drop it first to change it.';
        END IF;
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@.snowflake_create(text, timestamptz, integer, integer, text) IS
    'Defines a Snowflake sequencer: 41 bits of milliseconds since epoch, log2(max_nodes) node bits (max_nodes a power of two, 128..8192), the rest a per-millisecond counter, in 63 bits (layout idgen: ids stay positive) or all 64 (layout snowcast, snowcast''s: ids from 34.8 years after the epoch on are negative); the top backfill_nodes node ids are reserved for snowflake_at; does nothing if it exists with the same definition';
REVOKE ALL ON FUNCTION @extschema@.snowflake_create(text, timestamptz, integer, integer, text) FROM PUBLIC;
-- Roles an administrator allowed to define sequencers keep that right.
DO $$
DECLARE
    g record;
BEGIN
    FOR g IN
        SELECT a.grantee::pg_catalog.regrole::pg_catalog.text AS role
        FROM pg_catalog.pg_proc p, pg_catalog.aclexplode(p.proacl) a
        WHERE p.oid = '@extschema@.snowflake_create(text, timestamptz, integer, integer)'::pg_catalog.regprocedure
          AND a.privilege_type = 'EXECUTE' AND a.grantee <> 0 AND a.grantee <> p.proowner
    LOOP
        EXECUTE pg_catalog.format('GRANT EXECUTE ON FUNCTION @extschema@.snowflake_create(text, timestamptz, integer, integer, text) TO %s', g.role);
    END LOOP;
END
$$;
DROP FUNCTION @extschema@.snowflake_create(text, timestamptz, integer, integer);

DROP VIEW @extschema@.snowflake_sequencers;
DROP FUNCTION @extschema@._snowflake_state(oid, bigint, integer, integer);
CREATE FUNCTION @extschema@._snowflake_state(definitions oid, definition_id bigint, max_nodes integer,
        backfill_nodes integer, layout text, name text,
        OUT node_bits integer, OUT counter_bits integer, OUT node_id integer, OUT state text,
        OUT ids_issued bigint, OUT last_id_time timestamptz)
    AS 'MODULE_PATHNAME', 'idgen_snowflake_state'
    LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION @extschema@._snowflake_state(oid, bigint, integer, integer, text, text) IS
    'internal: the live state of a sequencer on this server, for the snowflake_sequencers view';

CREATE VIEW @extschema@.snowflake_sequencers AS
SELECT d.name, d.epoch, d.max_nodes, d.backfill_nodes, d.layout, s.node_bits, s.counter_bits, s.node_id,
       s.state, s.ids_issued, s.last_id_time
FROM @extschema@.snowflake_definitions d,
     LATERAL @extschema@._snowflake_state(d.tableoid, d.id, d.max_nodes, d.backfill_nodes, d.layout, d.name) s;
COMMENT ON VIEW @extschema@.snowflake_sequencers IS
    'Snowflake sequencers of this database and their state on this server (attached when this server can generate with them)';
GRANT SELECT ON @extschema@.snowflake_sequencers TO PUBLIC;

COMMENT ON FUNCTION @extschema@.snowflake_min_id(text, timestamptz) IS
    'The smallest id any node can issue in the millisecond of ts (0 before the epoch): WHERE id >= snowflake_min_id(...) is an index range scan; in the snowcast layout ids from 34.8 years after the epoch on are negative and it is negative there too (README, Snowflake sequencers)';

-- ---- end of the Snowflake layouts ------------------------------------------------------

-- ---- Cluster mode (idgen.registry) ----------------------------------------------------------
-- snowflake_drop names the sequencer to _snowflake_release, which destroys it cluster-wide.
CREATE FUNCTION @extschema@._snowflake_release(definitions oid, definition_id bigint, name text) RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_snowflake_release'
    LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION @extschema@._snowflake_release(oid, bigint, text) IS
    'internal: frees the shared-memory slot of a dropped sequencer when the transaction commits, and in cluster mode destroys it cluster-wide';
REVOKE ALL ON FUNCTION @extschema@._snowflake_release(oid, bigint, text) FROM PUBLIC;
CREATE OR REPLACE FUNCTION @extschema@.snowflake_drop(name text) RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    dropped bigint;
BEGIN
    DELETE FROM @extschema@.snowflake_definitions d WHERE d.name = snowflake_drop.name RETURNING d.id INTO dropped;
    IF dropped IS NULL THEN
        RAISE EXCEPTION 'Snowflake sequencer "%" does not exist', name USING ERRCODE = 'undefined_object';
    END IF;
    PERFORM @extschema@._snowflake_release('@extschema@.snowflake_definitions'::regclass, dropped, name);
END
$$;
COMMENT ON FUNCTION @extschema@.snowflake_drop(text) IS
    'Drops a Snowflake sequencer; once the transaction commits, snowflake_next on it fails in every session (in cluster mode, on every server: destroyed)';
DROP FUNCTION @extschema@._snowflake_release(oid, bigint);

-- ---- Cluster mode (idgen.registry): attach, detach, the registry's state -----------------
CREATE FUNCTION @extschema@.snowflake_attach(name text) RETURNS integer
    AS 'MODULE_PATHNAME', 'idgen_snowflake_attach'
    LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION @extschema@.snowflake_attach(text) IS
    'Cluster mode: claims a node id of the sequencer for this server (the lowest free one) and returns it; 55000 when all its live node ids are held by other servers';
REVOKE ALL ON FUNCTION @extschema@.snowflake_attach(text) FROM PUBLIC;
CREATE FUNCTION @extschema@.snowflake_detach(name text) RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_snowflake_detach'
    LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION @extschema@.snowflake_detach(text) IS
    'Cluster mode: gives this server''s node id of the sequencer back, so another server can take it; snowflake_next on it fails here until snowflake_attach';
REVOKE ALL ON FUNCTION @extschema@.snowflake_detach(text) FROM PUBLIC;

CREATE FUNCTION @extschema@._idgen_registry(
        OUT state text, OUT node_id integer, OUT lease_id text, OUT lease_left interval,
        OUT horizon timestamptz, OUT attaches bigint, OUT detaches bigint, OUT last_error text)
    AS 'MODULE_PATHNAME', 'idgen_registry'
    LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@._idgen_registry() IS 'internal: the row of the idgen_registry view';
CREATE VIEW @extschema@.idgen_registry AS SELECT * FROM @extschema@._idgen_registry();
COMMENT ON VIEW @extschema@.idgen_registry IS
    'Cluster mode: this server''s lease in etcd (off, attaching, attached, detached), its node id, the time left before its own deadline, the registry horizon, attaches and detaches, and the last registry error';
GRANT SELECT ON @extschema@.idgen_registry TO PUBLIC;
