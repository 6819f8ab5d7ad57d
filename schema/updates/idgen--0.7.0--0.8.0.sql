-- idgen 0.8.0: snowflake_timestamp and snowflake_min_id under a layout given explicitly
-- (immutable); the view idgen_registry also shows the cluster's name and how many servers hold a
-- node id in it; two catalog comments no longer name a document outside the extension.

\echo Use "ALTER EXTENSION idgen UPDATE" to load this file. \quit

COMMENT ON COLUMN @extschema@.snowflake_definitions.layout IS
    'idgen: 41 time bits, node and counter in 22, the sign bit 0; snowcast: snowcast''s own layout, node and counter in 23, all 64 bits';
COMMENT ON FUNCTION @extschema@.snowflake_create(text, timestamptz, integer, integer, text) IS
    'Defines a Snowflake sequencer: 41 bits of milliseconds since epoch, log2(max_nodes) node bits (max_nodes a power of two, 128..8192), the rest a per-millisecond counter, in 63 bits (layout idgen: ids stay positive) or all 64 (layout snowcast, snowcast''s own: ids from 34.8 years after the epoch on are negative); the top backfill_nodes node ids are reserved for snowflake_at; does nothing if it exists with the same definition';

-- The view gains two columns at its end (the library forms the row with the columns the schema
-- has, so it serves 0.7.0's schema until this update runs).
DROP VIEW @extschema@.idgen_registry;
DROP FUNCTION @extschema@._idgen_registry();
CREATE FUNCTION @extschema@._idgen_registry(
        OUT state text, OUT node_id integer, OUT lease_id text, OUT lease_left interval,
        OUT horizon timestamptz, OUT attaches bigint, OUT detaches bigint, OUT last_error text,
        OUT cluster text, OUT servers integer)
    AS 'MODULE_PATHNAME', 'idgen_registry'
    LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@._idgen_registry() IS 'internal: the row of the idgen_registry view';
CREATE VIEW @extschema@.idgen_registry AS SELECT * FROM @extschema@._idgen_registry();
COMMENT ON VIEW @extschema@.idgen_registry IS
    'Cluster mode: this server''s lease in etcd (off, attaching, attached, detached), its node id, the time left before its own deadline, the registry horizon, attaches and detaches, the last registry error, the cluster''s name and how many servers hold a node id in it';
GRANT SELECT ON @extschema@.idgen_registry TO PUBLIC;

-- The same under a layout given explicitly: nothing looked up, so IMMUTABLE (generated columns,
-- index expressions, partition bounds). The arguments are those of snowflake_create.
CREATE FUNCTION @extschema@.snowflake_timestamp(id bigint, epoch timestamptz, max_nodes integer DEFAULT 8192,
        layout text DEFAULT 'idgen') RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'idgen_snowflake_timestamp_of'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_timestamp(bigint, timestamptz, integer, text) IS
    'The millisecond a Snowflake id of the given layout (epoch, max_nodes, layout as for snowflake_create) was issued in; immutable, for generated columns and partition bounds';
CREATE FUNCTION @extschema@.snowflake_min_id(ts timestamptz, epoch timestamptz, max_nodes integer DEFAULT 8192,
        layout text DEFAULT 'idgen') RETURNS bigint
    AS 'MODULE_PATHNAME', 'idgen_snowflake_min_id_of'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_min_id(timestamptz, timestamptz, integer, text) IS
    'The smallest id of the given layout (epoch, max_nodes, layout as for snowflake_create) that any node can issue in the millisecond of ts; immutable, for partition bounds';

