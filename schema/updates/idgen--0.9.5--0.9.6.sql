-- idgen 0.9.6: ULID and TypeID text of UUIDs and a short text of Snowflake ids; PostgreSQL
-- 18's and pg_uuidv7's names for version-7 UUIDs; Snowflake sequencers
-- that reach every node of a Citus cluster by themselves (with idgen.node_id_source = 'citus'):
-- snowflake_create and snowflake_drop on the coordinator reach the workers, and a worker takes a
-- definition it lacks from the coordinator. The library of 0.9.6 also notices an etcd restored
-- from a snapshot when the servers' writes carry its revision past the one they remembered
-- before they look again.

\echo Use "ALTER EXTENSION idgen UPDATE" to load this file. \quit

-- Sequencers on Citus (idgen.node_id_source = 'citus'): snowflake_create and snowflake_drop on the
-- coordinator reach every worker there is then, each in a connection of its own (Citus's
-- run_command_on_workers), and a worker that lacks a sequencer takes the coordinator's definition
-- the first time it needs it (a worker added later): so every node defines a sequencer alike.
CREATE FUNCTION @extschema@._citus_group() RETURNS integer
    AS 'MODULE_PATHNAME', 'idgen_citus_group'
    LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@._citus_group() IS
    'internal: this node''s Citus group where idgen.node_id_source is citus and the cluster knows the node (0: the coordinator), else NULL';
CREATE FUNCTION @extschema@._citus_to_workers(caller text, command text) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    refused text;
    answered bigint;
BEGIN
    SELECT string_agg(format('%s:%s: %s', w.nodename, w.nodeport, w.result), '; ') FILTER (WHERE NOT w.success),
           sum(nullif(w.result, '')::bigint) FILTER (WHERE w.success)
      INTO refused, answered FROM pg_catalog.run_command_on_workers(command) w;
    IF refused IS NOT NULL THEN
        RAISE EXCEPTION '%: a Citus worker did not take it: %', caller, refused
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'On the coordinator it is undone; a worker that took it keeps it.',
                  HINT = 'Make every worker reachable (or remove it with citus_remove_node) and run it again.';
    END IF;
    RETURN coalesce(answered, 0);
END
$$;
COMMENT ON FUNCTION @extschema@._citus_to_workers(text, text) IS
    'internal: runs a command on every Citus worker, raising 55000 if any did not take it; the sum of the workers'' answers that are numbers';
