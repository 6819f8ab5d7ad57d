-- The plain-SQL edition for hosted PostgreSQL (hosted/idgen_hosted.sql) against the C
-- extension: the same functions with the same labels and comments, inlined by the planner, and
-- for every input the same result, the same NULL or the same error (SQLSTATE, message and
-- hint): over the edges the other tests use, then over 100,000 inputs per family.
CREATE EXTENSION idgen;
-- pgcrypto (the edition's AES for keyed masking) in a schema of its own, on no search_path: the
-- edition finds it where it is.
CREATE SCHEMA crypto;
CREATE EXTENSION pgcrypto SCHEMA crypto;
CREATE SCHEMA hosted;
SET search_path = hosted;
\set ECHO none
\i hosted/idgen_hosted.sql
\set ECHO all
RESET search_path;
-- The same key bytes under the same names in both editions' tables (NIST SP 800-38G's sample
-- keys: AES-256 and AES-128).
INSERT INTO public.idgen_mask_keys (name, key) VALUES
    ('orders', '\x2b7e151628aed2a6abf7158809cf4f3cef4359d8d580aa4f7f036d6f04fc6a94'),
    ('users', '\x2b7e151628aed2a6abf7158809cf4f3c'),
    ('it''s', '\x000102030405060708090a0b0c0d0e0f');
INSERT INTO hosted.idgen_mask_keys SELECT * FROM public.idgen_mask_keys;
SET timezone = 'UTC';
SET datestyle = 'ISO';

-- The edition's functions: the C extension's, with the same arguments (names, types and
-- defaults), result type, volatility, strictness, parallel safety and comment.
SELECT h.oid::regprocedure AS function,
       (h.prorettype, h.provolatile, h.proisstrict, h.proparallel, pg_get_function_arguments(h.oid))
           IS NOT DISTINCT FROM (c.prorettype, c.provolatile, c.proisstrict, c.proparallel, pg_get_function_arguments(c.oid)) AS same_labels,
       obj_description(h.oid, 'pg_proc') IS NOT DISTINCT FROM obj_description(c.oid, 'pg_proc') AS same_comment
FROM pg_proc h
LEFT JOIN pg_proc c ON c.pronamespace = 'public'::regnamespace AND c.proname = h.proname AND c.proargtypes = h.proargtypes
WHERE h.pronamespace = 'hosted'::regnamespace AND h.proname NOT LIKE '\_%' AND h.provolatile <> 'v'
ORDER BY h.oid::regprocedure::text;
-- The generators and sequencer functions: the C extension's names, arguments, result types and
-- strictness, so that an application moves between the editions; they are PARALLEL UNSAFE, as
-- nextval is, and their comments say what makes their ids unique in this edition.
-- (uniqueness: test/tap/111_hosted_generators.pl). The edition's own idgen_set_node_id and
-- idgen_node_id are left out: the C extension's node id is a server setting.
SELECT h.oid::regprocedure AS generator,
       (h.prorettype, h.proisstrict, pg_get_function_arguments(h.oid))
           IS NOT DISTINCT FROM (c.prorettype, c.proisstrict, pg_get_function_arguments(c.oid)) AS same_signature,
       h.provolatile, h.proparallel, c.proparallel AS c_proparallel
FROM pg_proc h
LEFT JOIN pg_proc c ON c.pronamespace = 'public'::regnamespace AND c.proname = h.proname AND c.proargtypes = h.proargtypes
WHERE h.pronamespace = 'hosted'::regnamespace AND h.proname NOT LIKE '\_%' AND h.provolatile = 'v'
  AND h.proname NOT IN ('idgen_set_node_id', 'idgen_node_id')
ORDER BY h.oid::regprocedure::text;
-- The presets snowflake_create takes are the same in both editions, row for row.
(SELECT 'only in the C extension' AS side, * FROM public.snowflake_presets EXCEPT SELECT 'only in the C extension', * FROM hosted.snowflake_presets)
UNION ALL
(SELECT 'only in the edition', * FROM hosted.snowflake_presets EXCEPT SELECT 'only in the edition', * FROM public.snowflake_presets);
-- Every IMMUTABLE function of the C extension is in the edition, and every function of the
-- edition, its internal helpers too, has a comment.
SELECT c.oid::regprocedure AS missing
FROM pg_proc c
WHERE c.pronamespace = 'public'::regnamespace AND c.provolatile = 'i' AND c.proname NOT LIKE '\_%'
  AND NOT EXISTS (SELECT FROM pg_proc h WHERE h.pronamespace = 'hosted'::regnamespace
                                          AND h.proname = c.proname AND h.proargtypes = c.proargtypes);
SELECT oid::regprocedure AS without_comment FROM pg_proc
WHERE pronamespace = 'hosted'::regnamespace AND obj_description(oid, 'pg_proc') IS NULL;

-- What a call gives, as text: its result, NULL, or its error.
CREATE FUNCTION pg_temp.error_text(state text, message text, hint text) RETURNS text
    LANGUAGE sql IMMUTABLE
RETURN 'ERROR ' || state || ': ' || message || coalesce(' (hint: ' || nullif(hint, '') || ')', '');

