-- idgen 0.9.9: the functions idgen calls itself move to a schema of their own, idgen_internal, so
-- that \df and the extension's schema show what users call; the function a Citus worker uses to
-- take a sequencer from its coordinator runs only as its owner; the decoders of a layout given
-- explicitly take the layout's own node count by default; snowflake_convert takes its locks in
-- attempts that no application statement fails on, refuses where row security hides rows (so
-- does uuid_v7_convert), and reads nextval('seq'::text).

\echo Use "ALTER EXTENSION idgen UPDATE" to load this file. \quit

CREATE SCHEMA idgen_internal;
GRANT USAGE ON SCHEMA idgen_internal TO PUBLIC;
COMMENT ON SCHEMA idgen_internal IS 'idgen''s own helper functions: idgen calls them, users do not';
ALTER FUNCTION @extschema@._snowflake_check_definition(text, timestamptz, integer, integer, text) SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._snowflake_check_runway(text, timestamptz, text, integer, integer) SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._snowflake_release(oid, bigint, text) SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._snowflake_created(oid, bigint, text) SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._snowflake_state(oid, bigint, integer, integer, text, text) SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._citus_group() SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._citus_to_workers(text, text) SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._citus_epoch_text(timestamptz) SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._citus_coordinator_definition(text, boolean) SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._citus_fetch_sequencer(text) SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._citus_check_as_coordinator(text, timestamptz, integer, integer, text) SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._reserved_state_merge() SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._reserved_state_save() SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._idgen_state() SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._idgen_registry() SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._backfill_space_key(text) SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._idgen_backfill_spaces() SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._column_default_text(regclass, smallint) SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._column_name(regclass, smallint) SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._column_type(regclass, smallint) SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._column_number(regclass, name) SET SCHEMA idgen_internal;
ALTER FUNCTION @extschema@._refuse_inherited_column(text, regclass, smallint) SET SCHEMA idgen_internal;

-- New helpers of the conversions: the text form of nextval read, row security refused, and the
-- locks taken in attempts that never make an application statement fail.
CREATE FUNCTION idgen_internal._column_sequence(relation regclass, attnum smallint) RETURNS regclass
    LANGUAGE plpgsql STABLE STRICT SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    found regclass;
    named text;