REVOKE ALL ON FUNCTION @extschema@._citus_to_workers(text, text) FROM PUBLIC;
-- The epoch as text that reads back the same under any DateStyle and TimeZone.
CREATE FUNCTION @extschema@._citus_epoch_text(epoch timestamptz) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT SET search_path = pg_catalog, pg_temp
    RETURN pg_catalog.to_char(epoch AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00"');
COMMENT ON FUNCTION @extschema@._citus_epoch_text(timestamptz) IS
    'internal: a sequencer epoch as text for another Citus node';
-- On a worker: the coordinator's definition of the sequencer, created here in the caller's
-- transaction; false where the coordinator has none. FOR SHARE waits for a drop on the coordinator
-- that has not committed, so a worker that the drop reached first does not take the sequencer
-- back. What it cannot close: a worker that read the definition just before a drop and commits
-- after the drop reached it keeps the sequencer (the same definition, so its ids stay apart from
-- every other node's); snowflake_drop on the coordinator drops it there, even once the
-- coordinator has none.
CREATE FUNCTION @extschema@._citus_fetch_sequencer(name text) RETURNS boolean
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    answered boolean;
    answer text;
    d jsonb;
BEGIN
    SELECT c.success, c.result INTO answered, answer FROM pg_catalog.run_command_on_coordinator(format(
        'SELECT pg_catalog.json_build_array(%1$s._citus_epoch_text(d.epoch), d.max_nodes, d.backfill_nodes, d.layout) '
        'FROM %1$s.snowflake_definitions d WHERE d.name OPERATOR(pg_catalog.=) %2$L FOR SHARE',
        '@extschema@', name)) c;
    IF answered IS NOT TRUE THEN
        RAISE EXCEPTION 'Snowflake sequencer "%" does not exist on this Citus worker, and the coordinator could not be asked for it', name
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = coalesce(answer, 'The coordinator is not in pg_dist_node.'),
                  HINT = 'A worker takes a sequencer from the coordinator the first time it needs it; make the coordinator reachable.';
    END IF;
    IF answer = '' THEN
        RETURN false;
    END IF;
    d := answer::jsonb;
    PERFORM @extschema@.snowflake_create(name, (d->>0)::timestamptz, (d->>1)::integer, (d->>2)::integer, d->>3);
    RETURN true;
END
$$;
COMMENT ON FUNCTION @extschema@._citus_fetch_sequencer(text) IS
    'internal: on a Citus worker, takes the coordinator''s definition of a sequencer it lacks';

CREATE OR REPLACE FUNCTION @extschema@.snowflake_create(name text,
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
    IF @extschema@._citus_group() = 0 THEN
        PERFORM @extschema@._citus_to_workers('snowflake_create', format(
            'SELECT %s.snowflake_create(%L, %L, %s, %s, %L)', '@extschema@', name,
            @extschema@._citus_epoch_text(epoch), nodes, backfill_nodes, layout));
    END IF;
END
$$;
CREATE OR REPLACE FUNCTION @extschema@.snowflake_drop(name text) RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    dropped bigint;
    on_workers bigint := 0;
BEGIN
    DELETE FROM @extschema@.snowflake_definitions d WHERE d.name = snowflake_drop.name RETURNING d.id INTO dropped;
    IF dropped IS NOT NULL THEN
        PERFORM @extschema@._snowflake_release('@extschema@.snowflake_definitions'::regclass, dropped, name);
    END IF;
    -- A Citus coordinator drops it on every worker that holds it, also where it has none itself.
    IF @extschema@._citus_group() = 0 THEN
        on_workers := @extschema@._citus_to_workers('snowflake_drop', format(
            'SELECT pg_catalog.count(%1$s.snowflake_drop(d.name)) FROM %1$s.snowflake_definitions d '
            'WHERE d.name OPERATOR(pg_catalog.=) %2$L', '@extschema@', name));
    END IF;
    IF dropped IS NULL AND on_workers = 0 THEN
        RAISE EXCEPTION 'Snowflake sequencer "%" does not exist', name USING ERRCODE = 'undefined_object';
    END IF;
END
$$;

-- Other projects' names for version-7 UUIDs, so that code written for them runs unchanged:
-- PostgreSQL 18's (17 has the two uuid_extract_ functions, 18 all four: there PostgreSQL's own
-- come first, pg_catalog being searched first, and these serve a call qualified with this schema,
-- such as a dumped default) and pg_uuidv7's. What they make is idgen's (uuid_v7(), or uuid_v7_at's
-- retrospective UUID of a shifted or given time); what they read, and their errors, are theirs.
CREATE FUNCTION @extschema@.uuidv7() RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_v7'
    LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.uuidv7() IS
    'PostgreSQL 18''s name for uuid_v7(): a version-7 UUID, strictly increasing across sessions';
CREATE FUNCTION @extschema@.uuidv7(shift interval) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuidv7_shifted'
    LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.uuidv7(interval) IS
    'PostgreSQL 18''s uuidv7(shift): a version-7 UUID of now + shift, with its checks and errors; idgen''s is uuid_v7_at''s retrospective UUID of that time (unique; needs idgen.node_id)';
CREATE FUNCTION @extschema@.uuid_extract_timestamp(u uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'idgen_uuid_extract_timestamp'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_extract_timestamp(uuid) IS
    'PostgreSQL 18''s uuid_extract_timestamp: the time of a version-1 UUID (to the microsecond) or a version-7 UUID (its millisecond); NULL for any other UUID';
CREATE FUNCTION @extschema@.uuid_extract_version(u uuid) RETURNS smallint
    AS 'MODULE_PATHNAME', 'idgen_uuid_version'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_extract_version(uuid) IS
    'PostgreSQL 17''s uuid_extract_version: the version of an RFC 9562 UUID; NULL for another variant';
CREATE FUNCTION @extschema@.uuid_generate_v7() RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_v7'
    LANGUAGE C VOLATILE PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.uuid_generate_v7() IS
    'pg_uuidv7''s name for uuid_v7(): a version-7 UUID, strictly increasing across sessions';
CREATE FUNCTION @extschema@.uuid_v7_to_timestamptz(u uuid) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'idgen_uuid_v7_ms_field'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_v7_to_timestamptz(uuid) IS
    'pg_uuidv7''s uuid_v7_to_timestamptz: the first 48 bits of any UUID as Unix milliseconds';
CREATE FUNCTION @extschema@.uuid_v7_to_timestamp(u uuid) RETURNS timestamp
    AS 'MODULE_PATHNAME', 'idgen_uuid_v7_ms_field'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_v7_to_timestamp(uuid) IS
    'pg_uuidv7''s uuid_v7_to_timestamp: the first 48 bits of any UUID as Unix milliseconds, in UTC';
CREATE FUNCTION @extschema@.uuid_timestamptz_to_v7(ts timestamptz, zero boolean DEFAULT false) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_time_to_v7'
    LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.uuid_timestamptz_to_v7(timestamptz, boolean) IS
    'pg_uuidv7''s uuid_timestamptz_to_v7: with zero, the version-7 UUID of the millisecond with nothing after its time; otherwise uuid_v7_at''s retrospective UUID of exactly the time (unique; needs idgen.node_id)';
CREATE FUNCTION @extschema@.uuid_timestamp_to_v7(ts timestamp, zero boolean DEFAULT false) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_time_to_v7'
    LANGUAGE C VOLATILE STRICT PARALLEL RESTRICTED;
COMMENT ON FUNCTION @extschema@.uuid_timestamp_to_v7(timestamp, boolean) IS
    'pg_uuidv7''s uuid_timestamp_to_v7: uuid_timestamptz_to_v7 of the time read as UTC';

-- Ids as text people read, paste and move between systems (src/pg/functions/text_forms.cpp):
-- UUIDs as ULIDs and TypeIDs (26 characters of Crockford's base32: a version-7 UUID's text sorts
-- as the UUID does and carries its millisecond), and Snowflake ids in 13 characters that sort as
-- the ids do. Each text that is not what it says raises 22P02, saying why.
CREATE FUNCTION @extschema@.uuid_to_ulid(u uuid) RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_uuid_to_ulid'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_to_ulid(uuid) IS
    'A UUID''s 128 bits as a ULID: 26 characters of Crockford''s base32 in upper case';
CREATE FUNCTION @extschema@.ulid_to_uuid(ulid text) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_ulid_to_uuid'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ulid_to_uuid(text) IS
    'The UUID of a ULID, read in either case; 22P02 for a text that is no ULID (another alphabet or length, more than 128 bits)';
CREATE FUNCTION @extschema@.ulid_timestamp(ulid text) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'idgen_ulid_timestamp'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.ulid_timestamp(text) IS
    'The time of a ULID: its first 48 bits as Unix milliseconds';
CREATE FUNCTION @extschema@.ulid() RETURNS text
    LANGUAGE sql VOLATILE PARALLEL RESTRICTED
    RETURN @extschema@.uuid_to_ulid(@extschema@.uuid_v7());
COMMENT ON FUNCTION @extschema@.ulid() IS
    'A ULID of now: uuid_v7() as a ULID, so ordered across sessions and unique across servers';
CREATE FUNCTION @extschema@.ulid_at(ts timestamptz) RETURNS text
    LANGUAGE sql VOLATILE PARALLEL RESTRICTED
    RETURN @extschema@.uuid_to_ulid(@extschema@.uuid_v7_at(ts));
COMMENT ON FUNCTION @extschema@.ulid_at(timestamptz) IS
    'A ULID whose time is ts: uuid_v7_at(ts) as a ULID, for backfills (unique; needs idgen.node_id)';
CREATE FUNCTION @extschema@.typeid_text(prefix text, u uuid) RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_typeid_text'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.typeid_text(text, uuid) IS
    'A UUID as a TypeID (version 0.3): the prefix (at most 63 of a-z and _, a letter at each end, or empty), an underscore, and 26 lower-case characters of base32; 22023 for another prefix';
CREATE FUNCTION @extschema@.typeid_parse(typeid text, OUT prefix text, OUT uuid uuid)
    AS 'MODULE_PATHNAME', 'idgen_typeid_parse'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.typeid_parse(text) IS
    'The prefix and the UUID of a TypeID; 22P02 for a text that is no TypeID, saying why';
CREATE FUNCTION @extschema@.typeid_uuid(typeid text) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_typeid_uuid'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.typeid_uuid(text) IS
    'The UUID of a TypeID (WHERE id = typeid_uuid(''user_...'') uses a uuid index); 22P02 for a text that is no TypeID';
CREATE FUNCTION @extschema@.typeid_prefix(typeid text) RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_typeid_prefix'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.typeid_prefix(text) IS
    'The prefix of a TypeID (empty when it has none); 22P02 for a text that is no TypeID';
CREATE FUNCTION @extschema@.typeid_timestamp(typeid text) RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'idgen_typeid_timestamp'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.typeid_timestamp(text) IS
    'The time of a TypeID''s version-7 UUID, to the microsecond (as uuid_v7_timestamp); NULL for a UUID of another version; 22P02 for a text that is no TypeID';
CREATE FUNCTION @extschema@.typeid(prefix text) RETURNS text
    LANGUAGE sql VOLATILE STRICT PARALLEL RESTRICTED
    RETURN @extschema@.typeid_text(prefix, @extschema@.uuid_v7());
COMMENT ON FUNCTION @extschema@.typeid(text) IS
    'A TypeID of now: the prefix and uuid_v7(), so ordered across sessions and unique across servers';
CREATE FUNCTION @extschema@.typeid_at(prefix text, ts timestamptz) RETURNS text
    LANGUAGE sql VOLATILE PARALLEL RESTRICTED
    RETURN @extschema@.typeid_text(prefix, @extschema@.uuid_v7_at(ts));
COMMENT ON FUNCTION @extschema@.typeid_at(text, timestamptz) IS
    'A TypeID whose time is ts: the prefix and uuid_v7_at(ts), for backfills (unique; needs idgen.node_id)';
CREATE FUNCTION @extschema@.snowflake_to_text(id bigint) RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_snowflake_to_text'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_to_text(bigint) IS
    'A Snowflake id''s 64 bits, unsigned, as 13 lower-case characters of Crockford''s base32: the texts sort as the ids do by time (as the ids themselves for every id of the idgen layout)';
CREATE FUNCTION @extschema@.snowflake_from_text(t text) RETURNS bigint
    AS 'MODULE_PATHNAME', 'idgen_snowflake_from_text'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_from_text(text) IS
    'The Snowflake id of a text of snowflake_to_text, read in either case; 22P02 for another text';
