-- idgen 0.9.4: cluster mode notices an etcd that forgot what the registry held (restored from a
-- snapshot, rebuilt empty, its keys deleted): idgen_registry shows the state 'forgotten', and
-- idgen_registry_rebuild() ends the wait once every server seeded the registry again.

\echo Use "ALTER EXTENSION idgen UPDATE" to load this file. \quit

COMMENT ON VIEW @extschema@.idgen_registry IS
    'Cluster mode: this server''s lease in etcd (off, attaching, attached, detached, or forgotten: etcd lost what the registry held), its node id, the time left before its own deadline, the registry horizon, attaches and detaches, the last registry error, the cluster''s name and how many servers hold a node id in it';
CREATE FUNCTION @extschema@.idgen_registry_rebuild() RETURNS text
    AS 'MODULE_PATHNAME', 'idgen_registry_rebuild'
    LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.idgen_registry_rebuild() IS
    'Cluster mode: ends the wait after etcd forgot what the registry held, once every server of the cluster seeded it (idgen_registry.state = forgotten on each)';
REVOKE ALL ON FUNCTION @extschema@.idgen_registry_rebuild() FROM PUBLIC;