-- One expression, its function names looked up in `side` (public: the C extension; hosted)
-- before pg_catalog, which has functions of some of these names from 17 on.
CREATE FUNCTION pg_temp.outcome(expr text, side text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    result text;
    state text;
    message text;
    hint text;
BEGIN
    PERFORM set_config('search_path', side || ', pg_catalog', true);
    BEGIN
        EXECUTE 'SELECT (' || expr || ')::text' INTO result;
        RETURN coalesce(result, 'NULL');
    EXCEPTION WHEN others THEN
        GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
        RETURN pg_temp.error_text(state, message, hint);
    END;
END
$$;

-- `expr` on every row of `sample` (its columns by name) from both sides: how many inputs, how
-- many of them the C extension refused (and with which SQLSTATEs), how many outcomes differ;
-- and whether the planner inlined the edition's function into the query. The rows `refused`
-- selects (at least those the C extension refuses) are called one by one, each call catching
-- its error; the others all in one query, which fails if either side raises an error there.
CREATE FUNCTION pg_temp.compare(expr text, sample regclass, refused text DEFAULT 'false')
    RETURNS TABLE (expression text, inputs bigint, errors bigint, sqlstates text, differences bigint, inlined boolean)
    LANGUAGE plpgsql AS $compare$
DECLARE
    params text;
    args text;
    side text;
    valid bigint;
    valid_differences bigint;
    plan_line text;
BEGIN
    expression := expr;
    EXECUTE format('SELECT count(*), count(*) FILTER (WHERE public.%1$s IS DISTINCT FROM hosted.%1$s) FROM %2$s WHERE NOT (%3$s)',
                   expr, sample, refused)
    INTO valid, valid_differences;
    SELECT string_agg(quote_ident(attname) || ' ' || format_type(atttypid, atttypmod), ', ' ORDER BY attnum),
           string_agg(quote_ident(attname), ', ' ORDER BY attnum)
    INTO params, args
    FROM pg_attribute WHERE attrelid = sample AND attnum > 0 AND NOT attisdropped;
    FOREACH side IN ARRAY ARRAY['public', 'hosted'] LOOP
        EXECUTE format($f$
            CREATE FUNCTION pg_temp.%I(%s) RETURNS text LANGUAGE plpgsql AS $b$
            DECLARE
                state text;
                message text;
                hint text;
            BEGIN
                RETURN (%I.%s)::text;
            EXCEPTION WHEN others THEN
                GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
                RETURN pg_temp.error_text(state, message, hint);
            END
            $b$
            $f$, 'outcome_' || side, params, side, expr);
    END LOOP;
    EXECUTE format($q$
        SELECT count(*), count(*) FILTER (WHERE c LIKE 'ERROR %%'),
               string_agg(DISTINCT substr(c, 7, 5), ' ') FILTER (WHERE c LIKE 'ERROR %%'),
               count(*) FILTER (WHERE c IS DISTINCT FROM h)
        FROM (SELECT pg_temp.outcome_public(%1$s) AS c, pg_temp.outcome_hosted(%1$s) AS h FROM %2$s WHERE %3$s) s$q$,
        args, sample, refused)
    INTO inputs, errors, sqlstates, differences;
    EXECUTE format('DROP FUNCTION pg_temp.outcome_public(%1$s), pg_temp.outcome_hosted(%1$s)', params);
    inputs := inputs + valid;
    differences := differences + valid_differences;
    inlined := true;
    FOR plan_line IN EXECUTE format('EXPLAIN (VERBOSE, COSTS OFF) SELECT hosted.%s FROM %s', expr, sample) LOOP
        inlined := inlined AND strpos(plan_line, 'hosted.' || split_part(expr, '(', 1) || '(') = 0;
    END LOOP;
    RETURN NEXT;
END
$compare$;

-- ---- Edges: those of sql/uuid_v1_codec.sql, uuid_v6.sql, uuid_v7.sql, partitioning.sql,
-- snowflake_layout.sql, live_generators.sql and hostile_input.sql, and more.
CREATE TEMP TABLE edges (expr text);
INSERT INTO edges VALUES
    -- form_uuid_v1: the RFC 9562 example, both ends of the time range and one past them,
    -- clock sequences and nodes at and past their ends, NULLs
    ($$form_uuid_v1('2022-02-22 19:22:22+00', 13256, '9f:6b:de:ce:d8:46')$$),
    ($$form_uuid_v1('1582-10-15 00:00:00+00', 0, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1('1582-10-14 23:59:59.999999+00', 0, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1('1969-12-31 23:59:59.999999+00', 1, '01:02:03:04:05:06')$$),
    ($$form_uuid_v1('1970-01-01 00:00:00+00', 1, '01:02:03:04:05:06')$$),
    ($$form_uuid_v1('2026-11-22 12:34:56.789012+00', 8191, '08:00:2b:01:02:03')$$),
    ($$form_uuid_v1('5236-03-31 21:21:00.684697+00', 16383, 'ff:ff:ff:ff:ff:ff')$$),
    ($$form_uuid_v1('5236-03-31 21:21:00.684698+00', 0, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1('infinity', 0, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1('-infinity', 0, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1('4714-11-24 00:00:00+00 BC', 0, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1('294276-12-31 23:59:59.999999+00', 0, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1('294270-01-01 00:00:00+00', 0, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1('2000-01-01 00:00:00+00', -1, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1('2000-01-01 00:00:00+00', 16384, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1('2000-01-01 00:00:00+00', -2147483648, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1('2000-01-01 00:00:00+00', 2147483647, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1('infinity', 16384, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1(NULL, 0, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1('2000-01-01 00:00:00+00', NULL, '00:00:00:00:00:00')$$),
    ($$form_uuid_v1('2000-01-01 00:00:00+00', 0, NULL)$$),
    -- version 1 readers: the example, the tick range's ends, sub-microsecond ticks before and
    -- after 1970, every version and variant
    ($$uuid_v1_timestamp('c232ab00-9414-11ec-b3c8-9f6bdeced846')$$),
    ($$uuid_v1_clock_seq('c232ab00-9414-11ec-b3c8-9f6bdeced846')$$),
    ($$uuid_v1_node('c232ab00-9414-11ec-b3c8-9f6bdeced846')$$),
    ($$uuid_v1_timestamp('00000000-0000-1000-8000-000000000000')$$),
    ($$uuid_v1_timestamp('ffffffff-ffff-1fff-bfff-ffffffffffff')$$),
    ($$uuid_v1_clock_seq('ffffffff-ffff-1fff-bfff-ffffffffffff')$$),
    ($$uuid_v1_node('ffffffff-ffff-1fff-bfff-ffffffffffff')$$),
    ($$uuid_v1_timestamp('13814000-1dd2-11b2-8000-000000000000')$$),
    ($$uuid_v1_timestamp('13813fff-1dd2-11b2-8000-000000000000')$$),
    ($$uuid_v1_timestamp('13813ff6-1dd2-11b2-8000-000000000000')$$),
    ($$uuid_v1_timestamp('13813ff5-1dd2-11b2-8000-000000000000')$$),
    ($$uuid_v1_timestamp('1381400b-1dd2-11b2-8000-000000000000')$$),
    ($$uuid_v1_timestamp('ffffffff-ffff-2fff-bfff-ffffffffffff')$$),
    ($$uuid_v1_clock_seq('c232ab00-9414-11ec-33c8-9f6bdeced846')$$),
    ($$uuid_v1_clock_seq('c232ab00-9414-11ec-d3c8-9f6bdeced846')$$),
    ($$uuid_v1_clock_seq('c232ab00-9414-11ec-f3c8-9f6bdeced846')$$),
    ($$uuid_v1_node('c232ab00-9414-41ec-b3c8-9f6bdeced846')$$),
    ($$uuid_v1_node('ffffffff-ffff-1fff-7fff-ffffffffffff')$$),
    ($$uuid_v1_timestamp(NULL)$$),
    ($$uuid_v1_clock_seq(NULL)$$),
    ($$uuid_v1_node(NULL)$$),
    -- uuid_version over every variant
    ($$uuid_version('00000000-0000-0000-0000-000000000000')$$),
    ($$uuid_version('ffffffff-ffff-ffff-ffff-ffffffffffff')$$),
    ($$uuid_version('00000000-0000-8000-8000-000000000000')$$),
    ($$uuid_version('00000000-0000-f000-bfff-000000000000')$$),
    ($$uuid_version('00000000-0000-1000-7fff-000000000000')$$),
    ($$uuid_version('00000000-0000-1000-c000-000000000000')$$),
    ($$uuid_version('00000000-0000-1000-e000-000000000000')$$),
    ($$uuid_version('20be0ffc-314a-bd53-7a50-013a65ca76d2')$$),
    ($$uuid_version('017f22e2-79b0-7cc3-98c4-dc0c0c07398f')$$),
    ($$uuid_version(NULL)$$),
    -- version 6: the RFC 9562 example, conversions both ways, other versions, the ends of
    -- uuid_v6_min's range
    ($$uuid_v1_to_v6('c232ab00-9414-11ec-b3c8-9f6bdeced846')$$),
    ($$uuid_v6_to_v1('1ec9414c-232a-6b00-b3c8-9f6bdeced846')$$),
    ($$uuid_v6_timestamp('1ec9414c-232a-6b00-b3c8-9f6bdeced846')$$),
    ($$uuid_v1_to_v6('ffffffff-ffff-1fff-bfff-ffffffffffff')$$),
    ($$uuid_v6_to_v1('ffffffff-ffff-6fff-bfff-ffffffffffff')$$),
    ($$uuid_v6_timestamp('ffffffff-ffff-6fff-bfff-ffffffffffff')$$),
    ($$uuid_v6_timestamp('00000000-0000-6000-8000-000000000000')$$),
    ($$uuid_v1_to_v6('00000000-0000-0000-0000-000000000000')$$),
    ($$uuid_v6_to_v1('c232ab00-9414-11ec-b3c8-9f6bdeced846')$$),
    ($$uuid_v6_timestamp('1ec9414c-232a-6b00-33c8-9f6bdeced846')$$),
    ($$uuid_v6_timestamp('017f22e2-79b0-7cc3-98c4-dc0c0c07398f')$$),
    ($$uuid_v6_min('2022-02-22 19:22:22+00')$$),
    ($$uuid_v6_min('2022-02-22 19:22:22.000001+00')$$),
    ($$uuid_v6_min('-infinity')$$),
    ($$uuid_v6_min('1500-01-01 00:00:00+00')$$),
    ($$uuid_v6_min('1582-10-15 00:00:00+00')$$),
    ($$uuid_v6_min('1582-10-15 00:00:00.000001+00')$$),
    ($$uuid_v6_min('5236-03-31 21:21:00.684697+00')$$),
    ($$uuid_v6_min('5236-03-31 21:21:00.684698+00')$$),
    ($$uuid_v6_min('infinity')$$),
    ($$uuid_v6_timestamp(NULL)$$),
    ($$uuid_v1_to_v6(NULL)$$),
    ($$uuid_v6_to_v1(NULL)$$),
    ($$uuid_v6_min(NULL)$$),
    -- version 7: the RFC 9562 example, the ends of the millisecond and fraction fields, other
    -- versions and variants, uuid_v7_min's range
    ($$uuid_v7_timestamp('017f22e2-79b0-7cc3-98c4-dc0c0c07398f')$$),
    ($$uuid_v7_timestamp('00000000-0000-7000-8000-000000000000')$$),
    ($$uuid_v7_timestamp('00000000-0000-7fff-8000-000000000000')$$),
    ($$uuid_v7_timestamp('00000000-0000-7001-8000-000000000000')$$),
    ($$uuid_v7_timestamp('00000000-0000-7005-8000-000000000000')$$),
    ($$uuid_v7_timestamp('ffffffff-ffff-7fff-bfff-ffffffffffff')$$),
    ($$uuid_v7_timestamp('00000000-0000-0000-0000-000000000000')$$),
    ($$uuid_v7_timestamp('ffffffff-ffff-ffff-ffff-ffffffffffff')$$),
    ($$uuid_v7_timestamp('c232ab00-9414-11ec-b3c8-9f6bdeced846')$$),
    -- the text forms: every TypeID vector of the specification (version 0.3), ULIDs and
    -- Snowflake texts at every fault, prefixes a TypeID cannot have, NULLs
    ($$typeid_parse('00000000000000000000000000')$$),
    ($$typeid_parse('00000000000000000000000001')$$),
    ($$typeid_parse('0000000000000000000000000a')$$),
    ($$typeid_parse('0000000000000000000000000g')$$),
    ($$typeid_parse('00000000000000000000000010')$$),
    ($$typeid_parse('7zzzzzzzzzzzzzzzzzzzzzzzzz')$$),
    ($$typeid_parse('prefix_0123456789abcdefghjkmnpqrs')$$),
    ($$typeid_parse('prefix_01h455vb4pex5vsknk084sn02q')$$),
    ($$typeid_parse('pre_fix_00000000000000000000000000')$$),
    ($$typeid_uuid('PREFIX_00000000000000000000000000')$$),
    ($$typeid_uuid('12345_00000000000000000000000000')$$),
    ($$typeid_uuid('pre.fix_00000000000000000000000000')$$),
    ($$typeid_uuid('préfix_00000000000000000000000000')$$),
    ($$typeid_uuid('  prefix_00000000000000000000000000')$$),
    ($$typeid_uuid('abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl_00000000000000000000000000')$$),
    ($$typeid_uuid('_00000000000000000000000000')$$),
    ($$typeid_uuid('_')$$),
    ($$typeid_uuid('prefix_1234567890123456789012345')$$),
    ($$typeid_uuid('prefix_123456789012345678901234567')$$),
    ($$typeid_uuid('prefix_1234567890123456789012345 ')$$),
    ($$typeid_uuid('prefix_0123456789ABCDEFGHJKMNPQRS')$$),
    ($$typeid_uuid('prefix_123456789-123456789-123456')$$),
    ($$typeid_uuid('prefix_ooooooiiiiiiuuuuuuulllllll')$$),
    ($$typeid_uuid('prefix_i23456789ol23456789oi23456')$$),
    ($$typeid_uuid('prefix_123456789-0123456789-0123456')$$),
    ($$typeid_uuid('prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz')$$),
    ($$typeid_uuid('_prefix_00000000000000000000000000')$$),
    ($$typeid_uuid('prefix__00000000000000000000000000')$$),
    ($$typeid_uuid('')$$),
    ($$typeid_uuid('prefix_')$$),
    ($$typeid_prefix('pre_fix_00000000000000000000000000')$$),
    ($$typeid_timestamp('user_01h455vb4pex5vsknk084sn02q')$$),
    ($$typeid_timestamp('00000000000000000000000000')$$),
    ($$typeid_text('user', '01890a5d-ac96-774b-bcce-b302099a8057')$$),
    ($$typeid_text('', '01890a5d-ac96-774b-bcce-b302099a8057')$$),
    ($$typeid_text('User', '01890a5d-ac96-774b-bcce-b302099a8057')$$),
    ($$typeid_text('user_', '01890a5d-ac96-774b-bcce-b302099a8057')$$),
    ($$typeid_text(repeat('a', 64), '01890a5d-ac96-774b-bcce-b302099a8057')$$),
    ($$typeid_text(NULL, '01890a5d-ac96-774b-bcce-b302099a8057')$$),
    ($$uuid_to_ulid('01890a5d-ac96-774b-bcce-b302099a8057')$$),
    ($$uuid_to_ulid('ffffffff-ffff-ffff-ffff-ffffffffffff')$$),
    ($$ulid_to_uuid('01h455vb4pex5vsknk084sn02q')$$),
    ($$ulid_to_uuid('01H455VB4PEX5VSKNK084SN02L')$$),
    ($$ulid_to_uuid('01H455VB4PEX5VSKNK084SN02')$$),
    ($$ulid_to_uuid('81H455VB4PEX5VSKNK084SN02Q')$$),
    ($$ulid_to_uuid('')$$),
    ($$ulid_timestamp('7ZZZZZZZZZZZZZZZZZZZZZZZZZ')$$),
    ($$ulid_to_uuid(NULL)$$),
    ($$snowflake_to_text(-1)$$),
    ($$snowflake_to_text(721695434861969408)$$),
    ($$snowflake_from_text('FZZZZZZZZZZZZ')$$),
    ($$snowflake_from_text('g000000000000')$$),
    ($$snowflake_from_text('00000000000o1')$$),
    ($$snowflake_from_text('000000000001')$$),
    -- the names of PostgreSQL 17 and 18 and of pg_uuidv7: versions 1, 4 and 7, other variants,
    -- the ends of the 48-bit field, NULLs
    ($$uuid_extract_timestamp('c232ab00-9414-11ec-b3c8-9f6bdeced846')$$),
    ($$uuid_extract_timestamp('017f22e2-79b0-7cc3-98c4-dc0c0c07398f')$$),
    ($$uuid_extract_timestamp('919108f7-52d1-4320-9bac-f847db4148a8')$$),
    ($$uuid_extract_timestamp('017f22e2-79b0-7cc3-18c4-dc0c0c07398f')$$),
    ($$uuid_extract_timestamp('ffffffff-ffff-7fff-bfff-ffffffffffff')$$),
    ($$uuid_extract_timestamp(NULL)$$),
    ($$uuid_extract_version('11111111-1111-5111-8111-111111111111')$$),
    ($$uuid_extract_version('11111111-1111-1111-1111-111111111111')$$),
    ($$uuid_extract_version(NULL)$$),
    ($$uuid_v7_to_timestamptz('018570bb-4a7d-7000-8000-000000000000')$$),
    ($$uuid_v7_to_timestamptz('ffffffff-ffff-ffff-ffff-ffffffffffff')$$),
    ($$uuid_v7_to_timestamptz('00000000-0000-0000-0000-000000000000')$$),
    ($$uuid_v7_to_timestamptz(NULL)$$),
    ($$uuid_v7_to_timestamp('018570bb-4a7d-7000-8000-000000000000')$$),
    ($$uuid_v7_to_timestamp('ffffffff-ffff-ffff-ffff-ffffffffffff')$$),
    ($$uuid_timestamptz_to_v7('2023-01-02 04:26:40.637999+00', true)$$),
    ($$uuid_timestamptz_to_v7('1970-01-01 00:00:00+00', true)$$),
    ($$uuid_timestamptz_to_v7('1969-12-31 23:59:59.999999+00', true)$$),
    ($$uuid_timestamptz_to_v7('10889-08-02 05:31:50.655999+00', true)$$),
    ($$uuid_timestamptz_to_v7('10889-08-02 05:31:50.656+00', true)$$),
    ($$uuid_timestamptz_to_v7('infinity', true)$$),
    ($$uuid_timestamptz_to_v7('-infinity', true)$$),
    ($$uuid_timestamptz_to_v7(NULL, true)$$),
    ($$uuid_timestamptz_to_v7('2023-01-02 04:26:40.637+00', NULL)$$),
    ($$uuid_timestamp_to_v7('2023-01-02 04:26:40.637', true)$$),
    ($$uuid_timestamp_to_v7('1969-12-31 23:59:59.999', true)$$),
    ($$uuid_v7_timestamp('017f22e2-79b0-7cc3-18c4-dc0c0c07398f')$$),
    ($$uuid_v7_timestamp('017f22e2-79b0-6cc3-98c4-dc0c0c07398f')$$),
    ($$uuid_v7_min('2022-02-22 19:22:22.000797+00')$$),
    ($$uuid_v7_min('2022-02-22 19:22:22.000798+00')$$),
    ($$uuid_v7_min('2024-01-01 00:00:00.000999+00')$$),
    ($$uuid_v7_min('-infinity')$$),
    ($$uuid_v7_min('1960-01-01 00:00:00+00')$$),
    ($$uuid_v7_min('1969-12-31 23:59:59.999999+00')$$),
    ($$uuid_v7_min('1970-01-01 00:00:00+00')$$),
    ($$uuid_v7_min('1970-01-01 00:00:00.000001+00')$$),
    ($$uuid_v7_min('10889-08-02 05:31:50.655999+00')$$),
    ($$uuid_v7_min('10889-08-02 05:31:50.656+00')$$),
    ($$uuid_v7_min('infinity')$$),
    ($$uuid_v7_timestamp(NULL)$$),
    ($$uuid_v7_min(NULL)$$),
    -- locality UUIDs: version digit b and others, all-zero and all-one fields
    ($$locality_uuid_counter('20be0ffc-314a-bd53-7a50-013a65ca76d2')$$),
    ($$locality_uuid_pid('20be0ffc-314a-bd53-7a50-013a65ca76d2')$$),
    ($$locality_uuid_mac('20be0ffc-314a-bd53-7a50-013a65ca76d2')$$),
    ($$locality_uuid_timestamp('20be0ffc-314a-bd53-7a50-013a65ca76d2')$$),
    ($$locality_uuid_counter('ffffffff-ffff-bfff-ffff-ffffffffffff')$$),
    ($$locality_uuid_pid('ffffffff-ffff-bfff-ffff-ffffffffffff')$$),
    ($$locality_uuid_mac('ffffffff-ffff-bfff-ffff-ffffffffffff')$$),
    ($$locality_uuid_timestamp('ffffffff-ffff-bfff-ffff-ffffffffffff')$$),
    ($$locality_uuid_counter('00000000-0000-b000-0000-000000000000')$$),
    ($$locality_uuid_mac('00000000-0000-b000-0000-000000000000')$$),
    ($$locality_uuid_timestamp('00000000-0000-b000-0000-000000000000')$$),
    ($$locality_uuid_counter('12345678-9abc-bdef-0123-456789abcdef')$$),
    ($$locality_uuid_pid('00000000-0000-0000-0000-000000000000')$$),
    ($$locality_uuid_counter('ffffffff-ffff-afff-ffff-ffffffffffff')$$),
    ($$locality_uuid_mac('c232ab00-9414-11ec-b3c8-9f6bdeced846')$$),
    ($$locality_uuid_timestamp('20be0ffc-314a-4d53-7a50-013a65ca76d2')$$),
    ($$locality_uuid_counter(NULL)$$),
    -- unique timestamps: Chronicle's example, 0, the ends of int64, host digits
    ($$unique_timestamp_text(1640700422954100128)$$),
    ($$unique_timestamp_host(1640700422954100128)$$),
    ($$unique_timestamp_to_timestamptz(1640700422954100128)$$),
    ($$unique_timestamp_text(0)$$),
    ($$unique_timestamp_host(0)$$),
    ($$unique_timestamp_to_timestamptz(0)$$),
    ($$unique_timestamp_text(999)$$),
    ($$unique_timestamp_to_timestamptz(999)$$),
    ($$unique_timestamp_to_timestamptz(1000)$$),
    ($$unique_timestamp_text(9223372036854775807)$$),
    ($$unique_timestamp_host(9223372036854775807)$$),
    ($$unique_timestamp_to_timestamptz(9223372036854775807)$$),
    ($$unique_timestamp_text(-1)$$),
    ($$unique_timestamp_text(-9223372036854775808)$$),
    ($$unique_timestamp_host(-9223372036854775808)$$),
    ($$unique_timestamp_to_timestamptz(-1)$$),
    ($$unique_timestamp_text(NULL)$$),
    ($$unique_timestamp_host(NULL)$$),
    -- Snowflake ids of peers' layouts: Discord's worked example (Twitter's layout), Sony's
    -- (10 ms ticks, the machine id lowest, only 65,536 node ids), javascript's (below 2^53); when
    -- each layout's time field runs out
    ($$snowflake_timestamp(175928847299117063, '2015-01-01 00:00:00+00', 1024)$$),
    ($$snowflake_timestamp((12345::bigint << 24) | (5 << 16) | 4660, '2014-09-01 00:00:00+00', 65536, 'sonyflake')$$),
    ($$snowflake_timestamp(-1, '2014-09-01 00:00:00+00', 65536, 'sonyflake')$$),
    ($$snowflake_timestamp(1, '2014-09-01 00:00:00+00', 8192, 'sonyflake')$$),
    -- the layout's own node count where none is given (max_nodes 0, the default)
    ($$snowflake_timestamp((12345::bigint << 24) | (5 << 16) | 4660, '2014-09-01 00:00:00+00', layout => 'sonyflake')$$),
    ($$snowflake_timestamp(9007199254740991, '2020-01-01 00:00:00+00', layout => 'javascript')$$),
    ($$snowflake_timestamp(175928847299117063, '2015-01-01 00:00:00+00', 0)$$),
    ($$snowflake_timestamp(175928847299117063, '2015-01-01 00:00:00+00', -1)$$),
    ($$snowflake_min_id('2026-03-02 12:34:56.789+00', '2014-09-01 00:00:00+00', layout => 'sonyflake')$$),
    ($$snowflake_min_id('2026-03-02 12:34:56.789+00', '2020-01-01 00:00:00+00', layout => 'javascript')$$),
    ($$snowflake_timestamp(9007199254740991, '2020-01-01 00:00:00+00', 64, 'javascript')$$),
    ($$snowflake_timestamp(9007199254740992, '2020-01-01 00:00:00+00', 64, 'javascript')$$),
    ($$snowflake_timestamp(-1, '2020-01-01 00:00:00+00', 64, 'javascript')$$),
    ($$snowflake_timestamp(1, '2020-01-01 00:00:00+00', 1024, 'javascript')$$),
    ($$snowflake_timestamp(1, '2020-01-01 00:00:00+00', 8, 'javascript')$$),
    ($$snowflake_min_id('2026-03-02 12:34:56.789+00', '2014-09-01 00:00:00+00', 65536, 'sonyflake')$$),
    ($$snowflake_min_id('2200-01-01 00:00:00+00', '2014-09-01 00:00:00+00', 65536, 'sonyflake')$$),
    ($$snowflake_min_id('2189-01-01 00:00:00+00', '2014-09-01 00:00:00+00', 65536, 'sonyflake')$$),
    ($$snowflake_min_id('2089-12-31 00:00:00+00', '2020-01-01 00:00:00+00', 64, 'javascript')$$),
    ($$snowflake_runs_out('2020-01-01 00:00:00+00')$$),
    ($$snowflake_runs_out('2014-09-01 00:00:00+00', 'sonyflake')$$),
    ($$snowflake_runs_out('2010-11-04 01:42:54.657+00', 'idgen')$$),
    ($$snowflake_runs_out('2020-01-01 00:00:00+00', 'javascript')$$),
    ($$snowflake_runs_out('2020-01-01 00:00:00.0005+00', 'snowcast')$$),
    ($$snowflake_runs_out('infinity')$$),
    ($$snowflake_runs_out('2020-01-01 00:00:00+00', 'twitter')$$),
    ($$snowflake_runs_out('294270-01-01 00:00:00+00')$$),
    ($$snowflake_runs_out(NULL)$$),
    -- Snowflake ids: both layouts, ids at the ends of int64, epochs before 1970 and not on a
    -- millisecond, every error of a layout, the defaults
    ($$snowflake_timestamp((1::bigint << 23) | (1 << 16) | 1, '2020-01-01 00:00:00+00', 128, 'snowcast')$$),
    ($$snowflake_timestamp((1::bigint << 22) | (1 << 15) | 1, '2020-01-01 00:00:00+00', 128, 'idgen')$$),
    ($$snowflake_timestamp((5289132000::bigint << 23) | (1234 << 10) | 5, '2014-01-01 00:00:00+00', 8192, 'snowcast')$$),
    ($$snowflake_timestamp(-9223372036787666945, '2020-01-01 00:00:00+00', 128, 'snowcast')$$),
    ($$snowflake_timestamp(-1, '2020-01-01 00:00:00+00', 128, 'snowcast')$$),
    ($$snowflake_timestamp(-9223372036854775808, '2020-01-01 00:00:00+00', 128, 'snowcast')$$),
    ($$snowflake_timestamp(0, '2020-01-01 00:00:00+00', 512)$$),
    ($$snowflake_timestamp(9223372036854775807, '2020-01-01 00:00:00+00', 512)$$),
    ($$snowflake_timestamp(-1, '2020-01-01 00:00:00+00', 512)$$),
    ($$snowflake_timestamp(-9223372036854775808, '2020-01-01 00:00:00+00')$$),
    ($$snowflake_timestamp(779559471637708800, '2020-01-01 00:00:00+00')$$),
    ($$snowflake_timestamp(1, '1900-12-31 23:59:59.9995+00', 8192, 'snowcast')$$),
    ($$snowflake_timestamp(1, '1969-12-31 23:59:59.9995+00')$$),
    ($$snowflake_timestamp(1, '2020-01-01 00:00:00.0005+00')$$),
    ($$snowflake_timestamp(1, '4714-11-24 00:00:00+00 BC')$$),
    ($$snowflake_timestamp(12345678901234, '50000-01-01 00:00:00.123+00')$$),
    ($$snowflake_timestamp(0, '294276-12-31 23:59:59.999999+00')$$),
    ($$snowflake_timestamp(9223372036854775807, '294180-01-01 00:00:00+00')$$),
    ($$snowflake_timestamp(9223372036854775807, '294240-01-01 00:00:00+00')$$),
    ($$snowflake_timestamp(1, '2020-01-01', 512, repeat('é', 40))$$),
    ($$snowflake_timestamp(1, 'infinity', 512)$$),
    ($$snowflake_timestamp(1, '-infinity', 512)$$),
    ($$snowflake_timestamp(1, '2020-01-01 00:00:00+00', 512, 'twitter')$$),
    ($$snowflake_timestamp(1, '2020-01-01 00:00:00+00', 512, 'Snowcast')$$),
    ($$snowflake_timestamp(1, '2020-01-01 00:00:00+00', 512, '')$$),
    ($$snowflake_timestamp(1, '2020-01-01 00:00:00+00', 512, repeat('x', 100))$$),
    ($$snowflake_timestamp(1, '2020-01-01 00:00:00+00', 512, 'it''s "quoted"')$$),
    ($$snowflake_timestamp(1, '2020-01-01 00:00:00+00', 127)$$),
    ($$snowflake_timestamp(1, '2020-01-01 00:00:00+00', 128)$$),
    ($$snowflake_timestamp(1, '2020-01-01 00:00:00+00', 100)$$),
    ($$snowflake_timestamp(1, '2020-01-01 00:00:00+00', 1000)$$),
    ($$snowflake_timestamp(1, '2020-01-01 00:00:00+00', 8193)$$),
    ($$snowflake_timestamp(1, '2020-01-01 00:00:00+00', -2147483648)$$),
    ($$snowflake_timestamp(1, '2020-01-01 00:00:00+00', 2147483647)$$),
    ($$snowflake_timestamp(1, 'infinity', 0, 'twitter')$$),
    ($$snowflake_timestamp(-1, '2020-01-01 00:00:00+00', 0, 'twitter')$$),
    ($$snowflake_timestamp(-1, '2020-01-01 00:00:00+00', 0)$$),
    ($$snowflake_timestamp(NULL::bigint, '2020-01-01 00:00:00+00')$$),
    ($$snowflake_timestamp(1, NULL)$$),
    ($$snowflake_timestamp(1, '2020-01-01 00:00:00+00', NULL)$$),
    ($$snowflake_timestamp(1, '2020-01-01 00:00:00+00', 512, NULL)$$),
    ($$snowflake_min_id('2026-03-02', '2020-01-01', 512)$$),
    ($$snowflake_min_id('2019-12-31', '2020-01-01', 512)$$),
    ($$snowflake_min_id('2020-01-01 00:00:00+00', '2020-01-01', 512)$$),
    ($$snowflake_min_id('2020-01-01 00:00:00.000999+00', '2020-01-01', 512)$$),
    ($$snowflake_min_id('2020-01-01 00:00:00.001+00', '2020-01-01', 128, 'snowcast')$$),
    ($$snowflake_min_id('2019-12-31 23:59:59.999999+00', '2020-01-01', 512)$$),
    ($$snowflake_min_id('2089-09-06 15:47:35.551+00', '2020-01-01', 512)$$),
    ($$snowflake_min_id('2089-09-06 15:47:35.551999+00', '2020-01-01', 512)$$),
    ($$snowflake_min_id('2089-09-06 15:47:35.552+00', '2020-01-01', 512)$$),
    ($$snowflake_min_id('2089-09-06 15:47:35.551+00', '2020-01-01', 512, 'snowcast')$$),
    ($$snowflake_min_id('2054-11-03 19:53:47.776+00', '2020-01-01', 128, 'snowcast')$$),
    ($$snowflake_min_id('2054-11-03 19:53:47.775+00', '2020-01-01', 128, 'snowcast')$$),
    ($$snowflake_min_id('2090-01-01', '2020-01-01', 512)$$),
    ($$snowflake_min_id('-infinity', '2020-01-01', 512)$$),
    ($$snowflake_min_id('infinity', '2020-01-01', 512)$$),
    ($$snowflake_min_id('294270-01-01 00:00:00+00', '2020-01-01', 512)$$),
    ($$snowflake_min_id('1969-12-31 23:59:59.9995+00'::timestamptz, '1969-12-31 23:59:59.9995+00')$$),
    ($$snowflake_min_id('1900-01-01 00:00:00.0015+00', '1900-01-01 00:00:00.0005+00', 8192, 'snowcast')$$),
    ($$snowflake_min_id('1899-12-31 23:59:59.9995+00', '1900-01-01 00:00:00.0005+00', 8192, 'snowcast')$$),
    ($$snowflake_min_id('294276-12-31 23:59:59.999999+00'::timestamptz, '294276-12-31 23:59:59.999999+00')$$),
    ($$snowflake_min_id('2026-03-02', 'infinity', 512)$$),
    ($$snowflake_min_id('2026-03-02', '2020-01-01', 100)$$),
    ($$snowflake_min_id('2026-03-02', '2020-01-01', 512, 'twitter')$$),
    ($$snowflake_min_id('infinity', 'infinity', 0, 'twitter')$$),
    ($$snowflake_min_id(NULL::timestamptz, '2020-01-01')$$),
    ($$snowflake_min_id('2026-03-02'::timestamptz, NULL)$$),
    ($$snowflake_min_id('2026-03-02', '2020-01-01', NULL)$$),
    ($$snowflake_min_id('2026-03-02', '2020-01-01', 512, NULL)$$),
    -- keyed masking: the ends of widths 20, 53 and 63 both ways under both keys; unknown keys
    -- (before any other refusal, as the C extension reads the key first), one named with a
    -- quote, widths and values just outside, UUIDs of every other version and variant, NULLs
    ($$id_mask(0, 'orders', 20)$$),
    ($$id_mask(1048575, 'orders', 20)$$),
    ($$id_unmask(0, 'orders', 20)$$),
    ($$id_unmask(1048575, 'users', 20)$$),
    ($$id_mask(0, 'users', 53)$$),
    ($$id_mask(9007199254740991, 'users', 53)$$),
    ($$id_unmask(9007199254740991, 'orders', 53)$$),
    ($$id_mask(0, 'orders')$$),
    ($$id_mask(9223372036854775807, 'orders')$$),
    ($$id_unmask(9223372036854775807, 'users', 63)$$),
    ($$id_unmask(id_mask(4242, 'orders'), 'orders')$$),
    ($$id_mask(4242, 'it''s', 21)$$),
    ($$id_mask(1, 'nope')$$),
    ($$id_mask(1, 'no''pe')$$),
    ($$id_mask(1, '')$$),
    ($$id_unmask(1, repeat('x', 100))$$),
    ($$id_mask(-1, 'nope', 19)$$),
    ($$id_mask(1, 'orders', 19)$$),
    ($$id_mask(1, 'orders', 64)$$),
    ($$id_unmask(1, 'orders', -2147483648)$$),
    ($$id_mask(-1, 'orders')$$),
    ($$id_unmask(-9223372036854775808, 'orders')$$),
    ($$id_mask(1048576, 'orders', 20)$$),
    ($$id_unmask(1048576, 'orders', 20)$$),
    ($$id_mask(9007199254740992, 'orders', 53)$$),
    ($$id_mask(-1, 'orders', 64)$$),
    ($$id_mask(NULL, 'orders')$$),
    ($$id_mask(1, NULL)$$),
    ($$id_mask(1, 'orders', NULL)$$),
    ($$id_unmask(NULL, 'nope', 99)$$),
    ($$uuid_mask('01890a5d-ac96-774b-bcce-b302099a8057', 'orders')$$),
    ($$uuid_mask('01890a5d-ac96-774b-bcce-b302099a8057', 'users')$$),
    ($$uuid_unmask(uuid_mask('01890a5d-ac96-774b-bcce-b302099a8057', 'orders'), 'orders')$$),
    ($$uuid_mask('00000000-0000-7000-8000-000000000000', 'orders')$$),
    ($$uuid_mask('ffffffff-ffff-7fff-bfff-ffffffffffff', 'users')$$),
    ($$uuid_unmask('00000000-0000-4000-8000-000000000000', 'users')$$),
    ($$uuid_unmask('ffffffff-ffff-4fff-bfff-ffffffffffff', 'orders')$$),
    ($$uuid_mask('01890a5d-ac96-474b-bcce-b302099a8057', 'orders')$$),
    ($$uuid_unmask('01890a5d-ac96-774b-bcce-b302099a8057', 'orders')$$),
    ($$uuid_mask('01890a5d-ac96-774b-ccce-b302099a8057', 'orders')$$),
    ($$uuid_mask('01890a5d-ac96-774b-7cce-b302099a8057', 'orders')$$),
    ($$uuid_unmask('01890a5d-ac96-474b-ecce-b302099a8057', 'orders')$$),
    ($$uuid_mask('00000000-0000-0000-0000-000000000000', 'orders')$$),
    ($$uuid_mask('ffffffff-ffff-ffff-ffff-ffffffffffff', 'orders')$$),
    ($$uuid_mask('01890a5d-ac96-474b-bcce-b302099a8057', 'nope')$$),
    ($$uuid_unmask('01890a5d-ac96-774b-bcce-b302099a8057', 'nope')$$),
    ($$uuid_mask(NULL, 'orders')$$),
    ($$uuid_unmask('01890a5d-ac96-474b-bcce-b302099a8057', NULL)$$);
-- (The hint of an unknown layout is compared, but shown only as "(hint: ...)".)
SELECT expr, regexp_replace(c_extension, '\(hint: .*\)$', '(hint: ...)') AS c_extension, c_extension = hosted AS same
FROM (SELECT expr, pg_temp.outcome(expr, 'public') AS c_extension, pg_temp.outcome(expr, 'hosted') AS hosted
      FROM edges) s;

-- ---- 100,000 inputs per family, from md5 (the same on every PostgreSQL) -----------------------
-- UUIDs: one in eight as md5 makes them (every version and variant), the others turned into
-- versions 1, 6 and 7 of the RFC variant and into locality UUIDs (version digit b); and for the
-- locality readers, seven in eight locality UUIDs.
CREATE TEMP TABLE uuids AS
SELECT CASE kind WHEN 'any' THEN h
                 WHEN 'b' THEN overlay(h PLACING 'b' FROM 13 FOR 1)
                 ELSE overlay(overlay(h PLACING kind FROM 13 FOR 1) PLACING variant FROM 17 FOR 1)
       END::uuid AS u
FROM (SELECT md5('uuid ' || i) AS h,
             (ARRAY['any', '1', '1', '6', '6', '7', '7', 'b'])[i % 8 + 1] AS kind,
             substr('89ab', i / 8 % 4 + 1, 1) AS variant
      FROM generate_series(1, 100000) i) s;
CREATE TEMP TABLE localities AS
SELECT CASE WHEN i % 8 = 0 THEN h ELSE overlay(h PLACING 'b' FROM 13 FOR 1) END::uuid AS u
FROM (SELECT i, md5('locality ' || i) AS h FROM generate_series(1, 100000) i) s;
-- Times over version 1's range and past its ends, over version 7's range, within a second of
-- the ends of both, within a millisecond of 1970, and in this century; clock sequences mostly
-- valid; any node.
CREATE TEMP TABLE times AS
SELECT timestamptz '1970-01-01 00:00:00+00' + ((lo + x % (hi - lo + 1))::text || ' microseconds')::interval AS ts,
       CASE WHEN i % 20 = 0 THEN (ARRAY[-1, 16384, -2147483648, 2147483647])[i / 20 % 4 + 1]
            ELSE (x % 16384)::integer END AS clock_seq,
       substr(h, 17, 12)::macaddr AS node
FROM (SELECT i, h, ('x' || substr(h, 1, 15))::bit(60)::bigint AS x,
             (ARRAY[-14830000000000000, -12219292801000000, 103072857659684697, -315619200000000,
                    -1000, 281474976709655999, 946684800000000])[i % 7 + 1] AS lo,
             (ARRAY[106000000000000000, -12219292799000000, 103072857661684697, 284012524800000000,
                    1000, 281474976711655999, 4102444800000000])[i % 7 + 1] AS hi
      FROM (SELECT i, md5('time ' || i) AS h FROM generate_series(1, 100000) i) s) s;
-- Unique timestamps: any bigint, three in four made positive.
CREATE TEMP TABLE unique_timestamps AS
SELECT CASE WHEN i % 4 = 0 THEN x ELSE x & 9223372036854775807 END AS ts
FROM (SELECT i, ('x' || substr(md5('unique ' || i), 1, 16))::bit(64)::bigint AS x
      FROM generate_series(1, 100000) i) s;
-- Snowflake ids and times under epochs before and after 1970, on and off a millisecond, every
-- max_nodes the C extension takes and some it refuses, every layout and a few unknown ones;
-- the times from before the epoch to past the end of its time field.
CREATE TEMP TABLE snowflakes AS
SELECT ('x' || substr(h, 1, 16))::bit(64)::bigint AS id,
       epoch + ((('x' || substr(h, 17, 15))::bit(60)::bigint % 2500000000000000 - 300000000000000)::text
                || ' microseconds')::interval AS ts,
       epoch, max_nodes, layout
FROM (SELECT md5('snowflake ' || i) AS h,
             (ARRAY[timestamptz '2020-01-01 00:00:00+00', '2014-01-01 00:00:00+00', '1970-01-01 00:00:00+00',
                    '1900-06-15 12:34:56.789+00', '1969-12-31 23:59:59.9995+00', '2024-02-29 12:00:00.123456+00',
                    '2262-01-01 00:00:00+00', '1582-10-15 00:00:00+00', '50000-01-01 00:00:00+00'])[i % 9 + 1] AS epoch,
             (ARRAY[128, 256, 512, 1024, 2048, 4096, 8192, 1000, 127, 8193, 16, 64, 65536, 15])[i / 9 % 14 + 1] AS max_nodes,
             (ARRAY['idgen', 'snowcast', 'idgen', 'snowcast', 'idgen', 'snowcast', 'idgen', 'snowcast', 'idgen',
                    'snowcast', 'twitter', 'sonyflake', 'javascript'])[i / 126 % 13 + 1] AS layout
      FROM generate_series(1, 100000) i) s;

-- Texts (6,000): 26 and 13 characters from md5 (hex digits, a third turned into the letters g to
-- n, the first character often too large for the bits), in either case, some a character longer
-- or shorter, one in four with a character from outside the alphabet; and TypeIDs of them with
-- prefixes of every kind, valid or not. Every call is made on its own, most of them refused.
CREATE TEMP TABLE texts AS
SELECT t, substr(t, 1, 13 + (length(t) - 26)) AS t13,
       CASE WHEN p = '' THEN lower(t) ELSE p || '_' || lower(t) END AS typeid
FROM (SELECT CASE WHEN i % 2 = 0 THEN upper(m) ELSE m END AS t,
             (ARRAY['user', '', 'pre_fix', '_bad', 'bad_', 'User', 'a' || repeat('b', 62), 'a' || repeat('b', 63), 'x1'])[i % 9 + 1] AS p
      FROM (SELECT i, CASE WHEN i % 4 = 0 THEN overlay(c PLACING substr('iloUu-_ Z', i % 9 + 1, 1) FROM i % 26 + 1 FOR 1) ELSE c END AS m
            FROM (SELECT i, substr(CASE WHEN i % 3 = 0 THEN translate(h, 'abcdef', 'ghjkmn') ELSE h END, 1,
                                   26 + CASE WHEN i % 7 = 0 THEN i % 3 - 1 ELSE 0 END) AS c
                  FROM (SELECT i, md5('text ' || i) || md5('more ' || i) AS h FROM generate_series(1, 6000) i) s) s) s) s;

-- The encoders over 20,000 of the UUIDs and Snowflake ids above (the edition's base32 is slow).
CREATE TEMP TABLE some_uuids AS SELECT u FROM uuids LIMIT 20000;
CREATE TEMP TABLE some_snowflakes AS SELECT id FROM snowflakes LIMIT 20000;
-- Keyed masking (20,000 calls a function: the edition's FF1 is slow): every width from 19 to
-- 64, a fifth of the values at or near the ends of the width, one in twenty outside it (or
-- negative), the three keys and, one in fifty, an unknown one; version-7 UUIDs from the UUIDs
-- above and any UUID, and version-4 ones made by the C extension's uuid_mask and any.
CREATE TEMP TABLE mask_ids AS
SELECT CASE WHEN i % 20 = 0 THEN (ARRAY[-1, 1::bigint << least(width, 62), x, -x - 1])[i / 20 % 4 + 1]
            WHEN i % 5 = 0 THEN (ARRAY[0, 1, 2, top - 1, top, top / 2])[i / 5 % 6 + 1]
            ELSE x & top END AS id,
       key_name, width
FROM (SELECT i, x, width, (2::numeric ^ least(width, 63) - 1)::bigint AS top,
             CASE WHEN i % 50 = 0 THEN 'nope' ELSE (ARRAY['orders', 'users', 'it''s'])[i % 3 + 1] END AS key_name
      FROM (SELECT i, ('x' || substr(md5('mask ' || i), 1, 16))::bit(64)::bigint & 9223372036854775807 AS x,
                   19 + i % 46 AS width
            FROM generate_series(1, 20000) i) s) s;
CREATE TEMP TABLE mask_uuids AS
SELECT u, (ARRAY['orders', 'users', 'it''s', 'orders', 'users', 'it''s', 'orders', 'users', 'it''s', 'nope'])[i % 10 + 1] AS key_name
FROM (SELECT row_number() OVER () AS i, u FROM (SELECT u FROM uuids WHERE public.uuid_version(u) = 7 LIMIT 14000) s
      UNION ALL SELECT i, u FROM (SELECT 14000 + row_number() OVER () AS i, u FROM uuids LIMIT 6000) s) s;
CREATE TEMP TABLE masked_uuids AS
SELECT CASE WHEN i % 4 = 0 THEN u ELSE public.uuid_mask(u, 'orders') END AS u,
       CASE WHEN i % 50 = 7 THEN 'nope' WHEN i % 4 = 1 THEN 'users' ELSE 'orders' END AS key_name
FROM ((SELECT row_number() OVER () AS i, u FROM mask_uuids WHERE public.uuid_version(u) = 7 LIMIT 15000)
      UNION ALL (SELECT 0, u FROM uuids LIMIT 5000)) s;
SELECT * FROM pg_temp.compare('uuid_to_ulid(u)', 'some_uuids')
UNION ALL SELECT * FROM pg_temp.compare('typeid_text(''user'', u)', 'some_uuids')
UNION ALL SELECT * FROM pg_temp.compare('snowflake_to_text(id)', 'some_snowflakes')
UNION ALL SELECT * FROM pg_temp.compare('ulid_to_uuid(t)', 'texts', 'true')
UNION ALL SELECT * FROM pg_temp.compare('ulid_timestamp(t)', 'texts', 'true')
UNION ALL SELECT * FROM pg_temp.compare('typeid_uuid(typeid)', 'texts', 'true')
UNION ALL SELECT * FROM pg_temp.compare('typeid_prefix(typeid)', 'texts', 'true')
UNION ALL SELECT * FROM pg_temp.compare('typeid_timestamp(typeid)', 'texts', 'true')
UNION ALL SELECT * FROM pg_temp.compare('snowflake_from_text(t13)', 'texts', 'true');

SELECT * FROM pg_temp.compare('uuid_version(u)', 'uuids')
UNION ALL SELECT * FROM pg_temp.compare('uuid_v1_timestamp(u)', 'uuids')
UNION ALL SELECT * FROM pg_temp.compare('uuid_v1_clock_seq(u)', 'uuids')
UNION ALL SELECT * FROM pg_temp.compare('uuid_v1_node(u)', 'uuids')
UNION ALL SELECT * FROM pg_temp.compare('uuid_v6_timestamp(u)', 'uuids')
UNION ALL SELECT * FROM pg_temp.compare('uuid_v1_to_v6(u)', 'uuids')
UNION ALL SELECT * FROM pg_temp.compare('uuid_v6_to_v1(u)', 'uuids')
UNION ALL SELECT * FROM pg_temp.compare('uuid_v7_timestamp(u)', 'uuids')
UNION ALL SELECT * FROM pg_temp.compare('uuid_extract_version(u)', 'uuids')
UNION ALL SELECT * FROM pg_temp.compare('uuid_extract_timestamp(u)', 'uuids')
UNION ALL SELECT * FROM pg_temp.compare('uuid_v7_to_timestamptz(u)', 'uuids')
UNION ALL SELECT * FROM pg_temp.compare('uuid_v7_to_timestamp(u)', 'uuids')
UNION ALL SELECT * FROM pg_temp.compare('locality_uuid_timestamp(u)', 'localities', $$get_byte(uuid_send(u), 6) >> 4 <> 11$$)
UNION ALL SELECT * FROM pg_temp.compare('locality_uuid_pid(u)', 'localities', $$get_byte(uuid_send(u), 6) >> 4 <> 11$$)
UNION ALL SELECT * FROM pg_temp.compare('locality_uuid_mac(u)', 'localities', $$get_byte(uuid_send(u), 6) >> 4 <> 11$$)
UNION ALL SELECT * FROM pg_temp.compare('locality_uuid_counter(u)', 'localities', $$get_byte(uuid_send(u), 6) >> 4 <> 11$$)
UNION ALL SELECT * FROM pg_temp.compare('form_uuid_v1(ts, clock_seq, node)', 'times',
                                        $$ts NOT BETWEEN '1582-10-15 00:00:00+00' AND '5236-03-31 21:21:00.684697+00'
                                          OR clock_seq NOT BETWEEN 0 AND 16383$$)
UNION ALL SELECT * FROM pg_temp.compare('uuid_v6_min(ts)', 'times', $$ts > '5236-03-31 21:21:00.684697+00'$$)
UNION ALL SELECT * FROM pg_temp.compare('uuid_v7_min(ts)', 'times', $$ts > '10889-08-02 05:31:50.655999+00'$$)
UNION ALL SELECT * FROM pg_temp.compare('unique_timestamp_text(ts)', 'unique_timestamps', 'ts < 0')
UNION ALL SELECT * FROM pg_temp.compare('unique_timestamp_host(ts)', 'unique_timestamps', 'ts < 0')
UNION ALL SELECT * FROM pg_temp.compare('unique_timestamp_to_timestamptz(ts)', 'unique_timestamps', 'ts < 0')
UNION ALL SELECT * FROM pg_temp.compare('snowflake_timestamp(id, epoch, max_nodes, layout)', 'snowflakes',
                                        $$layout NOT IN ('idgen', 'snowcast', 'sonyflake', 'javascript')
                                          OR CASE layout WHEN 'sonyflake' THEN max_nodes <> 65536
                                                         WHEN 'javascript' THEN max_nodes NOT BETWEEN 16 AND 512
                                                         ELSE max_nodes NOT BETWEEN 128 AND 8192 END
                                          OR (layout <> 'snowcast' AND id < 0) OR (layout = 'javascript' AND id >> 53 <> 0)$$)
UNION ALL SELECT * FROM pg_temp.compare('snowflake_min_id(ts, epoch, max_nodes, layout)', 'snowflakes',
                                        $$layout NOT IN ('idgen', 'snowcast', 'sonyflake', 'javascript')
                                          OR CASE layout WHEN 'sonyflake' THEN max_nodes <> 65536
                                                         WHEN 'javascript' THEN max_nodes NOT BETWEEN 16 AND 512
                                                         ELSE max_nodes NOT BETWEEN 128 AND 8192 END
                                          OR ts > epoch + interval '69 years'$$)
UNION ALL SELECT * FROM pg_temp.compare('id_mask(id, key_name, width)', 'mask_ids',
                                        $$key_name = 'nope' OR width NOT BETWEEN 20 AND 63 OR id < 0 OR id >= 2::numeric ^ width$$)
UNION ALL SELECT * FROM pg_temp.compare('id_unmask(id, key_name, width)', 'mask_ids',
                                        $$key_name = 'nope' OR width NOT BETWEEN 20 AND 63 OR id < 0 OR id >= 2::numeric ^ width$$)
UNION ALL SELECT * FROM pg_temp.compare('uuid_mask(u, key_name)', 'mask_uuids',
                                        $$key_name = 'nope' OR public.uuid_version(u) IS DISTINCT FROM 7$$)
UNION ALL SELECT * FROM pg_temp.compare('uuid_unmask(u, key_name)', 'masked_uuids',
                                        $$key_name = 'nope' OR public.uuid_version(u) IS DISTINCT FROM 4$$);
-- The edition's masking is a permutation: every valid id and version-7 UUID above back from its
-- mask, under the edition's own functions.
SELECT count(*) AS ids, count(*) FILTER (WHERE hosted.id_unmask(hosted.id_mask(id, key_name, width), key_name, width) = id) AS back
FROM mask_ids WHERE key_name <> 'nope' AND width BETWEEN 20 AND 63 AND id BETWEEN 0 AND 2::numeric ^ width - 1;
SELECT count(*) AS uuids, count(*) FILTER (WHERE hosted.uuid_unmask(hosted.uuid_mask(u, key_name), key_name) = u) AS back
FROM mask_uuids WHERE key_name <> 'nope' AND public.uuid_version(u) = 7;

-- A row looked up by its masked id uses the primary key, as with the C extension: id_unmask is
-- IMMUTABLE, so a constant is unmasked at planning and a parameter (a generic plan) once per scan.
CREATE TABLE masked_orders (id bigint PRIMARY KEY, item text);
INSERT INTO masked_orders SELECT g, 'item ' || g FROM generate_series(1, 10000) g;
ANALYZE masked_orders;
EXPLAIN (COSTS OFF) SELECT * FROM masked_orders WHERE id = hosted.id_unmask(hosted.id_mask(4242, 'orders'), 'orders');
PREPARE by_masked(bigint) AS SELECT * FROM public.masked_orders WHERE id = hosted.id_unmask($1, 'orders');
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE by_masked(0);
EXECUTE by_masked(public.id_mask(77, 'orders'));
RESET plan_cache_mode;

-- The keys tables refuse the same changes with the same errors (no key in any of them), and
-- id_mask_key_create makes keys of the same sizes in both.
CREATE FUNCTION pg_temp.statement_outcome(stmt text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    state text;
    message text;
    hint text;
BEGIN
    EXECUTE stmt;
    RETURN 'done';
EXCEPTION WHEN others THEN
    GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT, hint = PG_EXCEPTION_HINT;
    RETURN pg_temp.error_text(state, message, hint);
END
$$;
SELECT stmt, pg_temp.statement_outcome(format(stmt, 'public')) AS c_extension,
       pg_temp.statement_outcome(format(stmt, 'public')) = pg_temp.statement_outcome(format(stmt, 'hosted')) AS same
FROM (VALUES ($$UPDATE %s.idgen_mask_keys SET key = key WHERE name = 'orders'$$),
             ($$DELETE FROM %s.idgen_mask_keys WHERE name = 'users'$$),
             ($$TRUNCATE %s.idgen_mask_keys$$),
             ($$INSERT INTO %s.idgen_mask_keys (name, key) VALUES ('short', '\x0102030405060708090a0b0c0d0e0f1011121314')$$),
             ($$INSERT INTO %s.idgen_mask_keys (name, key) VALUES ('none', NULL)$$),
             ($$INSERT INTO %s.idgen_mask_keys (name, key) VALUES (repeat('n', 64), '\x2b7e151628aed2a6abf7158809cf4f3c')$$),
             ($$INSERT INTO %s.idgen_mask_keys (name, key) VALUES ('', '\x2b7e151628aed2a6abf7158809cf4f3c')$$),
             ($$INSERT INTO %s.idgen_mask_keys (name, key) VALUES ('orders', '\x2b7e151628aed2a6abf7158809cf4f3c')$$),
             ($$SELECT %s.id_mask_key_create('odd', 24)$$),
             ($$SELECT %s.id_mask_key_create('orders')$$),
             ($$SELECT %s.id_mask_key_create(NULL)$$)) v (stmt);
SELECT public.id_mask_key_create('fresh'), hosted.id_mask_key_create('fresh');
SELECT side, octet_length(key) AS bytes, created_at <= now() AS created
FROM (SELECT 'public' AS side, * FROM public.idgen_mask_keys UNION ALL SELECT 'hosted', * FROM hosted.idgen_mask_keys) k
WHERE name = 'fresh' ORDER BY side;
SELECT hosted.id_mask_key_create('fresh_16', 16);
SELECT octet_length(key) AS bytes, hosted.id_unmask(hosted.id_mask(12345, 'fresh_16', 40), 'fresh_16', 40) AS back
FROM hosted.idgen_mask_keys WHERE name = 'fresh_16';

-- A role that is not the owner masks and unmasks but reads no key, creates none and cannot make
-- the edition bind another encrypt; its own operator first in its search_path (here one that
-- would show the round blocks) is not what the edition's FF1 calls.
CREATE ROLE idgen_hosted_masking;
GRANT USAGE ON SCHEMA hosted TO idgen_hosted_masking;
GRANT SELECT ON masked_orders TO idgen_hosted_masking;
CREATE SCHEMA spy AUTHORIZATION idgen_hosted_masking;
SET ROLE idgen_hosted_masking;
CREATE FUNCTION spy.xor(a bigint, b bigint) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the spy saw % and %', a, b;
END $$;
CREATE OPERATOR spy.# (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = spy.xor);
SET search_path = spy, hosted, pg_catalog;
SELECT pg_temp.outcome('1::bigint # 2::bigint', 'spy') AS spy_works;
SELECT pg_temp.outcome($$(SELECT count(*) FROM hosted.idgen_mask_keys)$$, 'spy') AS read_keys,
       pg_temp.outcome($$hosted.id_mask_key_create('mine')$$, 'spy') AS create_key,
       pg_temp.outcome($$hosted._idgen_mask_bind()$$, 'spy') AS bind;
SELECT hosted.id_mask(4242, 'orders') = public.id_mask(4242, 'orders') AS same_mask,
       hosted.uuid_unmask(public.uuid_mask('01890a5d-ac96-774b-bcce-b302099a8057', 'users'), 'users') AS uuid_back;
EXECUTE by_masked(public.id_mask(78, 'orders'));
RESET search_path;
RESET ROLE;
DROP SCHEMA spy CASCADE;
DROP TABLE masked_orders;
REVOKE ALL ON SCHEMA hosted FROM idgen_hosted_masking;
DROP ROLE idgen_hosted_masking;

SET client_min_messages = warning;
DROP SCHEMA hosted CASCADE;
DROP EXTENSION idgen;
DROP SCHEMA crypto CASCADE;
