-- idgen 0.6.0: seed 004's exact Snowflake layout as an option per sequencer (issue 16).

\echo Use "ALTER EXTENSION idgen UPDATE" to load this file. \quit

-- ---- Snowflake layouts (issue 16, item 5) ------------------------------------------------
-- 'idgen' (the default, every sequencer so far): 41 time bits, node and counter in 22, the sign
-- bit 0. 'snowcast': seed 004's layout, node and counter in 23, all 64 bits, for sequencers
-- whose ids must decode as snowcast's own decoders do.
ALTER TABLE @extschema@.snowflake_definitions
    ADD COLUMN layout text NOT NULL DEFAULT 'idgen'
    CONSTRAINT snowflake_definitions_layout_check CHECK (layout IN ('idgen', 'snowcast'));
COMMENT ON COLUMN @extschema@.snowflake_definitions.layout IS
    'idgen: 41 time bits, node and counter in 22, the sign bit 0; snowcast: seed 004''s layout, node and counter in 23, all 64 bits';

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
    'Defines a Snowflake sequencer: 41 bits of milliseconds since epoch, log2(max_nodes) node bits (max_nodes a power of two, 128..8192), the rest a per-millisecond counter, in 63 bits (layout idgen: ids stay positive) or all 64 (layout snowcast, seed 004''s: ids from 34.8 years after the epoch on are negative); the top backfill_nodes node ids are reserved for snowflake_at; does nothing if it exists with the same definition';
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
        backfill_nodes integer, layout text,
        OUT node_bits integer, OUT counter_bits integer, OUT node_id integer, OUT state text,
        OUT ids_issued bigint, OUT last_id_time timestamptz)
    AS 'MODULE_PATHNAME', 'idgen_snowflake_state'
    LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION @extschema@._snowflake_state(oid, bigint, integer, integer, text) IS
    'internal: the live state of a sequencer on this server, for the snowflake_sequencers view';

CREATE VIEW @extschema@.snowflake_sequencers AS
SELECT d.name, d.epoch, d.max_nodes, d.backfill_nodes, d.layout, s.node_bits, s.counter_bits, s.node_id,
       s.state, s.ids_issued, s.last_id_time
FROM @extschema@.snowflake_definitions d,
     LATERAL @extschema@._snowflake_state(d.tableoid, d.id, d.max_nodes, d.backfill_nodes, d.layout) s;
COMMENT ON VIEW @extschema@.snowflake_sequencers IS
    'Snowflake sequencers of this database and their state on this server (attached when this server can generate with them)';
GRANT SELECT ON @extschema@.snowflake_sequencers TO PUBLIC;

COMMENT ON FUNCTION @extschema@.snowflake_min_id(text, timestamptz) IS
    'The smallest id any node can issue in the millisecond of ts (0 before the epoch): WHERE id >= snowflake_min_id(...) is an index range scan; in the snowcast layout ids from 34.8 years after the epoch on are negative and it is negative there too (README, Snowflake sequencers)';

-- ---- end of the Snowflake layouts ------------------------------------------------------
