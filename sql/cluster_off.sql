-- Cluster mode's SQL surface on a server without it (no idgen.registry): the registry view says
-- 'off', attach, detach and the registry's rebuild refuse with 55000 and say what is missing, and the sequencers view
-- keeps idgen.node_id's meaning. (With a registry: test/tap/100_registry.pl.) Nor is it a Citus node
-- whose node id is its group: snowflake_create and snowflake_drop reach no other server, and a
-- sequencer's epoch goes to another node as text that reads back the same under any DateStyle and
-- TimeZone. (On Citus: test/tap/124_citus_sequencers.pl.)
CREATE EXTENSION idgen;
SELECT state, node_id, lease_id, lease_left, horizon, attaches, detaches, last_error, cluster, servers FROM idgen_registry;
SELECT snowflake_create('cluster_off', '2024-01-01');
SELECT snowflake_attach('cluster_off');
SELECT snowflake_detach('cluster_off');
SELECT idgen_registry_rebuild();
\set VERBOSITY sqlstate
SELECT snowflake_attach('cluster_off');
SELECT snowflake_attach('no_such_sequencer');
\set VERBOSITY default
SELECT snowflake_attach(NULL), snowflake_detach(NULL);
SELECT name, node_id, state FROM snowflake_sequencers WHERE name = 'cluster_off';
SELECT snowflake_drop('cluster_off');
SELECT idgen_internal._citus_group() IS NULL AS no_citus_group;
SET DateStyle = 'SQL, DMY';
SET TimeZone = 'America/New_York';
SELECT idgen_internal._citus_epoch_text('2020-03-04 05:06:07.123456+00') AS epoch_text,
       idgen_internal._citus_epoch_text('2020-03-04 05:06:07.123456+00')::timestamptz = '2020-03-04 05:06:07.123456+00' AS reads_back,
       idgen_internal._citus_epoch_text(NULL) IS NULL AS strict;
RESET DateStyle;
RESET TimeZone;
DROP EXTENSION idgen;
