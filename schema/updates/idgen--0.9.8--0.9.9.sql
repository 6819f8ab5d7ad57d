-- idgen 0.9.9: the functions idgen calls itself move to a schema of their own, idgen_internal, so
-- that \df and the extension's schema show what users call; the function a Citus worker uses to
-- take a sequencer from its coordinator runs only as its owner; the decoders of a layout given
-- explicitly take the layout's own node count by default; snowflake_convert takes its locks in
-- attempts that no application statement fails on, refuses where row security hides rows (so
-- does uuid_v7_convert), and reads nextval('seq'::text); CALL idgen_backfill, the online backfill
-- of a large table in batches (on Citus, shard by shard on the workers), with its progress table
-- and view; keyed masking of ids (FF1 over AES) with its table of named keys.

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

-- ---- Backfilling a large table online ------------------------------------------------------------
-- CALL idgen_backfill(table, id column, generator, time column) fills the NULLs of a column with
-- ids in batches, each batch its own transaction, as the plain UPDATE of the docs would in one
-- (docs/operations.md, "Backfilling a large table online"). It is a PL/pgSQL procedure: COMMIT
-- between batches needs one, and one that commits may have no SET clause, so it and the helpers
-- it calls that run the caller's UPDATE (whose triggers must see the caller's settings) name
-- everything with its schema; the helpers that touch only catalogs and the progress table set
-- search_path as the rest of this file does.
--
-- One row per table and column: where its run is and how far it got. It is written in the
-- transaction of each batch, so the rows a batch filled and the progress that counts them commit
-- together or not at all: a run stopped anywhere (cancel, error, crash, failover) resumes from
-- the last batch that committed, and the NULL filter makes a batch done twice fill nothing twice.
CREATE TABLE @extschema@.idgen_backfill_runs (
    relation regclass NOT NULL,
    id_column name NOT NULL,
    generator text NOT NULL,
    time_column name,
    batch_rows integer NOT NULL,
    pause interval NOT NULL,
    max_replication_lag bigint,
    phase text NOT NULL CHECK (phase IN ('first pass', 'final pass', 'done')),
    waiting boolean NOT NULL DEFAULT false,
    -- The run that works on it: its backend and when it claimed the row; a run whose backend
    -- has moved on to another statement, or ended, has stopped.
    pid integer NOT NULL,
    claimed_at timestamptz NOT NULL,
    -- The first pass: the leaf partition it is in (the table itself when not partitioned), the
    -- last key it reached there (the primary key's columns as a JSON object, or {"block": n}
    -- where the leaf has no primary key), and the leaves it finished.
    current_partition regclass,
    last_key jsonb,
    partitions_done regclass[] NOT NULL DEFAULT '{}',
    -- A Citus distributed table's run, on the coordinator: last_key is {"shard": shard id}, the
    -- shard the first pass is in (current_partition the distributed table or partition it is
    -- of); shards_done the shards whose first pass is finished; shard_rows the rows filled in
    -- each shard placement ("shard@host:port") as its worker counts them, rows_done their sum.
    shards_done bigint[] NOT NULL DEFAULT '{}',
    shard_rows jsonb NOT NULL DEFAULT '{}',
    rows_estimate bigint NOT NULL,
    rows_done bigint NOT NULL DEFAULT 0,
    batches bigint NOT NULL DEFAULT 0,
    lag_waits bigint NOT NULL DEFAULT 0,
    lag_waited interval NOT NULL DEFAULT '0',
    working_time interval NOT NULL DEFAULT '0',
    started_at timestamptz NOT NULL,
    last_batch_at timestamptz,
    finished_at timestamptz,
    PRIMARY KEY (relation, id_column)
);
COMMENT ON TABLE @extschema@.idgen_backfill_runs IS
    'The runs of idgen_backfill, one row per table and column, written with each batch (read the view idgen_backfill_progress; DELETE a row to start that backfill over)';

-- Who may write which row: the procedure runs as its caller (it writes the caller's table with
-- the caller's rights), so the progress table is open to every role, and row-level security
-- keeps each role to the rows of tables it owns (as PostgreSQL counts owning: being a member
-- with the owner's privileges). A role that could write another table's row could stop that
-- run (55006 at its next batch) or make it skip rows; one that owns the table could do as much
-- with its own UPDATE. Everyone reads every row, as pg_stat_progress_* shows every command.
CREATE FUNCTION idgen_internal._backfill_owns(relation regclass) RETURNS boolean
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
    RETURN coalesce((SELECT pg_has_role(c.relowner, 'USAGE') FROM pg_class c WHERE c.oid = relation), false);
COMMENT ON FUNCTION idgen_internal._backfill_owns(regclass) IS
    'internal: whether the current role owns the table (has its owner''s privileges)';
ALTER TABLE @extschema@.idgen_backfill_runs ENABLE ROW LEVEL SECURITY;
CREATE POLICY readers ON @extschema@.idgen_backfill_runs FOR SELECT USING (true);
CREATE POLICY owners ON @extschema@.idgen_backfill_runs FOR ALL
    USING (idgen_internal._backfill_owns(relation)) WITH CHECK (idgen_internal._backfill_owns(relation));
GRANT SELECT, INSERT, UPDATE, DELETE ON @extschema@.idgen_backfill_runs TO PUBLIC;

CREATE FUNCTION idgen_internal._in_transaction_block() RETURNS boolean
    AS 'MODULE_PATHNAME', 'idgen_in_transaction_block'
    LANGUAGE C VOLATILE;
COMMENT ON FUNCTION idgen_internal._in_transaction_block() IS
    'internal: whether this statement runs inside a transaction block (BEGIN, or several statements in one query)';

-- Whether the run that claimed a progress row still runs: its backend is there and still runs
-- the statement (the CALL) that claimed it, one that started before the claim (so not a later
-- backend that got the same pid). This backend runs the present statement, so no run of its
-- own. Where this role may not see the other backend's statement (another role's, without
-- pg_read_all_stats) it counts as running: a second run then waits for that session rather
-- than risk two runs on the same rows.
CREATE FUNCTION idgen_internal._backfill_run_is_live(pid integer, claimed_at timestamptz)
    RETURNS boolean
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
    RETURN pid <> pg_backend_pid()
       AND EXISTS (SELECT FROM pg_stat_activity a
                   WHERE a.pid = _backfill_run_is_live.pid
                     AND (a.query_start IS NULL
                          OR (a.state = 'active' AND a.query_start <= _backfill_run_is_live.claimed_at)));
COMMENT ON FUNCTION idgen_internal._backfill_run_is_live(integer, timestamptz) IS
    'internal: whether a backfill run (its backend and claim) is still running';

-- The worst lag of a replica of this server: in bytes of WAL not yet replayed by a standby
-- (pg_stat_replication; a standby that has reported no replay yet counts as all of it), or not yet
-- confirmed by a logical slot's consumer (its slot holds that WAL; a slot whose WAL is lost holds
-- none). Bytes, not replay_lag: replay_lag is measured only when a standby reports, and shows the
-- last lag measured while nothing is written, where the bytes are exact. 42501 for a role that
-- cannot read the replay positions (PostgreSQL shows them to pg_read_all_stats only; to others
-- every standby would look behind by all of its WAL): _backfill_check asks before a run, on this
-- server and on each Citus node that holds a shard of the table, and a Citus run asks the node of
-- each batch's shard before it (_backfill_wait).
CREATE FUNCTION idgen_internal._backfill_replication_lag(OUT lag bigint, OUT laggard text)
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    IF NOT pg_has_role('pg_read_all_stats', 'USAGE') THEN
        RAISE EXCEPTION 'idgen_backfill: max_replication_lag needs to read the standbys'' replay positions'
            USING ERRCODE = 'insufficient_privilege', HINT = 'Grant the role pg_monitor (or pg_read_all_stats).';
    END IF;
    SELECT l.lag, l.laggard INTO lag, laggard FROM (
        SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), coalesce(r.replay_lsn, '0/0'))::bigint,
               format('standby %s (pid %s)', r.application_name, r.pid)
        FROM pg_stat_replication r
        UNION ALL
        SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), s.confirmed_flush_lsn)::bigint, format('logical slot %s', s.slot_name)
        FROM pg_replication_slots s
        WHERE s.slot_type = 'logical' AND s.confirmed_flush_lsn IS NOT NULL AND s.wal_status IS DISTINCT FROM 'lost'
    ) l (lag, laggard)
    ORDER BY l.lag DESC LIMIT 1;
