-- idgen 0.9.2: no change to the extension's objects. The registry worker of cluster mode watches
-- etcd instead of polling it (the shared library); the version moves so that packages and the
-- plain-SQL edition's pg_tle registration say which library they go with.

\echo Use "ALTER EXTENSION idgen UPDATE" to load this file. \quit
