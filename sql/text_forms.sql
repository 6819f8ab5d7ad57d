-- Ids as text: ULIDs and TypeIDs of UUIDs, and Snowflake ids in 13 characters. Every conformance
-- vector of the TypeID specification (version 0.3: its valid.yml and invalid.yml, copied below
-- as they are) both ways, the ULID specification's rules (either case, no I, L, O or U, at most
-- 128 bits), the generators, order, and the errors. The plain-SQL edition gives the same answers
-- (sql/hosted_differential.sql).
CREATE EXTENSION idgen;
SET timezone = 'UTC';

-- TypeID's valid vectors: parsed into their prefix and UUID, and written back from them.
CREATE TEMP TABLE valid_typeids (name text, typeid text, prefix text, uuid uuid);
INSERT INTO valid_typeids VALUES
    ('nil', '00000000000000000000000000', '', '00000000-0000-0000-0000-000000000000'),
    ('one', '00000000000000000000000001', '', '00000000-0000-0000-0000-000000000001'),
    ('ten', '0000000000000000000000000a', '', '00000000-0000-0000-0000-00000000000a'),
    ('sixteen', '0000000000000000000000000g', '', '00000000-0000-0000-0000-000000000010'),
    ('thirty-two', '00000000000000000000000010', '', '00000000-0000-0000-0000-000000000020'),
    ('max-valid', '7zzzzzzzzzzzzzzzzzzzzzzzzz', '', 'ffffffff-ffff-ffff-ffff-ffffffffffff'),
    ('valid-alphabet', 'prefix_0123456789abcdefghjkmnpqrs', 'prefix', '0110c853-1d09-52d8-d73e-1194e95b5f19'),
    ('valid-uuidv7', 'prefix_01h455vb4pex5vsknk084sn02q', 'prefix', '01890a5d-ac96-774b-bcce-b302099a8057'),
    ('prefix-underscore', 'pre_fix_00000000000000000000000000', 'pre_fix', '00000000-0000-0000-0000-000000000000');
SELECT name, (typeid_parse(typeid)).prefix = prefix AND (typeid_parse(typeid)).uuid = uuid AS parsed,
       typeid_uuid(typeid) = uuid AND typeid_prefix(typeid) = prefix AS readers,
       typeid_text(prefix, uuid) = typeid AS written
FROM valid_typeids ORDER BY name;

-- TypeID's invalid vectors: each refused with 22P02, saying why.
CREATE TEMP TABLE invalid_typeids (name text, typeid text);
INSERT INTO invalid_typeids VALUES
    ('prefix-uppercase', 'PREFIX_00000000000000000000000000'),
    ('prefix-numeric', '12345_00000000000000000000000000'),
    ('prefix-period', 'pre.fix_00000000000000000000000000'),
    ('prefix-non-ascii', 'préfix_00000000000000000000000000'),
    ('prefix-spaces', '  prefix_00000000000000000000000000'),
    ('prefix-64-chars', 'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl_00000000000000000000000000'),
    ('separator-empty-prefix', '_00000000000000000000000000'),
    ('separator-empty', '_'),
    ('suffix-short', 'prefix_1234567890123456789012345'),
    ('suffix-long', 'prefix_123456789012345678901234567'),
    ('suffix-spaces', 'prefix_1234567890123456789012345 '),
    ('suffix-uppercase', 'prefix_0123456789ABCDEFGHJKMNPQRS'),
    ('suffix-hyphens', 'prefix_123456789-123456789-123456'),
    ('suffix-wrong-alphabet', 'prefix_ooooooiiiiiiuuuuuuulllllll'),
    ('suffix-ambiguous-crockford', 'prefix_i23456789ol23456789oi23456'),
    ('suffix-hyphens-crockford', 'prefix_123456789-0123456789-0123456'),
    ('suffix-overflow', 'prefix_8zzzzzzzzzzzzzzzzzzzzzzzzz'),
    ('prefix-underscore-start', '_prefix_00000000000000000000000000'),
    ('prefix-underscore-end', 'prefix__00000000000000000000000000'),
    ('empty', ''),
    ('prefix-empty', 'prefix_');
