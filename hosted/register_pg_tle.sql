-- Registers the plain-SQL edition (idgen_hosted.sql beside this file) with pg_tle, as the
-- extension idgen_hosted, on a service that offers pg_tle but no C extension of ours. The
-- extension's script is the edition's file as it is, so both ways of installing it give the same
-- functions; what this adds is that the edition's state is then an extension's configuration,
-- which pg_dump must dump: the Snowflake sequencers' definitions, the ends of dropped sequencers'
-- ids, the node id, the serial numbers of the UUID generators and the mask keys
-- (pg_extension_config_dump; the sequencers' own sequences are made by snowflake_create, after
-- CREATE EXTENSION, so they are not the extension's and pg_dump dumps them as it dumps any
-- sequence). Without those lines a restored database would know no sequencer, would start a
-- sequencer made again below its dropped ids, would not know the node id its original had, would
-- hand out the UUID serial numbers again from the start, and would have lost the keys of every
-- masked id. Keyed masking needs pgcrypto: create it (in any schema) before idgen_hosted, or
-- after it and then, as the extension's owner, SELECT idgen._idgen_mask_bind().
--
-- Run it with psql from the top directory of the idgen checkout (it reads the edition and the
-- version from there), as a role that may install pg_tle extensions (pgtle_admin):
--   psql -d mydb -c 'CREATE EXTENSION IF NOT EXISTS pg_tle'    (the service's administrator role)
--   psql -d mydb -f hosted/register_pg_tle.sql
-- and then, as any role that may create a schema in that database:
--   CREATE SCHEMA idgen;
--   CREATE EXTENSION idgen_hosted SCHEMA idgen;
-- Run from a newer checkout where an earlier version is registered, it registers this version
-- beside it with the update path from the registered default (the edition's file updates any
-- earlier version in place) and makes it the default; then, as the extension's owner:
--   ALTER EXTENSION idgen_hosted UPDATE;

\set ON_ERROR_STOP on
\set version `sed -n "s/^default_version = '\(.*\)'/\1/p" idgen.control`
\set description 'idgen in plain SQL: decoders of time-based ids, and generators unique by construction from sequences'
-- The edition and, in the same script, its state made the extension's configuration: pg_dump
-- dumps these as it dumps the plain file's tables and sequences.
\set edition `cat hosted/idgen_hosted.sql; printf '%s\n' "SELECT pg_catalog.pg_extension_config_dump('snowflake_definitions', '');" "SELECT pg_catalog.pg_extension_config_dump('_idgen_uuid_serial', '');" "SELECT pg_catalog.pg_extension_config_dump('_idgen_snowflake_retired', '');" "SELECT pg_catalog.pg_extension_config_dump('_idgen_node', '');" "SELECT pg_catalog.pg_extension_config_dump('idgen_mask_keys', '');"`

SELECT count(*) = 1 AS updating, max(default_version) AS registered
FROM pgtle.available_extensions() WHERE name = 'idgen_hosted' \gset
\if :updating
SELECT pgtle.install_extension_version_sql('idgen_hosted', :'version', :'edition')
WHERE :'version' NOT IN (SELECT version FROM pgtle.available_extension_versions() WHERE name = 'idgen_hosted');
SELECT pgtle.install_update_path('idgen_hosted', :'registered', :'version', :'edition')
WHERE :'registered' <> :'version';
SELECT pgtle.set_default_version('idgen_hosted', :'version');
\else
SELECT pgtle.install_extension('idgen_hosted', :'version', :'description', :'edition');
\endif
