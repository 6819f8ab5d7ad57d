-- Cluster mode's SQL surface on a server without it (no idgen.registry): the registry view says
-- 'off', attach, detach and the registry's rebuild refuse with 55000 and say what is missing, and the sequencers view
-- keeps idgen.node_id's meaning. (With a registry: test/tap/100_registry.pl.)
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
DROP EXTENSION idgen;
