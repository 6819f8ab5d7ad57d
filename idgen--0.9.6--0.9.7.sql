-- idgen 0.9.7: Snowflake layouts people already use. Two new layouts, Sony's Sonyflake (10 ms
-- ticks, 65,536 machine ids) and javascript (ids below 2^53); presets by name (twitter, discord,
-- sonyflake, javascript) in snowflake_create and the snowflake_presets view; snowflake_runs_out,
-- and snowflake_create's warning (or error) for a layout whose time field runs out soon.

\echo Use "ALTER EXTENSION idgen UPDATE" to load this file. \quit

ALTER TABLE @extschema@.snowflake_definitions
    DROP CONSTRAINT snowflake_definitions_max_nodes_check,
    ADD CONSTRAINT snowflake_definitions_max_nodes_check
        CHECK (max_nodes IN (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 65536)),
    DROP CONSTRAINT snowflake_definitions_layout_check,
    ADD CONSTRAINT snowflake_definitions_layout_check CHECK (layout IN ('idgen', 'snowcast', 'sonyflake', 'javascript'));
COMMENT ON COLUMN @extschema@.snowflake_definitions.layout IS
    'idgen: 41 bits of ms, node and counter in 22, the sign bit 0; snowcast: snowcast''s own layout, 41 bits of ms, node and counter in 23, all 64 bits; sonyflake: Sony''s, 39 bits of 10 ms ticks, an 8-bit counter, a 16-bit machine id lowest; javascript: ids below 2^53, 41 bits of ms, node and counter in 12';

-- A layout whose time field ends soon makes a sequencer that stops (55000 from snowflake_next)
-- within its tables' lives: a warning when it ends within warn years, an error within refuse years
-- (either NULL: no check).
CREATE FUNCTION @extschema@._snowflake_check_runway(name text, epoch timestamptz, layout text,
        warn_years integer, refuse_years integer) RETURNS void
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ends timestamptz := @extschema@.snowflake_runs_out(epoch, layout);
    refuse boolean := ends < pg_catalog.now() + pg_catalog.make_interval(years => refuse_years);
    warn boolean := ends < pg_catalog.now() + pg_catalog.make_interval(years => warn_years);
    detail text := format('Layout %s from epoch %s runs out at %s.', layout, epoch, ends);
    hint text := 'Choose a later epoch (any time up to now), or a layout with a longer time field (sonyflake: 174 years).';
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
COMMENT ON FUNCTION @extschema@._snowflake_check_runway(text, timestamptz, text, integer, integer) IS
    'internal: snowflake_create''s warning (or error) for a layout whose time field runs out within the years given';

