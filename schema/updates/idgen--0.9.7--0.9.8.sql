-- idgen 0.9.8: the promise through ordinary statements. A sequencer created in a transaction that
-- aborts leaves no slot and no cached binding (_snowflake_created); a name dropped and defined
-- again, whatever its new epoch, node count or layout, issues only ids above every id its earlier
-- definitions issued on this server (snowflake_retired, kept by snowflake_drop); the hints that
-- led to a later epoch under the same name say what now holds. A Citus worker defines only the
-- coordinator's sequencers, as the coordinator defines them (_citus_check_as_coordinator).

\echo Use "ALTER EXTENSION idgen UPDATE" to load this file. \quit

-- The earlier definitions of this database's sequencer names: snowflake_drop keeps each one here,
-- so that a name defined again issues only ids above every id its earlier definitions issued on
-- this server, whatever its new epoch, node count or layout (ids compare by their bits, and the
-- same time is another id under another epoch). Dumped with the definitions.
CREATE TABLE @extschema@.snowflake_retired (
    name text NOT NULL,
    epoch timestamptz NOT NULL,
    max_nodes integer NOT NULL,
    backfill_nodes integer NOT NULL,
    layout text NOT NULL,
    PRIMARY KEY (name, epoch, max_nodes, backfill_nodes, layout)
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.snowflake_retired', '');
REVOKE ALL ON @extschema@.snowflake_retired FROM PUBLIC;
GRANT SELECT ON @extschema@.snowflake_retired TO PUBLIC;
COMMENT ON TABLE @extschema@.snowflake_retired IS
    'The dropped definitions of Snowflake sequencer names: a name defined again issues only ids above theirs';

CREATE FUNCTION @extschema@._snowflake_created(definitions oid, definition_id bigint, name text) RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_snowflake_created'
    LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION @extschema@._snowflake_created(oid, bigint, text) IS
    'internal: a sequencer defined in this transaction: its slot is released if the transaction aborts, and it is refused if it cannot start above its name''s earlier definitions';
REVOKE ALL ON FUNCTION @extschema@._snowflake_created(oid, bigint, text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION @extschema@._snowflake_check_runway(name text, epoch timestamptz, layout text,
        warn_years integer, refuse_years integer) RETURNS void
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ends timestamptz := @extschema@.snowflake_runs_out(epoch, layout);
    refuse boolean := ends < pg_catalog.now() + pg_catalog.make_interval(years => refuse_years);
    warn boolean := ends < pg_catalog.now() + pg_catalog.make_interval(years => warn_years);
    detail text := format('Layout %s from epoch %s runs out at %s.', layout, epoch, ends);
    hint text := 'Choose a later epoch (any time up to now; a name defined before continues above its earlier ids, so a new name), or a layout with a longer time field (sonyflake: 174 years).';
BEGIN
    IF refuse THEN
        RAISE EXCEPTION 'Snowflake sequencer "%" would run out of time within % years', name, refuse_years
            USING ERRCODE = 'invalid_parameter_value', DETAIL = detail, HINT = hint;
    ELSIF warn THEN
        RAISE WARNING 'Snowflake sequencer "%" runs out of time within % years', name, warn_years
            USING DETAIL = detail, HINT = hint;
    END IF;
END
$$;

-- On a Citus worker: the coordinator's definition of a sequencer, [epoch, max_nodes, backfill_nodes,
-- layout], asked in a connection of the coordinator's own (so its committed definitions); NULL where
-- it has none; 55000 where it cannot be asked. With `lock`, FOR SHARE: a drop on the coordinator that
-- has not committed is waited for.
CREATE FUNCTION @extschema@._citus_coordinator_definition(name text, lock boolean) RETURNS jsonb
    LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    answered boolean;
    answer text;
BEGIN
    SELECT c.success, c.result INTO answered, answer FROM pg_catalog.run_command_on_coordinator(format(
        'SELECT pg_catalog.json_build_array(%1$s._citus_epoch_text(d.epoch), d.max_nodes, d.backfill_nodes, d.layout) '
        'FROM %1$s.snowflake_definitions d WHERE d.name OPERATOR(pg_catalog.=) %2$L%3$s',
        '@extschema@', name, CASE WHEN lock THEN ' FOR SHARE' ELSE '' END)) c;
    IF answered IS NOT TRUE THEN
        RAISE EXCEPTION 'the Citus coordinator could not be asked for Snowflake sequencer "%"', name
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = coalesce(answer, 'The coordinator is not in pg_dist_node.'),
                  HINT = 'A worker takes its sequencers from the coordinator; make the coordinator reachable.';
    END IF;
    RETURN nullif(answer, '')::jsonb;
END
$$;
COMMENT ON FUNCTION @extschema@._citus_coordinator_definition(text, boolean) IS
    'internal: on a Citus worker, the coordinator''s definition of a sequencer (NULL: none)';
REVOKE ALL ON FUNCTION @extschema@._citus_coordinator_definition(text, boolean) FROM PUBLIC;
CREATE OR REPLACE FUNCTION @extschema@._citus_fetch_sequencer(name text) RETURNS boolean
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    d jsonb := @extschema@._citus_coordinator_definition(name, true);
BEGIN
    IF d IS NULL THEN
        RETURN false;
    END IF;
    PERFORM @extschema@.snowflake_create(name, (d->>0)::timestamptz, (d->>1)::integer, (d->>2)::integer, d->>3,
                                         warn_within_years => NULL);
    RETURN true;
END
$$;

-- On a Citus worker, a definition made by a session of its own (not the coordinator's create): 55000
-- where the coordinator has no sequencer of the name, 42710 where its definition differs.
CREATE FUNCTION @extschema@._citus_check_as_coordinator(name text, epoch timestamptz, max_nodes integer,
        backfill_nodes integer, layout text) RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    d jsonb := @extschema@._citus_coordinator_definition(name, false);
BEGIN
    IF d IS NULL THEN
        RAISE EXCEPTION 'Snowflake sequencer "%" does not exist on the Citus coordinator', name
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = 'A Citus worker defines only the coordinator''s sequencers.',
                  HINT = 'Create it on the coordinator: it reaches every worker.';
    END IF;
    IF (d->>0)::timestamptz IS DISTINCT FROM epoch OR (d->>1)::integer <> max_nodes
       OR (d->>2)::integer <> backfill_nodes OR d->>3 <> layout THEN
        RAISE EXCEPTION 'Snowflake sequencer "%" has another definition on the Citus coordinator', name
            USING ERRCODE = 'duplicate_object',
                  DETAIL = format('The coordinator''s has epoch %s, max_nodes %s, backfill_nodes %s and layout %s; '
                                  'this one epoch %s, max_nodes %s, backfill_nodes %s and layout %s.',
                                  (d->>0)::timestamptz, d->>1, d->>2, d->>3, epoch, max_nodes, backfill_nodes, layout),
                  HINT = 'Every node of a Citus cluster defines a sequencer as the coordinator does.';
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@._citus_check_as_coordinator(text, timestamptz, integer, integer, text) IS
    'internal: on a Citus worker, refuses a definition the coordinator does not have';
REVOKE ALL ON FUNCTION @extschema@._citus_check_as_coordinator(text, timestamptz, integer, integer, text) FROM PUBLIC;

CREATE OR REPLACE FUNCTION @extschema@.snowflake_create(name text,
        epoch timestamptz DEFAULT NULL, max_nodes integer DEFAULT NULL,
        backfill_nodes integer DEFAULT 0, layout text DEFAULT NULL, preset text DEFAULT NULL,
        warn_within_years integer DEFAULT 10, refuse_within_years integer DEFAULT NULL)
    RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    nodes integer;
    created bigint;
    existing @extschema@.snowflake_definitions;
    chosen @extschema@.snowflake_presets;
BEGIN
    IF name IS NULL OR backfill_nodes IS NULL THEN
        RAISE EXCEPTION 'snowflake_create: name and backfill_nodes must not be NULL'
            USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF preset IS NOT NULL THEN
        SELECT * INTO chosen FROM @extschema@.snowflake_presets p WHERE p.name = preset;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'unknown Snowflake preset "%"', left(preset, 64)
                USING ERRCODE = 'invalid_parameter_value',
                      HINT = format('The presets are %s (the view snowflake_presets).',
                                    (SELECT string_agg(p.name, ', ') FROM @extschema@.snowflake_presets p));
        END IF;
    END IF;
    -- What is not given comes from the preset, else idgen's defaults (a layout's own node count
    -- where it has one).
    layout := coalesce(layout, chosen.layout, 'idgen');
    epoch := coalesce(epoch, chosen.epoch, '2020-01-01 00:00:00+00');
    max_nodes := coalesce(max_nodes, chosen.max_nodes,
                          CASE layout WHEN 'sonyflake' THEN 65536 WHEN 'javascript' THEN 64 ELSE 8192 END);
    nodes := @extschema@._snowflake_check_definition(name, epoch, max_nodes, backfill_nodes, layout);
    PERFORM @extschema@._snowflake_check_runway(name, epoch, layout, warn_within_years, refuse_within_years);
    -- A Citus worker defines a sequencer as the coordinator does, or not at all: a worker's own
    -- definition of a name with other node bits lays other groups' ids over its own. Citus's own
    -- connections, which name themselves so (the coordinator's create reaching the workers through
    -- run_command_on_workers, whose definition has not committed yet), are not asked back.
    IF @extschema@._citus_group() > 0
       AND pg_catalog.current_setting('application_name') !~ '^citus_(internal|run_command) gpid=' THEN
        PERFORM @extschema@._citus_check_as_coordinator(name, epoch, nodes, backfill_nodes, layout);
    END IF;
    INSERT INTO @extschema@.snowflake_definitions AS d (name, epoch, max_nodes, backfill_nodes, layout)
    VALUES (snowflake_create.name, snowflake_create.epoch, nodes, snowflake_create.backfill_nodes,
            snowflake_create.layout)
    ON CONFLICT ON CONSTRAINT snowflake_definitions_name_key DO NOTHING
    RETURNING d.id INTO created;
    IF created IS NOT NULL THEN
        PERFORM @extschema@._snowflake_created('@extschema@.snowflake_definitions'::regclass, created, name);
    ELSE
        SELECT * INTO existing FROM @extschema@.snowflake_definitions d WHERE d.name = snowflake_create.name;
        IF existing.epoch IS DISTINCT FROM snowflake_create.epoch OR existing.max_nodes <> nodes
           OR existing.backfill_nodes <> snowflake_create.backfill_nodes
           OR existing.layout <> snowflake_create.layout THEN
            RAISE EXCEPTION 'Snowflake sequencer "%" already exists with a different definition', name
                USING ERRCODE = 'duplicate_object',
                      DETAIL = format('It has epoch %s, max_nodes %s, backfill_nodes %s and layout %s.',
                                      existing.epoch, existing.max_nodes, existing.backfill_nodes,
                                      existing.layout),
                      HINT = 'Every server must define a sequencer identically. To change one, define it under a '
                             'new name: a name defined again continues above its earlier ids.';
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
    dropped @extschema@.snowflake_definitions;
    on_workers bigint := 0;
BEGIN
    DELETE FROM @extschema@.snowflake_definitions d WHERE d.name = snowflake_drop.name RETURNING d.* INTO dropped;
    IF dropped.id IS NOT NULL THEN
        PERFORM @extschema@._snowflake_release('@extschema@.snowflake_definitions'::regclass, dropped.id, name);
        INSERT INTO @extschema@.snowflake_retired (name, epoch, max_nodes, backfill_nodes, layout)
        VALUES (dropped.name, dropped.epoch, dropped.max_nodes, dropped.backfill_nodes, dropped.layout)
        ON CONFLICT DO NOTHING;
    END IF;
    -- A Citus coordinator drops it on every worker that holds it, also where it has none itself.
    IF @extschema@._citus_group() = 0 THEN
        on_workers := @extschema@._citus_to_workers('snowflake_drop', format(
            'SELECT pg_catalog.count(%1$s.snowflake_drop(d.name)) FROM %1$s.snowflake_definitions d '
            'WHERE d.name OPERATOR(pg_catalog.=) %2$L', '@extschema@', name));
    END IF;
    IF dropped.id IS NULL AND on_workers = 0 THEN
        RAISE EXCEPTION 'Snowflake sequencer "%" does not exist', name USING ERRCODE = 'undefined_object';
    END IF;
END
$$;