END
$$;
COMMENT ON FUNCTION idgen_internal._backfill_replication_lag() IS
    'internal: the largest replay lag of a standby or confirmed-flush lag of a logical slot of this server, in bytes, and whose; 42501 for a role that cannot read them';

-- The leaves a backfill goes through, one keyset each: a partitioned table's leaf partitions in
-- the order they were made, or the table itself (ONLY: a plain table's inheritance children are
-- backfilled each on its own).
CREATE FUNCTION idgen_internal._backfill_leaves(relation regclass) RETURNS regclass[]
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    foreign_leaf regclass;
BEGIN
    IF (SELECT c.relkind FROM pg_class c WHERE c.oid = relation) <> 'p' THEN
        RETURN ARRAY[relation];
    END IF;
    SELECT t.relid INTO foreign_leaf FROM pg_partition_tree(relation) t JOIN pg_class c ON c.oid = t.relid
    WHERE t.isleaf AND c.relkind <> 'r' LIMIT 1;
    IF foreign_leaf IS NOT NULL THEN
        RAISE EXCEPTION 'idgen_backfill: partition % of % is not a table', foreign_leaf, relation
            USING ERRCODE = 'feature_not_supported', HINT = 'Backfill it where its rows are, and its sibling partitions one by one.';
    END IF;
    RETURN coalesce((SELECT array_agg(t.relid ORDER BY t.relid) FROM pg_partition_tree(relation) t WHERE t.isleaf), '{}');
END
$$;
COMMENT ON FUNCTION idgen_internal._backfill_leaves(regclass) IS
    'internal: the tables a backfill of a table goes through: its leaf partitions, or itself';

-- The columns of a leaf's primary key, in the key's order; NULL where it has none.
CREATE FUNCTION idgen_internal._backfill_key(leaf regclass) RETURNS name[]
    LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp
    RETURN (SELECT array_agg(a.attname ORDER BY k.ord)
            FROM pg_index i, unnest(i.indkey::int2[]) WITH ORDINALITY k (attnum, ord)
            JOIN pg_attribute a ON a.attnum = k.attnum
            WHERE i.indrelid = leaf AND i.indisprimary AND a.attrelid = leaf);
COMMENT ON FUNCTION idgen_internal._backfill_key(regclass) IS
    'internal: the primary key columns of a table, NULL when it has none';

-- Whether a table is in Citus's metadata (a distributed, reference or Citus local table): its rows
-- are in shards, on the nodes of their placements. False where Citus is not installed.
CREATE FUNCTION idgen_internal._backfill_citus_table(relation regclass) RETURNS boolean
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    found boolean := false;
BEGIN
    IF to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
        EXECUTE 'SELECT EXISTS (SELECT FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1)' INTO STRICT found USING relation;
    END IF;
    RETURN found;
END
$$;
COMMENT ON FUNCTION idgen_internal._backfill_citus_table(regclass) IS
    'internal: whether a table is a Citus table (its rows in shards)';

-- Everything idgen_backfill checks before it claims a run, each with its SQLSTATE; returns the
-- expression that makes one row's id (the generator, given the row's time column; every name
-- quoted, the generator's argument a literal), or NULL where the column cannot hold a NULL.
CREATE FUNCTION idgen_internal._backfill_check(relation regclass, id_column name, generator text,
        time_column name, batch_rows integer, pause interval, max_replication_lag bigint, notice_every integer)
    RETURNS text
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    kind "char";
    id_att smallint;
    id_type regtype;
    time_type regtype;
    gen text := split_part(generator, ':', 1);
    arg text := CASE WHEN strpos(generator, ':') > 0 THEN substr(generator, strpos(generator, ':') + 1) END;
    -- What each generator needs: a time column or none, an argument or none, the id's type.
    retrospective boolean;
    wants_arg boolean;
    family text;
    call text;
    expr text;
    replicated boolean;
