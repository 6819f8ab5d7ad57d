-- idgen 0.9.0: uuid_v6_min(ts), the smallest version-6 UUID of a time (immutable), for
-- partition bounds and index range scans of version-6 keys.

\echo Use "ALTER EXTENSION idgen UPDATE" to load this file. \quit

CREATE FUNCTION @extschema@.uuid_v6_min(ts timestamptz) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_v6_min'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_v6_min(timestamptz) IS
    'The smallest version-6 UUID whose time is at or after ts: id >= uuid_v6_min(ts) exactly when uuid_v6_timestamp(id) >= ts, for index range scans and partition bounds';
