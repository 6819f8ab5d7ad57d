-- The WAL records of idgen's resource manager as a DBA reads them: pg_walinspect here,
-- pg_waldump the same text. A lease record is written when a session leases a namespace of an
-- id space (here a given node no other test uses), and again when it raises the space's offset
-- bound; a horizon record when the ids run past the durable horizon (so the clock is first let
-- run past it: earlier tests may have moved it ahead).
CREATE EXTENSION idgen;
CREATE EXTENSION pg_walinspect;
SELECT pg_current_wal_flush_lsn() AS before \gset
SELECT uuid_v1_at('2001-02-03 04:05:06.789+00', '02:00:00:00:07:01') IS NOT NULL AS made;
SELECT pg_sleep(greatest(0, extract(epoch FROM max(durable_horizon) - clock_timestamp())::float8) + 0.05)
FROM idgen_state;
SELECT uuid_v7() IS NOT NULL AS made;
-- Each record is flushed before its id is handed out.
SELECT pg_current_wal_flush_lsn() AS after \gset
-- Kind 6 is a given version-1 node, its key the node's 48 bits (0x020000000701 = 2199023257345);
-- the first record takes namespace 0 (next 1), the second makes the bound durable.
SELECT record_type, description
FROM pg_get_wal_records_info(:'before', :'after')
WHERE resource_manager = 'idgen' AND record_type = 'LEASE' AND description LIKE 'lease space 6/0/2199023257345 %'
ORDER BY start_lsn;
SELECT record_type, regexp_replace(description, '[0-9]{16}', '<unix us>') AS description
FROM pg_get_wal_records_info(:'before', :'after')
WHERE resource_manager = 'idgen' AND record_type = 'HORIZON'
ORDER BY start_lsn LIMIT 1;
-- Every record of idgen's resource manager has a type name and a description.
SELECT count(*) > 0 AS some, bool_and(record_type IN ('HORIZON', 'LEASE')) AS named,
       bool_and(description ~ '^(horizon [0-9]+ us|lease space [0-9]+/[0-9]+/[0-9]+ next [0-9]+ bound [0-9]+ step [0-9]+)$') AS described
FROM pg_get_wal_records_info(:'before', :'after')
WHERE resource_manager = 'idgen';
DROP EXTENSION pg_walinspect;
DROP EXTENSION idgen;