BEGIN
    IF relation IS NULL OR id_column IS NULL OR generator IS NULL THEN
        RAISE EXCEPTION 'idgen_backfill: table, id_column and generator must not be NULL' USING ERRCODE = 'null_value_not_allowed';
    END IF;
    kind := (SELECT c.relkind FROM pg_class c WHERE c.oid = relation);
    IF kind IS DISTINCT FROM 'r' AND kind IS DISTINCT FROM 'p' THEN
        RAISE EXCEPTION 'idgen_backfill: "%" is not a table', relation USING ERRCODE = 'wrong_object_type';
    END IF;
    IF NOT idgen_internal._backfill_owns(relation) THEN
        RAISE EXCEPTION 'idgen_backfill: must be owner of table %', relation USING ERRCODE = 'insufficient_privilege';
    END IF;
    id_att := idgen_internal._column_number(relation, id_column);
    id_type := idgen_internal._column_type(relation, id_att);
    IF time_column IS NOT NULL THEN
        time_type := idgen_internal._column_type(relation, idgen_internal._column_number(relation, time_column));
    END IF;

    SELECT g.retrospective, g.wants_arg, g.family, g.call INTO retrospective, wants_arg, family, call
    FROM (VALUES ('uuid_v7_at', true, false, 'uuid', '%s.uuid_v7_at(%I)'),
                 ('uuid_v1_at', true, false, 'uuid', '%s.uuid_v1_at(%I)'),
                 ('uuid_v6_at', true, false, 'uuid', '%s.uuid_v6_at(%I)'),
                 ('snowflake_at', true, true, 'bigint', '%s.snowflake_at(%L, %I)'),
                 ('ulid_at', true, false, 'text', '%s.ulid_at(%I)'),
                 ('typeid_at', true, true, 'text', '%s.typeid_at(%L, %I)'),
                 ('uuid_v7', false, false, 'uuid', '%s.uuid_v7()'),
                 ('uuid_v1', false, false, 'uuid', '%s.uuid_v1()'),
                 ('uuid_v6', false, false, 'uuid', '%s.uuid_v6()'),
                 ('snowflake_next', false, true, 'bigint', '%s.snowflake_next(%L)'),
                 ('ulid', false, false, 'text', '%s.ulid()'),
                 ('typeid', false, true, 'text', '%s.typeid(%L)'))
         AS g (name, retrospective, wants_arg, family, call)
    WHERE g.name = gen;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'idgen_backfill: unknown generator "%"', generator USING ERRCODE = 'invalid_parameter_value',
            HINT = 'Retrospective (with time_column): uuid_v7_at, uuid_v1_at, uuid_v6_at, snowflake_at:SEQUENCER, ulid_at, typeid_at:PREFIX; live: uuid_v7, uuid_v1, uuid_v6, snowflake_next:SEQUENCER, ulid, typeid:PREFIX.';
    ELSIF wants_arg AND arg IS NULL THEN
        RAISE EXCEPTION 'idgen_backfill: generator % needs its %, as ''%:NAME''', gen,
            CASE family WHEN 'bigint' THEN 'sequencer' ELSE 'prefix' END, gen USING ERRCODE = 'invalid_parameter_value';
    ELSIF NOT wants_arg AND arg IS NOT NULL THEN
        RAISE EXCEPTION 'idgen_backfill: generator % takes no argument (given "%")', gen, arg USING ERRCODE = 'invalid_parameter_value';
    ELSIF retrospective AND time_column IS NULL THEN
        RAISE EXCEPTION 'idgen_backfill: generator % makes the id of each row''s time: name its time_column', gen
            USING ERRCODE = 'invalid_parameter_value', HINT = 'For rows without a time, use a live generator (uuid_v7, snowflake_next:SEQUENCER, ...).';
    ELSIF NOT retrospective AND time_column IS NOT NULL THEN
        RAISE EXCEPTION 'idgen_backfill: generator % makes ids of now and takes no time_column', gen
            USING ERRCODE = 'invalid_parameter_value', HINT = format('For ids of the rows'' times, use %s_at.', gen);
    END IF;
    IF family = 'bigint' AND NOT EXISTS (SELECT FROM @extschema@.snowflake_definitions d WHERE d.name = arg) THEN
        RAISE EXCEPTION 'idgen_backfill: Snowflake sequencer "%" does not exist', arg USING ERRCODE = 'undefined_object';
    ELSIF family = 'text' AND wants_arg THEN
        PERFORM @extschema@.typeid_text(arg, '00000000-0000-0000-0000-000000000000');   -- 22023 for a prefix a TypeID cannot have
    END IF;
    IF id_type <> ALL (CASE family WHEN 'uuid' THEN ARRAY['uuid'::regtype] WHEN 'bigint' THEN ARRAY['bigint'::regtype]
                                   ELSE ARRAY['text'::regtype, 'character varying'::regtype] END) THEN
        RAISE EXCEPTION 'idgen_backfill: column % of % is of type %; % makes %', quote_ident(id_column), relation, id_type, gen,
            CASE family WHEN 'text' THEN 'text' ELSE family END
            USING ERRCODE = 'datatype_mismatch';
    END IF;
    IF time_type <> ALL (ARRAY['timestamp with time zone'::regtype, 'timestamp without time zone'::regtype, 'date'::regtype]) THEN
        RAISE EXCEPTION 'idgen_backfill: time column % of % is of type %, not a timestamp', quote_ident(time_column), relation, time_type
            USING ERRCODE = 'datatype_mismatch';
    END IF;
    IF batch_rows IS NULL OR batch_rows < 1 OR pause IS NULL OR pause < '0' OR max_replication_lag < 0
       OR notice_every IS NULL OR notice_every < 0 THEN
        RAISE EXCEPTION 'idgen_backfill: batch_rows must be 1 or more, pause 0 or more, max_replication_lag NULL or 0 or more, notice_every 0 or more'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    IF max_replication_lag IS NOT NULL THEN
        PERFORM idgen_internal._backfill_replication_lag();   -- 42501 for a role that cannot read the standbys
    END IF;
    IF current_setting('default_transaction_isolation') <> 'read committed' THEN
        RAISE EXCEPTION 'idgen_backfill: runs its batches in READ COMMITTED transactions (default_transaction_isolation is %)',
            current_setting('default_transaction_isolation')
            USING ERRCODE = 'invalid_transaction_state',
                  HINT = 'SET default_transaction_isolation = ''read committed'' for the session first: a batch skips rows other sessions hold, which a serializable one could not.';
    END IF;
    expr := CASE WHEN wants_arg AND retrospective THEN format(call, '@extschema@', arg, time_column)
                 WHEN wants_arg THEN format(call, '@extschema@', arg)
                 WHEN retrospective THEN format(call, '@extschema@', time_column)
                 ELSE format(call, '@extschema@') END;
    -- A Citus table is backfilled shard by shard on the node of its placement (_backfill_shard_batch),
    -- which keeps the copies of a shard with several placements (a reference table, a replication
    -- factor above 1) identical only if each is written the same: Citus's own UPDATE does that,
    -- with the ids made once on the coordinator.
    IF idgen_internal._backfill_citus_table(relation) THEN
        EXECUTE 'SELECT EXISTS (SELECT FROM pg_catalog.pg_dist_shard s JOIN pg_catalog.pg_dist_placement p USING (shardid)
                                WHERE s.logicalrelid = ANY ($1) GROUP BY s.shardid HAVING count(*) > 1)'
            INTO replicated USING idgen_internal._backfill_leaves(relation);
        IF replicated THEN
            RAISE EXCEPTION 'idgen_backfill: % is a Citus table with several copies of a shard (a reference table, or replicated)', relation
                USING ERRCODE = 'feature_not_supported',
                      DETAIL = 'A batch written on one copy would leave the others without its ids.',
                      HINT = format('Run Citus''s UPDATE with the ids made on the coordinator, in batches until it updates no row: WITH v AS MATERIALIZED (SELECT KEY, %s AS id FROM %s WHERE %I IS NULL LIMIT 10000) UPDATE %s t SET %I = v.id FROM v WHERE t.KEY = v.KEY (KEY: its primary key).',
                                    expr, relation, id_column, relation, id_column);
        END IF;
        -- max_replication_lag also waits for the replicas of the worker of each batch's shard
        -- (_backfill_wait), whose replay positions this role must read there too: each node that
        -- holds a shard is asked once now (42501 or 08000 naming it), before the run starts.
        IF max_replication_lag IS NOT NULL THEN
            EXECUTE 'SELECT count(*) FROM (SELECT DISTINCT ON (p.groupid) s.logicalrelid, s.shardid
                                           FROM pg_catalog.pg_dist_shard s JOIN pg_catalog.pg_dist_placement p USING (shardid)
                                           WHERE s.logicalrelid = ANY ($1) ORDER BY p.groupid, s.shardid) n,
                     LATERAL idgen_internal._backfill_on_shard(n.logicalrelid, n.shardid, ''idgen_internal._backfill_replication_lag'', NULL)'
                USING idgen_internal._backfill_leaves(relation);
        END IF;
    END IF;
    IF (SELECT a.attnotnull FROM pg_attribute a WHERE a.attrelid = relation AND a.attnum = id_att) THEN
        RAISE NOTICE 'idgen_backfill: column % of % is NOT NULL: nothing to fill', quote_ident(id_column), relation;
        RETURN NULL;
    END IF;
    RETURN expr;
END
$$;
COMMENT ON FUNCTION idgen_internal._backfill_check(regclass, name, text, name, integer, interval, bigint, integer) IS
    'internal: idgen_backfill''s checks of its arguments; the SQL expression of one row''s id, NULL for a NOT NULL column';

-- The rows a new run of one leaf has to fill, estimated as the planner does: the leaf's rows
-- (pg_class.reltuples) times the column's share of NULLs (pg_stats; all of them where the column
-- has no statistics yet, as a column just added); counted in a leaf never analyzed (reltuples
-- -1), which autovacuum leaves so only while it is small. A Citus table's: its shards', each
-- estimated on the node of its placement.
CREATE FUNCTION idgen_internal._backfill_estimate(leaf regclass, id_column name) RETURNS bigint
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    leaf_rows double precision;
    null_share double precision;
BEGIN
    IF idgen_internal._backfill_citus_table(leaf) THEN
        RETURN (SELECT coalesce(sum((idgen_internal._backfill_on_shard(leaf, s.shard, 'idgen_internal._backfill_estimate',
                                                                       quote_literal(id_column))).answer::bigint), 0)
                FROM unnest(idgen_internal._backfill_shards(leaf)) s (shard));
    END IF;
    SELECT c.reltuples, coalesce(s.null_frac, 1) INTO leaf_rows, null_share
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_stats s ON s.schemaname = n.nspname AND s.tablename = c.relname AND s.attname = id_column
    WHERE c.oid = leaf;
    IF leaf_rows < 0 THEN
        EXECUTE format('SELECT count(*) FROM ONLY %s WHERE %I IS NULL', leaf, id_column) INTO leaf_rows;
        null_share := 1;
    END IF;
    RETURN (leaf_rows * null_share)::bigint;
END
$$;
COMMENT ON FUNCTION idgen_internal._backfill_estimate(regclass, name) IS
    'internal: the rows of a table (a leaf, a Citus shard or all its shards) whose column is NULL, as the planner estimates them';

-- A Citus table's shards, by id; NULL for any other table.
CREATE FUNCTION idgen_internal._backfill_shards(leaf regclass) RETURNS bigint[]
    LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    shards bigint[];
BEGIN
    IF idgen_internal._backfill_citus_table(leaf) THEN
        EXECUTE 'SELECT coalesce(array_agg(s.shardid ORDER BY s.shardid), ''{}'') FROM pg_catalog.pg_dist_shard s WHERE s.logicalrelid = $1'
            INTO STRICT shards USING leaf;
    END IF;
    RETURN shards;
END
$$;
COMMENT ON FUNCTION idgen_internal._backfill_shards(regclass) IS
    'internal: the shards of a Citus table, NULL for another table';

