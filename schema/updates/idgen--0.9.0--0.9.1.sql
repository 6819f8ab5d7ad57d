-- idgen 0.9.1: no change to the extension's objects. The version moves with the plain-SQL
-- edition beside it (hosted/), which 0.9.1 packages for pg_tle as the extension idgen_hosted
-- under the same version number.

\echo Use "ALTER EXTENSION idgen UPDATE" to load this file. \quit
