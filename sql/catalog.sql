-- A fresh install (idgen--<version>.sql, built from schema/idgen.sql, the schema in one file)
-- and an install upgraded script by script from 0.1.0 must give the same catalog: every member
-- object of the extension with its definition, comment and privileges; the tables' columns,
-- defaults, constraints, indexes and triggers (with when they fire); the configuration tables
-- pg_dump includes.
SET client_min_messages = warning;
CREATE FUNCTION pg_temp.idgen_catalog() RETURNS TABLE (object text, definition text)
LANGUAGE sql AS $$
    WITH ext AS (SELECT oid FROM pg_extension WHERE extname = 'idgen'),
    members AS (
        SELECT d.classid, d.objid FROM pg_depend d, ext
        WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid AND d.deptype = 'e')
    SELECT pg_describe_object(m.classid, m.objid, 0),
           concat_ws(E'\n',
               CASE WHEN m.classid = 'pg_proc'::regclass THEN
                   pg_get_functiondef(m.objid) || ' acl ' || coalesce((SELECT proacl::text FROM pg_proc WHERE oid = m.objid), '') END,
               CASE WHEN m.classid = 'pg_class'::regclass THEN (
                   SELECT concat_ws(E'\n', 'kind ' || c.relkind::text, 'acl ' || coalesce(c.relacl::text, ''),
                          CASE WHEN c.relkind = 'v' THEN pg_get_viewdef(c.oid) END,
                          (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) ||
                                             CASE WHEN a.attnotnull THEN ' not null' ELSE '' END ||
                                             coalesce(' default ' || pg_get_expr(ad.adbin, ad.adrelid), '') ||
                                             coalesce(' comment ' || col_description(c.oid, a.attnum), ''), ', ' ORDER BY a.attnum)
                           FROM pg_attribute a LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
                           WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped),
                          (SELECT string_agg(con.conname || ' ' || pg_get_constraintdef(con.oid), ', ' ORDER BY con.conname)
                           FROM pg_constraint con WHERE con.conrelid = c.oid),
                          (SELECT string_agg(pg_get_indexdef(i.indexrelid), ', ' ORDER BY 1)
                           FROM pg_index i WHERE i.indrelid = c.oid),
                          (SELECT string_agg(pg_get_triggerdef(t.oid) || ' enabled ' || t.tgenabled::text, ', ' ORDER BY t.tgname)
                           FROM pg_trigger t WHERE t.tgrelid = c.oid AND NOT t.tgisinternal),
                          (SELECT concat_ws(' ', seqtypid::regtype, seqstart, seqincrement, seqmax, seqmin, seqcache, seqcycle)
                           FROM pg_sequence WHERE seqrelid = c.oid))
                   FROM pg_class c WHERE c.oid = m.objid) END,
               CASE WHEN m.classid = 'pg_namespace'::regclass THEN
                   (SELECT 'acl ' || coalesce(nspacl::text, '') FROM pg_namespace WHERE oid = m.objid) END,
               'comment ' || coalesce(obj_description(m.objid, (SELECT relname FROM pg_class WHERE oid = m.classid)), ''))
    FROM members m
    UNION ALL
    SELECT 'configuration tables', (SELECT string_agg(t::regclass::text || coalesce(' WHERE ' || nullif(c, ''), ''), ', '
                                                      ORDER BY t::regclass::text)
                                    FROM pg_extension, unnest(extconfig, extcondition) u (t, c) WHERE extname = 'idgen')
$$;
CREATE EXTENSION idgen;
CREATE TEMP TABLE fresh AS SELECT * FROM pg_temp.idgen_catalog();
SELECT extversion FROM pg_extension WHERE extname = 'idgen';
DROP EXTENSION idgen;
CREATE EXTENSION idgen VERSION '0.1.0';
ALTER EXTENSION idgen UPDATE;
CREATE TEMP TABLE upgraded AS SELECT * FROM pg_temp.idgen_catalog();
-- (PostgreSQL 17 records more member objects than 15; the functions are the same.)
SELECT count(*) >= 41 AS every_kind_of_object, count(*) FILTER (WHERE object LIKE 'function %') AS functions FROM fresh;
-- What \df shows in the extension's schema is what users call; idgen's own helpers are in
-- idgen_internal (none of them in the extension's schema, none elsewhere).
SELECT n.nspname AS schema, count(*) AS functions, count(*) FILTER (WHERE p.proname LIKE '\_%') AS named_as_internal
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'idgen')
GROUP BY 1 ORDER BY 1;
SELECT 'only in the fresh install' AS side, * FROM (SELECT * FROM fresh EXCEPT SELECT * FROM upgraded) f
UNION ALL
SELECT 'only in the upgraded install', * FROM (SELECT * FROM upgraded EXCEPT SELECT * FROM fresh) u
ORDER BY 2, 1;
DROP EXTENSION idgen;
