-- idgen 0.7.0: retrospective ids through moves by logical replication: the restore trigger of
-- reserved_state fires in replication workers too; idgen_carry_state and idgen_forget_subscription
-- for subscriptions whose publisher is gone.

\echo Use "ALTER EXTENSION idgen UPDATE" to load this file. \quit

-- ---- Moves by logical replication (README, Logical replication) ---------------------------------
-- Table sync and apply workers run with session_replication_role = replica, where only ALWAYS
-- triggers fire: the initial copy of a publication that includes reserved_state is taken over
-- through the same trigger as a restore.
ALTER TABLE @extschema@.reserved_state ENABLE ALWAYS TRIGGER merge_restored_rows;

-- Subscriptions are watched by the library (a hook on CREATE, ALTER and DROP SUBSCRIPTION):
-- retrospective ids that could equal the publisher's wait while one exists, and DROP
-- SUBSCRIPTION takes the publisher's state over. By hand, for a publisher that is gone:
CREATE FUNCTION @extschema@.idgen_carry_state(subscription name, conninfo text DEFAULT NULL) RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_carry_state'
    LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.idgen_carry_state(name, text) IS
    'Takes the idgen state of a publisher over: of a disabled subscription''s (from its own conninfo unless one is given), or from the conninfo given';
REVOKE ALL ON FUNCTION @extschema@.idgen_carry_state(name, text) FROM PUBLIC;

CREATE FUNCTION @extschema@.idgen_forget_subscription(subscription name) RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_forget_subscription'
    LANGUAGE C VOLATILE STRICT;
COMMENT ON FUNCTION @extschema@.idgen_forget_subscription(name) IS
    'Declares that a subscription''s publisher made no retrospective ids to take into account';
REVOKE ALL ON FUNCTION @extschema@.idgen_forget_subscription(name) FROM PUBLIC;
