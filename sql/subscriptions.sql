-- Moves by logical replication: while a subscription exists, retrospective ids wait until the
-- publisher's state is taken over (at DROP SUBSCRIPTION, or by idgen_carry_state while it is
-- disabled) or declared not needed (idgen_forget_subscription). The full moves, with
-- publishers, are TAP tests (test/tap/067_logical_replication.pl); here: the functions' errors
-- and the guard's life.
CREATE EXTENSION idgen;
\set VERBOSITY sqlstate
SELECT idgen_carry_state(NULL);
SELECT idgen_carry_state('no_such_subscription');
SELECT idgen_carry_state('no_such_subscription', 'host=/nonexistent port=1 dbname=x');
SELECT idgen_forget_subscription('no_such_subscription');
SELECT idgen_forget_subscription(NULL);
SELECT idgen_forget_subscription('no_such_subscription', database => 'no_such_database');
SELECT idgen_carry_state('no_such_subscription', database => current_database());
\set VERBOSITY default

-- A subscription whose publisher does not answer (connect = false): its node id is unknown, so
-- every retrospective generator waits, the live ones do not.
SET client_min_messages = error;  -- PostgreSQL's own WARNING differs between majors
CREATE SUBSCRIPTION guarded CONNECTION 'host=/nonexistent port=1 dbname=x' PUBLICATION p WITH (connect = false);
RESET client_min_messages;
SELECT uuid_v1_at('2001-01-01 00:00:00+00');
\set VERBOSITY sqlstate
SELECT uuid_v1_at('2001-01-01 00:00:00+00', '08:00:2b:01:02:03');
SELECT uuid_v6_at('2001-01-01 00:00:00+00');
SELECT uuid_v7_at('2001-01-01 00:00:00+00');
\set VERBOSITY default
SELECT uuid_v1() IS NOT NULL AS live_uuid_v1, uuid_v7() IS NOT NULL AS live_uuid_v7;

-- idgen_carry_state needs the subscription disabled (rows taken later would not be covered);
-- a publisher that does not answer is an error.
ALTER SUBSCRIPTION guarded ENABLE;
\set VERBOSITY sqlstate
SELECT idgen_carry_state('guarded');
ALTER SUBSCRIPTION guarded DISABLE;
SELECT idgen_carry_state('guarded');
\set VERBOSITY default

-- Declared not needed: the wait ends at once, and DROP SUBSCRIPTION does not try the publisher
-- and frees the guard's row.
SELECT idgen_forget_subscription('guarded');
SELECT count(DISTINCT u) AS ids FROM (SELECT uuid_v1_at('2001-01-01 00:00:00+00') AS u FROM generate_series(1, 3)) s;
ALTER SUBSCRIPTION guarded SET (slot_name = NONE);
DROP SUBSCRIPTION guarded;
SELECT count(*) AS guard_rows FROM reserved_state WHERE kind = -1;

-- A subscription that never brought a row (made with connect = false, never enabled, no slot)
-- drops as PostgreSQL drops it: nothing to take over, no connection tried, no message.
SET client_min_messages = error;
CREATE SUBSCRIPTION never_used CONNECTION 'host=/nonexistent port=1 dbname=x' PUBLICATION p WITH (connect = false);
RESET client_min_messages;
ALTER SUBSCRIPTION never_used SET (slot_name = NONE);
DROP SUBSCRIPTION never_used;
SELECT count(*) AS guard_rows FROM reserved_state WHERE kind = -1;
DROP EXTENSION idgen;
