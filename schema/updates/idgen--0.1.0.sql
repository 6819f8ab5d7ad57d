-- idgen 0.1.0: the version-1 UUID codec (RFC 4122).
\echo Use "CREATE EXTENSION idgen" to load this file. \quit

CREATE FUNCTION form_uuid_v1(ts timestamptz, clock_seq integer, node macaddr) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_form_uuid_v1'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION form_uuid_v1(timestamptz, integer, macaddr) IS
    'RFC 4122 version-1 UUID built from a time (1582-10-15 .. 5236-03-31 UTC, microsecond precision), a clock sequence (0..16383) and a 48-bit node';

CREATE FUNCTION uuid_v1_timestamp(u uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'idgen_uuid_v1_timestamp'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_v1_timestamp(uuid) IS
    'The time embedded in a version-1 UUID, exact to the microsecond (sub-microsecond ticks truncated); NULL if the UUID is not version 1';

CREATE FUNCTION uuid_v1_clock_seq(u uuid) RETURNS integer
    AS 'MODULE_PATHNAME', 'idgen_uuid_v1_clock_seq'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_v1_clock_seq(uuid) IS
    'The 14-bit clock sequence of a version-1 UUID; NULL if the UUID is not version 1';

CREATE FUNCTION uuid_v1_node(u uuid) RETURNS macaddr
    AS 'MODULE_PATHNAME', 'idgen_uuid_v1_node'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_v1_node(uuid) IS
    'The 48-bit node of a version-1 UUID as a MAC address; NULL if the UUID is not version 1';

CREATE FUNCTION uuid_version(u uuid) RETURNS smallint
    AS 'MODULE_PATHNAME', 'idgen_uuid_version'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION uuid_version(uuid) IS
    'The version nibble of an RFC 4122/9562 UUID; NULL when the variant is not RFC 4122/9562 (nil, NCS, Microsoft, future)';
