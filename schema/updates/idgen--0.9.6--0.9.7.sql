-- idgen 0.9.7: Snowflake layouts people already use. Two new layouts, Sony's Sonyflake (10 ms
-- ticks, 65,536 machine ids) and javascript (ids below 2^53); presets by name (twitter, discord,
-- sonyflake, javascript) in snowflake_create and the snowflake_presets view; snowflake_runs_out,
-- and snowflake_create's warning (or error) for a layout whose time field runs out soon. And
-- serial, IDENTITY and uuid columns converted in place: snowflake_convert, uuid_v7_convert.

\echo Use "ALTER EXTENSION idgen UPDATE" to load this file. \quit

ALTER TABLE @extschema@.snowflake_definitions
    DROP CONSTRAINT snowflake_definitions_max_nodes_check,
    ADD CONSTRAINT snowflake_definitions_max_nodes_check
        CHECK (max_nodes IN (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 65536)),
    DROP CONSTRAINT snowflake_definitions_layout_check,
    ADD CONSTRAINT snowflake_definitions_layout_check CHECK (layout IN ('idgen', 'snowcast', 'sonyflake', 'javascript'));
COMMENT ON COLUMN @extschema@.snowflake_definitions.layout IS
    'idgen: 41 bits of ms, node and counter in 22, the sign bit 0; snowcast: snowcast''s own layout, 41 bits of ms, node and counter in 23, all 64 bits; sonyflake: Sony''s, 39 bits of 10 ms ticks, an 8-bit counter, a 16-bit machine id lowest; javascript: ids below 2^53, 41 bits of ms, node and counter in 12';

