-- idgen 0.7.0: retrospective ids through moves by logical replication: the restore trigger of
-- reserved_state fires in replication workers too, subscriptions are guarded and their
-- publisher's state taken over when they are dropped.

\echo Use "ALTER EXTENSION idgen UPDATE" to load this file. \quit

-- ---- Moves by logical replication (README, Logical replication) ---------------------------------
-- Table sync and apply workers run with session_replication_role = replica, where only ALWAYS
-- triggers fire: the initial copy of a publication that includes reserved_state is taken over
-- through the same trigger as a restore.
ALTER TABLE @extschema@.reserved_state ENABLE ALWAYS TRIGGER merge_restored_rows;

-- CREATE SUBSCRIPTION writes a guard for the subscription (retrospective ids that could meet
-- the publisher's wait); DROP SUBSCRIPTION takes the publisher's state over and lifts it.
CREATE FUNCTION @extschema@._subscription_event() RETURNS event_trigger
    AS 'MODULE_PATHNAME', 'idgen_subscription_event'
    LANGUAGE C;
COMMENT ON FUNCTION @extschema@._subscription_event() IS
    'internal: guards retrospective ids while a subscription brings another server''s rows, and takes the publisher''s state over when it is dropped';
CREATE EVENT TRIGGER idgen_subscription_dropping ON ddl_command_start
    WHEN TAG IN ('DROP SUBSCRIPTION') EXECUTE FUNCTION @extschema@._subscription_event();
CREATE EVENT TRIGGER idgen_subscription_changed ON ddl_command_end
    WHEN TAG IN ('CREATE SUBSCRIPTION', 'DROP SUBSCRIPTION') EXECUTE FUNCTION @extschema@._subscription_event();

CREATE FUNCTION @extschema@.idgen_carry_state(subscription name, conninfo text DEFAULT NULL) RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_carry_state'
    LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.idgen_carry_state(name, text) IS
    'Takes the idgen state of a subscription''s publisher over (its own conninfo unless one is given) and lifts the subscription''s guard once it is dropped';
REVOKE ALL ON FUNCTION @extschema@.idgen_carry_state(name, text) FROM PUBLIC;

CREATE FUNCTION @extschema@.idgen_forget_subscription(subscription name) RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_forget_subscription'
    LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION @extschema@.idgen_forget_subscription(name) IS
    'Declares that a subscription''s publisher made no retrospective ids to take into account: lifts its guard';
REVOKE ALL ON FUNCTION @extschema@.idgen_forget_subscription(name) FROM PUBLIC;