-- Runs, on a Citus node, the call _backfill_on_shard sends it (a function of this file) and answers
-- its value as jsonb, or its error as {"sqlstate", "message", "detail", "hint"}, what the call did
-- undone with it (the block's subtransaction), for the coordinator to raise; a cancel is not
-- caught. No SET clause: the call may run the caller's UPDATE (_backfill_shard), whose triggers
-- see the caller's settings.
CREATE FUNCTION idgen_internal._backfill_answer(call text) RETURNS jsonb
    LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    answer jsonb;
    state text;
    message text;
    detail text;
    hint text;
BEGIN
    EXECUTE 'SELECT pg_catalog.to_jsonb(' || call || ')' INTO answer;
    RETURN answer;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
    RETURN pg_catalog.jsonb_strip_nulls(pg_catalog.jsonb_build_object('sqlstate', state, 'message', message,
                                                                      'detail', NULLIF(detail, ''), 'hint', NULLIF(hint, '')));
END
$$;
COMMENT ON FUNCTION idgen_internal._backfill_answer(text) IS
    'internal: on a Citus node, a call of idgen_backfill''s coordinator: its value as jsonb, or its error as {"sqlstate", "message", "detail", "hint"}';

-- Calls fn(shard, args) on the node of a Citus shard's placement (fn() where args is NULL: a
-- function of the node, as the replicas' lag) and returns its value as jsonb and the placement
-- ("host:port"), the shard shown in pg_class there (Citus hides shards from other sessions'
-- catalog queries: citus.override_table_visibility). Through Citus's master_run_on_worker (the
-- function under run_command_on_placements), which opens a connection of its own: the call is a
-- transaction there, committed when it returns, whatever this transaction does after. Its errors
-- come back as _backfill_answer answers them, raised here as they were there, with the placement
-- named; any other failure (the node unreachable, idgen missing there) is 08000 with the node's
-- words.
CREATE FUNCTION idgen_internal._backfill_on_shard(leaf regclass, shard bigint, fn text, args text,
        OUT placement text, OUT answer jsonb)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    node text;
    port integer;
    shard_name text;
    ok boolean;
    result text;
BEGIN
    EXECUTE 'SELECT p.nodename, p.nodeport, pg_catalog.shard_name($1, $2) FROM pg_catalog.pg_dist_shard_placement p
             WHERE p.shardid = $2 AND p.shardstate = 1 LIMIT 1'
        INTO node, port, shard_name USING leaf, shard;
    IF node IS NULL THEN
        RAISE EXCEPTION 'idgen_backfill: shard % of % is gone (split or dropped since the run started)', shard, leaf
            USING ERRCODE = 'object_not_in_prerequisite_state', HINT = 'CALL it again: it goes through the shards there are now.';
    END IF;
    placement := node || ':' || port;
    EXECUTE 'SELECT r.success, r.result FROM pg_catalog.master_run_on_worker(ARRAY[$1], ARRAY[$2], ARRAY[$3], false) r'
        INTO ok, result
        USING node, port, format('SELECT idgen_internal._backfill_answer(%L) FROM (SELECT pg_catalog.set_config(''citus.override_table_visibility'', ''off'', true)) v',
                                 CASE WHEN args IS NULL THEN fn || '()' ELSE format('%s(%L::regclass, %s)', fn, shard_name, args) END);
    IF NOT ok THEN
        RAISE EXCEPTION 'idgen_backfill: could not work on shard % of % on %: %', shard, leaf, placement, result
            USING ERRCODE = 'connection_exception';
    END IF;
    answer := result::jsonb;
    IF jsonb_typeof(answer) = 'object' AND answer ? 'sqlstate' THEN   -- RAISE takes no NULL option, and shows an empty one
        result := format('%s (shard %s of %s on %s)', answer ->> 'message', shard, leaf, placement);
        CASE (answer ? 'detail')::integer * 2 + (answer ? 'hint')::integer
        WHEN 3 THEN RAISE EXCEPTION USING ERRCODE = answer ->> 'sqlstate', MESSAGE = result, DETAIL = answer ->> 'detail', HINT = answer ->> 'hint';
        WHEN 2 THEN RAISE EXCEPTION USING ERRCODE = answer ->> 'sqlstate', MESSAGE = result, DETAIL = answer ->> 'detail';
        WHEN 1 THEN RAISE EXCEPTION USING ERRCODE = answer ->> 'sqlstate', MESSAGE = result, HINT = answer ->> 'hint';
        ELSE RAISE EXCEPTION USING ERRCODE = answer ->> 'sqlstate', MESSAGE = result;
        END CASE;
    END IF;
END
$$;
COMMENT ON FUNCTION idgen_internal._backfill_on_shard(regclass, bigint, text, text) IS
    'internal: calls a function of this file on a Citus shard (or its node), on the node of its placement, in a transaction there; its value as jsonb, its errors raised here';

-- Claims the progress row of a table's column for this CALL and returns the claim's time, which
-- every later write of the run names. Two runs never work on the same rows at once: a run claims
-- only where no running run (_backfill_run_is_live) holds the row of this table's column, of a
-- partition of it, or of a table it is a partition of; and the claims of one partition tree take
-- turns (a transaction lock of the tree's root, the first key idgen's own, released at the
-- commit that follows). Each batch then locks its run's row and stops (55006) if another claim
-- replaced this one. A run that stopped (canceled, failed, its session gone) holds nothing: its
-- backend moved on, so the next CALL, from any session, continues where it committed last.
CREATE FUNCTION idgen_internal._backfill_claim(relation regclass, id_column name, generator text, time_column name,
        batch_rows integer, pause interval, max_replication_lag bigint, run_started timestamptz DEFAULT NULL)
    RETURNS timestamptz
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    root regclass := coalesce(pg_partition_root(relation), relation);
    tree regclass[] := ARRAY(SELECT t.relid FROM pg_partition_tree(root) t);
    run @extschema@.idgen_backfill_runs;
    other @extschema@.idgen_backfill_runs;
    existed boolean;
    claimed timestamptz;
    estimate bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(1768187746, (root::oid::bigint - 2147483648)::integer);   -- 1768187746: 'idgb'
    SELECT * INTO other FROM @extschema@.idgen_backfill_runs o
    WHERE o.id_column = _backfill_claim.id_column AND o.phase <> 'done'
      AND (o.relation = _backfill_claim.relation OR o.relation = ANY (tree))
      AND idgen_internal._backfill_run_is_live(o.pid, o.claimed_at)
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'idgen_backfill: column % of % is being backfilled by process %', quote_ident(id_column), other.relation, other.pid
            USING ERRCODE = 'object_in_use',
                  DETAIL = format('That run started at %s; it has filled %s rows.', other.started_at, other.rows_done),
                  HINT = 'Wait for it, or stop it (pg_cancel_backend) and CALL again: the run continues where it stopped.';
    END IF;
    SELECT * INTO run FROM @extschema@.idgen_backfill_runs r
    WHERE r.relation = _backfill_claim.relation AND r.id_column = _backfill_claim.id_column FOR UPDATE;
    existed := FOUND;
    -- A Citus shard's row belongs to one run of the coordinator (run_started): the row of an
    -- earlier one is replaced, whatever it used.
    IF run_started IS NOT NULL AND run.started_at IS DISTINCT FROM run_started THEN
        existed := false;
    END IF;
    IF existed AND run.phase <> 'done' AND (run.generator, run.time_column) IS DISTINCT FROM (generator, time_column) THEN
        RAISE EXCEPTION 'idgen_backfill: the unfinished backfill of column % of % uses generator % and time column %',
            quote_ident(id_column), relation, run.generator, coalesce(quote_ident(run.time_column), 'none')
            USING ERRCODE = 'object_not_in_prerequisite_state',
                  HINT = format('Finish it with the same generator, or start over: DELETE FROM %s.idgen_backfill_runs WHERE relation = %L::regclass AND id_column = %L (the rows it filled keep their ids).',
                                '@extschema@', relation::text, id_column);
    END IF;
    claimed := clock_timestamp();
    IF existed AND run.phase <> 'done' THEN   -- resume where the last batch that committed left it
        UPDATE @extschema@.idgen_backfill_runs r
        SET pid = pg_backend_pid(), claimed_at = claimed, waiting = false, batch_rows = _backfill_claim.batch_rows, pause = _backfill_claim.pause,
            max_replication_lag = _backfill_claim.max_replication_lag
        WHERE r.relation = _backfill_claim.relation AND r.id_column = _backfill_claim.id_column;
        RETURN claimed;
    END IF;
    -- A new run, with the rows it has to fill (_backfill_estimate). After a finished run it starts
    -- with the final pass: its first pass went through every row, and what is NULL now is what
    -- came in since. A shard's row starts with the first pass: the coordinator says when its
    -- final pass begins.
    estimate := (SELECT coalesce(sum(idgen_internal._backfill_estimate(l.leaf, id_column)), 0)
                 FROM unnest(idgen_internal._backfill_leaves(relation)) l (leaf));
    DELETE FROM @extschema@.idgen_backfill_runs r WHERE r.relation = _backfill_claim.relation AND r.id_column = _backfill_claim.id_column;
    INSERT INTO @extschema@.idgen_backfill_runs (relation, id_column, generator, time_column, batch_rows, pause, max_replication_lag,
                                                 phase, pid, claimed_at, rows_estimate, started_at)
    VALUES (relation, id_column, generator, time_column, batch_rows, pause, max_replication_lag,
            CASE WHEN existed AND run_started IS NULL THEN 'final pass' ELSE 'first pass' END, pg_backend_pid(), claimed, estimate,
            coalesce(run_started, claimed));
    RETURN claimed;
