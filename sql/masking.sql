-- Keyed masking: id_mask and id_unmask at every width, uuid_mask and uuid_unmask, their text
-- forms, the refusals with their SQLSTATEs (and no key in any message), the primary key's index
-- used by WHERE id = id_unmask(...), the keys table closed to an ordinary role that may still
-- mask and unmask, key creation, and the keys' permanence. The keys are NIST SP 800-38G's sample
-- keys, inserted as they are, so the masked values below are fixed; FF1 itself is checked against
-- the standard's samples in test/unit/masking_test.cpp.
CREATE EXTENSION idgen;
CREATE FUNCTION try(expr text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE result text;
BEGIN
    EXECUTE 'SELECT (' || expr || ')::text' INTO result;
    RETURN coalesce(result, 'NULL');
EXCEPTION WHEN others THEN
    RETURN 'ERROR ' || SQLSTATE || ': ' || SQLERRM;
END $$;
INSERT INTO idgen_mask_keys (name, key) VALUES
    ('orders', '\x2b7e151628aed2a6abf7158809cf4f3cef4359d8d580aa4f7f036d6f04fc6a94'),
    ('users', '\x2b7e151628aed2a6abf7158809cf4f3c');

-- Fixed answers (a change to the construction changes them): widths 63 and 53, both keys.
SELECT id, id_mask(id, 'orders') AS orders_63, id_mask(id, 'orders', 53) AS orders_53,
       id_mask(id, 'users') AS users_63
FROM (VALUES (0::bigint), (1), (2), (1000000), (9007199254740991)) v(id);

-- Every width from 20 to 63: 2,000 ids each (0, the largest, and 1,998 spread over the range)
-- mask into the range, to as many distinct values as there are distinct ids, and unmask back.
SELECT width, count(*) AS ids, count(DISTINCT id) AS distinct_ids,
       count(*) FILTER (WHERE masked BETWEEN 0 AND top) AS in_range,
       count(DISTINCT masked) AS distinct_masked,
       count(*) FILTER (WHERE id_unmask(masked, 'orders', width) = id) AS round_trips,
       count(*) FILTER (WHERE masked = id) AS unchanged
FROM generate_series(20, 63) width,
     LATERAL (SELECT 9223372036854775807 >> (63 - width) AS top) t,
     LATERAL (SELECT id, id_mask(id, 'orders', width) AS masked
              FROM (SELECT 0::bigint AS id UNION ALL SELECT top
                    UNION ALL SELECT hashint8extended(i, width) & top FROM generate_series(1, 1998) i) ids) m
GROUP BY width ORDER BY width;

-- Version-7 UUIDs: masked to version 4 with RFC 9562's variant and no time to read, and back.
SELECT u, uuid_mask(u, 'orders') AS masked, uuid_version(uuid_mask(u, 'orders')) AS version,
       uuid_v7_timestamp(uuid_mask(u, 'orders')) AS time_read,
       uuid_unmask(uuid_mask(u, 'orders'), 'orders') = u AS back
FROM (VALUES ('01890a5d-ac96-774b-bcce-b302099a8057'::uuid), ('00000000-0000-7000-8000-000000000000'),
             ('ffffffff-ffff-7fff-bfff-ffffffffffff')) v(u);
SELECT count(*) AS uuids, count(DISTINCT m) AS distinct_masked,
       count(*) FILTER (WHERE uuid_version(m) = 4 AND substr(m::text, 20, 1) IN ('8', '9', 'a', 'b')) AS version_4,
       count(*) FILTER (WHERE uuid_unmask(m, 'orders') = u) AS round_trips
FROM (SELECT u, uuid_mask(u, 'orders') AS m FROM (SELECT uuid_v7() AS u FROM generate_series(1, 10000)) g) s;

-- Text forms: the existing ones take masked values as they are.
SELECT typeid_text('order', uuid_mask('01890a5d-ac96-774b-bcce-b302099a8057', 'orders')) AS typeid,
       uuid_unmask(typeid_uuid(typeid_text('order', uuid_mask('01890a5d-ac96-774b-bcce-b302099a8057', 'orders'))),
                   'orders') AS back,
       snowflake_to_text(id_mask(1000000, 'orders')) AS snowflake_text,
       id_unmask(snowflake_from_text(snowflake_to_text(id_mask(1000000, 'orders'))), 'orders') AS id_back;

-- Refusals: each with its SQLSTATE, and no key in any message; NULLs give NULL.
SELECT expr, try(expr) AS result FROM (VALUES
    ($$id_mask(1, 'nope')$$),
    ($$id_unmask(1, repeat('x', 100))$$),
    ($$id_mask(1, 'orders', 19)$$),
    ($$id_mask(1, 'orders', 64)$$),
    ($$id_mask(-1, 'orders')$$),
    ($$id_mask(9007199254740992, 'orders', 53)$$),
    ($$id_unmask(9007199254740992, 'orders', 53)$$),
    ($$uuid_mask('01890a5d-ac96-474b-bcce-b302099a8057', 'orders')$$),
    ($$uuid_unmask('01890a5d-ac96-774b-bcce-b302099a8057', 'orders')$$),
    ($$uuid_mask('01890a5d-ac96-774b-ccce-b302099a8057', 'orders')$$),
    ($$uuid_mask('01890a5d-ac96-774b-bcce-b302099a8057', 'nope')$$),
    ($$id_mask(NULL, 'orders')$$),
    ($$id_mask(1, NULL)$$),
    ($$id_mask(1, 'orders', NULL)$$),
    ($$uuid_unmask(NULL, 'orders')$$)
) v(expr);

-- Looking a row up by its masked id uses the primary key: id_unmask is IMMUTABLE, so a constant is
-- unmasked once at planning; a parameter (a generic plan) is unmasked once per scan.
CREATE TABLE orders (id bigint PRIMARY KEY, item text);
INSERT INTO orders SELECT i, 'item ' || i FROM generate_series(1, 10000) i;
ANALYZE orders;
EXPLAIN (COSTS OFF) SELECT * FROM orders WHERE id = id_unmask(id_mask(4242, 'orders'), 'orders');
SELECT * FROM orders WHERE id = id_unmask(id_mask(4242, 'orders'), 'orders');
PREPARE by_masked(bigint) AS SELECT * FROM orders WHERE id = id_unmask($1, 'orders');
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE by_masked(0);
EXECUTE by_masked(id_mask(77, 'orders'));
RESET plan_cache_mode;

-- An ordinary role: the keys table is closed to it (42501), key creation too; it masks and unmasks.
CREATE ROLE idgen_masking_ordinary;
GRANT SELECT ON orders TO idgen_masking_ordinary;
SET ROLE idgen_masking_ordinary;
SELECT try($$(SELECT count(*) FROM idgen_mask_keys)$$) AS read_keys;
SELECT try($$id_mask_key_create('mine')$$) AS create_key;
SELECT id_unmask(id_mask(4242, 'orders'), 'orders') AS unmasks, uuid_version(uuid_mask(uuid_v7(), 'users')) AS masks;
EXECUTE by_masked(id_mask(78, 'orders'));
RESET ROLE;
REVOKE ALL ON orders FROM idgen_masking_ordinary;
DROP ROLE idgen_masking_ordinary;

-- Key creation: 32 random bytes (or 16), shown nowhere; the name is taken once.
SELECT id_mask_key_create('invoices');
SELECT id_mask_key_create('small', 16);
SELECT name, octet_length(key) AS bytes, created_at <= now() AS created FROM idgen_mask_keys ORDER BY name;
SELECT id_unmask(id_mask(5, 'invoices'), 'invoices') AS round_trip,
       id_mask(5, 'invoices') <> id_mask(5, 'orders') AS another_permutation;
SELECT try($$id_mask_key_create('invoices')$$) AS again;
SELECT try($$id_mask_key_create('odd', 24)$$) AS odd_size;

-- Keys are permanent, and a bad row is refused before a constraint could show it.
UPDATE idgen_mask_keys SET key = '\x2b7e151628aed2a6abf7158809cf4f3c' WHERE name = 'orders';
DELETE FROM idgen_mask_keys WHERE name = 'orders';
TRUNCATE idgen_mask_keys;
INSERT INTO idgen_mask_keys (name, key) VALUES ('short', '\x0102030405060708090a0b0c0d0e0f1011121314');
INSERT INTO idgen_mask_keys (name, key) VALUES (repeat('n', 64), '\x2b7e151628aed2a6abf7158809cf4f3c');

-- A key created in a transaction that aborts is forgotten by the backend that cached it.
BEGIN;
SELECT id_mask_key_create('fleeting');
SELECT id_mask(1, 'fleeting') >= 0 AS masked_inside;
ROLLBACK;
SELECT try($$id_mask(1, 'fleeting')$$) AS after_abort;
INSERT INTO idgen_mask_keys (name, key) VALUES ('fleeting', '\x2b7e151628aed2a6abf7158809cf4f3c');
SELECT id_mask(1, 'fleeting') = id_mask(1, 'users') AS the_new_bytes;

DROP TABLE orders;
DROP EXTENSION idgen;
