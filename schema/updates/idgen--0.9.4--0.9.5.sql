-- idgen 0.9.5: no change to the extension's objects. The version moves with the plain-SQL
-- edition beside it (hosted/), which 0.9.5 gives a node id of the database (idgen_set_node_id)
-- and registers with pg_tle under the same version number.

\echo Use "ALTER EXTENSION idgen UPDATE" to load this file. \quit
