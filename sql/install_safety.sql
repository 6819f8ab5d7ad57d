-- Installed in a schema of its own and called with a search_path that does not hold it, or
-- that puts look-alike objects first: every function still finds the extension's own objects.
CREATE SCHEMA ids;
CREATE EXTENSION idgen SCHEMA ids;
SET search_path = public;
SELECT ids.snowflake_create('x', max_nodes => 512);
SELECT ids.snowflake_next('x') > 0 AS next_ok,
       ids.snowflake_node('x', ids.snowflake_next('x')) AS node,
       ids.snowflake_min_id('x', '-infinity') AS min_id;
SELECT name, max_nodes, state FROM ids.snowflake_sequencers;
SELECT ids.uuid_version(ids.uuid_v1()) AS v1,
       ids.locality_uuid_pid(ids.locality_uuid()) = pg_backend_pid() % 65536 AS our_pid,
       ids.unique_timestamp_host(ids.unique_timestamp()) AS host,
       ids.uuid_v1_clock_seq(ids.form_uuid_v1(now(), 5, '00:00:00:00:00:01')) AS clock_seq;

-- Look-alikes earlier in the search_path are ignored.
CREATE SCHEMA evil;
CREATE TABLE evil.snowflake_definitions (id bigint, name text, epoch timestamptz, max_nodes int);
INSERT INTO evil.snowflake_definitions VALUES (1, 'y', '2000-01-01', 8192);
CREATE FUNCTION evil._snowflake_check_definition(text, timestamptz, integer) RETURNS integer
    LANGUAGE sql AS 'SELECT 1';
SET search_path = evil, public, ids;
SELECT ids.snowflake_create('y', max_nodes => 512);
SELECT count(*) AS evil_rows_untouched FROM evil.snowflake_definitions;
SELECT max_nodes FROM ids.snowflake_definitions WHERE name = 'y';
SELECT ids.snowflake_next('y') > 0 AS next_ok, ids.snowflake_counter('y', 1) AS counter;
SELECT ids.snowflake_drop('y');
SELECT count(*) AS still_untouched FROM evil.snowflake_definitions;
RESET search_path;

DROP EXTENSION idgen;
DROP SCHEMA ids;
DROP SCHEMA evil CASCADE;
