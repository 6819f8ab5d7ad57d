-- idgen in plain SQL, for hosted PostgreSQL (15 and later) where no C extension can be
-- installed: no library, no shared_preload_libraries, no superuser. The UUID codec and the
-- decoders of version-1, -6 and -7 UUIDs, locality UUIDs, unique timestamps and Snowflake ids
-- (with the layout given explicitly), under the C extension's names, signatures and labels,
-- with its results, NULLs and errors (SQLSTATE and message): sql/hosted_differential.sql checks
-- every one against the C extension. And the generators uuid_v7, uuid_v7_at, uuid_v1_at,
-- uuid_v6_at and snowflake_next (with snowflake_create and snowflake_drop), unique by
-- construction from PostgreSQL's sequences (their section says how; what they promise beside
-- the C extension is in the README; test/tap/111_hosted_generators.pl tests it). The rest of the
-- C extension's generators need its shared memory and are not here. And keyed masking (id_mask,
-- id_unmask, uuid_mask, uuid_unmask, id_mask_key_create, the table idgen_mask_keys) with the C
-- extension's answers, over pgcrypto's AES where pgcrypto is installed, in any schema; without
-- it the rest of the edition installs and works, and masking refuses, saying what to do (its
-- section says how).
--
-- Install into a schema of your own, in which no other role may create, and which must come
-- first in search_path while this file runs; the functions find each other there whatever the
-- callers' search_path (the file refuses any other schema before it creates anything: see its
-- first statement):
--   CREATE SCHEMA idgen;
--   PGOPTIONS=-csearch_path=idgen psql -v ON_ERROR_STOP=1 -f hosted/idgen_hosted.sql
-- The same file updates an earlier version in that schema in place (and is pg_tle's update
-- script, hosted/register_pg_tle.sql): every object is created OR REPLACEd or IF NOT EXISTS, the
-- state (the sequencers' definitions and sequences, the serial numbers) is kept, and what an
-- earlier version had and this one has not is dropped at the end.
--
-- unique_timestamp_host reads idgen.unique_timestamp_digits as the C extension does (2 when
-- unset or empty, else 2 or 3). Without the library it is a plain custom setting: SET it, pass
-- it in the connection's options, or, where your role may (a superuser, or GRANT SET ON
-- PARAMETER), ALTER DATABASE mydb SET idgen.unique_timestamp_digits = 3.
--
-- How it is written. The functions are SQL with standard bodies (RETURN ...), which bind the
-- names they use when created and which the planner inlines into the calling query; the
-- decoders of UUIDs cut the bits they need out of the UUID with _idgen_uuid_field. The planner
-- inlines a STRICT function only if its body has no CASE, COALESCE, AND or OR and the like, so
-- "NULL unless" is _idgen_when's arithmetic; and it does not inline a helper whose argument is
-- an expensive expression used more than once in the helper's body, which is why what needs one
-- value several times (the time of a UUID, the layout of a UUID built from a time) is PL/pgSQL.
-- PL/pgSQL is also what raises the C extension's errors. It names built-in functions only,
-- since it looks names up when it runs, in the caller's search_path (what works on the
-- edition's tables and sequences is given them as arguments by a SQL function that names them,
-- bound when created). The _checked helpers
-- return a value read from an input once the input passes their check; like any argument the
-- value is computed first, and no input they refuse makes computing it fail.