-- A call's result as text, or its SQLSTATE and message.
CREATE FUNCTION pg_temp.outcome(call text, arg text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    result text;
BEGIN
    EXECUTE format('SELECT %s(%L)::text', call, arg) INTO result;
    RETURN coalesce(result, 'NULL');
EXCEPTION WHEN others THEN
    RETURN SQLSTATE || ': ' || SQLERRM;
END
$$;
SELECT name, pg_temp.outcome('typeid_parse', typeid) AS refusal FROM invalid_typeids ORDER BY name;
SELECT count(*) FILTER (WHERE pg_temp.outcome('typeid_parse', typeid) LIKE '22P02: invalid TypeID "%": %') AS refused_22p02,
       count(*) AS vectors
FROM invalid_typeids;

-- TypeIDs made here: a prefix checked (22023), the TypeID of idgen's version-7 UUIDs, their
-- time read back, and the order of the UUIDs kept by the text.
SELECT typeid_text('user', '01890a5d-ac96-774b-bcce-b302099a8057') AS user_typeid,
       typeid_text('', '01890a5d-ac96-774b-bcce-b302099a8057') AS no_prefix,
       typeid_timestamp('user_01h455vb4pex5vsknk084sn02q') AS v7_time,
       typeid_timestamp('00000000000000000000000001') AS not_v7;
\set VERBOSITY sqlstate
SELECT typeid_text('User', uuid_v7());
SELECT typeid_text('user_', uuid_v7());
SELECT typeid(repeat('a', 64));
\set VERBOSITY default
SELECT typeid_text('9lives', uuid_v7());
SELECT bool_and(t LIKE 'order_%' AND length(t) = 32) AS shaped,
       bool_and(typeid_uuid(t) = u) AS round_trip
FROM (SELECT typeid_text('order', u) AS t, u FROM (SELECT uuid_v7() AS u FROM generate_series(1, 1000)) s) s;
SELECT count(DISTINCT t) = 2000 AS distinct, bool_and(typeid_prefix(t) = 'event') AS prefixed,
       bool_and(typeid_timestamp(t) = '2024-03-01 12:00:00.123456+00') FILTER (WHERE backfill) AS backfill_time
FROM (SELECT typeid('event') AS t, false AS backfill FROM generate_series(1, 1000)
      UNION ALL SELECT typeid_at('event', '2024-03-01 12:00:00.123456+00'), true FROM generate_series(1, 1000)) s;
SELECT typeid(NULL) IS NULL AS strict;

-- ULIDs: the UUID's 128 bits in upper case; read in either case; a version-7 UUID's ULID carries
-- its millisecond and sorts as the UUID does; 22P02 for what the ULID specification refuses.
SELECT uuid_to_ulid('01890a5d-ac96-774b-bcce-b302099a8057') AS ulid,
       ulid_to_uuid('01H455VB4PEX5VSKNK084SN02Q') AS upper_case,
       ulid_to_uuid('01h455vb4pex5vsknk084sn02q') AS lower_case,
       ulid_timestamp('01H455VB4PEX5VSKNK084SN02Q') AS time,
       uuid_to_ulid('ffffffff-ffff-ffff-ffff-ffffffffffff') AS largest;
SELECT t, pg_temp.outcome('ulid_to_uuid', t) AS outcome
FROM (VALUES ('01H455VB4PEX5VSKNK084SN02I'), ('01H455VB4PEX5VSKNK084SN02L'), ('01H455VB4PEX5VSKNK084SN02O'),
             ('01H455VB4PEX5VSKNK084SN02U'), ('01H455VB4PEX5VSKNK084SN02'), ('01H455VB4PEX5VSKNK084SN02QQ'),
             ('81H455VB4PEX5VSKNK084SN02Q'), ('7ZZZZZZZZZZZZZZZZZZZZZZZZZ'), ('01H455VB4PEX5VSKNK084SN0-Q'), ('')) v(t);
SELECT pg_temp.outcome('ulid_timestamp', 'not a ulid') AS not_a_ulid;
SELECT bool_and(ulid_to_uuid(t) = u) AS round_trip, bool_and(ulid_timestamp(t) = date_trunc('milliseconds', uuid_v7_timestamp(u))) AS time,
       array_agg(t ORDER BY t COLLATE "C") = array_agg(t ORDER BY u) AS sorts_as_the_uuids
FROM (SELECT uuid_to_ulid(u) AS t, u FROM (SELECT uuid_v7() AS u FROM generate_series(1, 1000)) s) s;
SELECT count(DISTINCT t) = 2000 AS distinct, bool_and(length(t) = 26) AS shaped,
       bool_and(ulid_timestamp(t) = '2024-03-01 12:00:00.123+00') FILTER (WHERE backfill) AS backfill_time
FROM (SELECT ulid() AS t, false AS backfill FROM generate_series(1, 1000)
      UNION ALL SELECT ulid_at('2024-03-01 12:00:00.123456+00'), true FROM generate_series(1, 1000)) s;

-- Snowflake ids in 13 characters: the 64 bits, unsigned, in lower case; read in either case;
-- texts that sort as the ids do (a snowcast id past its 34.8 years, negative, after them all).
SELECT id, snowflake_to_text(id) AS t, snowflake_from_text(upper(snowflake_to_text(id))) = id AS back
FROM (VALUES (0::bigint), (1), (31), (32), (721695434861969408), (9223372036854775807), (-9223372036854775808), (-1)) v(id);
SELECT bool_and(snowflake_from_text(t) = id) AS round_trip,
       array_agg(t ORDER BY t COLLATE "C") = array_agg(t ORDER BY id) AS sorts_as_the_ids
FROM (SELECT snowflake_to_text(id) AS t, id
      FROM (SELECT (random() * 9223372036854775807)::bigint >> (g % 63) AS id FROM generate_series(1, 2000) g) s) s;
SELECT t, pg_temp.outcome('snowflake_from_text', t) AS outcome
FROM (VALUES ('g000000000000'), ('0000000000000'), ('fzzzzzzzzzzzz'), ('FZZZZZZZZZZZZ'), ('00000000000i1'),
             ('000000000001'), ('')) v(t);
SELECT snowflake_from_text(NULL) IS NULL AS strict, snowflake_to_text(NULL) IS NULL AS strict_too;
DROP EXTENSION idgen;
