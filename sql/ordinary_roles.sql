-- What an ordinary role (no grants beyond PUBLIC's) may run. Every function that runs with its
-- owner's rights (SECURITY DEFINER) is the owner's to grant: an ordinary role is refused (42501)
-- with each, so it can neither define nor drop sequencers nor have the owner take a Citus
-- coordinator's definitions on demand; the functions that change server-wide state are refused
-- to it too. The owner itself is refused (55000) the Citus worker's fetch where this is no worker.
CREATE EXTENSION idgen;
CREATE ROLE idgen_ordinary;
-- Every function an ordinary role may not run, and which of them run with their owner's rights:
SELECT p.oid::regprocedure AS function, p.prosecdef AS security_definer
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'idgen')
  AND NOT has_function_privilege('idgen_ordinary', p.oid, 'EXECUTE')
ORDER BY 1::text;
-- None that runs with its owner's rights is left to it:
SELECT count(*) AS security_definer_an_ordinary_role_may_run
FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'idgen')
  AND p.prosecdef AND has_function_privilege('idgen_ordinary', p.oid, 'EXECUTE');
SELECT snowflake_create('owned');
\set VERBOSITY sqlstate
SET ROLE idgen_ordinary;
SELECT idgen_internal._citus_fetch_sequencer('owned');
SELECT snowflake_create('mine');
SELECT snowflake_drop('owned');
SELECT idgen_internal._snowflake_release('snowflake_definitions'::regclass, 1, 'owned');
SELECT idgen_internal._citus_to_workers('x', 'SELECT 1');
SELECT idgen_registry_rebuild();
-- What it may: draw, and read the views.
SELECT snowflake_next('owned') > 0 AS draws;
SELECT count(*) AS sees_sequencers FROM snowflake_sequencers WHERE name = 'owned';
RESET ROLE;
\set VERBOSITY default
SELECT idgen_internal._citus_fetch_sequencer('owned');
SELECT snowflake_drop('owned');
DROP EXTENSION idgen;
DROP ROLE idgen_ordinary;