END
$$;
COMMENT ON FUNCTION idgen_internal._backfill_claim(regclass, name, text, name, integer, interval, bigint, timestamptz) IS
    'internal: claims (or resumes) the backfill run of a table''s column (of a Citus shard: for the coordinator''s run started then) for this CALL; 55006 while another runs on its rows';

-- The progress row of this run, locked until the batch commits; 55006 where another run claimed
-- it since (or it was deleted): this run then stops, and the other goes on alone.
CREATE FUNCTION idgen_internal._backfill_run_row(relation regclass, id_column name, claimed_at timestamptz)
    RETURNS @extschema@.idgen_backfill_runs
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    run @extschema@.idgen_backfill_runs;
BEGIN
    SELECT * INTO run FROM @extschema@.idgen_backfill_runs r
    WHERE r.relation = _backfill_run_row.relation AND r.id_column = _backfill_run_row.id_column FOR UPDATE;
    IF run.claimed_at IS DISTINCT FROM _backfill_run_row.claimed_at OR run.pid IS DISTINCT FROM pg_backend_pid() THEN
        RAISE EXCEPTION 'idgen_backfill: the backfill of column % of % was taken over by process % or started over',
            quote_ident(id_column), relation, coalesce(run.pid::text, '(none)')
            USING ERRCODE = 'object_in_use';
    END IF;
    RETURN run;
END
$$;
COMMENT ON FUNCTION idgen_internal._backfill_run_row(regclass, name, timestamptz) IS
    'internal: the progress row of a backfill run, locked; 55006 when the run lost it';

-- Records a change of phase (the final pass, done) or a wait for the replicas (its start, then
-- how long it took).
CREATE FUNCTION idgen_internal._backfill_note(relation regclass, id_column name, claimed_at timestamptz,
        phase text DEFAULT NULL, waiting boolean DEFAULT NULL, waited interval DEFAULT '0')
    RETURNS void
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    PERFORM idgen_internal._backfill_run_row(relation, id_column, claimed_at);
    UPDATE @extschema@.idgen_backfill_runs r
    SET phase = coalesce(_backfill_note.phase, r.phase),
        finished_at = CASE WHEN _backfill_note.phase = 'done' THEN clock_timestamp() END,
        waiting = coalesce(_backfill_note.waiting, r.waiting),
        lag_waits = r.lag_waits + CASE WHEN _backfill_note.waiting THEN 1 ELSE 0 END,
        lag_waited = r.lag_waited + waited
    WHERE r.relation = _backfill_note.relation AND r.id_column = _backfill_note.id_column;
END
$$;
COMMENT ON FUNCTION idgen_internal._backfill_note(regclass, name, timestamptz, text, boolean, interval) IS
    'internal: records a backfill run''s phase or its waits for the replicas';

-- Writes what a batch did to its run's row (locked by _backfill_run_row): where it got to (the
-- leaf and its last key, or the shard), what it finished, the rows it filled (those of a Citus
-- shard as its worker counts them: placement_rows for the placement, in place of the count this
-- row had for it), the batch and its time.
CREATE FUNCTION idgen_internal._backfill_progress(run @extschema@.idgen_backfill_runs, leaf regclass, to_key jsonb,
        leaf_done boolean, filled bigint, shard bigint DEFAULT NULL, placement text DEFAULT NULL, placement_rows bigint DEFAULT NULL)
    RETURNS void
    LANGUAGE sql VOLATILE SET search_path = pg_catalog, pg_temp
BEGIN ATOMIC
    UPDATE @extschema@.idgen_backfill_runs r
    SET rows_done = r.rows_done + coalesce(placement_rows - coalesce((r.shard_rows ->> placement)::bigint, 0), filled),
        shard_rows = CASE WHEN placement IS NULL THEN r.shard_rows ELSE r.shard_rows || jsonb_build_object(placement, placement_rows) END,
        batches = r.batches + 1, waiting = false,
        current_partition = leaf, last_key = CASE WHEN run.phase = 'first pass' THEN to_key END,
        partitions_done = CASE WHEN run.phase = 'first pass' AND leaf_done AND shard IS NULL THEN r.partitions_done || leaf ELSE r.partitions_done END,
        shards_done = CASE WHEN run.phase = 'first pass' AND leaf_done AND shard IS NOT NULL THEN r.shards_done || shard ELSE r.shards_done END,
        working_time = r.working_time + (clock_timestamp() - GREATEST(r.last_batch_at, r.claimed_at)),
        last_batch_at = clock_timestamp()
    WHERE r.relation = (run).relation AND r.id_column = (run).id_column;
END;
COMMENT ON FUNCTION idgen_internal._backfill_progress(@extschema@.idgen_backfill_runs, regclass, jsonb, boolean, bigint, bigint, text, bigint) IS
    'internal: writes what a backfill batch did to its run''s progress row';