-- ---- The schema it is installed into ----------------------------------------------------------
-- Four functions run as the edition's owner (SECURITY DEFINER): the jump of a sequencer, the node
-- id's check and the two that mask with a key, their search_path pinned to the edition's schema (so
-- are the PL/pgSQL functions they call, which name the edition's own). A role that may create in
-- that schema could put a better-matching overload there of a function or an operator they call,
-- and have it run as the owner; the schema's owner may also drop what is in it and put its own in
-- its place. So the file, each time it runs (to install, to update, and as pg_tle's extension
-- script, where CREATE EXTENSION puts the extension's schema first in search_path, so that
-- current_schema() is that schema too), first refuses a schema where a role other than its owner
-- has CREATE (PUBLIC is grantee 0), or whose owner is not a role the installing role acts as: the
-- installing role itself, a role it is a member of, or a superuser. A superuser is a member of
-- every role as pg_has_role tells it, so for one the owner must be itself or a superuser; a schema
-- owned by pg_database_owner is owned by the database's owner.
DO $$
DECLARE
    target record;
    owner oid;
    installer record;
    others text;
BEGIN
    SELECT n.nspname, n.nspowner, n.nspacl INTO target
    FROM pg_catalog.pg_namespace n WHERE n.nspname = pg_catalog.current_schema();
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no schema has been selected to install idgen into' USING ERRCODE = '3F000',
            HINT = 'Make one and put it first in search_path: CREATE SCHEMA idgen, then PGOPTIONS=-csearch_path=idgen psql -v ON_ERROR_STOP=1 -f hosted/idgen_hosted.sql.';
    END IF;
    SELECT pg_catalog.string_agg(CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE pg_catalog.quote_ident(r.rolname) END, ', '
                                 ORDER BY a.grantee)
    INTO others
    FROM pg_catalog.aclexplode(target.nspacl) a LEFT JOIN pg_catalog.pg_roles r ON r.oid = a.grantee
    WHERE a.privilege_type = 'CREATE' AND a.grantee <> target.nspowner;
    IF others IS NOT NULL THEN
        RAISE EXCEPTION 'idgen will not be installed into schema %: roles other than its owner may create in it (%)',
                        pg_catalog.quote_ident(target.nspname), others
            USING ERRCODE = '42501',
                  DETAIL = 'Functions of the edition run as its owner; a role that may create in their schema could put there a function or an operator that they would call.',
                  HINT = pg_catalog.format('REVOKE CREATE ON SCHEMA %s FROM %s; then run the file again. Or install into a schema of your own.',
                                           pg_catalog.quote_ident(target.nspname), others);
    END IF;
    owner := CASE WHEN target.nspowner = 'pg_database_owner'::pg_catalog.regrole
                  THEN (SELECT d.datdba FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())
                  ELSE target.nspowner END;
    SELECT r.oid, r.rolname, r.rolsuper INTO installer FROM pg_catalog.pg_roles r WHERE r.rolname = current_user;
    IF owner <> installer.oid AND NOT (SELECT r.rolsuper FROM pg_catalog.pg_roles r WHERE r.oid = owner)
       AND (installer.rolsuper OR NOT pg_catalog.pg_has_role(installer.oid, owner, 'MEMBER')) THEN
        RAISE EXCEPTION 'idgen will not be installed into schema %: its owner % is not a role that % acts as',
                        pg_catalog.quote_ident(target.nspname), owner::pg_catalog.regrole, pg_catalog.quote_ident(installer.rolname)
            USING ERRCODE = '42501',
                  DETAIL = 'Functions of the edition run as its owner; the owner of their schema could replace what they call.',
                  HINT = 'Install into a schema of your own (CREATE SCHEMA idgen), or as the schema''s owner.';
    END IF;
END
$$;

-- ---- Internal helpers -------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION _idgen_uuid_field(u uuid, first_bit integer, bits integer) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN substring(('x' || encode(uuid_send(u), 'hex'))::bit(128) FROM first_bit + 1 FOR bits)::bigint;
COMMENT ON FUNCTION _idgen_uuid_field(uuid, integer, integer) IS
    'internal: bits first_bit .. first_bit + bits - 1 of a UUID (bit 0 the most significant, bits < 64) as an unsigned number';

-- (A CASE would read better but keeps the STRICT functions that use it from being inlined.)
CREATE OR REPLACE FUNCTION _idgen_when(condition boolean, value bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN value + ('{NULL,0}'::bigint[])[condition::integer + 1];
COMMENT ON FUNCTION _idgen_when(boolean, bigint) IS
    'internal: value when condition is true, else NULL';

-- ±infinity, and the last years of PostgreSQL's range whose microseconds overflow int64, become
-- the int64 extremes, which every range check rejects.
CREATE OR REPLACE FUNCTION _idgen_unix_micros(ts timestamptz) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN numeric_smaller(numeric_larger(extract(epoch FROM timezone(interval '0', ts)) * 1000000,
                                      -9223372036854775808),
                       9223372036854775807)::bigint;
COMMENT ON FUNCTION _idgen_unix_micros(timestamptz) IS
    'internal: microseconds since 1970-01-01 00:00 UTC, clamped into int64 as the C extension clamps them';

-- Whole days, then what is left of a day: a float factor of an interval is exact below 2^53,
-- which a count of milliseconds or microseconds can pass. Milliseconds as well as microseconds,
-- so that Snowflake ids never multiply theirs into an int64 that overflows.
CREATE OR REPLACE FUNCTION _idgen_timestamptz(unix_ms bigint, micros bigint) RETURNS timestamptz
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
BEGIN
    RETURN timezone(interval '0', timestamp '1970-01-01 00:00:00'
                                  + interval '1 day' * (unix_ms / 86400000 + micros / 86400000000)
                                  + interval '1 millisecond' * (unix_ms % 86400000)
                                  + interval '1 microsecond' * (micros % 86400000000));
END
$$;
COMMENT ON FUNCTION _idgen_timestamptz(bigint, bigint) IS
    'internal: the time unix_ms milliseconds and micros microseconds after 1970-01-01 00:00 UTC, exactly';

-- ---- Version-1 and version-6 UUIDs ------------------------------------------------------------
-- The same fields in two orders (RFC 9562 sections 5.1 and 5.6):
--   version 1: time_low(32) time_mid(16) version(4)=1 time_high(12) variant(2)=10 clock_seq(14) node(48)
--   version 6: time's top 48 bits, version(4)=6, time's low 12 bits, then as version 1
-- The time is a 60-bit count of 100 ns ticks since 1582-10-15 00:00 UTC, 1970-01-01 being tick
-- 122192928000000000.

CREATE OR REPLACE FUNCTION _idgen_gregorian_ticks(unix_micros bigint) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
BEGIN
    -- 1582-10-15 00:00:00 .. 5236-03-31 21:21:00.684697 UTC: the ticks that fit in 60 bits.
    IF unix_micros NOT BETWEEN -12219292800000000 AND 103072857660684697 THEN
        RAISE EXCEPTION 'timestamp out of range for a version-1 UUID' USING ERRCODE = '22008';
    END IF;
    RETURN unix_micros * 10 + 122192928000000000;
END
$$;
COMMENT ON FUNCTION _idgen_gregorian_ticks(bigint) IS
    'internal: the 100 ns ticks since 1582-10-15 of a Unix time in microseconds; 22008 outside 60 bits';

CREATE OR REPLACE FUNCTION _idgen_time_uuid(version integer, ticks bigint, clock_seq integer, node bigint) RETURNS uuid
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
    time_and_version bigint;  -- the first 64 bits
BEGIN
    IF clock_seq NOT BETWEEN 0 AND 16383 THEN
        RAISE EXCEPTION 'clock sequence % is out of range 0..16383', clock_seq USING ERRCODE = '22003';
    END IF;
    IF version = 1 THEN
        time_and_version := ((ticks & 4294967295) << 32) | (((ticks >> 32) & 65535) << 16) | 4096 | (ticks >> 48);
    ELSE
        time_and_version := ((ticks >> 12) << 16) | 24576 | (ticks & 4095);
    END IF;
    RETURN (lpad(to_hex(time_and_version), 16, '0') || to_hex(32768 | clock_seq) || lpad(to_hex(node), 12, '0'))::uuid;
END
$$;
COMMENT ON FUNCTION _idgen_time_uuid(integer, bigint, integer, bigint) IS
    'internal: the version-1 or version-6 UUID of 60-bit ticks, a clock sequence (22003 outside 0..16383) and a 48-bit node';

CREATE OR REPLACE FUNCTION _idgen_gregorian_timestamptz(ticks bigint) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_timestamptz(0, ticks / 10 - 12219292800000000);
COMMENT ON FUNCTION _idgen_gregorian_timestamptz(bigint) IS
    'internal: the time of 100 ns ticks since 1582-10-15, sub-microsecond ticks truncated';

CREATE OR REPLACE FUNCTION uuid_version(u uuid) RETURNS smallint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_when(_idgen_uuid_field(u, 64, 2) = 2, _idgen_uuid_field(u, 48, 4))::smallint;
COMMENT ON FUNCTION uuid_version(uuid) IS
    'The version nibble of an RFC 4122/9562 UUID; NULL when the variant is not RFC 4122/9562 (nil, NCS, Microsoft, future)';

CREATE OR REPLACE FUNCTION _idgen_v1_ticks(u uuid) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_when(uuid_version(u) = 1, (_idgen_uuid_field(u, 52, 12) << 48)
                                        | (_idgen_uuid_field(u, 32, 16) << 32)
                                        | _idgen_uuid_field(u, 0, 32));
COMMENT ON FUNCTION _idgen_v1_ticks(uuid) IS
    'internal: the 60-bit time of a version-1 UUID; NULL for other UUIDs';

CREATE OR REPLACE FUNCTION _idgen_v6_ticks(u uuid) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_when(uuid_version(u) = 6, (_idgen_uuid_field(u, 0, 48) << 12) | _idgen_uuid_field(u, 52, 12));
COMMENT ON FUNCTION _idgen_v6_ticks(uuid) IS
    'internal: the 60-bit time of a version-6 UUID; NULL for other UUIDs';

CREATE OR REPLACE FUNCTION form_uuid_v1(ts timestamptz, clock_seq integer, node macaddr) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_time_uuid(1, _idgen_gregorian_ticks(_idgen_unix_micros(ts)), clock_seq,
                        ('x' || encode(macaddr_send(node), 'hex'))::bit(48)::bigint);
COMMENT ON FUNCTION form_uuid_v1(timestamptz, integer, macaddr) IS
    'RFC 4122 version-1 UUID built from a time (1582-10-15 .. 5236-03-31 UTC, microsecond precision), a clock sequence (0..16383) and a 48-bit node';

CREATE OR REPLACE FUNCTION uuid_v1_timestamp(u uuid) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_gregorian_timestamptz(_idgen_v1_ticks(u));
COMMENT ON FUNCTION uuid_v1_timestamp(uuid) IS
    'The time embedded in a version-1 UUID, exact to the microsecond (sub-microsecond ticks truncated); NULL if the UUID is not version 1';

CREATE OR REPLACE FUNCTION uuid_v1_clock_seq(u uuid) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_when(uuid_version(u) = 1, _idgen_uuid_field(u, 66, 14))::integer;
COMMENT ON FUNCTION uuid_v1_clock_seq(uuid) IS
    'The 14-bit clock sequence of a version-1 UUID; NULL if the UUID is not version 1';

CREATE OR REPLACE FUNCTION uuid_v1_node(u uuid) RETURNS macaddr
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN lpad(to_hex(_idgen_when(uuid_version(u) = 1, _idgen_uuid_field(u, 80, 48))), 12, '0')::macaddr;
COMMENT ON FUNCTION uuid_v1_node(uuid) IS
    'The 48-bit node of a version-1 UUID as a MAC address; NULL if the UUID is not version 1';

CREATE OR REPLACE FUNCTION uuid_v6_timestamp(u uuid) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_gregorian_timestamptz(_idgen_v6_ticks(u));
COMMENT ON FUNCTION uuid_v6_timestamp(uuid) IS
    'The time embedded in a version-6 UUID, exact to the microsecond (sub-microsecond ticks truncated); NULL if the UUID is not version 6';

-- Version 6 lays the ticks out first, most significant bits first, so the UUID of a time's
-- ticks with clock sequence and node zero is at or below every version-6 UUID of that time or
-- later. Before the Gregorian reform: the smallest version-6 UUID of all.
CREATE OR REPLACE FUNCTION uuid_v6_min(ts timestamptz) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_time_uuid(6, _idgen_gregorian_ticks(_idgen_unix_micros(timestamptz_larger(ts, '1582-10-15 00:00:00+00'))), 0, 0);
COMMENT ON FUNCTION uuid_v6_min(timestamptz) IS
    'The smallest version-6 UUID whose time is at or after ts: id >= uuid_v6_min(ts) exactly when uuid_v6_timestamp(id) >= ts, for index range scans and partition bounds';

CREATE OR REPLACE FUNCTION uuid_v1_to_v6(u uuid) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_time_uuid(6, _idgen_v1_ticks(u), _idgen_uuid_field(u, 66, 14)::integer, _idgen_uuid_field(u, 80, 48));
COMMENT ON FUNCTION uuid_v1_to_v6(uuid) IS
    'The version-6 UUID with the same time, clock sequence and node as a version-1 UUID (lossless); NULL if the UUID is not version 1';

CREATE OR REPLACE FUNCTION uuid_v6_to_v1(u uuid) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_time_uuid(1, _idgen_v6_ticks(u), _idgen_uuid_field(u, 66, 14)::integer, _idgen_uuid_field(u, 80, 48));
COMMENT ON FUNCTION uuid_v6_to_v1(uuid) IS
    'The version-1 UUID with the same time, clock sequence and node as a version-6 UUID (lossless); NULL if the UUID is not version 6';

-- ---- Version-7 UUIDs --------------------------------------------------------------------------
--   unix_ts_ms(48) version(4)=7 fraction(12) variant(2)=10 rand_b(62)
-- The fraction counts steps of 1/4096 ms (RFC 9562 section 6.2, method 3): every microsecond
-- has steps of its own, so a microsecond is stored and read back exactly.

CREATE OR REPLACE FUNCTION uuid_v7_timestamp(u uuid) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_timestamptz(_idgen_when(uuid_version(u) = 7, _idgen_uuid_field(u, 0, 48)),
                          _idgen_uuid_field(u, 52, 12) * 1000 / 4096);
COMMENT ON FUNCTION uuid_v7_timestamp(uuid) IS
    'The time embedded in a version-7 UUID: its millisecond and the sub-millisecond fraction after it (RFC 9562 method 3), to the microsecond; NULL if the UUID is not version 7';

CREATE OR REPLACE FUNCTION _idgen_v7_uuid(unix_micros bigint, rand_b bigint) RETURNS uuid
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
BEGIN
    -- 1970-01-01 .. 10889-08-02 05:31:50.655999 UTC: the 2^48 milliseconds of the field.
    IF unix_micros NOT BETWEEN 0 AND 281474976710655999 THEN
        RAISE EXCEPTION 'timestamp out of range for a version-7 UUID (1970-01-01 to 10889-08-02)' USING ERRCODE = '22008';
    END IF;
    -- The microsecond's first step, ceil(us * 4096 / 1000); rand_b's top two bits become the variant.
    RETURN (lpad(to_hex(unix_micros / 1000), 12, '0') || '7'
            || lpad(to_hex((unix_micros % 1000 * 4096 + 999) / 1000), 3, '0')
            || to_hex((rand_b & 4611686018427387903) | -9223372036854775808))::uuid;
END
$$;
COMMENT ON FUNCTION _idgen_v7_uuid(bigint, bigint) IS
    'internal: the version-7 UUID of a Unix time in microseconds (22008 outside 1970-01-01 .. 10889-08-02) with the low 62 bits of rand_b';

-- Before 1970: the smallest version-7 UUID of all.
CREATE OR REPLACE FUNCTION uuid_v7_min(ts timestamptz) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_v7_uuid(_idgen_unix_micros(timestamptz_larger(ts, '1970-01-01 00:00:00+00')), 0);
COMMENT ON FUNCTION uuid_v7_min(timestamptz) IS
    'The smallest version-7 UUID whose time is at or after ts: id >= uuid_v7_min(ts) exactly when uuid_v7_timestamp(id) >= ts, for index range scans and partition bounds';

-- Other projects' names for what version-7 UUIDs and their times read, as in the C extension:
-- PostgreSQL 17's and 18's (there PostgreSQL's own come first) and pg_uuidv7's.
CREATE OR REPLACE FUNCTION uuid_extract_version(u uuid) RETURNS smallint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN uuid_version(u);

CREATE OR REPLACE FUNCTION uuid_extract_timestamp(u uuid) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN coalesce(uuid_v1_timestamp(u), _idgen_timestamptz(_idgen_when(uuid_version(u) = 7, _idgen_uuid_field(u, 0, 48)), 0));

-- Their comments name this schema: unqualified, COMMENT would find PostgreSQL's own functions of
-- these names first (17 has the uuid_extract_ pair, 18 also uuidv7), since pg_catalog is searched
-- before every schema.
DO $$
BEGIN
    EXECUTE format('COMMENT ON FUNCTION %I.uuid_extract_version(uuid) IS %L', current_schema(),
                   'PostgreSQL 17''s uuid_extract_version: the version of an RFC 9562 UUID; NULL for another variant');
    EXECUTE format('COMMENT ON FUNCTION %I.uuid_extract_timestamp(uuid) IS %L', current_schema(),
                   'PostgreSQL 18''s uuid_extract_timestamp: the time of a version-1 UUID (to the microsecond) or a version-7 UUID (its millisecond); NULL for any other UUID');
END
$$;

CREATE OR REPLACE FUNCTION uuid_v7_to_timestamptz(u uuid) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_timestamptz(_idgen_uuid_field(u, 0, 48), 0);
COMMENT ON FUNCTION uuid_v7_to_timestamptz(uuid) IS
    'pg_uuidv7''s uuid_v7_to_timestamptz: the first 48 bits of any UUID as Unix milliseconds';

CREATE OR REPLACE FUNCTION uuid_v7_to_timestamp(u uuid) RETURNS timestamp
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN timezone(interval '0', uuid_v7_to_timestamptz(u));
COMMENT ON FUNCTION uuid_v7_to_timestamp(uuid) IS
    'pg_uuidv7''s uuid_v7_to_timestamp: the first 48 bits of any UUID as Unix milliseconds, in UTC';

-- ---- Ids as text: ULIDs, TypeIDs, Snowflake texts ---------------------------------------------
-- Crockford's base32 (0-9 and a-z without i, l, o, u), most significant bits first, at a fixed
-- width with zero bits on the left: a UUID in 26 characters (130 bits), a Snowflake id in 13 (65).
-- Each text that is not what it says raises 22P02 with the C extension's message.

CREATE OR REPLACE FUNCTION _idgen_base32(bits varbit, alphabet text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (SELECT string_agg(substr(alphabet, substring(bits FROM i * 5 + 1 FOR 5)::integer + 1, 1), '' ORDER BY i)
        FROM generate_series(0, length(bits) / 5 - 1) i);
COMMENT ON FUNCTION _idgen_base32(varbit, text) IS
    'internal: a bit string of a multiple of 5 bits in base32, in the alphabet given';

-- What a text that should hold `width` characters of base32 lacks: NULL when nothing.
CREATE OR REPLACE FUNCTION _idgen_base32_fault(t text, lower_only boolean, width integer) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE WHEN t !~ CASE WHEN lower_only THEN '^[0-9a-hjkmnp-tv-z]*$' ELSE '^[0-9a-hjkmnp-tv-zA-HJKMNP-TV-Z]*$' END
                THEN 'alphabet'
            WHEN length(t) <> width THEN 'length'
            WHEN strpos('0123456789abcdefghjkmnpqrstvwxyz', lower(left(t, 1))) - 1 > CASE width WHEN 26 THEN 7 ELSE 15 END
                THEN 'overflow'
       END;
COMMENT ON FUNCTION _idgen_base32_fault(text, boolean, integer) IS
    'internal: why a text is not width characters of base32 (alphabet, then length, then too many bits), or NULL';

-- The bits of a text of base32 (any text: a character outside the alphabet reads as 31).
CREATE OR REPLACE FUNCTION _idgen_base32_bits(t text) RETURNS varbit
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (SELECT coalesce(string_agg(((strpos('0123456789abcdefghjkmnpqrstvwxyz', lower(substr(t, i, 1))) - 1)::bit(5))::text, '' ORDER BY i), '')::varbit
        FROM generate_series(1, length(t)) i);
COMMENT ON FUNCTION _idgen_base32_bits(text) IS
    'internal: the bits a text of base32 writes, 5 a character';

-- The UUID of 130 bits (the first two dropped); any other length gives the nil UUID.
CREATE OR REPLACE FUNCTION _idgen_bits_uuid(bits varbit) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (SELECT string_agg(lpad(to_hex(substring(b FROM i * 32 + 1 FOR 32)::bit(32)::integer), 8, '0'), '' ORDER BY i)::uuid
        FROM (SELECT CASE WHEN length(bits) = 130 THEN substring(bits FROM 3) ELSE B'0'::bit(128) END AS b) s,
             generate_series(0, 3) i);
COMMENT ON FUNCTION _idgen_bits_uuid(varbit) IS
    'internal: the UUID of 130 bits whose first two are dropped (the nil UUID for any other length)';

CREATE OR REPLACE FUNCTION _idgen_uuid_bits(u uuid) RETURNS varbit
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN B'00' || ('x' || encode(uuid_send(u), 'hex'))::bit(128);
COMMENT ON FUNCTION _idgen_uuid_bits(uuid) IS
    'internal: a UUID''s 128 bits after two zero bits (130: 26 characters of base32)';

-- What the C extension says of a text that is no kind (ULID, Snowflake text), or NULL.
CREATE OR REPLACE FUNCTION _idgen_base32_refusal(t text, kind text, width integer) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN format('invalid %s "%s": ', kind, t) || CASE _idgen_base32_fault(t, false, width)
    WHEN 'alphabet' THEN 'it may hold only 0 to 9 and the letters but I, L, O and U'
    WHEN 'length' THEN format('it must be %s characters', width)
    WHEN 'overflow' THEN CASE width WHEN 26 THEN 'it holds more than 128 bits (its first character must be 0 to 7)'
                         ELSE 'it holds more than 64 bits (its first character must be 0 to 9 or A to F)' END
END;
COMMENT ON FUNCTION _idgen_base32_refusal(text, text, integer) IS
    'internal: why t, read in either case, is no kind of width characters of base32, as an error message; NULL when it is one';

-- The one raise of the text forms: a refusal already worded (by _idgen_base32_refusal and the
-- TypeID's faults), with its SQLSTATE.
CREATE OR REPLACE FUNCTION _idgen_text_checked(value anyelement, refusal text, state text) RETURNS anyelement
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
BEGIN
    IF refusal IS NOT NULL THEN
        RAISE EXCEPTION '%', refusal USING ERRCODE = state;
    END IF;
    RETURN value;
END
$$;
COMMENT ON FUNCTION _idgen_text_checked(anyelement, text, text) IS
    'internal: value, or the error refusal with SQLSTATE state when refusal is set';

CREATE OR REPLACE FUNCTION uuid_to_ulid(u uuid) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_base32(_idgen_uuid_bits(u), '0123456789ABCDEFGHJKMNPQRSTVWXYZ');
COMMENT ON FUNCTION uuid_to_ulid(uuid) IS
    'A UUID''s 128 bits as a ULID: 26 characters of Crockford''s base32 in upper case';

CREATE OR REPLACE FUNCTION ulid_to_uuid(ulid text) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_text_checked(_idgen_bits_uuid(_idgen_base32_bits(ulid)), _idgen_base32_refusal(ulid, 'ULID', 26), '22P02');
COMMENT ON FUNCTION ulid_to_uuid(text) IS
    'The UUID of a ULID, read in either case; 22P02 for a text that is no ULID (another alphabet or length, more than 128 bits)';

CREATE OR REPLACE FUNCTION ulid_timestamp(ulid text) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN uuid_v7_to_timestamptz(ulid_to_uuid(ulid));
COMMENT ON FUNCTION ulid_timestamp(text) IS
    'The time of a ULID: its first 48 bits as Unix milliseconds';

-- A TypeID: the prefix before its last underscore (none: no prefix) and 26 characters after.
CREATE OR REPLACE FUNCTION _idgen_typeid_prefix_fault(prefix text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE WHEN prefix !~ '^[a-z_]*$' THEN 'the prefix may hold only the letters a to z and underscores'
            WHEN length(prefix) > 63 THEN 'the prefix is longer than 63 characters'
            WHEN prefix ~ '^_|_$' THEN 'the prefix must start and end with a letter'
       END;
COMMENT ON FUNCTION _idgen_typeid_prefix_fault(text) IS
    'internal: why a prefix is no TypeID''s (its characters, then its length, then its ends), or NULL';

CREATE OR REPLACE FUNCTION _idgen_typeid_fault(t text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN coalesce(_idgen_typeid_prefix_fault(CASE WHEN strpos(t, '_') > 0 THEN regexp_replace(t, '_[^_]*$', '') ELSE '' END),
                CASE WHEN t ~ '^_[^_]*$' THEN 'a TypeID without a prefix has no underscore' END,
                CASE _idgen_base32_fault(regexp_replace(t, '^.*_', ''), true, 26)
                    WHEN 'alphabet' THEN 'the suffix may hold only 0 to 9 and the lower-case letters but i, l, o and u'
                    WHEN 'length' THEN 'the suffix must be 26 characters'
                    WHEN 'overflow' THEN 'the suffix holds more than 128 bits (its first character must be 0 to 7)'
                END);
COMMENT ON FUNCTION _idgen_typeid_fault(text) IS
    'internal: why a text is no TypeID (its prefix, an underscore without one, its suffix), or NULL';

CREATE OR REPLACE FUNCTION typeid_text(prefix text, u uuid) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_text_checked(prefix, format('invalid TypeID prefix "%s": ', prefix) || _idgen_typeid_prefix_fault(prefix), '22023')
       || CASE WHEN prefix = '' THEN '' ELSE '_' END
       || _idgen_base32(_idgen_uuid_bits(u), '0123456789abcdefghjkmnpqrstvwxyz');
COMMENT ON FUNCTION typeid_text(text, uuid) IS
    'A UUID as a TypeID (version 0.3): the prefix (at most 63 of a-z and _, a letter at each end, or empty), an underscore, and 26 lower-case characters of base32; 22023 for another prefix';

CREATE OR REPLACE FUNCTION typeid_uuid(typeid text) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_text_checked(_idgen_bits_uuid(_idgen_base32_bits(regexp_replace(typeid, '^.*_', ''))),
                           format('invalid TypeID "%s": ', typeid) || _idgen_typeid_fault(typeid), '22P02');
COMMENT ON FUNCTION typeid_uuid(text) IS
    'The UUID of a TypeID (WHERE id = typeid_uuid(''user_...'') uses a uuid index); 22P02 for a text that is no TypeID';

CREATE OR REPLACE FUNCTION typeid_prefix(typeid text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_text_checked(CASE WHEN strpos(typeid, '_') > 0 THEN regexp_replace(typeid, '_[^_]*$', '') ELSE '' END,
                           format('invalid TypeID "%s": ', typeid) || _idgen_typeid_fault(typeid), '22P02');
COMMENT ON FUNCTION typeid_prefix(text) IS
    'The prefix of a TypeID (empty when it has none); 22P02 for a text that is no TypeID';

CREATE OR REPLACE FUNCTION typeid_parse(typeid text, OUT prefix text, OUT uuid uuid)
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT typeid_prefix(typeid_parse.typeid), typeid_uuid(typeid_parse.typeid);
END;
COMMENT ON FUNCTION typeid_parse(text) IS
    'The prefix and the UUID of a TypeID; 22P02 for a text that is no TypeID, saying why';

CREATE OR REPLACE FUNCTION typeid_timestamp(typeid text) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN uuid_v7_timestamp(typeid_uuid(typeid));
COMMENT ON FUNCTION typeid_timestamp(text) IS
    'The time of a TypeID''s version-7 UUID, to the microsecond (as uuid_v7_timestamp); NULL for a UUID of another version; 22P02 for a text that is no TypeID';

CREATE OR REPLACE FUNCTION snowflake_to_text(id bigint) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_base32(B'0' || id::bit(64), '0123456789abcdefghjkmnpqrstvwxyz');
COMMENT ON FUNCTION snowflake_to_text(bigint) IS
    'A Snowflake id''s 64 bits, unsigned, as 13 lower-case characters of Crockford''s base32: the texts sort as the ids do by time (as the ids themselves for every id of the idgen layout)';

CREATE OR REPLACE FUNCTION snowflake_from_text(t text) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_text_checked((SELECT CASE WHEN length(b) = 65 THEN substring(b FROM 2)::bit(64)::bigint ELSE 0 END
                            FROM (SELECT _idgen_base32_bits(t) AS b) s),
                           _idgen_base32_refusal(t, 'Snowflake text', 13), '22P02');
COMMENT ON FUNCTION snowflake_from_text(text) IS
    'The Snowflake id of a text of snowflake_to_text, read in either case; 22P02 for another text';

-- ---- Locality UUIDs (Groupon's "version b") ---------------------------------------------------
--   counter(32) pid(16) version(4)=b mac(28) unix_ms(48)
-- The counter's hex digits are written reversed in the variable mode; the variant bits belong
-- to the MAC fragment.

CREATE OR REPLACE FUNCTION _idgen_locality_checked(value anyelement, u uuid) RETURNS anyelement
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
BEGIN
    IF get_byte(uuid_send(u), 6) >> 4 <> 11 THEN
        RAISE EXCEPTION 'not a locality UUID: its version digit is not b' USING ERRCODE = '22023';
    END IF;
    RETURN value;
END
$$;
COMMENT ON FUNCTION _idgen_locality_checked(anyelement, uuid) IS
    'internal: value, read from u, once u is known to be a locality UUID (22023 if not)';

CREATE OR REPLACE FUNCTION locality_uuid_timestamp(u uuid) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_locality_checked(_idgen_timestamptz(_idgen_uuid_field(u, 80, 48), 0), u);
COMMENT ON FUNCTION locality_uuid_timestamp(uuid) IS
    'The millisecond a locality UUID was made in; error 22023 if its version digit is not b';

CREATE OR REPLACE FUNCTION locality_uuid_pid(u uuid) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_locality_checked(_idgen_uuid_field(u, 32, 16)::integer, u);
COMMENT ON FUNCTION locality_uuid_pid(uuid) IS
    'The process id (modulo 65536) in a locality UUID; error 22023 if its version digit is not b';

CREATE OR REPLACE FUNCTION locality_uuid_mac(u uuid) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_locality_checked(lpad(to_hex(_idgen_uuid_field(u, 52, 28)), 7, '0'), u);
COMMENT ON FUNCTION locality_uuid_mac(uuid) IS
    'The 28-bit MAC fragment in a locality UUID, as 7 hex digits; error 22023 if its version digit is not b';

CREATE OR REPLACE FUNCTION locality_uuid_counter(u uuid) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_locality_checked(('x' || reverse(left(u::text, 8)))::bit(32)::bigint, u);
COMMENT ON FUNCTION locality_uuid_counter(uuid) IS
    'The variable-mode counter of a locality UUID (its first 8 hex digits un-reversed); error 22023 if its version digit is not b';

-- ---- Unique timestamps ------------------------------------------------------------------------
-- Nanoseconds since 1970 whose last idgen.unique_timestamp_digits decimal digits are a host id.

CREATE OR REPLACE FUNCTION _idgen_unique_timestamp_checked(value anyelement, ts bigint) RETURNS anyelement
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
BEGIN
    IF ts < 0 THEN
        RAISE EXCEPTION 'a unique timestamp is never negative' USING ERRCODE = '22003';
    END IF;
    RETURN value;
END
$$;
COMMENT ON FUNCTION _idgen_unique_timestamp_checked(anyelement, bigint) IS
    'internal: value, read from ts, once ts is known to be a unique timestamp (22003 if negative)';

CREATE OR REPLACE FUNCTION _idgen_unique_timestamp_unit() RETURNS bigint
    LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
AS $$
DECLARE
    digits text := current_setting('idgen.unique_timestamp_digits', true);
BEGIN
    IF digits IS NULL OR digits IN ('', '2') THEN
        RETURN 100;
    ELSIF digits = '3' THEN
        RETURN 1000;
    END IF;
    RAISE EXCEPTION 'invalid value for parameter "idgen.unique_timestamp_digits": "%"', digits
        USING ERRCODE = '22023', HINT = 'It must be 2 or 3.';
END
$$;
COMMENT ON FUNCTION _idgen_unique_timestamp_unit() IS
    'internal: 10 to the power of idgen.unique_timestamp_digits (2 when unset)';

CREATE OR REPLACE FUNCTION _idgen_iso_text(t timestamp) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN lpad(extract(year FROM t)::integer::text, 4, '0') || '-'
       || lpad(extract(month FROM t)::integer::text, 2, '0') || '-'
       || lpad(extract(day FROM t)::integer::text, 2, '0') || 'T'
       || lpad(extract(hour FROM t)::integer::text, 2, '0') || ':'
       || lpad(extract(minute FROM t)::integer::text, 2, '0') || ':'
       || lpad(extract(second FROM t)::integer::text, 2, '0');
COMMENT ON FUNCTION _idgen_iso_text(timestamp) IS
    'internal: a timestamp of whole seconds as YYYY-MM-DDTHH:MM:SS, whatever DateStyle says';

CREATE OR REPLACE FUNCTION unique_timestamp_text(ts bigint) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_unique_timestamp_checked(
           _idgen_iso_text(timestamp '1970-01-01 00:00:00' + interval '1 second' * (ts / 1000000000))
           || '.' || lpad((ts % 1000000000)::text, 9, '0'),
           ts);
COMMENT ON FUNCTION unique_timestamp_text(bigint) IS
    'A unique timestamp as UTC text with nine fractional digits, e.g. 2021-12-28T14:07:02.954100128';

CREATE OR REPLACE FUNCTION unique_timestamp_host(ts bigint) RETURNS integer
    LANGUAGE sql STABLE STRICT PARALLEL SAFE
RETURN _idgen_unique_timestamp_checked((ts % _idgen_unique_timestamp_unit())::integer, ts);
COMMENT ON FUNCTION unique_timestamp_host(bigint) IS
    'The host (node) id in the last idgen.unique_timestamp_digits digits of a unique timestamp';

CREATE OR REPLACE FUNCTION unique_timestamp_to_timestamptz(ts bigint) RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_unique_timestamp_checked(_idgen_timestamptz(0, ts / 1000), ts);
COMMENT ON FUNCTION unique_timestamp_to_timestamptz(bigint) IS
    'A unique timestamp as timestamptz (sub-microsecond digits truncated)';

-- ---- Snowflake ids under a layout given explicitly --------------------------------------------
-- The node count a layout takes where none is given (snowflake_create's default; the decoders'
-- max_nodes 0).
CREATE OR REPLACE FUNCTION _idgen_default_nodes(layout text) RETURNS integer
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE layout WHEN 'sonyflake' THEN 65536 WHEN 'javascript' THEN 64 ELSE 8192 END;
COMMENT ON FUNCTION _idgen_default_nodes(text) IS
    'internal: the node count of a layout where none is given: 8192, sonyflake''s 65536, javascript''s 64';

-- An id spans `width` of the 64 bits: the top `time_bits` of them are ticks of `tick_ms` since the
-- epoch (read unsigned), node and counter share the rest (the node id below the counter in
-- Sony's layout, above it in the others). idgen: width 63 (the sign bit stays 0), 41 bits of ms;
-- snowcast: width 64; sonyflake: width 63, 39 bits of 10 ms ticks, 16 node bits; javascript:
-- width 53 (ids below 2^53). The epoch's millisecond is its Unix microseconds divided by 1000
-- towards the past, as every layout rounds times (numeric division: exact, then floored).

CREATE OR REPLACE FUNCTION _idgen_snowflake_shape(epoch timestamptz, max_nodes integer, layout text) RETURNS integer[]
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
    quoted text;
    least_nodes integer := CASE layout WHEN 'sonyflake' THEN 65536 WHEN 'javascript' THEN 16 ELSE 128 END;
    most_nodes integer := CASE layout WHEN 'sonyflake' THEN 65536 WHEN 'javascript' THEN 512 ELSE 8192 END;
BEGIN
    IF NOT isfinite(epoch) THEN
        RAISE EXCEPTION 'a sequencer epoch must be a finite time' USING ERRCODE = '22023';
    END IF;
    IF layout NOT IN ('idgen', 'snowcast', 'sonyflake', 'javascript') THEN
        quoted := left(layout, 64);  -- at most 64 bytes of it
        WHILE octet_length(quoted) > 64 LOOP
            quoted := left(quoted, -1);
        END LOOP;
        RAISE EXCEPTION 'unknown Snowflake layout "%"', quoted USING ERRCODE = '22023',
            HINT = 'Use ''idgen'' (the default: ids stay positive), ''snowcast'' (all 64 bits, as snowcast lays them out), ''sonyflake'' (Sony''s: 10 ms ticks, 65,536 machine ids) or ''javascript'' (ids below 2^53).';
    END IF;
    IF max_nodes = 0 THEN
        max_nodes := _idgen_default_nodes(layout);
    END IF;
    IF max_nodes NOT BETWEEN least_nodes AND most_nodes THEN
        IF least_nodes = most_nodes THEN
            RAISE EXCEPTION 'max_nodes: node count % is not %, the only one of the layout', max_nodes, least_nodes
                USING ERRCODE = '22023';
        END IF;
        RAISE EXCEPTION 'max_nodes: node count % is outside %..%', max_nodes, least_nodes, most_nodes
            USING ERRCODE = '22023';
    END IF;
    RETURN ARRAY[CASE layout WHEN 'snowcast' THEN 64 WHEN 'javascript' THEN 53 ELSE 63 END,  -- width
                 CASE layout WHEN 'sonyflake' THEN 39 ELSE 41 END,                          -- time bits
                 CASE layout WHEN 'sonyflake' THEN 10 ELSE 1 END,                           -- tick (ms)
                 length(ltrim((max_nodes - 1)::bit(32)::text, '0'))];  -- node bits: max_nodes rounded up to a power of two
END
$$;
COMMENT ON FUNCTION _idgen_snowflake_shape(timestamptz, integer, text) IS
    'internal: how a layout splits an id, as {width of the 64 bits, time field bits, tick in ms, node bits}, once the layout is known to be valid (22023 if not)';

CREATE OR REPLACE FUNCTION _idgen_snowflake_span_ms(shape integer[]) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (1::bigint << shape[2]) * shape[3];
COMMENT ON FUNCTION _idgen_snowflake_span_ms(integer[]) IS
    'internal: how long the time field of a layout of this shape lasts, in milliseconds';

CREATE OR REPLACE FUNCTION _idgen_snowflake_time_field(id bigint, shape integer[]) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
    width integer := shape[1];
    time_bits integer := shape[2];
BEGIN
    IF width < 64 AND (id < 0 OR id >> width <> 0) THEN
        IF width = 63 THEN
            RAISE EXCEPTION 'a Snowflake id is never negative in a layout that keeps the sign bit 0' USING ERRCODE = '22003';
        END IF;
        RAISE EXCEPTION 'a Snowflake id of this layout is below 2^%', width USING ERRCODE = '22003';
    END IF;
    RETURN ((id >> (width - time_bits)) & ((1::bigint << time_bits) - 1)) * shape[3];  -- the field read unsigned
END
$$;
COMMENT ON FUNCTION _idgen_snowflake_time_field(bigint, integer[]) IS
    'internal: the milliseconds from the epoch to the tick of a Snowflake id (22003 for an id with a bit set above the layout''s width)';

CREATE OR REPLACE FUNCTION _idgen_snowflake_min_id(unix_micros bigint, epoch_ms bigint, shape integer[]) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
    width integer := shape[1];
    time_bits integer := shape[2];
    tick_ms integer := shape[3];
    ms bigint;
    ticks bigint;
BEGIN
    -- unix_micros may be an int64 extreme (±infinity): compare before subtracting.
    IF unix_micros < epoch_ms * 1000 THEN
        RETURN 0;
    END IF;
    ms := unix_micros / 1000 - (unix_micros % 1000 < 0)::integer - epoch_ms;  -- the millisecond, floored
    ticks := ms / tick_ms;  -- not negative: floored
    IF unix_micros > 9223372036854774807 OR ticks > (1::bigint << time_bits) - 1 THEN
        RAISE EXCEPTION 'timestamp is past the end of the sequencer''s %-bit time field', time_bits USING ERRCODE = '22008';
    END IF;
    RETURN ticks << (width - time_bits);  -- in width 64 the top bit may be set: a negative id
END
$$;
COMMENT ON FUNCTION _idgen_snowflake_min_id(bigint, bigint, integer[]) IS
    'internal: the first id of the tick of a Unix time in microseconds (0 before the epoch; 22008 past the time field)';

CREATE OR REPLACE FUNCTION snowflake_timestamp(id bigint, epoch timestamptz, max_nodes integer DEFAULT 0,
        layout text DEFAULT 'idgen') RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_timestamptz(floor(_idgen_unix_micros(epoch) / 1000.0)::bigint
                          + _idgen_snowflake_time_field(id, _idgen_snowflake_shape(epoch, max_nodes, layout)), 0);
COMMENT ON FUNCTION snowflake_timestamp(bigint, timestamptz, integer, text) IS
    'The millisecond (Sony''s layout: the start of the 10 ms tick) a Snowflake id of the given layout (epoch, max_nodes, layout as for snowflake_create) was issued in; immutable, for generated columns and partition bounds';

CREATE OR REPLACE FUNCTION snowflake_min_id(ts timestamptz, epoch timestamptz, max_nodes integer DEFAULT 0,
        layout text DEFAULT 'idgen') RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_snowflake_min_id(_idgen_unix_micros(ts), floor(_idgen_unix_micros(epoch) / 1000.0)::bigint,
                               _idgen_snowflake_shape(epoch, max_nodes, layout));
COMMENT ON FUNCTION snowflake_min_id(timestamptz, timestamptz, integer, text) IS
    'The smallest id of the given layout (epoch, max_nodes, layout as for snowflake_create) that any node can issue in the millisecond (Sony''s layout: the 10 ms tick) of ts; immutable, for partition bounds';

CREATE OR REPLACE FUNCTION snowflake_runs_out(epoch timestamptz, layout text DEFAULT 'idgen') RETURNS timestamptz
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_timestamptz(floor(_idgen_unix_micros(epoch) / 1000.0)::bigint
                          + _idgen_snowflake_span_ms(_idgen_snowflake_shape(epoch, CASE layout WHEN 'sonyflake' THEN 65536 ELSE 128 END,
                                                                            layout)), 0);
COMMENT ON FUNCTION snowflake_runs_out(timestamptz, text) IS
    'When the time field of a layout with this epoch runs out: no id of it can be issued at or after that time (idgen, snowcast and javascript: epoch + 2^41 ms, 69.7 years; sonyflake: epoch + 2^39 ticks of 10 ms, 174 years)';

-- ---- The edition's advisory locks ------------------------------------------------------------
-- The edition serializes with advisory locks of class 1768842596 ('idgd'), keyed by the oid of
-- what they guard: a sequencer's sequence (see Snowflake sequencers) and the node table. It holds
-- one for a statement or two (a nextval; a jump's setval and nextval; a drop, to the end of its
-- transaction), but any role that can connect may take the same lock (pg_advisory_lock; the keys
-- are in pg_class, which every role reads), so no wait for one is left unbounded: a lock not free
-- at once is waited for up to a bound, then refused with 55P03, naming what it guards and the
-- sessions that hold it.
-- The bound is the caller's lock_timeout where that is shorter and not 0, else 1 s, the default of
-- the C extension's idgen.max_wait. The edition's own holds last microseconds, so a wait of 1 s is
-- a session holding the lock itself, or one that holds it and waits for something else (a jump
-- waiting for its sequence, held by an ALTER SEQUENCE; a drop's open transaction); a caller that
-- will not wait so long sets a shorter lock_timeout. It is lock_timeout, set for the one blocking
-- call (set_config, local to the transaction) inside a block of its own: the block's
-- subtransaction undoes the setting when the wait fails or is cancelled, and the caller's value is
-- set back when it is granted. A statement_timeout or a cancel that comes first stops the wait as
-- before.
CREATE OR REPLACE FUNCTION _idgen_advisory_lock(key integer, mode text, what text) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
AS $$
DECLARE
    caller_timeout text := pg_catalog.current_setting('lock_timeout');
    taken boolean;
    bound_ms integer;
    holders text;
BEGIN
    taken := CASE mode WHEN 'shared' THEN pg_catalog.pg_try_advisory_lock_shared(1768842596, key)
                       WHEN 'exclusive' THEN pg_catalog.pg_try_advisory_lock(1768842596, key)
                       ELSE pg_catalog.pg_try_advisory_xact_lock(1768842596, key) END;
    IF taken THEN
        RETURN;
    END IF;
    -- (SHOW's form of lock_timeout, a number and a unit, reads as an interval; pg_settings would
    -- take a millisecond to read.)
    bound_ms := extract(epoch FROM caller_timeout::interval) * 1000;
    bound_ms := CASE WHEN bound_ms BETWEEN 1 AND 999 THEN bound_ms ELSE 1000 END;
    BEGIN
        PERFORM pg_catalog.set_config('lock_timeout', bound_ms::text, true);
        IF mode = 'shared' THEN
            PERFORM pg_catalog.pg_advisory_lock_shared(1768842596, key);
        ELSIF mode = 'exclusive' THEN
            PERFORM pg_catalog.pg_advisory_lock(1768842596, key);
        ELSE
            PERFORM pg_catalog.pg_advisory_xact_lock(1768842596, key);
        END IF;
    EXCEPTION WHEN lock_not_available THEN
        SELECT CASE pg_catalog.count(DISTINCT l.pid) WHEN 0 THEN 'another session' WHEN 1 THEN 'pid ' ELSE 'pids ' END
               || coalesce(pg_catalog.string_agg(DISTINCT l.pid::text, ', '), '') INTO holders
        FROM pg_catalog.pg_locks l
        WHERE l.locktype = 'advisory' AND l.granted AND l.pid <> pg_catalog.pg_backend_pid()
          AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d WHERE d.datname = pg_catalog.current_database())
          AND l.classid = 1768842596 AND l.objid = key::oid AND l.objsubid = 2;
        RAISE EXCEPTION 'could not lock % within % ms', what, bound_ms
            USING ERRCODE = '55P03',
                  DETAIL = pg_catalog.format('Its advisory lock (1768842596, %s) is held by %s.', key, holders),
                  HINT = 'idgen holds this lock for microseconds: a session that holds it longer took it itself (pg_advisory_lock) or waits while it holds it. pg_stat_activity shows what it runs; SELECT pg_terminate_backend(pid) ends it.';
    END;
    PERFORM pg_catalog.set_config('lock_timeout', caller_timeout, true);
END
$$;
COMMENT ON FUNCTION _idgen_advisory_lock(integer, text, text) IS
    'internal: the edition''s advisory lock of key, shared, exclusive (both the session''s) or the transaction''s, waited for up to the lesser of lock_timeout and 1 s; 55P03 naming what (the thing it guards) and its holders';

-- What an edition's session lock of key this session holds, released: every exit from a block
-- that takes one (an error, a lock_timeout, a cancel or statement_timeout, which WHEN others does
-- not catch) calls it, so that none outlives the call that took it.
CREATE OR REPLACE FUNCTION _idgen_advisory_release(key integer) RETURNS void
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
AS $$
BEGIN
    PERFORM CASE WHEN l.mode = 'ShareLock' THEN pg_catalog.pg_advisory_unlock_shared(1768842596, key)
                 ELSE pg_catalog.pg_advisory_unlock(1768842596, key) END
    FROM pg_catalog.pg_locks l
    WHERE l.locktype = 'advisory' AND l.pid = pg_catalog.pg_backend_pid() AND l.granted
      AND l.classid = 1768842596 AND l.objid = key::oid AND l.objsubid = 2;
END
$$;
COMMENT ON FUNCTION _idgen_advisory_release(integer) IS
    'internal: releases the edition''s session locks of key that this session holds';

-- ---- The node id: which server of an id space this database is ------------------------------
-- Servers that make ids of one id space (a fleet, or both sides of a blue/green move) keep them
-- apart by construction only if each has a node id of its own, in every id: 13 bits, 0 .. 8191.
-- It is a property of the database, set by the edition's owner with idgen_set_node_id, not a
-- setting a session could change. It is data, so pg_dump carries it, but a row of _idgen_node
-- holds for one server and one database only: the server's system identifier (which a physical
-- copy keeps only until it becomes a server of its own: pg_createsubscriber, pg_upgrade and
-- initdb give a new one; a promoted standby keeps it) and the database's oid. A copy of the
-- database (a restore, pg_upgrade, a physical copy made a subscriber, a schema copied for a
-- logical one) finds no row of its own and makes no id until its owner says which node id it
-- has: its original may still be making ids under the original's.
--
-- Asking pg_control_system() (which reads a file) on every call would cost more than the id, so
-- _idgen_node_id() is rewritten, by the first call that finds the row valid, into a constant
-- guarded by what changes when the answer may: the start time of the server's postmaster (a
-- copy, a restart and a promoted standby all start one of their own) and the file of
-- _idgen_node (another database, or the table rewritten). Anything else takes the slow path,
-- _idgen_node_check, which checks the row again and rewrites the function unless it was
-- rewritten for this start and file already. The row says so, and is then all the check needs
-- (a copy starts a postmaster of its own, or has a file of its own): a statement planned before
-- the rewrite goes on calling the slow path, and must neither rewrite the function once a row nor
-- read pg_control_system() for each. The
-- rewrite is a catalog update of the caller's transaction: undone with it, skipped where it
-- cannot be made (read-only, recovery) or while another transaction makes it (the lock is only
-- tried, so no caller waits for another's transaction to end).

CREATE TABLE IF NOT EXISTS _idgen_node (
    system_identifier bigint NOT NULL,
    database_oid oid NOT NULL,
    node_id integer NOT NULL CHECK (node_id BETWEEN 0 AND 8191),
    set_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    fast_for text,
    -- Where the server that last checked the row ran: its WAL timeline and its data directory
    -- (NULL where the edition's owner may not read it). See _idgen_node_here.
    timeline bigint,
    data_directory text,
    PRIMARY KEY (system_identifier, database_oid)
);
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = '_idgen_node'::regclass AND attname = 'timeline') THEN
        ALTER TABLE _idgen_node ADD COLUMN timeline bigint, ADD COLUMN data_directory text;   -- before 0.9.8
    END IF;
END
$$;

-- A physical copy keeps the system identifier and the database's oid: a base backup or a storage
-- snapshot started as a server of its own, a provider's clone, branch or point-in-time restore.
-- What SQL can tell of it: a copy started beside its original on the same machine runs from
-- another data directory, on the same WAL timeline. A standby promoted by a failover, and a
-- point-in-time restore, start a new timeline; a restart keeps both. So a row checked on the same
-- timeline from another data directory is a copy's, which refuses until its owner sets a node id;
-- a new timeline is taken as a failover (an outage at every failover is worse than the copies it
-- would also catch); a copy on another machine at the same path is not seen. The data directory
-- is read only where the owner may (a superuser or a member of pg_read_all_settings). (timeline,
-- data directory) of this server; the timeline is NULL during recovery (no id is made there).
CREATE OR REPLACE FUNCTION _idgen_node_here(OUT timeline bigint, OUT data_directory text)
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN (SELECT ROW(CASE WHEN NOT pg_is_in_recovery()
                        THEN ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint END,
                   CASE WHEN pg_has_role(current_user, 'pg_read_all_settings', 'USAGE')
                        THEN current_setting('data_directory') END));
COMMENT ON FUNCTION _idgen_node_here() IS
    'internal: the WAL timeline and data directory of this server (NULL where not known), by which the node id''s check tells a copy started beside its original';
COMMENT ON TABLE _idgen_node IS
    'internal: the node id of this database on the server and in the database where it was set (rows of other servers came with copies), and the postmaster start and file _idgen_node_id() was last made fast for; change it with idgen_set_node_id';

-- The node id of this database here, or 55000 with what to do. As the edition's owner: callers
-- need not read the edition's state, and only the owner may rewrite _idgen_node_id(); its
-- search_path is pinned below, so its statements name the edition's objects and are planned once
-- a session.
CREATE OR REPLACE FUNCTION _idgen_node_check() RETURNS integer
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER PARALLEL UNSAFE
AS $$
DECLARE
    started text := pg_catalog.to_char(pg_catalog.pg_postmaster_start_time() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US+00');
    file text := pg_catalog.pg_relation_filepath('_idgen_node');
    here_system bigint;
    here_database oid;
    schema text := pg_catalog.quote_ident(pg_catalog.current_schema());
    mine _idgen_node;
    latest _idgen_node;
    here record;
BEGIN
    -- Checked and made fast by this postmaster, for this file: no copy can have that row.
    SELECT * INTO mine FROM _idgen_node n WHERE n.fast_for = started || ' ' || file;
    IF FOUND THEN
        RETURN mine.node_id;
    END IF;
    here_system := (SELECT system_identifier FROM pg_catalog.pg_control_system());
    here_database := (SELECT oid FROM pg_catalog.pg_database WHERE datname = pg_catalog.current_database());
    SELECT * INTO mine FROM _idgen_node n WHERE n.system_identifier = here_system AND n.database_oid = here_database;
    IF mine IS NULL THEN
        SELECT * INTO latest FROM _idgen_node ORDER BY set_at DESC LIMIT 1;
        IF latest IS NULL THEN
            RAISE EXCEPTION 'this database has no idgen node id'
                USING ERRCODE = '55000',
                      DETAIL = 'Servers that make ids of one id space keep them apart by their node ids.',
                      HINT = pg_catalog.format('Its owner gives it one that no other server making these ids has: SELECT %s.idgen_set_node_id(n), n in 0..8191.', schema);
        END IF;
        RAISE EXCEPTION 'this database''s idgen node id % was given on another server or in another database', latest.node_id
            USING ERRCODE = '55000',
                  DETAIL = pg_catalog.format('It was set on the server of system identifier %s, in the database of oid %s; this is %s, %s. A copy (a restore, pg_upgrade, a physical or logical copy) makes no id until its owner says which node id it has.',
                                             latest.system_identifier, latest.database_oid, here_system, here_database),
                  HINT = pg_catalog.format('Where the original may still make ids (blue/green, a copy beside it), give this one its own: SELECT %s.idgen_set_node_id(n). Where it makes no more and this database''s sequences came with its data (pg_upgrade, a whole dump restored), keep it: SELECT %s.idgen_set_node_id(%s).',
                                           schema, schema, latest.node_id);
    END IF;
    SELECT * INTO here FROM _idgen_node_here();
    IF mine.timeline = here.timeline AND mine.data_directory <> here.data_directory THEN
        RAISE EXCEPTION 'this database''s idgen node id % was given to the server of another data directory', mine.node_id
            USING ERRCODE = '55000',
                  DETAIL = pg_catalog.format('It was set or last checked in %s, on the WAL timeline this server runs on from %s: a physical copy started beside its original (a base backup, a storage snapshot) makes no id until its owner says which node id it has.',
                                             mine.data_directory, here.data_directory),
                  HINT = pg_catalog.format('Where the original may still make ids, give this one its own: SELECT %s.idgen_set_node_id(n). Where the original makes no more (its data directory moved here), keep it: SELECT %s.idgen_set_node_id(%s).',
                                           schema, schema, mine.node_id);
    END IF;
    IF mine.fast_for IS DISTINCT FROM started || ' ' || file
       AND NOT pg_catalog.pg_is_in_recovery() AND NOT pg_catalog.current_setting('transaction_read_only')::boolean
       AND pg_catalog.pg_try_advisory_xact_lock(1768842596, '_idgen_node'::regclass::oid::integer) THEN
        EXECUTE pg_catalog.format($f$CREATE OR REPLACE FUNCTION %1$s._idgen_node_id() RETURNS integer
                              LANGUAGE sql VOLATILE PARALLEL UNSAFE
                          RETURN CASE WHEN pg_catalog.pg_postmaster_start_time() = %2$L::timestamptz
                                           AND pg_catalog.pg_relation_filepath(%3$s::oid::regclass) = %4$L
                                      THEN %5$s ELSE %1$s._idgen_node_check() END$f$,
                                  schema, started, '_idgen_node'::regclass::oid, file, mine.node_id);
        UPDATE _idgen_node n SET fast_for = started || ' ' || file, timeline = coalesce(here.timeline, n.timeline),
                                 data_directory = coalesce(here.data_directory, n.data_directory)
        WHERE n.system_identifier = here_system AND n.database_oid = here_database;
    END IF;
    RETURN mine.node_id;
END
$$;
COMMENT ON FUNCTION _idgen_node_check() IS
    'internal: this database''s node id on this server (55000 when it has none here), and _idgen_node_id() made to give it fast, as the edition''s owner';
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION %I._idgen_node_check() SET search_path = %I, pg_temp',
                   current_schema(), current_schema());
END
$$;

-- As installed: always the check (the first call that passes it makes this fast).
CREATE OR REPLACE FUNCTION _idgen_node_id() RETURNS integer
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN _idgen_node_check();
COMMENT ON FUNCTION _idgen_node_id() IS
    'internal: this database''s node id on this server (rewritten by _idgen_node_check); 55000 when it has none here';

CREATE OR REPLACE FUNCTION _idgen_set_node_id(node_table regclass, node_id integer) RETURNS void
    LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    owner regrole := (SELECT relowner FROM pg_class WHERE oid = node_table);
    here_system bigint := (SELECT system_identifier FROM pg_control_system());
    here_database oid := (SELECT oid FROM pg_database WHERE datname = current_database());
    taken boolean;
BEGIN
    IF NOT pg_has_role(current_user, owner, 'USAGE') THEN
        RAISE EXCEPTION 'only the owner of the idgen edition (%) may set its node id', owner USING ERRCODE = '42501';
    END IF;
    IF node_id IS NULL OR node_id NOT BETWEEN 0 AND 8191 THEN
        RAISE EXCEPTION 'node id % is outside 0..8191', node_id USING ERRCODE = '22023';
    END IF;
    -- A subscription to the original is the sure sign that the original still makes ids.
    EXECUTE format('SELECT EXISTS (SELECT FROM %s n WHERE n.node_id = $1 AND (n.system_identifier, n.database_oid) <> ($2, $3))',
                   node_table) INTO taken USING node_id, here_system, here_database;
    IF taken AND EXISTS (SELECT FROM pg_subscription WHERE subdbid = here_database) THEN
        RAISE EXCEPTION 'node id % is the node id of the database this one subscribes to', node_id
            USING ERRCODE = '55000',
                  DETAIL = 'Both would make ids under it while the subscription lasts.',
                  HINT = 'Give this database a node id of its own.';
    END IF;
    EXECUTE format('SELECT %s._idgen_advisory_lock($1, ''transaction'', ''the idgen node id'')',
                   (SELECT relnamespace::regnamespace::text FROM pg_class WHERE oid = node_table))
        USING node_table::oid::integer;
    EXECUTE format('INSERT INTO %1$s AS n (system_identifier, database_oid, node_id, timeline, data_directory)
                    SELECT $1, $2, $3, h.timeline, h.data_directory FROM %2$s._idgen_node_here() h
                    ON CONFLICT (system_identifier, database_oid)
                    DO UPDATE SET node_id = excluded.node_id, set_at = excluded.set_at, fast_for = NULL,
                                  timeline = excluded.timeline, data_directory = excluded.data_directory', node_table,
                   (SELECT relnamespace::regnamespace::text FROM pg_class WHERE oid = node_table))
        USING here_system, here_database, node_id;
    EXECUTE format('SELECT %s._idgen_node_check()', (SELECT relnamespace::regnamespace::text FROM pg_class WHERE oid = node_table));
END
$$;
COMMENT ON FUNCTION _idgen_set_node_id(regclass, integer) IS
    'internal: idgen_set_node_id''s work, given the node table';

CREATE OR REPLACE FUNCTION idgen_set_node_id(node_id integer) RETURNS void
    LANGUAGE sql VOLATILE
BEGIN ATOMIC
    SELECT _idgen_set_node_id('_idgen_node'::regclass, node_id);
END;
COMMENT ON FUNCTION idgen_set_node_id(integer) IS
    'Sets the node id (0..8191) of this database on this server, which the generators put in every id; only the edition''s owner may (plain-SQL edition)';

CREATE OR REPLACE FUNCTION idgen_node_id() RETURNS integer
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN _idgen_node_id();
COMMENT ON FUNCTION idgen_node_id() IS
    'The node id this database makes ids under on this server; 55000 when it has none here (plain-SQL edition)';

-- ---- Generators: unique by construction, from sequences ---------------------------------------
-- SQL has no shared memory; what it can trust on one server is a sequence: nextval never gives
-- a value twice, across sessions, crashes (a sequence is WAL-logged ahead of the values it
-- hands out), dump and restore (pg_dump carries its position) and failover as far as the WAL
-- the standby received goes. Every id below holds a sequence value whole, so two ids differ
-- wherever their values do, whatever the clock says; the clock only orders them. And every id
-- holds the database's node id: the ids of two servers differ wherever their node ids do.

-- The serial numbers of the UUID generators: 48 bits (281 trillion ids; past that nextval
-- raises an error rather than wrap). Each session takes 1024 at a time (CACHE), and the ranges
-- sessions take never overlap; a session's unused numbers are skipped, never handed out again
-- (2^48 numbers are 2^38 such ranges). Taking a range writes WAL and gives the transaction an id,
-- so its commit waits for the WAL to be flushed. With 64 at a time that was one transaction in
-- 64 of a session making one id each; in one run of pgbench alternating the two (8 clients,
-- PostgreSQL 15, 2 cores) SELECT uuid_v7() made about 69,000 transactions a second with 64 and
-- 84,000 with 1024.
CREATE SEQUENCE IF NOT EXISTS _idgen_uuid_serial MAXVALUE 281474976710655 NO CYCLE CACHE 1024;
COMMENT ON SEQUENCE _idgen_uuid_serial IS
    'internal: the serial number inside every UUID the generators make (uuid_v7, uuid_v7_at, uuid_v1_at, uuid_v6_at)';

-- A UUID's 62 bits after the variant: the serial (48 bits), so that ids of one microsecond
-- sort in the order of their serials, the node id (13 bits) and a zero.
CREATE OR REPLACE FUNCTION _idgen_serial_bits() RETURNS bigint
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN (nextval('_idgen_uuid_serial') << 14) | (_idgen_node_id()::bigint << 1);
COMMENT ON FUNCTION _idgen_serial_bits() IS
    'internal: a new serial number (48 bits) and the node id (13 bits), as the 62 bits of a UUID after its variant';

-- NULL is an error for the *_at generators, as in the C extension.
CREATE OR REPLACE FUNCTION _idgen_required(ts timestamptz, caller text) RETURNS timestamptz
    LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
BEGIN
    IF ts IS NULL THEN
        RAISE EXCEPTION '%(ts): ts must not be NULL', caller USING ERRCODE = '22004';
    END IF;
    RETURN ts;
END
$$;
COMMENT ON FUNCTION _idgen_required(timestamptz, text) IS
    'internal: ts, or error 22004 naming the caller when it is NULL';

-- uuid_v7()'s layout without _idgen_v7_uuid's range check (now is in range until 2540, where
-- unix_micros * 512 would overflow) and in one SQL expression that names each argument once, so
-- that the planner inlines it: no PL/pgSQL call, whose per-transaction set-up would cost a
-- short transaction more than the id. ceil(unix_micros * 4096 / 1000) is the millisecond times
-- 4096 plus the microsecond's first step, so its 15 hex digits are the UUID's first 12 and the
-- 3 after the version digit.
CREATE OR REPLACE FUNCTION _idgen_v7_now_uuid(unix_micros bigint, rand_b bigint) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (overlay(lpad(to_hex((unix_micros * 512 + 124) / 125), 15, '0') PLACING '7' FROM 13 FOR 0)
        || to_hex((rand_b & 4611686018427387903) | -9223372036854775808))::uuid;
COMMENT ON FUNCTION _idgen_v7_now_uuid(bigint, bigint) IS
    'internal: the version-7 UUID of a Unix time in microseconds (1970 .. 2540, unchecked) with the low 62 bits of rand_b';

CREATE OR REPLACE FUNCTION uuid_v7() RETURNS uuid
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN _idgen_v7_now_uuid(_idgen_unix_micros(clock_timestamp()), _idgen_serial_bits());
COMMENT ON FUNCTION uuid_v7() IS
    'RFC 9562 version-7 UUID of now, to the microsecond, unique by construction: its last 62 bits hold a serial number from a sequence and the database''s node id (plain-SQL edition)';

CREATE OR REPLACE FUNCTION uuid_v7_at(ts timestamptz) RETURNS uuid
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN _idgen_v7_uuid(_idgen_unix_micros(_idgen_required(ts, 'uuid_v7_at')), _idgen_serial_bits());
COMMENT ON FUNCTION uuid_v7_at(timestamptz) IS
    'Version-7 UUID whose time is exactly ts (to the microsecond), unique by construction as uuid_v7() (plain-SQL edition)';

-- Versions 1 and 6: the serial's low 14 bits are the clock sequence; the node field's 48 bits
-- are the multicast bit that marks a node which is not a network card's (bit 40, 01:00:00:…)
-- and, around it, the node id (13 bits) over the serial's other 34.
CREATE OR REPLACE FUNCTION _idgen_node_field(node_and_serial bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN ((node_and_serial >> 40) << 41) | 1099511627776 | (node_and_serial & 1099511627775);
COMMENT ON FUNCTION _idgen_node_field(bigint) IS
    'internal: a 48-bit UUID node field of 47 bits, the multicast bit put in at bit 40';

CREATE OR REPLACE FUNCTION _idgen_serial_time_uuid(version integer, ticks bigint, serial bigint, node integer) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_time_uuid(version, ticks, (serial & 16383)::integer, _idgen_node_field((node::bigint << 34) | (serial >> 14)));
COMMENT ON FUNCTION _idgen_serial_time_uuid(integer, bigint, bigint, integer) IS
    'internal: the version-1 or version-6 UUID of ticks whose clock sequence and node hold a serial number and a node id';

CREATE OR REPLACE FUNCTION _idgen_serial_uuid_at(version integer, ts timestamptz, caller text) RETURNS uuid
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN _idgen_serial_time_uuid(version, _idgen_gregorian_ticks(_idgen_unix_micros(_idgen_required(ts, caller))),
                               nextval('_idgen_uuid_serial'), _idgen_node_id());
COMMENT ON FUNCTION _idgen_serial_uuid_at(integer, timestamptz, text) IS
    'internal: the version-1 or version-6 UUID of exactly ts with a new serial number';

CREATE OR REPLACE FUNCTION uuid_v1_at(ts timestamptz) RETURNS uuid
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN _idgen_serial_uuid_at(1, ts, 'uuid_v1_at');
COMMENT ON FUNCTION uuid_v1_at(timestamptz) IS
    'Version-1 UUID whose time is exactly ts (to the microsecond), unique by construction: its clock sequence and node hold a serial number from a sequence and the database''s node id (plain-SQL edition)';

CREATE OR REPLACE FUNCTION uuid_v6_at(ts timestamptz) RETURNS uuid
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN _idgen_serial_uuid_at(6, ts, 'uuid_v6_at');
COMMENT ON FUNCTION uuid_v6_at(timestamptz) IS
    'uuid_v1_at(ts) in version 6''s layout: time exactly ts, unique by construction from the same serial numbers (plain-SQL edition)';

-- Other projects' names for the version-7 generators, as in the C extension: PostgreSQL 18's and
-- pg_uuidv7's. What they make is this edition's uuid_v7() or uuid_v7_at(ts).
CREATE OR REPLACE FUNCTION uuidv7() RETURNS uuid
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN uuid_v7();

CREATE OR REPLACE FUNCTION uuid_generate_v7() RETURNS uuid
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN uuid_v7();
COMMENT ON FUNCTION uuid_generate_v7() IS
    'pg_uuidv7''s name for uuid_v7() (plain-SQL edition)';

-- PostgreSQL 18's checks and errors for a shifted time; the latest whole millisecond of the
-- 48-bit field is given by uuidv7(shift), which names this edition's helper.
CREATE OR REPLACE FUNCTION _idgen_shifted_now(shift interval, latest timestamptz) RETURNS timestamptz
    LANGUAGE plpgsql VOLATILE STRICT PARALLEL UNSAFE
AS $$
DECLARE
    ts timestamptz;
BEGIN
    IF NOT isfinite(shift) THEN
        RAISE EXCEPTION 'interval out of range for UUID version 7' USING ERRCODE = '22008',
            DETAIL = 'UUID version 7 does not support infinite intervals.';
    END IF;
    ts := clock_timestamp() + shift;
    IF ts < timestamptz '1970-01-01 00:00:00+00' OR ts > latest THEN
        RAISE EXCEPTION 'timestamp out of range for UUID version 7' USING ERRCODE = '22008',
            DETAIL = 'UUID version 7 supports timestamps from 1970-01-01 to approximately year 10889.';
    END IF;
    RETURN ts;
END
$$;
COMMENT ON FUNCTION _idgen_shifted_now(interval, timestamptz) IS
    'internal: now + shift, or PostgreSQL 18''s errors of uuidv7(shift) for an infinite shift or a time outside 1970 .. latest';

CREATE OR REPLACE FUNCTION uuidv7(shift interval) RETURNS uuid
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
RETURN uuid_v7_at(_idgen_shifted_now(shift, _idgen_timestamptz(281474976710655, 0)));

-- (Their comments name this schema, as those of the uuid_extract_ pair above.)
DO $$
BEGIN
    EXECUTE format('COMMENT ON FUNCTION %I.uuidv7() IS %L', current_schema(), 'PostgreSQL 18''s name for uuid_v7() (plain-SQL edition)');
    EXECUTE format('COMMENT ON FUNCTION %I.uuidv7(interval) IS %L', current_schema(),
                   'PostgreSQL 18''s uuidv7(shift): uuid_v7_at(now + shift) with PostgreSQL 18''s checks and errors (plain-SQL edition)');
END
$$;

-- The whole millisecond of a time (a time before 1970 stays before it, for the range check).
CREATE OR REPLACE FUNCTION _idgen_whole_ms(unix_micros bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN greatest(unix_micros, -1000) - (greatest(unix_micros, -1000) % 1000 + 1000) % 1000;
COMMENT ON FUNCTION _idgen_whole_ms(bigint) IS
    'internal: a Unix time in microseconds rounded down to its millisecond (at least -1000)';

CREATE OR REPLACE FUNCTION uuid_timestamptz_to_v7(ts timestamptz, zero boolean DEFAULT false) RETURNS uuid
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
RETURN CASE WHEN zero THEN _idgen_v7_uuid(_idgen_whole_ms(_idgen_unix_micros(ts)), 0) ELSE uuid_v7_at(ts) END;
COMMENT ON FUNCTION uuid_timestamptz_to_v7(timestamptz, boolean) IS
    'pg_uuidv7''s uuid_timestamptz_to_v7: with zero, the version-7 UUID of the millisecond with nothing after its time; otherwise uuid_v7_at(ts) (plain-SQL edition)';

CREATE OR REPLACE FUNCTION uuid_timestamp_to_v7(ts timestamp, zero boolean DEFAULT false) RETURNS uuid
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
RETURN uuid_timestamptz_to_v7(timezone(interval '0', ts), zero);
COMMENT ON FUNCTION uuid_timestamp_to_v7(timestamp, boolean) IS
    'pg_uuidv7''s uuid_timestamp_to_v7: uuid_timestamptz_to_v7 of the time read as UTC (plain-SQL edition)';

-- ULIDs and TypeIDs of the version-7 generators, as in the C extension.
CREATE OR REPLACE FUNCTION ulid() RETURNS text
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN uuid_to_ulid(uuid_v7());
COMMENT ON FUNCTION ulid() IS
    'A ULID of now: uuid_v7() as a ULID (plain-SQL edition)';

CREATE OR REPLACE FUNCTION ulid_at(ts timestamptz) RETURNS text
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN uuid_to_ulid(uuid_v7_at(ts));
COMMENT ON FUNCTION ulid_at(timestamptz) IS
    'A ULID whose time is ts: uuid_v7_at(ts) as a ULID (plain-SQL edition)';

CREATE OR REPLACE FUNCTION typeid(prefix text) RETURNS text
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
RETURN typeid_text(prefix, uuid_v7());
COMMENT ON FUNCTION typeid(text) IS
    'A TypeID of now: the prefix and uuid_v7() (plain-SQL edition)';

CREATE OR REPLACE FUNCTION typeid_at(prefix text, ts timestamptz) RETURNS text
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN typeid_text(prefix, uuid_v7_at(ts));
COMMENT ON FUNCTION typeid_at(text, timestamptz) IS
    'A TypeID whose time is ts: the prefix and uuid_v7_at(ts) (plain-SQL edition)';

-- ---- Snowflake sequencers ---------------------------------------------------------------------
-- A sequencer's sequence counts (milliseconds since the epoch << counter bits) | counter, and an
-- id is its value with the node id put between the two parts: distinct values, distinct ids.
-- The sequence keeps up with the clock: when nextval gives a value of a millisecond before now,
-- the sequence jumps to now's first value and nextval is called again. A jump must never move
-- the sequence below a value already handed out, so every nextval holds the sequencer's
-- advisory lock shared, a jump holds it exclusively and goes to the larger of now's first value
-- and the sequence's last: no value is handed out while a jump reads and moves the sequence.
-- When the clock steps back the values stay ahead of it (their time is then in its future)
-- until it catches up: never a value twice.

CREATE TABLE IF NOT EXISTS snowflake_definitions (
    name text PRIMARY KEY CHECK (octet_length(name) BETWEEN 1 AND 63),
    epoch timestamptz NOT NULL,
    max_nodes integer NOT NULL,
    backfill_nodes integer NOT NULL CHECK (backfill_nodes >= 0 AND backfill_nodes < max_nodes),
    layout text NOT NULL,
    node_bits integer NOT NULL,
    counter_bits integer NOT NULL,
    serial regclass NOT NULL,
    tick_ms integer NOT NULL DEFAULT 1,  -- the time field's unit: 10 in sonyflake, else 1
    -- The transaction that made the definition: its draws wait for the clock rather than run
    -- ahead of it (see _idgen_snowflake_next). NULL: made before 0.9.8.
    created_in xid8
);
-- (the layouts and node counts of earlier versions are among these; a definition of one of them
-- has ticks of 1 ms)
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'snowflake_definitions'::regclass AND attname = 'tick_ms') THEN
        ALTER TABLE snowflake_definitions ADD COLUMN tick_ms integer NOT NULL DEFAULT 1;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = 'snowflake_definitions'::regclass AND attname = 'created_in') THEN
        ALTER TABLE snowflake_definitions ADD COLUMN created_in xid8;   -- before 0.9.8
    END IF;
    IF EXISTS (SELECT FROM pg_constraint WHERE conrelid = 'snowflake_definitions'::regclass
                                           AND conname = 'snowflake_definitions_max_nodes_check') THEN
        ALTER TABLE snowflake_definitions DROP CONSTRAINT snowflake_definitions_max_nodes_check,
                                          DROP CONSTRAINT snowflake_definitions_layout_check;
    END IF;
    ALTER TABLE snowflake_definitions
        ADD CONSTRAINT snowflake_definitions_max_nodes_check
            CHECK (max_nodes IN (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 65536)),
        ADD CONSTRAINT snowflake_definitions_layout_check CHECK (layout IN ('idgen', 'snowcast', 'sonyflake', 'javascript'));
END
$$;
COMMENT ON TABLE snowflake_definitions IS
    'Snowflake sequencer definitions of the plain-SQL edition, each with its sequence; change them with snowflake_create and snowflake_drop';

-- A sequencer made again under a dropped one's name starts above every id the dropped one handed
-- out, whatever its epoch, node count or layout: ids compare as ids, since the same time is
-- another id under another epoch (and its ids may have run ahead of the clock: a clock stepped
-- back, a burst past the counter). snowflake_drop keeps the bound of the dropped ids here (and
-- the end of their time, all that versions before 0.9.8 kept); snowflake_create starts the new
-- sequence above both, or refuses where the bound of the ids lies more than 6 s ahead of the
-- clock and of the end of their time.
CREATE TABLE IF NOT EXISTS _idgen_snowflake_retired (
    name text PRIMARY KEY,
    ends_unix_ms bigint NOT NULL,
    ids_below numeric
);
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = '_idgen_snowflake_retired'::regclass AND attname = 'ids_below') THEN
        ALTER TABLE _idgen_snowflake_retired ADD COLUMN ids_below numeric;   -- before 0.9.8
    END IF;
END
$$;
COMMENT ON TABLE _idgen_snowflake_retired IS
    'internal: per dropped sequencer name, the Unix millisecond after the time of every id it handed out, and the id above every one of them (NULL: dropped before 0.9.8)';

CREATE OR REPLACE FUNCTION _idgen_snowflake_create(definitions regclass, name text, epoch timestamptz, max_nodes integer,
        backfill_nodes integer, layout text) RETURNS void
    LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    schema text := (SELECT relnamespace::regnamespace::text FROM pg_class WHERE oid = definitions);
    l integer[];  -- {width, time bits, tick, node bits}
    counter_bits integer;
    serial text;
    existing record;
    ends bigint;
    below numeric;
    first_tick numeric;
    ahead_ms numeric;
    next_value bigint;
BEGIN
    EXECUTE format('SELECT %s._idgen_snowflake_shape($1, $2, $3)', schema) INTO l USING epoch, max_nodes, layout;
    counter_bits := l[1] - l[2] - l[4];
    max_nodes := 1 << l[4];
    IF epoch < '1970-01-01 00:00:00+00' OR epoch > clock_timestamp() THEN
        RAISE EXCEPTION 'a sequencer epoch must lie between 1970-01-01 and now' USING ERRCODE = '22023';
    END IF;
    IF octet_length(name) NOT BETWEEN 1 AND 63 THEN
        RAISE EXCEPTION 'a Snowflake sequencer name must be 1 to 63 bytes long' USING ERRCODE = '22023';
    END IF;
    IF backfill_nodes NOT BETWEEN 0 AND max_nodes - 1 THEN
        RAISE EXCEPTION 'backfill_nodes must be 0 to %', max_nodes - 1 USING ERRCODE = '22023';
    END IF;
    EXECUTE format('SELECT * FROM %s WHERE name = $1 FOR UPDATE', definitions) INTO existing USING name;
    IF existing IS NOT NULL THEN
        IF (existing.epoch, existing.max_nodes, existing.backfill_nodes, existing.layout)
           IS DISTINCT FROM (epoch, max_nodes, backfill_nodes, layout) THEN
            RAISE EXCEPTION 'Snowflake sequencer "%" already exists with a different definition', name
                USING ERRCODE = '42710',
                      HINT = 'To change it, define it under a new name: a name defined again continues above its earlier ids.';
        END IF;
        RETURN;
    END IF;
    serial := format('%s.%I', schema, '_idgen_snowflake_' || md5(name));
    -- A sequence of this name without a definition came with a copy of the schema, whose
    -- definitions are data that a logical copy need not bring, or stayed after DROP EXTENSION:
    -- it is taken as it is, so that no value it gave is given again.
    EXECUTE format(CASE WHEN to_regclass(serial) IS NULL THEN 'CREATE' ELSE 'ALTER' END
                   || ' SEQUENCE %s MINVALUE 0 MAXVALUE %s NO CYCLE', serial,
                   (2::numeric ^ (l[2] + counter_bits) - 1)::bigint);
    EXECUTE format('INSERT INTO %s (name, epoch, max_nodes, backfill_nodes, layout, node_bits, counter_bits, serial,
                                    tick_ms, created_in)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, pg_current_xact_id())', definitions)
        USING name, epoch, max_nodes, backfill_nodes, layout, l[4], counter_bits, serial::regclass, l[3];
    -- The sequence starts at the latest of three ticks:
    -- - the tick after now. A definition of this name made by a transaction that rolled back
    --   took its sequence with it: nothing SQL can read remembers its ids. That transaction ended
    --   before this insert could take the name, and its draws never ran ahead of its clock
    --   (_idgen_snowflake_next), so each lies in a tick before the one after now;
    -- - past the time of every id of the name's dropped definitions;
    -- - the first whose ids lie above all of those (what that adds to their time must lie within
    --   6 s of the clock: a later epoch or fewer bits below the time field put it further);
    -- and never below a value the sequence, if it was there already, would give next.
    EXECUTE format('SELECT ends_unix_ms - floor(extract(epoch FROM $1) * 1000)::bigint, ids_below
                    FROM %s._idgen_snowflake_retired WHERE name = $2', schema) INTO ends, below USING epoch, name;
    first_tick := div(below + 2::numeric ^ (l[4] + counter_bits) - 1, 2::numeric ^ (l[4] + counter_bits));
    ahead_ms := floor(extract(epoch FROM epoch) * 1000) + first_tick * l[3]
                - greatest(floor(extract(epoch FROM clock_timestamp()) * 1000), floor(extract(epoch FROM epoch) * 1000) + ends);
    IF first_tick >= 2::numeric ^ l[2] OR ahead_ms > 6000 THEN
        RAISE EXCEPTION 'Snowflake sequencer "%" cannot issue ids above those of its earlier definitions', name
            USING ERRCODE = '55000',
                  DETAIL = CASE WHEN first_tick >= 2::numeric ^ l[2]
                                THEN 'Its ids would have to run past the end of its layout''s time field.'
                                ELSE format('Its first id would lie %s ms ahead of the clock and of the dropped ids'' '
                                            'time (at most 6000): a name dropped and defined again with a later epoch, '
                                            'fewer bits below the time field or longer ticks continues above every id '
                                            'the name issued.', ahead_ms)
                           END,
                  HINT = 'Define the sequencer under a new name, or again as it was before.';
    END IF;
    EXECUTE format('SELECT (%s._idgen_snowflake_now_value($1, $2, $3) >> $2) + 1', schema)
        INTO next_value USING epoch, counter_bits, l[3];
    first_tick := greatest(next_value, CASE WHEN ends > 0 THEN (ends + l[3] - 1) / l[3] END, first_tick);
    EXECUTE format('SELECT greatest($1, CASE WHEN is_called THEN last_value + 1 ELSE last_value END) FROM %s', serial)
        INTO next_value USING first_tick::bigint << counter_bits;
    PERFORM setval(serial::regclass, next_value, false);
END
$$;
COMMENT ON FUNCTION _idgen_snowflake_create(regclass, text, timestamptz, integer, integer, text) IS
    'internal: snowflake_create''s work, given the definitions table (whose schema holds the edition), once the preset and defaults are applied';

-- Layouts people already use, under names: snowflake_create(name, preset => ...) takes a
-- preset's epoch, node count and layout where they are not given.
CREATE OR REPLACE VIEW snowflake_presets (name, epoch, max_nodes, layout, description) AS
VALUES ('twitter'::text, '2010-11-04 01:42:54.657+00'::timestamptz, 1024, 'idgen'::text,
        'Twitter''s Snowflake: 41 bits of ms since Twitter''s epoch, 10 bits of machine id, a 12-bit sequence'::text),
       ('discord', '2015-01-01 00:00:00+00', 1024, 'idgen',
        'Discord''s: Twitter''s layout from the first second of 2015 (worker and process id in the 10 node bits)'),
       ('sonyflake', '2014-09-01 00:00:00+00', 65536, 'sonyflake',
        'Sony''s Sonyflake: 39 bits of 10 ms ticks since Sony''s epoch, an 8-bit sequence, a 16-bit machine id'),
       ('javascript', '2020-01-01 00:00:00+00', 64, 'javascript',
        'ids below 2^53, exact as JavaScript numbers: 41 bits of ms, 64 nodes of 64 ids per ms');
COMMENT ON VIEW snowflake_presets IS
    'The layouts snowflake_create takes by name (its preset argument): epoch, node count and layout of each';

-- A layout whose time field ends soon makes a sequencer that stops within its tables' lives: a
-- warning when it ends within warn years, an error within refuse years (either NULL: no check).
CREATE OR REPLACE FUNCTION _idgen_snowflake_check_runway(name text, epoch timestamptz, layout text,
        warn_years integer, refuse_years integer, ends timestamptz) RETURNS void
    LANGUAGE plpgsql STABLE
AS $$
DECLARE
    detail text := format('Layout %s from epoch %s runs out at %s.', layout, epoch, ends);
    hint text := 'Choose a later epoch (any time up to now), or a layout with a longer time field (sonyflake: 174 years).';
BEGIN
    IF ends < now() + make_interval(years => refuse_years) THEN
        RAISE EXCEPTION 'Snowflake sequencer "%" would run out of time within % years', name, refuse_years
            USING ERRCODE = '22023', DETAIL = detail, HINT = hint;
    ELSIF ends < now() + make_interval(years => warn_years) THEN
        RAISE WARNING 'Snowflake sequencer "%" runs out of time within % years', name, warn_years
            USING DETAIL = detail, HINT = hint;
    END IF;
END
$$;
COMMENT ON FUNCTION _idgen_snowflake_check_runway(text, timestamptz, text, integer, integer, timestamptz) IS
    'internal: snowflake_create''s warning (or error) for a layout whose time field runs out (at ends) within the years given';

CREATE OR REPLACE FUNCTION _idgen_snowflake_create_as(definitions regclass, name text, epoch timestamptz,
        max_nodes integer, backfill_nodes integer, layout text, preset text, warn_within_years integer,
        refuse_within_years integer) RETURNS void
    LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    schema text := (SELECT relnamespace::regnamespace::text FROM pg_class WHERE oid = definitions);
    chosen_epoch timestamptz;
    chosen_nodes integer;
    chosen_layout text;
    names text;
    ends timestamptz;
BEGIN
    IF name IS NULL OR backfill_nodes IS NULL THEN
        RAISE EXCEPTION 'snowflake_create: name and backfill_nodes must not be NULL' USING ERRCODE = '22004';
    END IF;
    IF preset IS NOT NULL THEN
        EXECUTE format('SELECT p.epoch, p.max_nodes, p.layout FROM %s.snowflake_presets p WHERE p.name = $1', schema)
            INTO chosen_epoch, chosen_nodes, chosen_layout USING preset;
        IF chosen_layout IS NULL THEN
            EXECUTE format('SELECT string_agg(p.name, '', '') FROM %s.snowflake_presets p', schema) INTO names;
            RAISE EXCEPTION 'unknown Snowflake preset "%"', left(preset, 64) USING ERRCODE = '22023',
                HINT = format('The presets are %s (the view snowflake_presets).', names);
        END IF;
    END IF;
    -- What is not given comes from the preset, else the defaults (a layout's own node count
    -- where it has one).
    layout := coalesce(layout, chosen_layout, 'idgen');
    epoch := coalesce(epoch, chosen_epoch, '2020-01-01 00:00:00+00');
    EXECUTE format('SELECT coalesce(nullif(coalesce($1, $2), 0), %s._idgen_default_nodes($3))', schema)
        INTO max_nodes USING max_nodes, chosen_nodes, layout;
    EXECUTE format('SELECT %s._idgen_snowflake_create($1, $2, $3, $4, $5, $6)', schema)
        USING definitions, name, epoch, max_nodes, backfill_nodes, layout;
    EXECUTE format('SELECT %s.snowflake_runs_out($1, $2)', schema) INTO ends USING epoch, layout;
    EXECUTE format('SELECT %s._idgen_snowflake_check_runway($1, $2, $3, $4, $5, $6)', schema)
        USING name, epoch, layout, warn_within_years, refuse_within_years, ends;
END
$$;
COMMENT ON FUNCTION _idgen_snowflake_create_as(regclass, text, timestamptz, integer, integer, text, text, integer, integer) IS
    'internal: snowflake_create: a preset''s or the default epoch, node count and layout where not given, the definition made, its time field''s runway checked';

CREATE OR REPLACE FUNCTION snowflake_create(name text,
        epoch timestamptz DEFAULT NULL, max_nodes integer DEFAULT NULL,
        backfill_nodes integer DEFAULT 0, layout text DEFAULT NULL, preset text DEFAULT NULL,
        warn_within_years integer DEFAULT 10, refuse_within_years integer DEFAULT NULL) RETURNS void
    LANGUAGE sql VOLATILE
BEGIN ATOMIC
    SELECT _idgen_snowflake_create_as('snowflake_definitions'::regclass, name, epoch, max_nodes, backfill_nodes,
                                      layout, preset, warn_within_years, refuse_within_years);
END;
COMMENT ON FUNCTION snowflake_create(text, timestamptz, integer, integer, text, text, integer, integer) IS
    'Defines a Snowflake sequencer: a time field since epoch, log2(max_nodes) node bits, the rest a per-tick counter, laid out as layout says (idgen, snowcast, sonyflake, javascript), or as a preset of snowflake_presets where not given; warns when the time field runs out within warn_within_years, refuses within refuse_within_years; does nothing if it exists with the same definition (plain-SQL edition: the ids come from a sequence of its own)';

-- The first value of now's tick in a sequencer's sequence: ticks since its epoch (now is after
-- it: the division floors), counter 0.
CREATE OR REPLACE FUNCTION _idgen_snowflake_now_value(epoch timestamptz, counter_bits integer, tick_ms integer)
        RETURNS bigint
    LANGUAGE sql VOLATILE PARALLEL UNSAFE
RETURN ((floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint - floor(extract(epoch FROM epoch) * 1000)::bigint)
        / tick_ms) << counter_bits;
COMMENT ON FUNCTION _idgen_snowflake_now_value(timestamptz, integer, integer) IS
    'internal: the sequence value of now''s tick, counter 0, of a sequencer of this epoch, counter width and tick';

-- A jump moves the sequence (setval), which needs the sequence's owner's UPDATE right; a caller of
-- snowflake_next needs only USAGE on it. So the jump runs as the edition's owner (SECURITY
-- DEFINER, its search_path pinned to the edition's schema below) and takes nothing from the
-- caller but a name: it reads the definition and the clock itself, so all a caller can do with
-- it is what snowflake_next does, move a sequencer's sequence up to now.
CREATE OR REPLACE FUNCTION _idgen_snowflake_jump(name text) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER PARALLEL UNSAFE
AS $$
DECLARE
    d snowflake_definitions;
    lock_key integer;
    now_value bigint;
    v bigint;
BEGIN
    SELECT * INTO d FROM snowflake_definitions s WHERE s.name OPERATOR(pg_catalog.=) _idgen_snowflake_jump.name;
    IF d IS NULL THEN
        RAISE EXCEPTION 'Snowflake sequencer "%" does not exist', name USING ERRCODE = '42704';
    END IF;
    lock_key := d.serial::oid::integer;
    now_value := _idgen_snowflake_now_value(d.epoch, d.counter_bits, d.tick_ms);
    -- The lock is the session's, and any role that may call snowflake_next may call this directly,
    -- with no handler of its own around it: this block's releases it on every exit (an error, a
    -- lock_timeout, and a cancel or statement_timeout, which WHEN others does not catch).
    BEGIN
        PERFORM _idgen_advisory_lock(lock_key, 'exclusive', pg_catalog.format('Snowflake sequencer "%s"', name));
        -- No nextval runs now: the sequence's last value is every value handed out.
        IF pg_catalog.pg_sequence_last_value(d.serial) OPERATOR(pg_catalog.<) now_value THEN
            PERFORM pg_catalog.setval(d.serial, now_value, false);
        END IF;
        v := pg_catalog.nextval(d.serial);
        PERFORM pg_catalog.pg_advisory_unlock(1768842596, lock_key);
    EXCEPTION WHEN others OR query_canceled THEN
        PERFORM _idgen_advisory_release(lock_key);
        RAISE;
    END;
    RETURN v;
END
$$;
COMMENT ON FUNCTION _idgen_snowflake_jump(text) IS
    'internal: snowflake_next''s jump of a sequencer''s sequence to now, as the edition''s owner; the next value';
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION %I._idgen_snowflake_jump(text) SET search_path = %I, pg_temp',
                   current_schema(), current_schema());
END
$$;

CREATE OR REPLACE FUNCTION _idgen_snowflake_next(name text, d snowflake_definitions, now_value bigint, node integer)
        RETURNS bigint
    LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
AS $$
DECLARE
    lock_key integer := d.serial::oid::integer;
    v bigint;
BEGIN
    IF d IS NULL THEN
        RAISE EXCEPTION 'Snowflake sequencer "%" does not exist', name USING ERRCODE = '42704';
    END IF;
    IF node NOT BETWEEN 0 AND d.max_nodes - d.backfill_nodes - 1 THEN
        RAISE EXCEPTION 'node id % is not a live node id of Snowflake sequencer "%" (0 to %)',
            node, name, d.max_nodes - d.backfill_nodes - 1 USING ERRCODE = '22023';
    END IF;
    -- The locks are the session's (a transaction's would keep every jump waiting until the
    -- caller's transaction ends), so nothing may leave this block holding one: an error, a
    -- lock_timeout, and a cancel or statement_timeout (which WHEN others does not catch) at any
    -- statement, a wait included, releases what pg_locks says this session still holds. The lock
    -- is free but for a jump's moment: tried first, and waited for with a bound only when taken
    -- (see the edition's advisory locks). PL/pgSQL resolves names at run time, in the caller's
    -- search_path: the edition's own functions are called in its schema, named.
    BEGIN
        IF NOT pg_try_advisory_lock_shared(1768842596, lock_key) THEN   -- 'idgd'
            EXECUTE format('SELECT %s._idgen_advisory_lock($1, ''shared'', $2)',
                           (SELECT relnamespace::regnamespace::text FROM pg_class WHERE oid = d.serial))
                USING lock_key, format('Snowflake sequencer "%s"', name);
        END IF;
        v := nextval(d.serial);
        PERFORM pg_advisory_unlock_shared(1768842596, lock_key);
        IF v < now_value THEN
            EXECUTE format('SELECT %s._idgen_snowflake_jump($1)',
                           (SELECT relnamespace::regnamespace::text FROM pg_class WHERE oid = d.serial))
                INTO v USING name;
        END IF;
    EXCEPTION WHEN others OR query_canceled THEN
        EXECUTE format('SELECT %s._idgen_advisory_release($1)',
                       (SELECT relnamespace::regnamespace::text FROM pg_class WHERE oid = d.serial))
            USING lock_key;
        RAISE;
    END;
    -- In the transaction that made the sequencer, a value ahead of the clock (a burst past the
    -- counter) waits until the clock reaches its tick: if the transaction rolls back, the name
    -- made again starts at the tick after its own now, above every id drawn here.
    IF v >> d.counter_bits > now_value >> d.counter_bits AND d.created_in = pg_current_xact_id_if_assigned() THEN
        PERFORM pg_sleep(((v >> d.counter_bits) - (now_value >> d.counter_bits)) * d.tick_ms / 1000.0);
    END IF;
    -- Ticks above node and counter; Sony's layout puts the node id (its machine id) lowest.
    IF d.layout = 'sonyflake' THEN
        RETURN ((v >> d.counter_bits) << (d.node_bits + d.counter_bits))
               | ((v & ((1::bigint << d.counter_bits) - 1)) << d.node_bits) | node;
    END IF;
    RETURN ((v >> d.counter_bits) << (d.node_bits + d.counter_bits)) | (node::bigint << d.counter_bits)
           | (v & ((1::bigint << d.counter_bits) - 1));
END
$$;
COMMENT ON FUNCTION _idgen_snowflake_next(text, snowflake_definitions, bigint, integer) IS
    'internal: snowflake_next''s work, given the sequencer''s definition (NULL: it does not exist), now''s first value and the node id';

CREATE OR REPLACE FUNCTION snowflake_next(name text) RETURNS bigint
    LANGUAGE sql VOLATILE STRICT PARALLEL UNSAFE
RETURN (SELECT _idgen_snowflake_next(n.name, d, _idgen_snowflake_now_value(d.epoch, d.counter_bits, d.tick_ms), _idgen_node_id())
        FROM (VALUES (snowflake_next.name)) n (name) LEFT JOIN snowflake_definitions d ON d.name = n.name);
COMMENT ON FUNCTION snowflake_next(text) IS
    'The next Snowflake id of the named sequencer: now''s millisecond, the database''s node id, a counter; unique by construction from the sequencer''s sequence (plain-SQL edition)';

CREATE OR REPLACE FUNCTION _idgen_snowflake_drop(definitions regclass, name text) RETURNS void
    LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    schema text := (SELECT relnamespace::regnamespace::text FROM pg_class WHERE oid = definitions);
    d record;
BEGIN
    EXECUTE format('DELETE FROM %s WHERE name = $1 RETURNING *', definitions) INTO d USING name;
    IF d IS NULL THEN
        RAISE EXCEPTION 'Snowflake sequencer "%" does not exist', name USING ERRCODE = '42704';
    END IF;
    -- The end of the last value's tick (no value handed out: nothing to keep). Values are
    -- handed out under the sequencer's lock held shared; taken exclusively here (until the
    -- transaction ends, waited for with a bound: see the edition's advisory locks), none is in
    -- flight.
    EXECUTE format('SELECT %s._idgen_advisory_lock($1, ''transaction'', $2)', schema)
        USING d.serial::oid::integer, format('Snowflake sequencer "%s"', name);
    EXECUTE format('INSERT INTO %s._idgen_snowflake_retired AS r
                    SELECT $1, ((v >> $2) + 1) * $5 + floor(extract(epoch FROM $3) * 1000)::bigint,
                           ((v >> $2) + 1) * 2::numeric ^ ($2 + $6)
                    FROM pg_sequence_last_value($4) v WHERE v IS NOT NULL
                    ON CONFLICT (name) DO UPDATE SET ends_unix_ms = greatest(r.ends_unix_ms, excluded.ends_unix_ms),
                                                     ids_below = greatest(r.ids_below, excluded.ids_below)', schema)
        USING name, d.counter_bits, d.epoch, d.serial, d.tick_ms, d.node_bits;
    EXECUTE format('DROP SEQUENCE %s', d.serial);
END
$$;
COMMENT ON FUNCTION _idgen_snowflake_drop(regclass, text) IS
    'internal: snowflake_drop''s work, given the definitions table';

CREATE OR REPLACE FUNCTION snowflake_drop(name text) RETURNS void
    LANGUAGE sql VOLATILE
BEGIN ATOMIC
    SELECT _idgen_snowflake_drop('snowflake_definitions'::regclass, name);
END;
COMMENT ON FUNCTION snowflake_drop(text) IS
    'Drops a Snowflake sequencer and its sequence (plain-SQL edition)';

-- ---- Keyed masking ----------------------------------------------------------------------------
-- id_mask, id_unmask, uuid_mask and uuid_unmask as in the C extension (docs/masking.md): FF1 of
-- NIST SP 800-38G over AES, radix 2, no tweak; a bigint id of 20 to 63 bits onto the same range,
-- a version-7 UUID's 122 bits other than version and variant onto a version-4 UUID. The AES is
-- pgcrypto's (encrypt(block, key, 'aes-ecb/pad:none'), one block at a time), which hosted services
-- offer; the rest of the edition needs no pgcrypto. _idgen_mask_bind, which this file runs, finds
-- pgcrypto in whatever schema it was created in and makes _idgen_aes call its encrypt, bound by
-- oid when made (a SQL function with a standard body: moving pgcrypto to another schema keeps it,
-- dropping pgcrypto is refused while it is bound); where pgcrypto is not installed, _idgen_aes
-- raises 55000 with what to do: CREATE EXTENSION pgcrypto, then, as the edition's owner, run this
-- file again or SELECT _idgen_mask_bind() in the edition's schema (pg_tle's extension too).
--
-- The keys are the edition's owner's to read (and the roles it grants): REVOKE ALL FROM PUBLIC.
-- The masking functions read a key as the owner, in _idgen_mask_id and _idgen_mask_uuid (SECURITY
-- DEFINER, their search_path pinned to the edition's schema below, so that what they call,
-- _idgen_ff1 and _idgen_aes included, is the edition's and pg_catalog's whatever the caller's
-- search_path), and return only the masked value. The public functions are SQL that the planner
-- inlines into a call of those, IMMUTABLE as in the C extension: a key's bytes never change under
-- its name (the trigger refuses UPDATE, DELETE and TRUNCATE), so WHERE id = id_unmask($1, 'orders')
-- is an index condition. No error shows a key: the trigger checks a row before the table's
-- constraints could print it.
CREATE TABLE IF NOT EXISTS idgen_mask_keys (
    name text PRIMARY KEY CHECK (octet_length(name) BETWEEN 1 AND 63),
    key bytea NOT NULL CHECK (octet_length(key) IN (16, 32)),
    created_at timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON idgen_mask_keys FROM PUBLIC;
COMMENT ON TABLE idgen_mask_keys IS
    'The named AES keys of id_mask, id_unmask, uuid_mask and uuid_unmask (16 or 32 bytes); readable by the edition''s owner only, permanent once created (id_mask_key_create), dumped with the database';

-- The C extension's trigger function as it is (its errors compared in sql/hosted_differential.sql).
CREATE OR REPLACE FUNCTION _idgen_mask_key_row() RETURNS trigger
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        RAISE EXCEPTION 'mask keys are permanent: % on idgen_mask_keys is refused', TG_OP
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'A key''s bytes never change under its name; to rotate, create a key under a new name.';
    END IF;
    IF NEW.name IS NULL OR octet_length(NEW.name) NOT BETWEEN 1 AND 63 THEN
        RAISE EXCEPTION 'a mask key''s name has 1 to 63 bytes' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF NEW.key IS NULL OR octet_length(NEW.key) NOT IN (16, 32) THEN
        RAISE EXCEPTION 'mask key "%" is not of 16 or 32 bytes (AES-128 or AES-256)', NEW.name
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    NEW.created_at := coalesce(NEW.created_at, now());
    RETURN NEW;
END
$$;
COMMENT ON FUNCTION _idgen_mask_key_row() IS
    'internal: idgen_mask_keys''s rows are permanent and checked without showing a key';
REVOKE ALL ON FUNCTION _idgen_mask_key_row() FROM PUBLIC;
CREATE OR REPLACE TRIGGER idgen_mask_keys_permanent BEFORE INSERT OR UPDATE OR DELETE ON idgen_mask_keys
    FOR EACH ROW EXECUTE FUNCTION _idgen_mask_key_row();
CREATE OR REPLACE TRIGGER idgen_mask_keys_no_truncate BEFORE TRUNCATE ON idgen_mask_keys
    FOR EACH STATEMENT EXECUTE FUNCTION _idgen_mask_key_row();

-- PostgreSQL's strong random source without pgcrypto: gen_random_uuid() is 122 bits of it, and
-- SHA-256 of three of them (366 bits) gives the key's bytes.
CREATE OR REPLACE FUNCTION _idgen_mask_key_bytes(bytes integer) RETURNS bytea
    LANGUAGE plpgsql VOLATILE STRICT
AS $$
BEGIN
    IF bytes NOT IN (16, 32) THEN
        RAISE EXCEPTION 'id_mask_key_create: a key has 16 or 32 bytes, not %', bytes USING ERRCODE = '22023';
    END IF;
    RETURN substr(sha256(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid())),
                  1, bytes);
END
$$;
COMMENT ON FUNCTION _idgen_mask_key_bytes(integer) IS
    'internal: 16 or 32 bytes from PostgreSQL''s strong random source, for id_mask_key_create';
REVOKE ALL ON FUNCTION _idgen_mask_key_bytes(integer) FROM PUBLIC;

CREATE OR REPLACE FUNCTION id_mask_key_create(name text, key_bytes integer DEFAULT 32) RETURNS void
    LANGUAGE sql VOLATILE STRICT
BEGIN ATOMIC
    INSERT INTO idgen_mask_keys (name, key) VALUES (id_mask_key_create.name, _idgen_mask_key_bytes(key_bytes));
END;
COMMENT ON FUNCTION id_mask_key_create(text, integer) IS
    'Creates a mask key of 32 (AES-256) or 16 (AES-128) random bytes under a new name; the bytes are made in the server and shown nowhere. For the extension''s owner (it writes idgen_mask_keys)';
REVOKE ALL ON FUNCTION id_mask_key_create(text, integer) FROM PUBLIC;

-- _idgen_aes, made again each time: pgcrypto's encrypt where pgcrypto is installed, else a refusal.
CREATE OR REPLACE FUNCTION _idgen_mask_bind() RETURNS text
    LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    schema text := pg_catalog.quote_ident(pg_catalog.current_schema());   -- its search_path is pinned below
    encrypt_function text;
BEGIN
    -- pgcrypto's own encrypt(bytea, bytea, text), found by its membership, in any schema
    SELECT pg_catalog.format('%I.%I', n.nspname, p.proname) INTO encrypt_function
    FROM pg_catalog.pg_extension e
    JOIN pg_catalog.pg_depend d ON d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass AND d.refobjid = e.oid
                               AND d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass AND d.deptype = 'e'
    JOIN pg_catalog.pg_proc p ON p.oid = d.objid
    JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
    WHERE e.extname = 'pgcrypto' AND p.proname = 'encrypt'
      AND p.proargtypes = '17 17 25'::pg_catalog.oidvector;   -- (bytea, bytea, text)
    IF encrypt_function IS NULL THEN
        EXECUTE pg_catalog.format($f$CREATE OR REPLACE FUNCTION %s._idgen_aes(key bytea, block bytea) RETURNS bytea
                              LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
                          AS $b$
                          BEGIN
                              RAISE EXCEPTION 'idgen''s masking needs the extension pgcrypto, which was not installed when the plain-SQL edition was installed or restored'
                                  USING ERRCODE = '55000',
                                        DETAIL = 'The plain-SQL edition masks ids with pgcrypto''s AES.',
                                        HINT = %L;
                          END
                          $b$
                          $f$,
                          schema,
                          pg_catalog.format('CREATE EXTENSION pgcrypto (in any schema); then, as the edition''s owner, SELECT %s._idgen_mask_bind(), or run hosted/idgen_hosted.sql again. The keys stay.',
                                            schema));
        RETURN 'pgcrypto is not installed: masking refuses until it is and this runs again';
    END IF;
    EXECUTE pg_catalog.format($f$CREATE OR REPLACE FUNCTION %s._idgen_aes(key bytea, block bytea) RETURNS bytea
                          LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
                      RETURN %s(block, key, 'aes-ecb/pad:none'::pg_catalog.text)$f$,
                   schema, encrypt_function);
    RETURN 'masking uses ' || encrypt_function;
END
$$;
COMMENT ON FUNCTION _idgen_mask_bind() IS
    'internal: makes _idgen_aes call pgcrypto''s encrypt in the schema pgcrypto is in, or refuse where it is not installed (run by this file; run it again, as the edition''s owner, after CREATE EXTENSION pgcrypto)';
REVOKE ALL ON FUNCTION _idgen_mask_bind() FROM PUBLIC;
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION %I._idgen_mask_bind() SET search_path = %I, pg_temp', current_schema(), current_schema());
    PERFORM _idgen_mask_bind();
END
$$;
COMMENT ON FUNCTION _idgen_aes(bytea, bytea) IS
    'internal: one 16-byte block encrypted with AES under a 16- or 32-byte key (pgcrypto''s encrypt; 55000 where pgcrypto was not found)';

-- FF1.Encrypt or FF1.Decrypt (SP 800-38G, Algorithms 7 and 8) for radix 2, no tweak, n bits
-- held as their halves' numbers a (the first u = n / 2 bits) and b (the other v), v <= 61. The
-- round function's CBC-MAC starts with P, the same in every round: its block is encrypted once,
-- and held as two bigints. Q is 16 bytes, the round number i and then NUM(B) in its last `bytes`
-- bytes: XORed into P's block, i lands in its first half where NUM(B) fills the second. Of the
-- PRF's first d = 4 ceil(bytes / 4) + 4 bytes y only y mod 2^m counts (m = u or v, at most 61):
-- the low 61 bits of its last 8 bytes, reduced with the sum. Decryption runs the same rounds
-- backwards with the halves' roles swapped and the sum a difference: x is the half a round
-- changes, z the half it reads.
CREATE OR REPLACE FUNCTION _idgen_ff1(key bytea, n integer, a bigint, b bigint, decrypt boolean) RETURNS bigint[]
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
AS $$
DECLARE
    u integer := n / 2;
    v integer := n - u;
    bytes integer := (v + 7) / 8;
    o integer := 4 * ((bytes + 3) / 4) - 4;   -- where y's last 8 bytes begin: d - 8
    hi_round bigint := (bytes = 8)::integer;
    lo_round bigint := (bytes < 8)::integer * (1::bigint << (8 * least(bytes, 7)));
    sign bigint := 1 - 2 * decrypt::integer;
    p bytea := _idgen_aes(key, int8send(72621643503110656 | u) || int8send(n::bigint << 32));   -- 01 02 01 000002 0a u | n 0
    p_hi bigint := ('x' || encode(substr(p, 1, 8), 'hex'))::bit(64)::bigint;
    p_lo bigint := ('x' || encode(substr(p, 9, 8), 'hex'))::bit(64)::bigint;
    x bigint := CASE WHEN decrypt THEN b ELSE a END;
    z bigint := CASE WHEN decrypt THEN a ELSE b END;
    i integer;
    r bytea;
    c bigint;
BEGIN
    FOR k IN 0 .. 9 LOOP
        i := CASE WHEN decrypt THEN 9 - k ELSE k END;
        r := _idgen_aes(key, int8send(p_hi # (i * hi_round)) || int8send(p_lo # (i * lo_round) # z));
        c := (x + sign * (((get_byte(r, o) & 31)::bigint << 56) | (get_byte(r, o + 1)::bigint << 48)
                          | (get_byte(r, o + 2)::bigint << 40) | (get_byte(r, o + 3)::bigint << 32)
                          | (get_byte(r, o + 4)::bigint << 24) | (get_byte(r, o + 5) << 16)
                          | (get_byte(r, o + 6) << 8) | get_byte(r, o + 7)))
             & ((1::bigint << CASE WHEN i % 2 = 0 THEN u ELSE v END) - 1);
        x := z;
        z := c;
    END LOOP;
    RETURN CASE WHEN decrypt THEN ARRAY[z, x] ELSE ARRAY[x, z] END;
END
$$;
COMMENT ON FUNCTION _idgen_ff1(bytea, integer, bigint, bigint, boolean) IS
    'internal: FF1 (NIST SP 800-38G) of radix 2 without a tweak under an AES key: the halves (first n/2 bits, the rest) of n bits encrypted, or decrypted';

-- The key of a name, or 42704 as the C extension says it. Only the owner may call it (the
-- masking functions below, which run as the owner, read the key first, as the C extension does).
CREATE OR REPLACE FUNCTION _idgen_mask_key(key_name text) RETURNS bytea
    LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
AS $$
DECLARE
    key bytea;
BEGIN
    SELECT k.key INTO key FROM idgen_mask_keys k WHERE k.name = key_name;
    IF key IS NULL THEN
        RAISE EXCEPTION 'mask key "%" does not exist', key_name
            USING ERRCODE = '42704', HINT = 'id_mask_key_create(''' || key_name || ''') creates it.';
    END IF;
    RETURN key;
END
$$;
COMMENT ON FUNCTION _idgen_mask_key(text) IS
    'internal: the bytes of the named mask key (42704 when there is none); the edition''s owner''s alone';
REVOKE ALL ON FUNCTION _idgen_mask_key(text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION _idgen_mask_id(id bigint, key_name text, width integer, unmask boolean) RETURNS bigint
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SECURITY DEFINER
AS $$
DECLARE
    key bytea;
    fn text := CASE WHEN unmask THEN 'id_unmask' ELSE 'id_mask' END;
    low integer := width - width / 2;
    halves bigint[];
BEGIN
    key := _idgen_mask_key(key_name);
    IF width NOT BETWEEN 20 AND 63 THEN
        RAISE EXCEPTION '%: width % is outside 20..63', fn, width USING ERRCODE = '22023';
    END IF;
    IF id < 0 OR (id >> width) <> 0 THEN
        RAISE EXCEPTION '%: % is outside 0 .. 2^% - 1', fn, id, width USING ERRCODE = '22003';
    END IF;
    halves := _idgen_ff1(key, width, id >> low, id & ((1::bigint << low) - 1), unmask);
    RETURN (halves[1] << low) | halves[2];
END
$$;
COMMENT ON FUNCTION _idgen_mask_id(bigint, text, integer, boolean) IS
    'internal: id_mask''s and id_unmask''s work, reading the key as the edition''s owner';

-- A UUID's 122 bits: 48 before the version, 12 between version and variant, 62 after; halves of
-- 61 bits each.
CREATE OR REPLACE FUNCTION _idgen_mask_uuid(u uuid, key_name text, unmask boolean) RETURNS uuid
    LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SECURITY DEFINER
AS $$
DECLARE
    key bytea;
    fn text := CASE WHEN unmask THEN 'uuid_unmask' ELSE 'uuid_mask' END;
    version_in integer := CASE WHEN unmask THEN 4 ELSE 7 END;
    bits bit(128) := ('x' || encode(uuid_send(u), 'hex'))::bit(128);
    hi bigint := substring(bits FROM 1 FOR 64)::bigint;
    lo bigint := substring(bits FROM 65 FOR 64)::bigint;
    halves bigint[];
BEGIN
    key := _idgen_mask_key(key_name);
    IF (lo >> 62) & 3 <> 2 OR (hi >> 12) & 15 <> version_in THEN
        RAISE EXCEPTION '%: not a version-% UUID', fn, version_in USING ERRCODE = '22023';
    END IF;
    -- a: the 48 bits before the version, the 12 after it and the first of the last 62; b: the rest
    -- (PostgreSQL's <<, >>, & and | are of one precedence, left to right: hence the parentheses.)
    halves := _idgen_ff1(key, 122, (((hi >> 16) & 281474976710655) << 13) | ((hi & 4095) << 1) | ((lo >> 61) & 1),
                         lo & 2305843009213693951, unmask);
    hi := ((halves[1] >> 13) << 16) | ((11 - version_in)::bigint << 12) | ((halves[1] >> 1) & 4095);   -- 7 <-> 4
    lo := (-9223372036854775807 - 1) | ((halves[1] & 1) << 61) | halves[2];
    RETURN encode(int8send(hi) || int8send(lo), 'hex')::uuid;
END
$$;
COMMENT ON FUNCTION _idgen_mask_uuid(uuid, text, boolean) IS
    'internal: uuid_mask''s and uuid_unmask''s work, reading the key as the edition''s owner';
DO $$
BEGIN
    EXECUTE format('ALTER FUNCTION %I._idgen_mask_id(bigint, text, integer, boolean) SET search_path = %I, pg_temp',
                   current_schema(), current_schema());
    EXECUTE format('ALTER FUNCTION %I._idgen_mask_uuid(uuid, text, boolean) SET search_path = %I, pg_temp',
                   current_schema(), current_schema());
END
$$;

CREATE OR REPLACE FUNCTION id_mask(id bigint, key_name text, width integer DEFAULT 63) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_mask_id(id, key_name, width, false);
COMMENT ON FUNCTION id_mask(bigint, text, integer) IS
    'The id (0 .. 2^width - 1; width 20 to 63, 53 for JavaScript) masked under the named key: FF1 over AES, a permutation of that range; 42704 for an unknown key, 22023 for a width, 22003 for an id outside the width';
CREATE OR REPLACE FUNCTION id_unmask(masked bigint, key_name text, width integer DEFAULT 63) RETURNS bigint
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_mask_id(masked, key_name, width, true);
COMMENT ON FUNCTION id_unmask(bigint, text, integer) IS
    'The id that id_mask masked to this value under the same key and width; errors as id_mask';
CREATE OR REPLACE FUNCTION uuid_mask(u uuid, key_name text) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_mask_uuid(u, key_name, false);
COMMENT ON FUNCTION uuid_mask(uuid, text) IS
    'A version-7 UUID masked under the named key: its 122 bits other than version and variant through FF1, laid out as a version-4 UUID; 22023 for a UUID of another version, 42704 for an unknown key';
CREATE OR REPLACE FUNCTION uuid_unmask(masked uuid, key_name text) RETURNS uuid
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN _idgen_mask_uuid(masked, key_name, true);
COMMENT ON FUNCTION uuid_unmask(uuid, text) IS
    'The version-7 UUID that uuid_mask masked to this version-4 UUID under the same key; 22023 for a UUID of another version, 42704 for an unknown key';

-- ---- What earlier versions had ----------------------------------------------------------------
-- (after everything that used it was replaced above)
DO $$
DECLARE
    grant_command text;
    old_helper regprocedure;
BEGIN
    IF to_regprocedure('_idgen_snowflake_next(text, snowflake_definitions)') IS NOT NULL THEN   -- 0.9.3
        DROP FUNCTION _idgen_snowflake_next(text, snowflake_definitions);
    END IF;
    IF to_regprocedure('_idgen_snowflake_next(text, snowflake_definitions, bigint)') IS NOT NULL THEN   -- 0.9.4
        DROP FUNCTION _idgen_snowflake_next(text, snowflake_definitions, bigint);
    END IF;
    IF to_regprocedure('_idgen_serial_time_uuid(integer, bigint, bigint)') IS NOT NULL THEN   -- 0.9.4
        DROP FUNCTION _idgen_serial_time_uuid(integer, bigint, bigint);
    END IF;
    -- 0.9.6: snowflake_create without presets (roles allowed to call it keep that right), and
    -- the helpers of the layouts before Sony's and javascript.
    IF to_regprocedure('snowflake_create(text, timestamptz, integer, integer, text)') IS NOT NULL THEN
        FOR grant_command IN
            SELECT format('GRANT EXECUTE ON FUNCTION snowflake_create(text, timestamptz, integer, integer, text, text, integer, integer) TO %s%s',
                          CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE a.grantee::regrole::text END,
                          CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END)
            FROM pg_proc p, aclexplode(p.proacl) a
            WHERE p.oid = 'snowflake_create(text, timestamptz, integer, integer, text)'::regprocedure
              AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner
        LOOP
            EXECUTE grant_command;
        END LOOP;
        DROP FUNCTION snowflake_create(text, timestamptz, integer, integer, text);
    END IF;
    FOR old_helper IN SELECT to_regprocedure(f) FROM unnest(ARRAY[
            '_idgen_snowflake_width(timestamptz, integer, text)', '_idgen_snowflake_time_field(bigint, integer)',
            '_idgen_snowflake_min_id(bigint, bigint, integer)', '_idgen_snowflake_now_value(timestamptz, integer)']) f
    LOOP
        IF old_helper IS NOT NULL THEN
            EXECUTE format('DROP FUNCTION %s', old_helper);
        END IF;
    END LOOP;
END
$$;
