-- idgen 0.9.3: idgen_carry_state and idgen_forget_subscription also name a subscription of
-- another database (database => ...), so that a database whose retrospective ids wait for a
-- subscription elsewhere has its way out from where the error is raised.

\echo Use "ALTER EXTENSION idgen UPDATE" to load this file. \quit

DROP FUNCTION @extschema@.idgen_carry_state(name, text);
CREATE FUNCTION @extschema@.idgen_carry_state(subscription name, conninfo text DEFAULT NULL, database name DEFAULT NULL)
    RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_carry_state'
    LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.idgen_carry_state(name, text, name) IS
    'Takes the idgen state of a publisher over: of a disabled subscription''s (from its own conninfo unless one is given; of another database with database => ...), or from the conninfo given';
REVOKE ALL ON FUNCTION @extschema@.idgen_carry_state(name, text, name) FROM PUBLIC;

DROP FUNCTION @extschema@.idgen_forget_subscription(name);
CREATE FUNCTION @extschema@.idgen_forget_subscription(subscription name, database name DEFAULT NULL) RETURNS void
    AS 'MODULE_PATHNAME', 'idgen_forget_subscription'
    LANGUAGE C VOLATILE;
COMMENT ON FUNCTION @extschema@.idgen_forget_subscription(name, name) IS
    'Declares that a subscription''s publisher (of another database with database => ...) made no retrospective ids to take into account';
REVOKE ALL ON FUNCTION @extschema@.idgen_forget_subscription(name, name) FROM PUBLIC;