-- A layout whose time field ends soon makes a sequencer that stops (54000 from snowflake_next)
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
-- old one are given on the new one (and named in a NOTICE: made by this script, they count as the
-- extension's own, which pg_dump does not dump).
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
            'SELECT %s.snowflake_create(%L, %L, %s, %s, %L)', '@extschema@', name,
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
        -- PostgreSQL records a grant made by an extension's script as one of the extension's
        -- own, which pg_dump leaves out: say what a restored copy needs again.
        RAISE NOTICE 'idgen 0.9.7: % (given again to the new signature; pg_dump will not carry it, so run it again after restoring a dump)',
            grant_command;
    END LOOP;
END
$$;

CREATE OR REPLACE VIEW @extschema@.snowflake_sequencers AS
SELECT d.name, d.epoch, d.max_nodes, d.backfill_nodes, d.layout, s.node_bits, s.counter_bits, s.node_id,
       s.state, s.ids_issued, s.last_id_time, @extschema@.snowflake_runs_out(d.epoch, d.layout) AS runs_out
FROM @extschema@.snowflake_definitions d,
     LATERAL @extschema@._snowflake_state(d.tableoid, d.id, d.max_nodes, d.backfill_nodes, d.layout, d.name) s;

-- The decoders' comments name the tick of Sony's layout.
COMMENT ON FUNCTION @extschema@.snowflake_timestamp(text, bigint) IS
    'The millisecond a Snowflake id was issued in (in Sony''s layout the start of its 10 ms tick)';
COMMENT ON FUNCTION @extschema@.snowflake_counter(text, bigint) IS
    'The per-millisecond (Sony''s layout: per-tick) counter of a Snowflake id';
COMMENT ON FUNCTION @extschema@.snowflake_min_id(text, timestamptz) IS
    'The smallest id any node can issue in the millisecond (Sony''s layout: the 10 ms tick) of ts (0 before the epoch): WHERE id >= snowflake_min_id(...) is an index range scan; in the snowcast layout ids from 34.8 years after the epoch on are negative and it is negative there too (README, Snowflake sequencers)';
COMMENT ON FUNCTION @extschema@.snowflake_timestamp(bigint, timestamptz, integer, text) IS
    'The millisecond (Sony''s layout: the start of the 10 ms tick) a Snowflake id of the given layout (epoch, max_nodes, layout as for snowflake_create) was issued in; immutable, for generated columns and partition bounds';
COMMENT ON FUNCTION @extschema@.snowflake_min_id(timestamptz, timestamptz, integer, text) IS
    'The smallest id of the given layout (epoch, max_nodes, layout as for snowflake_create) that any node can issue in the millisecond (Sony''s layout: the 10 ms tick) of ts; immutable, for partition bounds';

-- ---- Converting columns in place -----------------------------------------------------------------
-- snowflake_convert switches serial, bigserial and IDENTITY columns (or every column that takes
-- its default from one sequence) to snowflake_next of a sequencer; uuid_v7_convert switches a
-- uuid column's default to uuid_v7(). Each works in the caller's transaction, as the caller (who
-- must own the tables), under an ACCESS EXCLUSIVE lock on every table it changes, taken before it
-- reads their values: no row can come in between the check that new ids lie above the existing
-- values and the switch of the default.

-- A column's default as it reads, or how it is generated if it is an identity column.
CREATE FUNCTION @extschema@._column_default_text(relation regclass, attnum smallint) RETURNS text
    LANGUAGE sql STABLE STRICT SET search_path = pg_catalog, pg_temp
    RETURN (SELECT CASE a.attidentity WHEN 'a' THEN 'GENERATED ALWAYS AS IDENTITY'
                                      WHEN 'd' THEN 'GENERATED BY DEFAULT AS IDENTITY'
                                      ELSE pg_get_expr(d.adbin, d.adrelid) END
            FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
            WHERE a.attrelid = relation AND a.attnum = _column_default_text.attnum);
COMMENT ON FUNCTION @extschema@._column_default_text(regclass, smallint) IS
    'internal: a column''s default expression, or GENERATED ... AS IDENTITY; NULL when it has none';
CREATE FUNCTION @extschema@._column_name(relation regclass, attnum smallint) RETURNS name
    LANGUAGE sql STABLE STRICT SET search_path = pg_catalog, pg_temp
    RETURN (SELECT a.attname FROM pg_attribute a WHERE a.attrelid = relation AND a.attnum = _column_name.attnum);
COMMENT ON FUNCTION @extschema@._column_name(regclass, smallint) IS
    'internal: the name of a table''s column by number';
CREATE FUNCTION @extschema@._column_type(relation regclass, attnum smallint) RETURNS regtype
    LANGUAGE sql STABLE STRICT SET search_path = pg_catalog, pg_temp
    RETURN (SELECT a.atttypid FROM pg_attribute a WHERE a.attrelid = relation AND a.attnum = _column_type.attnum);
COMMENT ON FUNCTION @extschema@._column_type(regclass, smallint) IS
    'internal: the type of a table''s column by number';
CREATE FUNCTION @extschema@._column_number(relation regclass, column_name name) RETURNS smallint
    LANGUAGE plpgsql STABLE STRICT SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    att smallint := (SELECT a.attnum FROM pg_attribute a
                     WHERE a.attrelid = relation AND a.attname = column_name AND a.attnum > 0 AND NOT a.attisdropped);
BEGIN
    IF att IS NULL THEN
        RAISE EXCEPTION 'column "%" of relation "%" does not exist', column_name, relation USING ERRCODE = 'undefined_column';
    END IF;
    RETURN att;
END
$$;
COMMENT ON FUNCTION @extschema@._column_number(regclass, name) IS
    'internal: the number of a table''s column by name (42703 if it has none of that name)';
-- A partition's or child table's inherited column takes its default from the parent's ALTER
-- TABLE, and rows inserted through the parent take the parent's: it is converted there.
CREATE FUNCTION @extschema@._refuse_inherited_column(caller text, relation regclass, attnum smallint) RETURNS void
    LANGUAGE plpgsql STABLE STRICT SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF (SELECT a.attinhcount FROM pg_attribute a WHERE a.attrelid = relation AND a.attnum = _refuse_inherited_column.attnum) > 0 THEN
        RAISE EXCEPTION '%: column % of % is inherited from %', caller,
            quote_ident(@extschema@._column_name(relation, attnum)), relation,
            (SELECT string_agg(i.inhparent::regclass::text, ', ') FROM pg_inherits i WHERE i.inhrelid = relation)
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Convert it on the parent table: its partitions and children follow.';
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@._refuse_inherited_column(text, regclass, smallint) IS
    'internal: 55000 for a column a table inherits (a partition''s, a child''s), which is converted on its parent';


CREATE FUNCTION @extschema@.snowflake_convert(relation regclass, column_name name DEFAULT NULL,
        sequencer text DEFAULT NULL, widen boolean DEFAULT false)
    RETURNS TABLE (converted_table regclass, converted_column name, default_before text, default_now text,
                   widened boolean)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    kind "char";
    seq regclass;                 -- the sequence the columns take their ids from (NULL: none)
    seq_owned boolean := false;   -- owned by a column (serial, IDENTITY): it goes with the conversion
    tables regclass[];            -- the columns to convert, as (tables[i], columns[i])
    columns smallint[];
    narrow_tables regclass[] := '{}';   -- integer and smallint columns: the converted ones and those
    narrow_columns smallint[] := '{}';  -- that reference them by a foreign key, directly or not
    chain_tables regclass[];            -- the converted columns and every column that references
    chain_columns smallint[];           -- them by a foreign key, directly or not
    referencing record;
    chosen text;
    col_default text;
    new_default text;
    highest numeric;
    column_highest numeric;
    first_id bigint;
    i integer;
BEGIN
    IF relation IS NULL OR widen IS NULL THEN
        RAISE EXCEPTION 'snowflake_convert: relation and widen must not be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    SELECT c.relkind INTO kind FROM pg_class c WHERE c.oid = relation;
    IF kind = 'S' THEN
        -- Every column whose default calls the sequence's nextval, and the IDENTITY column it serves.
        IF column_name IS NOT NULL THEN
            RAISE EXCEPTION 'snowflake_convert: give a sequence alone, or a table and one of its columns'
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        seq := relation;
        -- An inherited column whose parent's is among them is left to the parent's ALTER TABLE.
        WITH t AS (SELECT ad.adrelid::regclass AS rel, ad.adnum AS att
                   FROM pg_depend dep JOIN pg_attrdef ad ON dep.classid = 'pg_attrdef'::regclass AND dep.objid = ad.oid
                   WHERE dep.refclassid = 'pg_class'::regclass AND dep.refobjid = seq
                   UNION
                   SELECT dep.refobjid::regclass, dep.refobjsubid::smallint
                   FROM pg_depend dep
                   WHERE dep.classid = 'pg_class'::regclass AND dep.objid = seq AND dep.deptype = 'i'
                     AND dep.refclassid = 'pg_class'::regclass AND dep.refobjsubid > 0)
        SELECT array_agg(t.rel ORDER BY t.rel, t.att), array_agg(t.att ORDER BY t.rel, t.att) INTO tables, columns
        FROM t
        WHERE NOT EXISTS (SELECT FROM pg_inherits i JOIN t p ON p.rel = i.inhparent
                          JOIN pg_attribute a ON a.attrelid = t.rel AND a.attnum = t.att
                          WHERE i.inhrelid = t.rel AND a.attinhcount > 0
                            AND @extschema@._column_name(p.rel, p.att) = a.attname);
        IF tables IS NULL THEN
            RAISE EXCEPTION 'snowflake_convert: sequence % is the default of no column', seq
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = format('Where the application calls nextval(%L), call snowflake_next(%L) once snowflake_create(%L) made the sequencer.',
                                    seq::text, (SELECT c.relname FROM pg_class c WHERE c.oid = seq),
                                    (SELECT c.relname FROM pg_class c WHERE c.oid = seq));
        END IF;
    ELSIF kind IN ('r', 'p') THEN
        IF column_name IS NULL THEN
            RAISE EXCEPTION 'snowflake_convert: a table needs a column_name' USING ERRCODE = 'null_value_not_allowed';
        END IF;
        tables := ARRAY[relation];
        columns := ARRAY[@extschema@._column_number(relation, column_name)];
        PERFORM @extschema@._refuse_inherited_column('snowflake_convert', relation, columns[1]);
        -- Its sequence: the one its default calls, else the one it owns (IDENTITY; a serial
        -- whose default was dropped).
        SELECT dep.refobjid INTO seq
        FROM pg_attrdef ad JOIN pg_depend dep ON dep.classid = 'pg_attrdef'::regclass AND dep.objid = ad.oid
             JOIN pg_class c ON c.oid = dep.refobjid AND dep.refclassid = 'pg_class'::regclass AND c.relkind = 'S'
        WHERE ad.adrelid = relation AND ad.adnum = columns[1];
        seq := coalesce(seq, pg_get_serial_sequence(relation::text, column_name)::regclass);  -- (the name as it is, unquoted)
    ELSIF kind IS NULL THEN
        RAISE EXCEPTION 'snowflake_convert: relation % does not exist', relation USING ERRCODE = 'undefined_table';
    ELSE
        RAISE EXCEPTION 'snowflake_convert: "%" is not a table or a sequence', relation USING ERRCODE = 'wrong_object_type';
    END IF;
    -- A column already converted keeps its sequencer unless another is named.
    sequencer := coalesce(sequencer, replace(substring(@extschema@._column_default_text(tables[1], columns[1])
                                                       FROM $re$snowflake_next\('((?:[^']|'')*)'::text\)$re$), '''''', ''''));
    seq_owned := seq IS NOT NULL AND EXISTS (SELECT FROM pg_depend dep, unnest(tables, columns) c (rel, att)
                                             WHERE dep.classid = 'pg_class'::regclass AND dep.objid = seq
                                               AND dep.deptype IN ('a', 'i') AND dep.refclassid = 'pg_class'::regclass
                                               AND dep.refobjid = c.rel AND dep.refobjsubid = c.att);
    chosen := coalesce(sequencer, (SELECT c.relname FROM pg_class c WHERE c.oid = seq));
    IF chosen IS NULL THEN  -- a name made up of the table's and the column's, cut to 63 bytes
        chosen := (SELECT c.relname FROM pg_class c WHERE c.oid = relation) || '_' || column_name;
        WHILE octet_length(chosen) > 63 LOOP
            chosen := left(chosen, -1);
        END LOOP;
    END IF;

    -- Locks before any value is read: the tables to convert here, then (below, once their types
    -- are known) the tables whose referencing columns are widened, in the order an application
    -- writes a row and then the rows that reference it. A transaction that takes them the other
    -- way round can still meet this one in a deadlock; PostgreSQL then cancels one of the two
    -- (40P01), and nothing is half done.
    FOR i IN 1 .. array_length(tables, 1) LOOP
        EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', tables[i]);
    END LOOP;

    -- What each column holds and may hold: a whole number type, and a default that is a
    -- sequence's, an IDENTITY, none, or already a sequencer's.
    FOR i IN 1 .. array_length(tables, 1) LOOP
        IF @extschema@._column_type(tables[i], columns[i]) NOT IN ('smallint'::regtype, 'integer'::regtype, 'bigint'::regtype) THEN
            RAISE EXCEPTION 'snowflake_convert: column % of % is of type %; Snowflake ids are bigint',
                quote_ident(@extschema@._column_name(tables[i], columns[i])), tables[i], @extschema@._column_type(tables[i], columns[i])
                USING ERRCODE = 'datatype_mismatch',
                      HINT = CASE WHEN @extschema@._column_type(tables[i], columns[i]) = 'uuid'::regtype
                                  THEN 'For a uuid column use uuid_v7_convert.' ELSE 'Convert a smallint, integer or bigint column.' END;
        END IF;
        col_default := @extschema@._column_default_text(tables[i], columns[i]);
        IF col_default IS NOT NULL AND col_default NOT LIKE 'GENERATED %'
           AND NOT EXISTS (SELECT FROM pg_attrdef ad JOIN pg_depend dep ON dep.classid = 'pg_attrdef'::regclass AND dep.objid = ad.oid
                           WHERE ad.adrelid = tables[i] AND ad.adnum = columns[i] AND dep.refobjid = seq)
           AND col_default NOT LIKE '%snowflake_next(%' THEN
            RAISE EXCEPTION 'snowflake_convert: column % of % has the default %, which takes no ids from a sequence',
                quote_ident(@extschema@._column_name(tables[i], columns[i])), tables[i], col_default
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'Drop the default first (ALTER TABLE ... ALTER COLUMN ... DROP DEFAULT) to give the column a sequencer''s.';
        END IF;
        -- DROP IDENTITY drops the identity's sequence, which fails while anything else uses it.
        IF col_default LIKE 'GENERATED %' AND EXISTS (
               SELECT FROM pg_depend dep
               WHERE dep.refclassid = 'pg_class'::regclass AND dep.deptype = 'n'
                 AND dep.refobjid = pg_get_serial_sequence(tables[i]::text, @extschema@._column_name(tables[i], columns[i]))::regclass) THEN
            RAISE EXCEPTION 'snowflake_convert: the sequence of IDENTITY column % of % is used by other objects',
                quote_ident(@extschema@._column_name(tables[i], columns[i])), tables[i]
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'Point the other defaults and views elsewhere first (DROP IDENTITY drops the sequence).';
        END IF;
        IF @extschema@._column_type(tables[i], columns[i]) <> 'bigint'::regtype THEN
            narrow_tables := narrow_tables || tables[i];
            narrow_columns := narrow_columns || columns[i];
        END IF;
    END LOOP;
    -- Columns that reference them by a foreign key hold the same ids, and so do the columns that
    -- reference those, down the chain: each one narrower than bigint is widened with them.
    chain_tables := tables;
    chain_columns := columns;
    i := 1;
    WHILE i <= array_length(chain_tables, 1) LOOP
        FOR referencing IN
            SELECT fk.conrelid::regclass AS rel, fk.conkey[array_position(fk.confkey, chain_columns[i])] AS att
            FROM pg_constraint fk
            WHERE fk.contype = 'f' AND fk.confrelid = chain_tables[i] AND chain_columns[i] = ANY (fk.confkey)
              AND fk.conparentid = 0
        LOOP
            CONTINUE WHEN (referencing.rel, referencing.att) IN (SELECT * FROM unnest(chain_tables, chain_columns));
            chain_tables := chain_tables || referencing.rel;
            chain_columns := chain_columns || referencing.att;
            CONTINUE WHEN @extschema@._column_type(referencing.rel, referencing.att) = 'bigint'::regtype;
            IF @extschema@._column_type(referencing.rel, referencing.att) NOT IN ('smallint'::regtype, 'integer'::regtype) THEN
                RAISE EXCEPTION 'snowflake_convert: column % of %, which references the converted ids, is of type %',
                    quote_ident(@extschema@._column_name(referencing.rel, referencing.att)), referencing.rel,
                    @extschema@._column_type(referencing.rel, referencing.att)
                    USING ERRCODE = 'datatype_mismatch', HINT = 'Make it bigint first.';
            END IF;
            narrow_tables := narrow_tables || referencing.rel;
            narrow_columns := narrow_columns || referencing.att;
        END LOOP;
        i := i + 1;
    END LOOP;
    IF array_length(narrow_tables, 1) > 0 AND NOT widen THEN
        RAISE EXCEPTION 'snowflake_convert: column % of % is %, too narrow for Snowflake ids',
            quote_ident(@extschema@._column_name(narrow_tables[1], narrow_columns[1])), narrow_tables[1],
            @extschema@._column_type(narrow_tables[1], narrow_columns[1])
            USING ERRCODE = 'numeric_value_out_of_range',
                  DETAIL = format('Snowflake ids are above 2^31 (%s of the columns to change are narrower than bigint).', array_length(narrow_tables, 1)),
                  HINT = 'Call it with widen => true: the columns, and those that reference them by a foreign key, become bigint (the tables are rewritten).';
    END IF;
    FOR i IN 1 .. coalesce(array_length(narrow_tables, 1), 0) LOOP
        EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', narrow_tables[i]);
    END LOOP;

    -- New ids lie above every existing value: the columns' and the sequence's last.
    highest := CASE WHEN seq IS NOT NULL THEN pg_sequence_last_value(seq) END;
    FOR i IN 1 .. array_length(tables, 1) LOOP
        EXECUTE format('SELECT max(%I)::numeric FROM %s', @extschema@._column_name(tables[i], columns[i]), tables[i]) INTO column_highest;
        highest := greatest(highest, column_highest);
    END LOOP;
    IF NOT EXISTS (SELECT FROM @extschema@.snowflake_definitions d WHERE d.name = chosen) THEN
        PERFORM @extschema@.snowflake_create(chosen);
    END IF;
    -- This server can issue its ids (a node id that fits, the preload, attached in cluster
    -- mode): otherwise every insert would fail from now on; this one fails instead, with why.
    PERFORM @extschema@.snowflake_next(chosen);
    first_id := @extschema@.snowflake_min_id(chosen, clock_timestamp());
    IF highest >= first_id THEN
        RAISE EXCEPTION 'snowflake_convert: the columns hold values up to %, and Snowflake sequencer "%" issues ids from % now',
            highest, chosen, first_id
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Use a sequencer with an earlier epoch (its ids are larger): snowflake_create(name, epoch => ...) and sequencer => name.';
    END IF;

    new_default := format('%s.snowflake_next(%L::text)', '@extschema@', chosen);
    FOR i IN 1 .. array_length(tables, 1) LOOP
        converted_table := tables[i];
        converted_column := @extschema@._column_name(tables[i], columns[i]);
        default_before := @extschema@._column_default_text(tables[i], columns[i]);
        widened := (tables[i], columns[i]) IN (SELECT * FROM unnest(narrow_tables, narrow_columns));
        IF default_before LIKE 'GENERATED %' THEN
            EXECUTE format('ALTER TABLE %s ALTER COLUMN %I DROP IDENTITY', tables[i], converted_column);
        END IF;
        IF widened THEN
            EXECUTE format('ALTER TABLE %s ALTER COLUMN %I TYPE bigint', tables[i], converted_column);
        END IF;
        EXECUTE format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT %s', tables[i], converted_column, new_default);
        default_now := @extschema@._column_default_text(tables[i], columns[i]);
        RETURN NEXT;
    END LOOP;
    -- The columns that reference them by a foreign key.
    FOR i IN 1 .. coalesce(array_length(narrow_tables, 1), 0) LOOP
        CONTINUE WHEN (narrow_tables[i], narrow_columns[i]) IN (SELECT * FROM unnest(tables, columns));
        EXECUTE format('ALTER TABLE %s ALTER COLUMN %I TYPE bigint', narrow_tables[i], @extschema@._column_name(narrow_tables[i], narrow_columns[i]));
        converted_table := narrow_tables[i];
        converted_column := @extschema@._column_name(narrow_tables[i], narrow_columns[i]);
        default_before := @extschema@._column_default_text(narrow_tables[i], narrow_columns[i]);
        default_now := default_before;
        widened := true;
        RETURN NEXT;
    END LOOP;
    -- A sequence a converted column owned goes with it once nothing else uses it (IDENTITY's went
    -- with DROP IDENTITY): an application that still asks it for currval() then fails rather
    -- than read a value no row has. A sequence made on its own stays, as does one that a
    -- default or a view still names (a function with its body in a string records no such use).
    IF seq_owned AND EXISTS (SELECT FROM pg_class c WHERE c.oid = seq) THEN
        IF EXISTS (SELECT FROM pg_depend dep WHERE dep.refclassid = 'pg_class'::regclass AND dep.refobjid = seq
                                               AND dep.deptype = 'n') THEN
            RAISE NOTICE 'snowflake_convert: sequence % is kept: other objects still use it', seq;
        ELSE
            EXECUTE format('DROP SEQUENCE %s', seq);
        END IF;
    END IF;
END
$$;
COMMENT ON FUNCTION @extschema@.snowflake_convert(regclass, name, text, boolean) IS
    'Switches a serial, bigserial or IDENTITY column (a table and column_name), or every column whose default a sequence is (the sequence alone), to snowflake_next of a sequencer (sequencer, else one named after the sequence, made if missing): new ids lie above every existing value; integer columns, and those that reference them, become bigint with widen => true (else 22003); the sequence a converted column owned is dropped; one row per column changed';

CREATE FUNCTION @extschema@.uuid_v7_convert(relation regclass, column_name name)
    RETURNS TABLE (converted_table regclass, converted_column name, default_before text, default_now text,
                   widened boolean)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    att smallint;
    later uuid;
BEGIN
    IF relation IS NULL OR column_name IS NULL THEN
        RAISE EXCEPTION 'uuid_v7_convert: relation and column_name must not be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    IF coalesce((SELECT c.relkind FROM pg_class c WHERE c.oid = relation) NOT IN ('r', 'p'), true) THEN
        RAISE EXCEPTION 'uuid_v7_convert: "%" is not a table', relation USING ERRCODE = 'wrong_object_type';
    END IF;
    att := @extschema@._column_number(relation, column_name);
    PERFORM @extschema@._refuse_inherited_column('uuid_v7_convert', relation, att);
    IF @extschema@._column_type(relation, att) <> 'uuid'::regtype THEN
        RAISE EXCEPTION 'uuid_v7_convert: column % of % is of type %, not uuid', quote_ident(column_name), relation,
            @extschema@._column_type(relation, att)
            USING ERRCODE = 'datatype_mismatch', HINT = 'For a whole number column use snowflake_convert.';
    END IF;
    EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', relation);
    -- New ids lie above the version-7 values there are (gen_random_uuid()'s version-4 ones and
    -- others differ from every version-7 UUID in their version digit, and have no order to keep).
    EXECUTE format('SELECT %1$I FROM %2$s WHERE %1$I >= $1 AND %3$s.uuid_version(%1$I) = 7 LIMIT 1',
                   column_name, relation, '@extschema@')
        INTO later USING @extschema@.uuid_v7_min(clock_timestamp());
    IF later IS NOT NULL THEN
        RAISE EXCEPTION 'uuid_v7_convert: column % of % holds version-7 UUIDs of now or later, such as %',
            quote_ident(column_name), relation, later
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  DETAIL = format('Its time is %s; uuid_v7() would issue ids below it until then.', @extschema@.uuid_v7_timestamp(later)),
                  HINT = 'Convert it once that time has passed, or look at where those values came from.';
    END IF;
    converted_table := relation;
    converted_column := column_name;
    default_before := @extschema@._column_default_text(relation, att);
    widened := false;
    EXECUTE format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT %s.uuid_v7()', relation, column_name, '@extschema@');
    default_now := @extschema@._column_default_text(relation, att);
    RETURN NEXT;
END
$$;
COMMENT ON FUNCTION @extschema@.uuid_v7_convert(regclass, name) IS
    'Switches a uuid column''s default (gen_random_uuid(), pg_uuidv7''s uuid_generate_v7(), PostgreSQL 18''s uuidv7(), or none) to uuid_v7(): new ids lie above every version-7 value it holds (55000 if one is of now or later); one row';
