-- One server per sequencer's backfill: the server that creates a sequencer owns its backfill
-- (backfill_owner, its idgen.node_id: 300 here), and snowflake_at on a server with another node
-- id is refused (55000), since each server leases the reserved node ids from its own counter.
CREATE EXTENSION idgen;
SELECT snowflake_create('owned', '2020-01-01 00:00:00+00', 512, backfill_nodes => 4);
SELECT name, backfill_owner FROM snowflake_definitions;
SELECT snowflake_node('owned', snowflake_at('owned', '2021-01-01 00:00:00+00')) BETWEEN 508 AND 511 AS on_a_reserved_node;
-- A definition that came from the server with node id 5 (pg_dump, logical replication):
UPDATE snowflake_definitions SET backfill_owner = 5 WHERE name = 'owned';
\c
\set VERBOSITY default
SELECT snowflake_at('owned', '2021-01-01 00:00:00+00');
-- Moved here by the administrator, once no other server backfills it:
UPDATE snowflake_definitions SET backfill_owner = 300 WHERE name = 'owned';
\c
SELECT snowflake_node('owned', snowflake_at('owned', '2021-01-01 00:00:00+00')) BETWEEN 508 AND 511 AS on_a_reserved_node;
-- NULL: created by a server without idgen.node_id; any server may backfill.
UPDATE snowflake_definitions SET backfill_owner = NULL WHERE name = 'owned';
\c
SELECT snowflake_node('owned', snowflake_at('owned', '2021-01-01 00:00:00+00')) BETWEEN 508 AND 511 AS on_a_reserved_node;
DROP EXTENSION idgen;