BEGIN
    SELECT dep.refobjid INTO found
    FROM pg_attrdef ad JOIN pg_depend dep ON dep.classid = 'pg_attrdef'::regclass AND dep.objid = ad.oid
         JOIN pg_class c ON c.oid = dep.refobjid AND dep.refclassid = 'pg_class'::regclass AND c.relkind = 'S'
    WHERE ad.adrelid = relation AND ad.adnum = _column_sequence.attnum;
    IF found IS NOT NULL THEN
        RETURN found;
    END IF;
    named := replace(substring(idgen_internal._column_default_text(relation, attnum)
                               FROM $re$^nextval\(\('((?:[^']|'')*)'::text\)::regclass\)\Z$re$), '''''', '''');
    IF named IS NULL THEN
        RETURN NULL;
    END IF;
    -- (search_path is this function's own: the SET clause puts it back on return.)
    PERFORM set_config('search_path', format('%I, pg_catalog', (SELECT n.nspname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                                                                 WHERE c.oid = relation)), true);
    RETURN (SELECT c.oid FROM pg_class c WHERE c.oid = to_regclass(named) AND c.relkind = 'S');
END
$$;
COMMENT ON FUNCTION idgen_internal._column_sequence(regclass, smallint) IS
    'internal: the sequence a column''s default calls nextval() on, given as a regclass or as a text (a name without a schema in the table''s); NULL if none';
CREATE FUNCTION idgen_internal._refuse_row_security(caller text, relation regclass) RETURNS void
    LANGUAGE plpgsql STABLE STRICT SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF row_security_active(relation) THEN
        RAISE EXCEPTION '%: row-level security hides rows of % from %', caller, relation, current_user
            USING ERRCODE = 'insufficient_privilege',
                  DETAIL = 'New ids must lie above every value the column holds, and the check would see only the rows the policies let through.',
                  HINT = format('Run it as a superuser or a role with BYPASSRLS, or as the owner with ALTER TABLE %s NO FORCE ROW LEVEL SECURITY before it and FORCE ROW LEVEL SECURITY after it in the same transaction.', relation);
    END IF;
END
$$;
COMMENT ON FUNCTION idgen_internal._refuse_row_security(text, regclass) IS
    'internal: 42501 when row-level security would hide rows of the table from the current user''s queries';
CREATE FUNCTION idgen_internal._lock_table_before(relation regclass, deadline timestamptz) RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM set_config('lock_timeout',
        greatest(1, floor(extract(epoch FROM deadline - clock_timestamp()) * 1000
                          / (WITH RECURSIVE tree (rel) AS (SELECT relation::oid
                                                           UNION SELECT i.inhrelid FROM pg_inherits i JOIN tree ON i.inhparent = tree.rel)
                             SELECT count(*) FROM tree)))::text, true);
    EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', relation);
END
$$;
COMMENT ON FUNCTION idgen_internal._lock_table_before(regclass, timestamptz) IS
    'internal: LOCK TABLE ... IN ACCESS EXCLUSIVE MODE, waiting until deadline at most (55P03 then); leaves lock_timeout set';
CREATE FUNCTION idgen_internal._lock_for_conversion(caller text, tables regclass[], columns smallint[], lock_referencing boolean)
    RETURNS TABLE (rel regclass, att smallint)
    LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    callers_lock_timeout text := current_setting('lock_timeout');
    give_up_at timestamptz := CASE WHEN current_setting('lock_timeout')::interval > '0' THEN clock_timestamp() + current_setting('lock_timeout')::interval END;
    budget interval := least(current_setting('deadlock_timeout')::interval / 2, interval '1 second');
    attempt_ends timestamptz;
    reading_order boolean := true;    -- the first pass reads the chain without locks
    lock_first regclass[] := '{}';    -- the order of the next attempt's first locks
    locking regclass;
    chain_tables regclass[];
    chain_columns smallint[];
    referencing record;
    i integer;
BEGIN
    LOOP
        BEGIN
            attempt_ends := clock_timestamp() + budget;
            FOREACH locking IN ARRAY lock_first LOOP
                PERFORM idgen_internal._lock_table_before(locking, attempt_ends);
            END LOOP;
            chain_tables := tables;
            chain_columns := columns;
            i := 1;
            WHILE i <= array_length(chain_tables, 1) LOOP
                IF NOT reading_order AND (i <= array_length(tables, 1) OR lock_referencing) THEN
                    locking := chain_tables[i];
                    PERFORM idgen_internal._lock_table_before(locking, attempt_ends);
                END IF;
                FOR referencing IN
                    SELECT fk.conrelid::regclass AS rel, fk.conkey[array_position(fk.confkey, chain_columns[i])] AS att
                    FROM pg_constraint fk
                    WHERE fk.contype = 'f' AND fk.confrelid = chain_tables[i] AND chain_columns[i] = ANY (fk.confkey)
                      AND fk.conparentid = 0
                LOOP
                    CONTINUE WHEN (referencing.rel, referencing.att) IN (SELECT * FROM unnest(chain_tables, chain_columns));
                    chain_tables := chain_tables || referencing.rel;
                    chain_columns := chain_columns || referencing.att;
                END LOOP;
                i := i + 1;
            END LOOP;
            IF NOT reading_order THEN
                PERFORM set_config('lock_timeout', callers_lock_timeout, true);
                RETURN QUERY SELECT * FROM unnest(chain_tables, chain_columns);
                RETURN;
            END IF;
            reading_order := false;
            lock_first := (SELECT array_agg(t.rel ORDER BY t.n DESC) FROM unnest(chain_tables) WITH ORDINALITY t (rel, n)
                           WHERE t.n <= array_length(tables, 1) OR lock_referencing);
            CONTINUE;
        EXCEPTION WHEN lock_not_available THEN
            lock_first := locking || array_remove(lock_first, locking);
        END;
        IF clock_timestamp() >= give_up_at THEN
            RAISE EXCEPTION '%: could not lock % within lock_timeout (%)', caller, locking, callers_lock_timeout
                USING ERRCODE = 'lock_not_available';
        END IF;
        PERFORM pg_sleep(random() * extract(epoch FROM budget));
    END LOOP;
END
$$;
COMMENT ON FUNCTION idgen_internal._lock_for_conversion(text, regclass[], smallint[], boolean) IS
    'internal: ACCESS EXCLUSIVE on the tables to convert (and on those referencing them by a foreign key, down the chain, if lock_referencing), in attempts that never wait long enough to close a deadlock; the chain of columns';

-- The decoders of a layout given explicitly take the layout's own node count where none is given
-- (max_nodes 0, the new default), as snowflake_create does.
CREATE OR REPLACE FUNCTION @extschema@.snowflake_timestamp(id bigint, epoch timestamptz, max_nodes integer DEFAULT 0,
        layout text DEFAULT 'idgen') RETURNS timestamptz
    AS 'MODULE_PATHNAME', 'idgen_snowflake_timestamp_of'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE OR REPLACE FUNCTION @extschema@.snowflake_min_id(ts timestamptz, epoch timestamptz, max_nodes integer DEFAULT 0,
        layout text DEFAULT 'idgen') RETURNS bigint
    AS 'MODULE_PATHNAME', 'idgen_snowflake_min_id_of'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The functions whose bodies name the moved ones as text (plpgsql), or take the layout's own node
-- count as max_nodes 0: their new bodies. (The views and the SQL-standard bodies follow the move
-- by themselves.)
CREATE OR REPLACE FUNCTION idgen_internal._citus_coordinator_definition(name text, lock boolean) RETURNS jsonb
    LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    answered boolean;
    answer text;
BEGIN
    SELECT c.success, c.result INTO answered, answer FROM pg_catalog.run_command_on_coordinator(format(
        'SELECT pg_catalog.json_build_array(idgen_internal._citus_epoch_text(d.epoch), d.max_nodes, d.backfill_nodes, d.layout) '
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
CREATE OR REPLACE FUNCTION idgen_internal._citus_fetch_sequencer(name text) RETURNS boolean
    LANGUAGE plpgsql VOLATILE STRICT SECURITY DEFINER SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    d jsonb;
BEGIN
    IF coalesce(idgen_internal._citus_group(), 0) = 0 THEN
        RAISE EXCEPTION 'only a Citus worker takes Snowflake sequencers from the coordinator'
            USING ERRCODE = 'object_not_in_prerequisite_state';
    END IF;
    d := idgen_internal._citus_coordinator_definition(name, true);
    IF d IS NULL THEN
        RETURN false;
    END IF;
    PERFORM @extschema@.snowflake_create(name, (d->>0)::timestamptz, (d->>1)::integer, (d->>2)::integer, d->>3,
                                         warn_within_years => NULL);
    RETURN true;
END
$$;
REVOKE ALL ON FUNCTION idgen_internal._citus_fetch_sequencer(text) FROM PUBLIC;
CREATE OR REPLACE FUNCTION idgen_internal._citus_check_as_coordinator(name text, epoch timestamptz, max_nodes integer,
        backfill_nodes integer, layout text) RETURNS void
    LANGUAGE plpgsql VOLATILE STRICT SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    d jsonb := idgen_internal._citus_coordinator_definition(name, false);
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
    -- What is not given comes from the preset, else idgen's defaults (max_nodes 0: the layout's
    -- own node count, which the check returns).
    layout := coalesce(layout, chosen.layout, 'idgen');
    epoch := coalesce(epoch, chosen.epoch, '2020-01-01 00:00:00+00');
    max_nodes := coalesce(max_nodes, chosen.max_nodes, 0);
    nodes := idgen_internal._snowflake_check_definition(name, epoch, max_nodes, backfill_nodes, layout);
    PERFORM idgen_internal._snowflake_check_runway(name, epoch, layout, warn_within_years, refuse_within_years);
    -- A Citus worker defines a sequencer as the coordinator does, or not at all: a worker's own
    -- definition of a name with other node bits lays other groups' ids over its own. Citus's own
    -- connections, which name themselves so (the coordinator's create reaching the workers through
    -- run_command_on_workers, whose definition has not committed yet), are not asked back.
    IF idgen_internal._citus_group() > 0
       AND pg_catalog.current_setting('application_name') !~ '^citus_(internal|run_command) gpid=' THEN
        PERFORM idgen_internal._citus_check_as_coordinator(name, epoch, nodes, backfill_nodes, layout);
    END IF;
    INSERT INTO @extschema@.snowflake_definitions AS d (name, epoch, max_nodes, backfill_nodes, layout)
    VALUES (snowflake_create.name, snowflake_create.epoch, nodes, snowflake_create.backfill_nodes,
            snowflake_create.layout)
    ON CONFLICT ON CONSTRAINT snowflake_definitions_name_key DO NOTHING
    RETURNING d.id INTO created;
    IF created IS NOT NULL THEN
        PERFORM idgen_internal._snowflake_created('@extschema@.snowflake_definitions'::regclass, created, name);
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
    IF idgen_internal._citus_group() = 0 THEN
        PERFORM idgen_internal._citus_to_workers('snowflake_create', format(
            'SELECT %s.snowflake_create(%L, %L, %s, %s, %L)', '@extschema@', name,
            idgen_internal._citus_epoch_text(epoch), nodes, backfill_nodes, layout));
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
        PERFORM idgen_internal._snowflake_release('@extschema@.snowflake_definitions'::regclass, dropped.id, name);
        INSERT INTO @extschema@.snowflake_retired (name, epoch, max_nodes, backfill_nodes, layout)
        VALUES (dropped.name, dropped.epoch, dropped.max_nodes, dropped.backfill_nodes, dropped.layout)
        ON CONFLICT DO NOTHING;
    END IF;
    -- A Citus coordinator drops it on every worker that holds it, also where it has none itself.
    IF idgen_internal._citus_group() = 0 THEN
        on_workers := idgen_internal._citus_to_workers('snowflake_drop', format(
            'SELECT pg_catalog.count(%1$s.snowflake_drop(d.name)) FROM %1$s.snowflake_definitions d '
            'WHERE d.name OPERATOR(pg_catalog.=) %2$L', '@extschema@', name));
    END IF;
    IF dropped.id IS NULL AND on_workers = 0 THEN
        RAISE EXCEPTION 'Snowflake sequencer "%" does not exist', name USING ERRCODE = 'undefined_object';
    END IF;
END
$$;
CREATE OR REPLACE FUNCTION idgen_internal._refuse_inherited_column(caller text, relation regclass, attnum smallint) RETURNS void
    LANGUAGE plpgsql STABLE STRICT SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF (SELECT a.attinhcount FROM pg_attribute a WHERE a.attrelid = relation AND a.attnum = _refuse_inherited_column.attnum) > 0 THEN
        RAISE EXCEPTION '%: column % of % is inherited from %', caller,
            quote_ident(idgen_internal._column_name(relation, attnum)), relation,
            (SELECT string_agg(i.inhparent::regclass::text, ', ') FROM pg_inherits i WHERE i.inhrelid = relation)
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = 'Convert it on the parent table: its partitions and children follow.';
    END IF;
END
$$;
CREATE OR REPLACE FUNCTION @extschema@.snowflake_convert(relation regclass, column_name name DEFAULT NULL,
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
                   FROM pg_attrdef ad
                   WHERE idgen_internal._column_sequence(ad.adrelid, ad.adnum) = seq
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
                            AND idgen_internal._column_name(p.rel, p.att) = a.attname);
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
        columns := ARRAY[idgen_internal._column_number(relation, column_name)];
        PERFORM idgen_internal._refuse_inherited_column('snowflake_convert', relation, columns[1]);
        -- Its sequence: the one its default calls, else the one it owns (IDENTITY; a serial
        -- whose default was dropped).
        seq := coalesce(idgen_internal._column_sequence(relation, columns[1]),
                        pg_get_serial_sequence(relation::text, column_name)::regclass);  -- (the name as it is, unquoted)
    ELSIF kind IS NULL THEN
        RAISE EXCEPTION 'snowflake_convert: relation % does not exist', relation USING ERRCODE = 'undefined_table';
    ELSE
        RAISE EXCEPTION 'snowflake_convert: "%" is not a table or a sequence', relation USING ERRCODE = 'wrong_object_type';
    END IF;
    -- A column already converted keeps its sequencer unless another is named.
    sequencer := coalesce(sequencer, replace(substring(idgen_internal._column_default_text(tables[1], columns[1])
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

    -- Locks before any value is read: the tables to convert and, when it may widen, every table
    -- that references them (ALTER COLUMN ... TYPE rewrites the referencing tables and rebuilds
    -- their foreign keys), whether or not a column of it turns out narrow: types are read under
    -- the locks. How they are taken without cancelling the applications' statements:
    -- _lock_for_conversion. The columns that reference the converted ones, directly or down the
    -- chain, hold the same ids: each one narrower than bigint is widened with them.
    SELECT array_agg(c.rel), array_agg(c.att) INTO chain_tables, chain_columns
    FROM idgen_internal._lock_for_conversion('snowflake_convert', tables, columns, widen) c;

    -- What each column holds and may hold: a whole number type, and a default that is a
    -- sequence's, an IDENTITY, none, or already a sequencer's.
    FOR i IN 1 .. array_length(tables, 1) LOOP
        IF idgen_internal._column_type(tables[i], columns[i]) NOT IN ('smallint'::regtype, 'integer'::regtype, 'bigint'::regtype) THEN
            RAISE EXCEPTION 'snowflake_convert: column % of % is of type %; Snowflake ids are bigint',
                quote_ident(idgen_internal._column_name(tables[i], columns[i])), tables[i], idgen_internal._column_type(tables[i], columns[i])
                USING ERRCODE = 'datatype_mismatch',
                      HINT = CASE WHEN idgen_internal._column_type(tables[i], columns[i]) = 'uuid'::regtype
                                  THEN 'For a uuid column use uuid_v7_convert.' ELSE 'Convert a smallint, integer or bigint column.' END;
        END IF;
        col_default := idgen_internal._column_default_text(tables[i], columns[i]);
        IF col_default IS NOT NULL AND col_default NOT LIKE 'GENERATED %'
           AND NOT coalesce(idgen_internal._column_sequence(tables[i], columns[i]) = seq, false)
           AND col_default NOT LIKE '%snowflake_next(%' THEN
            RAISE EXCEPTION 'snowflake_convert: column % of % has the default %, which takes no ids from a sequence',
                quote_ident(idgen_internal._column_name(tables[i], columns[i])), tables[i], col_default
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'Drop the default first (ALTER TABLE ... ALTER COLUMN ... DROP DEFAULT) to give the column a sequencer''s.';
        END IF;
        -- DROP IDENTITY drops the identity's sequence, which fails while anything else uses it.
        IF col_default LIKE 'GENERATED %' AND EXISTS (
               SELECT FROM pg_depend dep
               WHERE dep.refclassid = 'pg_class'::regclass AND dep.deptype = 'n'
                 AND dep.refobjid = pg_get_serial_sequence(tables[i]::text, idgen_internal._column_name(tables[i], columns[i]))::regclass) THEN
            RAISE EXCEPTION 'snowflake_convert: the sequence of IDENTITY column % of % is used by other objects',
                quote_ident(idgen_internal._column_name(tables[i], columns[i])), tables[i]
                USING ERRCODE = 'object_not_in_prerequisite_state',
                      HINT = 'Point the other defaults and views elsewhere first (DROP IDENTITY drops the sequence).';
        END IF;
        IF idgen_internal._column_type(tables[i], columns[i]) <> 'bigint'::regtype THEN
            narrow_tables := narrow_tables || tables[i];
            narrow_columns := narrow_columns || columns[i];
        END IF;
    END LOOP;
    FOR i IN array_length(tables, 1) + 1 .. coalesce(array_length(chain_tables, 1), 0) LOOP
        CONTINUE WHEN idgen_internal._column_type(chain_tables[i], chain_columns[i]) = 'bigint'::regtype;
        IF idgen_internal._column_type(chain_tables[i], chain_columns[i]) NOT IN ('smallint'::regtype, 'integer'::regtype) THEN
            RAISE EXCEPTION 'snowflake_convert: column % of %, which references the converted ids, is of type %',
                quote_ident(idgen_internal._column_name(chain_tables[i], chain_columns[i])), chain_tables[i],
                idgen_internal._column_type(chain_tables[i], chain_columns[i])
                USING ERRCODE = 'datatype_mismatch', HINT = 'Make it bigint first.';
        END IF;
        narrow_tables := narrow_tables || chain_tables[i];
        narrow_columns := narrow_columns || chain_columns[i];
    END LOOP;
    IF array_length(narrow_tables, 1) > 0 AND NOT widen THEN
        RAISE EXCEPTION 'snowflake_convert: column % of % is %, too narrow for Snowflake ids',
            quote_ident(idgen_internal._column_name(narrow_tables[1], narrow_columns[1])), narrow_tables[1],
            idgen_internal._column_type(narrow_tables[1], narrow_columns[1])
            USING ERRCODE = 'numeric_value_out_of_range',
                  DETAIL = format('Snowflake ids are above 2^31 (%s of the columns to change are narrower than bigint).', array_length(narrow_tables, 1)),
                  HINT = 'Call it with widen => true: the columns, and those that reference them by a foreign key, become bigint (the tables are rewritten).';
    END IF;

    -- New ids lie above every existing value: the columns' and the sequence's last.
    highest := CASE WHEN seq IS NOT NULL THEN pg_sequence_last_value(seq) END;
    FOR i IN 1 .. array_length(tables, 1) LOOP
        PERFORM idgen_internal._refuse_row_security('snowflake_convert', tables[i]);
        EXECUTE format('SELECT max(%I)::numeric FROM %s', idgen_internal._column_name(tables[i], columns[i]), tables[i]) INTO column_highest;
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
        converted_column := idgen_internal._column_name(tables[i], columns[i]);
        default_before := idgen_internal._column_default_text(tables[i], columns[i]);
        widened := (tables[i], columns[i]) IN (SELECT * FROM unnest(narrow_tables, narrow_columns));
        IF default_before LIKE 'GENERATED %' THEN
            EXECUTE format('ALTER TABLE %s ALTER COLUMN %I DROP IDENTITY', tables[i], converted_column);
        END IF;
        IF widened THEN
            EXECUTE format('ALTER TABLE %s ALTER COLUMN %I TYPE bigint', tables[i], converted_column);
        END IF;
        EXECUTE format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT %s', tables[i], converted_column, new_default);
        default_now := idgen_internal._column_default_text(tables[i], columns[i]);
        RETURN NEXT;
    END LOOP;
    -- The columns that reference them by a foreign key.
    FOR i IN 1 .. coalesce(array_length(narrow_tables, 1), 0) LOOP
        CONTINUE WHEN (narrow_tables[i], narrow_columns[i]) IN (SELECT * FROM unnest(tables, columns));
        EXECUTE format('ALTER TABLE %s ALTER COLUMN %I TYPE bigint', narrow_tables[i], idgen_internal._column_name(narrow_tables[i], narrow_columns[i]));
        converted_table := narrow_tables[i];
        converted_column := idgen_internal._column_name(narrow_tables[i], narrow_columns[i]);
        default_before := idgen_internal._column_default_text(narrow_tables[i], narrow_columns[i]);
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
CREATE OR REPLACE FUNCTION @extschema@.uuid_v7_convert(relation regclass, column_name name)
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
    att := idgen_internal._column_number(relation, column_name);
    PERFORM idgen_internal._refuse_inherited_column('uuid_v7_convert', relation, att);
    IF idgen_internal._column_type(relation, att) <> 'uuid'::regtype THEN
        RAISE EXCEPTION 'uuid_v7_convert: column % of % is of type %, not uuid', quote_ident(column_name), relation,
            idgen_internal._column_type(relation, att)
            USING ERRCODE = 'datatype_mismatch', HINT = 'For a whole number column use snowflake_convert.';
    END IF;
    -- Its one lock, waited for while holding none of the conversion's: no cycle to close.
    EXECUTE format('LOCK TABLE %s IN ACCESS EXCLUSIVE MODE', relation);
    PERFORM idgen_internal._refuse_row_security('uuid_v7_convert', relation);
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
    default_before := idgen_internal._column_default_text(relation, att);
    widened := false;
    EXECUTE format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT %s.uuid_v7()', relation, column_name, '@extschema@');
    default_now := idgen_internal._column_default_text(relation, att);
    RETURN NEXT;
END
$$;