-- One batch of a run, in the caller's transaction (the procedure commits it): the next range of
-- rows of one leaf by its primary key (the next batch_rows keys after the last one reached), or
-- by blocks where the leaf has none (about batch_rows rows' worth of blocks, from pg_class), or,
-- in the final pass, any batch_rows rows still NULL; of those, the rows whose id is NULL that no
-- other transaction holds, locked (FOR UPDATE SKIP LOCKED: a session that holds one neither fails
-- nor waits for the backfill, and the backfill does not wait for it; such a row stays NULL for
-- the final pass), then filled, and the progress written. The keyset never runs over the column
-- being filled: its values change under the run. The NULL filter is what makes a row filled
-- once: a batch done again after a crash, or a row met again (an updated row's new version lies
-- further on in the blocks), finds it filled. Locked, it stays NULL until this batch commits.
-- No SET clause: the UPDATE fires the table's triggers, which see the caller's settings as under
-- a plain UPDATE; so every name is qualified.
CREATE FUNCTION idgen_internal._backfill_batch(relation regclass, id_column name, claimed_at timestamptz,
        leaf regclass, expr text, batch_rows integer, OUT filled integer, OUT leaf_done boolean)
    LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    run @extschema@.idgen_backfill_runs := idgen_internal._backfill_run_row(relation, id_column, claimed_at);
    key name[] := idgen_internal._backfill_key(leaf);
    cols text;            -- the key's columns, quoted: a, b
    from_key jsonb;       -- the last key of the previous batch (NULL: from the start)
    to_key jsonb;         -- the last key of this one (NULL: to the end)
    range text := 'true';
    first_block bigint;
    blocks bigint;
    tids tid[];
BEGIN
    IF run.phase = 'final pass' THEN
        EXECUTE pg_catalog.format('SELECT NOT EXISTS (SELECT FROM ONLY %s WHERE %I IS NULL)', leaf, id_column) INTO leaf_done;
        IF leaf_done THEN
            filled := 0;
            RETURN;
        END IF;
        EXECUTE pg_catalog.format('SELECT pg_catalog.array_agg(ctid) FROM (SELECT ctid FROM ONLY %s WHERE %I IS NULL LIMIT %s FOR UPDATE SKIP LOCKED) s',
                                  leaf, id_column, batch_rows) INTO tids;
    ELSIF key IS NOT NULL THEN
        cols := (SELECT pg_catalog.string_agg(pg_catalog.quote_ident(k), ', ') FROM pg_catalog.unnest(key) k);
        from_key := CASE WHEN run.current_partition = leaf THEN run.last_key END;
        IF from_key IS NOT NULL THEN   -- a key read back as the leaf's row type: each column's own type and comparison
            range := pg_catalog.format('(%s) > (SELECT %s FROM pg_catalog.jsonb_populate_record(NULL::%s, $1) r)',
                                       cols, (SELECT pg_catalog.string_agg('r.' || pg_catalog.quote_ident(k), ', ') FROM pg_catalog.unnest(key) k), leaf);
        END IF;
        EXECUTE pg_catalog.format('SELECT pg_catalog.jsonb_build_object(%s) FROM ONLY %s WHERE %s ORDER BY %s OFFSET %s LIMIT 1',
                                  (SELECT pg_catalog.string_agg(pg_catalog.format('%L, %I', k, k), ', ') FROM pg_catalog.unnest(key) k),
                                  leaf, range, cols, batch_rows - 1)
            INTO to_key USING from_key;
        IF to_key IS NOT NULL THEN
            range := range || pg_catalog.format(' AND (%s) <= (SELECT %s FROM pg_catalog.jsonb_populate_record(NULL::%s, $2) r)',
                                                cols, (SELECT pg_catalog.string_agg('r.' || pg_catalog.quote_ident(k), ', ') FROM pg_catalog.unnest(key) k), leaf);
        END IF;
        EXECUTE pg_catalog.format('SELECT pg_catalog.array_agg(ctid) FROM (SELECT ctid FROM ONLY %s WHERE %s AND %I IS NULL FOR UPDATE SKIP LOCKED) s',
                                  leaf, range, id_column)
            INTO tids USING from_key, to_key;
        leaf_done := to_key IS NULL;
    ELSE
        first_block := CASE WHEN run.current_partition = leaf THEN (run.last_key ->> 'block')::bigint ELSE 0 END;
        -- Blocks for about batch_rows rows at the leaf's density; where the planner knows none
        -- yet (never analyzed), at the most rows a block can hold (MaxHeapTuplesPerPage: a
        -- 24-byte page header, then 4 bytes of line pointer and a 24-byte tuple header at least),
        -- so that a batch never locks many more rows than asked.
        blocks := (SELECT pg_catalog.ceil(batch_rows / CASE WHEN c.relpages > 0 AND c.reltuples > 0 THEN c.reltuples / c.relpages
                                                             ELSE (pg_catalog.current_setting('block_size')::integer - 24) / 28 END)
                   FROM pg_catalog.pg_class c WHERE c.oid = leaf);
        EXECUTE pg_catalog.format('SELECT pg_catalog.array_agg(ctid) FROM (SELECT ctid FROM ONLY %s WHERE ctid >= $1 AND ctid < $2 AND %I IS NULL FOR UPDATE SKIP LOCKED) s',
                                  leaf, id_column)
            INTO tids USING pg_catalog.format('(%s,0)', first_block)::tid, pg_catalog.format('(%s,0)', first_block + blocks)::tid;
        to_key := pg_catalog.jsonb_build_object('block', first_block + blocks);
        leaf_done := first_block + blocks >= pg_catalog.pg_relation_size(leaf) / pg_catalog.current_setting('block_size')::integer;
    END IF;
    -- The rows locked above, by where their current versions are (the lock does not let them move).
    EXECUTE pg_catalog.format('UPDATE ONLY %s SET %I = %s WHERE ctid = ANY ($1)', leaf, id_column, expr) USING tids;
    GET DIAGNOSTICS filled = ROW_COUNT;
    PERFORM idgen_internal._backfill_progress(run, leaf, to_key, leaf_done, filled);
END
$$;
COMMENT ON FUNCTION idgen_internal._backfill_batch(regclass, name, timestamptz, regclass, text, integer) IS
    'internal: one batch of a backfill run: locks the next rows of one leaf whose id is NULL, skipping those others hold, fills them, writes the progress';

-- ---- Citus: shard by shard, each batch on the node of the shard's placement
-- A distributed table's UPDATE may not call a volatile function (Citus refuses it: the
-- coordinator cannot give each placement the same value), and its rows are on the workers. So a
-- run on the coordinator goes through the table's shards one at a time, and for each batch calls
-- _backfill_shard on the shard's node through master_run_on_worker: one UPDATE of at most
-- batch_rows NULL rows of that shard, made there (the ids carry that node's node id: with
-- idgen.node_id_source = 'citus' its Citus group, so no two workers make the same id), no row
-- pulled through the coordinator. Not a CALL of idgen_backfill on each worker (which Citus would
-- run, each in a connection of its own): one call would do a whole shard, so the coordinator
-- could neither pause between nor wait for the replicas before its batches, show how far each
-- shard is, nor stop it (a cancel here does not reach the worker's CALL).
--
-- The worker's call is a transaction of its own there (master_run_on_worker's connection), not
-- part of this one; so the shard's progress is kept on its node, in the shard's own row of that
-- node's idgen_backfill_runs (the shard as its relation, started_at the coordinator run's), which
-- the batch writes with the rows it fills: on each node the rows and the count that says so
-- commit together, as on one server. The coordinator's row keeps what the workers answered: the
-- shard it is in, the shards finished, each placement's count (rows_done is their sum: a batch
-- whose answer this transaction never committed, the coordinator stopped in between, is counted
-- again at the shard's next answer). A shard moved to another node starts over there (its rows
-- filled stay filled: the NULL filter), counted under its new placement.

-- One batch of a shard, on the node of its placement: the worker's half of _backfill_shard_batch.
-- The shard's row is claimed, batched and written as one server's run is (_backfill_claim,
-- _backfill_batch); its phase follows the coordinator's: the final pass starts when the coordinator's
-- does, and a shard whose pass is over answers at once. The coordinator's TimeZone is this
-- transaction's (a timestamp without time zone is read in it, as in the plain UPDATE). Answers
-- {"filled": rows this batch filled, "done": whether the shard's pass is over, "rows": the rows
-- filled in the shard in this run}; its errors, as those of every call of the coordinator's, go
-- back through _backfill_answer. No SET clause, as _backfill_batch.
CREATE FUNCTION idgen_internal._backfill_shard(shard regclass, id_column name, generator text, time_column name,
        batch_rows integer, final_pass boolean, run_started timestamptz, time_zone text)
    RETURNS jsonb
    LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
    expr text;
    run @extschema@.idgen_backfill_runs;
    claimed timestamptz;
    filled integer := 0;
    done boolean := true;
BEGIN
    PERFORM pg_catalog.set_config('TimeZone', time_zone, true);
    expr := idgen_internal._backfill_check(shard, id_column, generator, time_column, batch_rows, '0', NULL, 0);
    SELECT * INTO run FROM @extschema@.idgen_backfill_runs r WHERE r.relation = shard AND r.id_column = _backfill_shard.id_column;
    IF expr IS NOT NULL AND NOT coalesce(run.started_at = run_started AND (run.phase = 'done' OR (run.phase = 'final pass' AND NOT final_pass)), false) THEN
        claimed := idgen_internal._backfill_claim(shard, id_column, generator, time_column, batch_rows, '0', NULL, run_started);
        IF final_pass AND (idgen_internal._backfill_run_row(shard, id_column, claimed)).phase = 'first pass' THEN
            PERFORM idgen_internal._backfill_note(shard, id_column, claimed, phase => 'final pass');
        END IF;
        SELECT * INTO filled, done FROM idgen_internal._backfill_batch(shard, id_column, claimed, shard, expr, batch_rows);
        IF done THEN
            PERFORM idgen_internal._backfill_note(shard, id_column, claimed, phase => CASE WHEN final_pass THEN 'done' ELSE 'final pass' END);
        END IF;
    END IF;
    RETURN pg_catalog.jsonb_build_object('filled', filled, 'done', done,
        'rows', (SELECT r.rows_done FROM @extschema@.idgen_backfill_runs r WHERE r.relation = shard AND r.id_column = _backfill_shard.id_column));
END
$$;
COMMENT ON FUNCTION idgen_internal._backfill_shard(regclass, name, text, name, integer, boolean, timestamptz, text) IS
    'internal: one batch of a backfill of a Citus shard, on the node of its placement, with the shard''s progress there; answers what it did';

-- One batch of a Citus run, on the coordinator: _backfill_shard on the shard's node, then what it
-- answered written to this run's row (locked meanwhile, _backfill_run_row).
CREATE FUNCTION idgen_internal._backfill_shard_batch(relation regclass, id_column name, claimed_at timestamptz,
        leaf regclass, shard bigint, batch_rows integer, OUT filled integer, OUT shard_done boolean)
    LANGUAGE plpgsql VOLATILE SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    run @extschema@.idgen_backfill_runs := idgen_internal._backfill_run_row(relation, id_column, claimed_at);
    placement text;
    answer jsonb;
