-- idgen 0.9.6: no change to the extension's objects. The library of 0.9.6 notices an etcd
-- restored from a snapshot also when the servers' writes carry its revision past the one they
-- remembered before they look again.

\echo Use "ALTER EXTENSION idgen UPDATE" to load this file. \quit
