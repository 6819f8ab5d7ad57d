-- idgen 0.3.0: live generators: UUID v1 (RFC 4122), locality UUIDs (Groupon's), unique
-- nanosecond timestamps (Chronicle's). All need idgen in shared_preload_libraries; the readers
-- do not.
\echo Use "ALTER EXTENSION idgen UPDATE TO '0.3.0'" to load this file. \quit

CREATE FUNCTION @extschema@.uuid_v1() RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_v1'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_v1() IS
    'RFC 4122 version-1 UUID from the wall clock at 100 ns resolution; its 60-bit time is unique and strictly increasing across all sessions of this server, across crashes and clock steps';

CREATE FUNCTION @extschema@.locality_uuid() RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_locality_uuid'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.locality_uuid() IS
    'Groupon locality UUID (version digit b) in the mode of idgen.locality_mode: counter, process id, 28 bits of MAC, milliseconds since 1970';
CREATE FUNCTION @extschema@.locality_uuid(sequential boolean) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_locality_uuid_mode'
    LANGUAGE C VOLATILE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.locality_uuid(boolean) IS
    'Groupon locality UUID: sequential = false varies the first characters fastest (spreads writes), true counts them up (keeps writes together)';

CREATE FUNCTION @extschema@.locality_uuid_timestamp(u uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'idgen_locality_uuid_timestamp'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.locality_uuid_timestamp(uuid) IS
    'The millisecond a locality UUID was made in; error 22023 if its version digit is not b';
CREATE FUNCTION @extschema@.locality_uuid_pid(u uuid) RETURNS integer
    AS 'MODULE_PATHNAME', 'idgen_locality_uuid_pid'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.locality_uuid_pid(uuid) IS
    'The process id (modulo 65536) in a locality UUID; error 22023 if its version digit is not b';
CREATE FUNCTION @extschema@.locality_uuid_mac(u uuid) RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_locality_uuid_mac'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.locality_uuid_mac(uuid) IS
    'The 28-bit MAC fragment in a locality UUID, as 7 hex digits; error 22023 if its version digit is not b';
CREATE FUNCTION @extschema@.locality_uuid_counter(u uuid) RETURNS bigint
    AS 'MODULE_PATHNAME', 'idgen_locality_uuid_counter'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.locality_uuid_counter(uuid) IS
    'The variable-mode counter of a locality UUID (its first 8 hex digits un-reversed); error 22023 if its version digit is not b';

CREATE FUNCTION @extschema@.unique_timestamp() RETURNS bigint
    AS 'MODULE_PATHNAME', 'idgen_unique_timestamp'
    LANGUAGE C VOLATILE PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.unique_timestamp() IS
    'Nanoseconds since 1970 whose last idgen.unique_timestamp_digits digits are idgen.node_id: unique and strictly increasing across all sessions, crashes and clock steps';
CREATE FUNCTION @extschema@.unique_timestamp_text(ts bigint) RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_unique_timestamp_text'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.unique_timestamp_text(bigint) IS
    'A unique timestamp as UTC text with nine fractional digits, e.g. 2021-12-28T14:07:02.954100128';
CREATE FUNCTION @extschema@.unique_timestamp_host(ts bigint) RETURNS integer
    AS 'MODULE_PATHNAME', 'idgen_unique_timestamp_host'
    LANGUAGE C STABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.unique_timestamp_host(bigint) IS
    'The host (node) id in the last idgen.unique_timestamp_digits digits of a unique timestamp';
CREATE FUNCTION @extschema@.unique_timestamp_to_timestamptz(ts bigint) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'idgen_unique_timestamp_to_timestamptz'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.unique_timestamp_to_timestamptz(bigint) IS
    'A unique timestamp as timestamptz (sub-microsecond digits truncated)';