BEGIN
    SELECT * INTO placement, answer
    FROM idgen_internal._backfill_on_shard(leaf, shard, 'idgen_internal._backfill_shard',
        format('%L, %L, %L, %s, %L, %L, %L', id_column, run.generator, run.time_column, batch_rows,
               run.phase = 'final pass', run.started_at, current_setting('TimeZone')));
    filled := (answer ->> 'filled')::integer;
    shard_done := (answer ->> 'done')::boolean;
    PERFORM idgen_internal._backfill_progress(run, leaf, jsonb_build_object('shard', shard), shard_done, filled,
                                              shard, shard || '@' || placement, (answer ->> 'rows')::bigint);
END
$$;
COMMENT ON FUNCTION idgen_internal._backfill_shard_batch(regclass, name, timestamptz, regclass, bigint, integer) IS
    'internal: one batch of a backfill of a Citus table: on the node of one shard''s placement, its answer written to the run''s progress';

-- Between two batches: the pause, then, with max_replication_lag, until every standby has
-- replayed and every logical slot confirmed all but that many bytes of WAL: those of this server
-- and, before a batch of a Citus shard (leaf and shard given), those of the worker that will run
-- it, which receive that batch's WAL (the same _backfill_replication_lag, run there as the
-- batches are, _backfill_on_shard: 08000 naming the node where it cannot answer, 42501 where this
-- role cannot read its replicas). It sleeps in steps of at most a second, each in a transaction
-- of its own that writes nothing: a sleeping statement holds a snapshot (vacuum keeps what it
-- could see), so for a second at most. A wait for the replicas is written to the progress row
-- when it starts and when it ends. A procedure, called by idgen_backfill: its COMMITs end the
-- caller's transactions (no SET clause, as there).
CREATE PROCEDURE idgen_internal._backfill_wait(relation regclass, id_column name, claimed_at timestamptz,
        pause interval, max_replication_lag bigint, leaf regclass, shard bigint)
    LANGUAGE plpgsql
AS $$
DECLARE
    resume_at timestamptz := pg_catalog.clock_timestamp() + pause;
    lag record;
    worker record;
    waiting_since timestamptz;
BEGIN
    WHILE pg_catalog.clock_timestamp() < resume_at LOOP
        PERFORM pg_catalog.pg_sleep(LEAST(1, EXTRACT(epoch FROM resume_at - pg_catalog.clock_timestamp())));
        COMMIT;
    END LOOP;
    WHILE max_replication_lag IS NOT NULL LOOP
        SELECT * INTO lag FROM idgen_internal._backfill_replication_lag();
        IF shard IS NOT NULL THEN
            SELECT (w.answer ->> 'lag')::bigint AS lag, pg_catalog.format('%s of worker %s', w.answer ->> 'laggard', w.placement) AS laggard
            INTO worker FROM idgen_internal._backfill_on_shard(leaf, shard, 'idgen_internal._backfill_replication_lag', NULL) w;
            IF worker.lag > lag.lag OR lag.lag IS NULL THEN
                lag := worker;
            END IF;
        END IF;
        EXIT WHEN lag.lag IS NULL OR lag.lag <= max_replication_lag;
        IF waiting_since IS NULL THEN
            waiting_since := pg_catalog.clock_timestamp();
            PERFORM idgen_internal._backfill_note(relation, id_column, claimed_at, waiting => true);
            RAISE NOTICE 'idgen_backfill: % is % bytes behind (max_replication_lag %): waiting', lag.laggard, lag.lag, max_replication_lag;
        END IF;
        COMMIT;
        PERFORM pg_catalog.pg_sleep(1);
        COMMIT;
    END LOOP;
    IF waiting_since IS NOT NULL THEN
        PERFORM idgen_internal._backfill_note(relation, id_column, claimed_at, waiting => false,
                                              waited => pg_catalog.clock_timestamp() - waiting_since);
        COMMIT;
    END IF;
END
$$;
COMMENT ON PROCEDURE idgen_internal._backfill_wait(regclass, name, timestamptz, interval, bigint, regclass, bigint) IS
    'internal: idgen_backfill''s pause between batches and its waits for the replicas (of this server, and of the worker of the next batch''s Citus shard)';

CREATE PROCEDURE @extschema@.idgen_backfill(relation regclass, id_column name, generator text,
        time_column name DEFAULT NULL, batch_rows integer DEFAULT 10000, pause interval DEFAULT '0',
        max_replication_lag bigint DEFAULT NULL, notice_every integer DEFAULT 0)
    LANGUAGE plpgsql
AS $$
DECLARE
    expr text := idgen_internal._backfill_check(relation, id_column, generator, time_column, batch_rows, pause,
                                                max_replication_lag, notice_every);
    claimed timestamptz;
    leaves regclass[];       -- what a run goes through: leaves[i], or of a Citus table its shard shards[i]
    shards bigint[];
    i integer;
    final_pass boolean;
    filled integer;          -- what the last batch did
    leaf_done boolean;
    batches bigint := 0;