-- On a worker: the coordinator's definition of the sequencer, created here in the caller's
-- transaction; false where the coordinator has none. FOR SHARE waits for a drop on the coordinator
-- that has not committed, so a worker that the drop reached first does not take the sequencer
-- back. What it cannot close: a worker that read the definition just before a drop and commits
-- after the drop reached it keeps the sequencer (the same definition, so its ids stay apart from
-- every other node's); snowflake_drop on the coordinator drops it there, even once the
-- coordinator has none.
CREATE OR REPLACE FUNCTION @extschema@._citus_fetch_sequencer(name text) RETURNS boolean
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
    PERFORM @extschema@.snowflake_create(name, (d->>0)::timestamptz, (d->>1)::integer, (d->>2)::integer, d->>3,
                                         warn_within_years => NULL);
    RETURN true;
END
$$;
COMMENT ON FUNCTION @extschema@._citus_fetch_sequencer(text) IS
    'internal: on a Citus worker, takes the coordinator''s definition of a sequencer it lacks';

-- snowflake_create takes new arguments (preset, and the years of the runway check), and epoch,
-- max_nodes and layout default to NULL (the preset's, else what they were). A function's
-- signature is its identity, so it is made again; the EXECUTE grants an administrator gave on the
-- old one are given on the new one.
SELECT pg_catalog.set_config('idgen_upgrade.create_grants', coalesce(pg_catalog.string_agg(pg_catalog.format(
           'GRANT EXECUTE ON FUNCTION @extschema@.snowflake_create(text, timestamptz, integer, integer, text, text, integer, integer) TO %s%s',
           CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE a.grantee::pg_catalog.regrole::text END,
           CASE WHEN a.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END), E'\n'), ''), true)
FROM pg_catalog.pg_proc p, pg_catalog.aclexplode(p.proacl) a
WHERE p.oid = '@extschema@.snowflake_create(text, timestamptz, integer, integer, text)'::pg_catalog.regprocedure
  AND a.privilege_type = 'EXECUTE' AND a.grantee <> p.proowner;
DROP FUNCTION @extschema@.snowflake_create(text, timestamptz, integer, integer, text);

-- Layouts people already use, under names: snowflake_create(name, preset => ...) takes a
-- preset's epoch, node count and layout where they are not given.
CREATE VIEW @extschema@.snowflake_presets (name, epoch, max_nodes, layout, description) AS
VALUES ('twitter'::text, '2010-11-04 01:42:54.657+00'::timestamptz, 1024, 'idgen'::text,
        'Twitter''s Snowflake: 41 bits of ms since Twitter''s epoch, 10 bits of machine id, a 12-bit sequence'::text),
       ('discord', '2015-01-01 00:00:00+00', 1024, 'idgen',
        'Discord''s: Twitter''s layout from the first second of 2015 (worker and process id in the 10 node bits)'),
       ('sonyflake', '2014-09-01 00:00:00+00', 65536, 'sonyflake',
        'Sony''s Sonyflake: 39 bits of 10 ms ticks since Sony''s epoch, an 8-bit sequence, a 16-bit machine id'),
       ('javascript', '2020-01-01 00:00:00+00', 64, 'javascript',
        'ids below 2^53, exact as JavaScript numbers: 41 bits of ms, 64 nodes of 64 ids per ms');
COMMENT ON VIEW @extschema@.snowflake_presets IS
    'The layouts snowflake_create takes by name (its preset argument): epoch, node count and layout of each';
GRANT SELECT ON @extschema@.snowflake_presets TO PUBLIC;

CREATE FUNCTION @extschema@.snowflake_runs_out(epoch timestamptz, layout text DEFAULT 'idgen') RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'idgen_snowflake_runs_out'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.snowflake_runs_out(timestamptz, text) IS
    'When the time field of a layout with this epoch runs out: no id of it can be issued at or after that time (idgen, snowcast and javascript: epoch + 2^41 ms, 69.7 years; sonyflake: epoch + 2^39 ticks of 10 ms, 174 years)';

CREATE FUNCTION @extschema@.snowflake_create(name text,
        epoch timestamptz DEFAULT NULL, max_nodes integer DEFAULT NULL,
        backfill_nodes integer DEFAULT 0, layout text DEFAULT NULL, preset text DEFAULT NULL,
        warn_within_years integer DEFAULT 10, refuse_within_years integer DEFAULT NULL)
    RETURNS void
    LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    nodes integer;
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
            'SELECT %s.snowflake_create(%L, %L, %s, %s, %L, warn_within_years => NULL)', '@extschema@', name,
            @extschema@._citus_epoch_text(epoch), nodes, backfill_nodes, layout));
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@.snowflake_create(text, timestamptz, integer, integer, text, text, integer, integer) IS
    'Defines a Snowflake sequencer: a time field since epoch, log2(max_nodes) node bits, the rest a per-tick counter, laid out as layout says (idgen, the default: 41 bits of ms, ids stay positive; snowcast; sonyflake; javascript: ids below 2^53), or as a preset of snowflake_presets (twitter, discord, sonyflake, javascript) where not given; warns when the time field runs out within warn_within_years, refuses within refuse_within_years; the top backfill_nodes node ids are reserved for snowflake_at; does nothing if it exists with the same definition';
REVOKE ALL ON FUNCTION @extschema@.snowflake_create(text, timestamptz, integer, integer, text, text, integer, integer) FROM PUBLIC;

DO $$
DECLARE
    grant_command text;
BEGIN
    FOREACH grant_command IN ARRAY pg_catalog.string_to_array(pg_catalog.current_setting('idgen_upgrade.create_grants'), E'\n') LOOP
        EXECUTE grant_command;
    END LOOP;
END
$$;

CREATE OR REPLACE VIEW @extschema@.snowflake_sequencers AS
SELECT d.name, d.epoch, d.max_nodes, d.backfill_nodes, d.layout, s.node_bits, s.counter_bits, s.node_id,
       s.state, s.ids_issued, s.last_id_time, @extschema@.snowflake_runs_out(d.epoch, d.layout) AS runs_out
FROM @extschema@.snowflake_definitions d,
     LATERAL @extschema@._snowflake_state(d.tableoid, d.id, d.max_nodes, d.backfill_nodes, d.layout, d.name) s;