BEGIN
    IF expr IS NULL THEN
        RETURN;
    END IF;
    IF idgen_internal._in_transaction_block() THEN
        RAISE EXCEPTION 'idgen_backfill cannot run inside a transaction block' USING ERRCODE = 'active_sql_transaction',
            HINT = 'CALL it on its own (autocommit): it commits after each batch.';
    END IF;
    claimed := idgen_internal._backfill_claim(relation, id_column, generator, time_column, batch_rows, pause, max_replication_lag);
    SELECT array_agg(l.leaf ORDER BY l.n, s.shard), array_agg(s.shard ORDER BY l.n, s.shard) INTO leaves, shards
    FROM unnest(idgen_internal._backfill_leaves(relation)) WITH ORDINALITY l (leaf, n),
         unnest(coalesce(idgen_internal._backfill_shards(l.leaf), ARRAY[NULL::bigint])) s (shard);
    COMMIT;
    -- The first pass, leaf by leaf (shard by shard), each through its keyset; then the final pass
    -- over every one until none has a NULL left (rows others held locked when the first pass met them). A row
    -- inserted with a NULL id while it runs is filled too, if the final pass meets it: give the
    -- column its default first (docs/operations.md).
    FOREACH final_pass IN ARRAY ARRAY[false, true] LOOP
        IF final_pass THEN
            PERFORM idgen_internal._backfill_note(relation, id_column, claimed, phase => 'final pass');
            COMMIT;
        END IF;
        FOR i IN 1 .. coalesce(cardinality(leaves), 0) LOOP
            CONTINUE WHEN NOT final_pass AND (SELECT r.phase = 'final pass' OR leaves[i] = ANY (r.partitions_done) OR shards[i] = ANY (r.shards_done)
                                              FROM @extschema@.idgen_backfill_runs r
                                              WHERE r.relation = idgen_backfill.relation AND r.id_column = idgen_backfill.id_column);
            LOOP
                -- Before each batch: the replicas (of a Citus shard's worker too), and, but the
                -- run's first, the pause. In the final pass, after a batch that filled nothing but
                -- met rows others hold: a second at least, for them to be let go.
                CALL idgen_internal._backfill_wait(relation, id_column, claimed,
                    CASE WHEN batches = 0 THEN interval '0'
                         WHEN final_pass AND filled = 0 AND NOT leaf_done THEN GREATEST(pause, interval '1 second')
                         ELSE pause END,
                    max_replication_lag, leaves[i], shards[i]);
                IF shards[i] IS NULL THEN
                    SELECT * INTO filled, leaf_done FROM idgen_internal._backfill_batch(relation, id_column, claimed, leaves[i], expr, batch_rows);
                ELSE
                    SELECT * INTO filled, leaf_done FROM idgen_internal._backfill_shard_batch(relation, id_column, claimed, leaves[i], shards[i], batch_rows);
                END IF;
                COMMIT;
                batches := batches + 1;
                IF notice_every > 0 AND batches % notice_every = 0 THEN
                    RAISE NOTICE 'idgen_backfill: %.%: % batches; now in %',
                        relation, pg_catalog.quote_ident(id_column),
                        (SELECT r.rows_done || ' rows filled in ' || r.batches FROM @extschema@.idgen_backfill_runs r
                         WHERE r.relation = idgen_backfill.relation AND r.id_column = idgen_backfill.id_column),
                        leaves[i]::text || coalesce(' shard ' || shards[i], '') || CASE WHEN final_pass THEN ' (final pass)' ELSE '' END;
                END IF;
                EXIT WHEN leaf_done;
            END LOOP;
        END LOOP;
    END LOOP;
    PERFORM idgen_internal._backfill_note(relation, id_column, claimed, phase => 'done');
    COMMIT;
END
$$;
COMMENT ON PROCEDURE @extschema@.idgen_backfill(regclass, name, text, name, integer, interval, bigint, integer) IS
    'Fills the NULLs of a table''s id column in batches of batch_rows rows, each committed on its own, with the generator (given each row''s time_column for a retrospective one): keyset over the primary key (or block ranges), rows others hold skipped and filled in a final pass, a pause and an optional bound on replicas'' lag in bytes between batches, partition by partition; resumes where it stopped; progress in idgen_backfill_progress';

CREATE VIEW @extschema@.idgen_backfill_progress AS
SELECT r.relation, r.id_column, r.generator, r.time_column,
       CASE WHEN r.phase = 'done' THEN 'done'
            WHEN NOT idgen_internal._backfill_run_is_live(r.pid, r.claimed_at) THEN 'stopped'
            WHEN r.waiting THEN 'waiting for replicas'
            ELSE r.phase END AS state,
       r.phase, r.pid, r.current_partition AS partition, r.rows_done,
       CASE WHEN r.phase = 'done' THEN 0 ELSE GREATEST(r.rows_estimate - r.rows_done, 0) END AS rows_left_estimate,
       s.rate AS rows_per_second,
       CASE WHEN r.phase <> 'done' THEN GREATEST(r.rows_estimate - r.rows_done, 0) / NULLIF(s.rate, 0) * interval '1 second' END
           AS time_left_estimate,
       r.batches, r.last_batch_at, r.lag_waits, r.lag_waited, r.started_at, r.finished_at,
       r.batch_rows, r.pause, r.max_replication_lag,
       (r.last_key ->> 'shard')::bigint AS shard, r.shards_done
FROM @extschema@.idgen_backfill_runs r,
     LATERAL (SELECT round(r.rows_done / NULLIF(EXTRACT(epoch FROM r.working_time), 0), 1) AS rate) s;
COMMENT ON VIEW @extschema@.idgen_backfill_progress IS
    'The backfill runs of idgen_backfill: state (first pass, final pass, waiting for replicas, stopped, done), rows filled, rows left (estimated from pg_class.reltuples and pg_stats.null_frac), rate and time left, batches, waits for the replicas';
GRANT SELECT ON @extschema@.idgen_backfill_progress TO PUBLIC;

-- Keyed masking (docs/masking.md): an id shown outside the database as FF1 (NIST SP 800-38G)
-- format-preserving encryption of it under a named AES key, read back inside the database. Only
-- the extension's owner reads the keys; the masking functions read them in C without a privilege
-- check, so the roles that mask need no access to the table. A key's bytes never change under its
-- name: the table refuses UPDATE, DELETE and TRUNCATE, which is what makes the functions honestly
-- IMMUTABLE (rotation is a key under a new name). The trigger checks a new row before the table's
-- constraints do, so that no error's DETAIL ("Failing row contains ...") shows a key. Dumped with
-- the database (pg_extension_config_dump): a dump holds the keys.
CREATE TABLE @extschema@.idgen_mask_keys (
    name text PRIMARY KEY CHECK (octet_length(name) BETWEEN 1 AND 63),
    key bytea NOT NULL CHECK (octet_length(key) IN (16, 32)),
    created_at timestamptz NOT NULL DEFAULT pg_catalog.now()
);
SELECT pg_catalog.pg_extension_config_dump('@extschema@.idgen_mask_keys', '');
REVOKE ALL ON @extschema@.idgen_mask_keys FROM PUBLIC;
COMMENT ON TABLE @extschema@.idgen_mask_keys IS
    'The named AES keys of id_mask, id_unmask, uuid_mask and uuid_unmask (16 or 32 bytes); readable by the extension''s owner only, permanent once created (id_mask_key_create), dumped with the database';

CREATE FUNCTION idgen_internal._mask_key_row() RETURNS trigger
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
COMMENT ON FUNCTION idgen_internal._mask_key_row() IS
    'internal: idgen_mask_keys''s rows are permanent and checked without showing a key';
REVOKE ALL ON FUNCTION idgen_internal._mask_key_row() FROM PUBLIC;
CREATE FUNCTION idgen_internal._mask_keys_changed() RETURNS trigger
    AS 'MODULE_PATHNAME', 'idgen_mask_keys_changed'
    LANGUAGE C;
COMMENT ON FUNCTION idgen_internal._mask_keys_changed() IS
    'internal: every backend forgets the mask keys it cached when idgen_mask_keys changes (also in the backend of a transaction that aborts)';
REVOKE ALL ON FUNCTION idgen_internal._mask_keys_changed() FROM PUBLIC;
CREATE TRIGGER idgen_mask_keys_permanent BEFORE INSERT OR UPDATE OR DELETE ON @extschema@.idgen_mask_keys
    FOR EACH ROW EXECUTE FUNCTION idgen_internal._mask_key_row();
CREATE TRIGGER idgen_mask_keys_no_truncate BEFORE TRUNCATE ON @extschema@.idgen_mask_keys
    FOR EACH STATEMENT EXECUTE FUNCTION idgen_internal._mask_key_row();
CREATE TRIGGER idgen_mask_keys_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON @extschema@.idgen_mask_keys
    FOR EACH STATEMENT EXECUTE FUNCTION idgen_internal._mask_keys_changed();

CREATE FUNCTION idgen_internal._mask_key_bytes(bytes integer) RETURNS bytea
    AS 'MODULE_PATHNAME', 'idgen_mask_key_bytes'
    LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION idgen_internal._mask_key_bytes(integer) IS
    'internal: 16 or 32 bytes from PostgreSQL''s strong random source, for id_mask_key_create';
REVOKE ALL ON FUNCTION idgen_internal._mask_key_bytes(integer) FROM PUBLIC;
CREATE FUNCTION @extschema@.id_mask_key_create(name text, key_bytes integer DEFAULT 32) RETURNS void
    LANGUAGE sql VOLATILE STRICT SET search_path = pg_catalog, pg_temp
AS $$
    INSERT INTO @extschema@.idgen_mask_keys (name, key) VALUES ($1, idgen_internal._mask_key_bytes($2))
$$;
COMMENT ON FUNCTION @extschema@.id_mask_key_create(text, integer) IS
    'Creates a mask key of 32 (AES-256) or 16 (AES-128) random bytes under a new name; the bytes are made in the server and shown nowhere. For the extension''s owner (it writes idgen_mask_keys)';
REVOKE ALL ON FUNCTION @extschema@.id_mask_key_create(text, integer) FROM PUBLIC;

CREATE FUNCTION @extschema@.id_mask(id bigint, key_name text, width integer DEFAULT 63) RETURNS bigint
    AS 'MODULE_PATHNAME', 'idgen_id_mask'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.id_mask(bigint, text, integer) IS
    'The id (0 .. 2^width - 1; width 20 to 63, 53 for JavaScript) masked under the named key: FF1 over AES, a permutation of that range; 42704 for an unknown key, 22023 for a width, 22003 for an id outside the width';
CREATE FUNCTION @extschema@.id_unmask(masked bigint, key_name text, width integer DEFAULT 63) RETURNS bigint
    AS 'MODULE_PATHNAME', 'idgen_id_unmask'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.id_unmask(bigint, text, integer) IS
    'The id that id_mask masked to this value under the same key and width; errors as id_mask';
CREATE FUNCTION @extschema@.uuid_mask(u uuid, key_name text) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_mask'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_mask(uuid, text) IS
    'A version-7 UUID masked under the named key: its 122 bits other than version and variant through FF1, laid out as a version-4 UUID; 22023 for a UUID of another version, 42704 for an unknown key';
CREATE FUNCTION @extschema@.uuid_unmask(masked uuid, key_name text) RETURNS uuid
    AS 'MODULE_PATHNAME', 'idgen_uuid_unmask'
    LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION @extschema@.uuid_unmask(uuid, text) IS
    'The version-7 UUID that uuid_mask masked to this version-4 UUID under the same key; 22023 for a UUID of another version, 42704 for an unknown key';
