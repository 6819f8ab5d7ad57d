-- Drops of Snowflake sequencers inside subtransactions and prepared transactions:
-- the shared-memory slot of a dropped sequencer is released when, and only when, the
-- drop itself commits. A drop that a savepoint or an EXCEPTION block undoes leaves the
-- sequencer working; a drop in a transaction to be prepared is refused at PREPARE.
CREATE EXTENSION idgen;
SELECT snowflake_create('s', max_nodes => 512);
SELECT snowflake_next('s') > 0 AS works;

-- ROLLBACK TO SAVEPOINT undoes the drop: after COMMIT the sequencer is defined and works.
BEGIN;
SAVEPOINT a;
SELECT snowflake_drop('s');
ROLLBACK TO a;
COMMIT;
SELECT count(*) AS defined FROM snowflake_definitions WHERE name = 's';
SELECT snowflake_next('s') > 0 AS survives_rollback_to_savepoint;

-- A PL/pgSQL EXCEPTION block that catches an error raised after the drop undoes it too.
DO $$
BEGIN
    BEGIN
        PERFORM snowflake_drop('s');
        RAISE EXCEPTION 'changed my mind';
    EXCEPTION WHEN raise_exception THEN
        RAISE NOTICE 'caught: %', SQLERRM;
    END;
END $$;
SELECT count(*) AS defined FROM snowflake_definitions WHERE name = 's';
SELECT snowflake_next('s') > 0 AS survives_exception_block;

-- A drop in a savepoint that is released belongs to the enclosing transaction, and an outer
-- ROLLBACK TO discards it with everything the inner savepoints handed up.
BEGIN;
SAVEPOINT a;
SAVEPOINT b;
SELECT snowflake_drop('s');
RELEASE b;
ROLLBACK TO a;
COMMIT;
SELECT snowflake_next('s') > 0 AS survives_rollback_of_released_savepoint;

-- Drop and re-create inside nested savepoints: the first 's' is dropped at commit, the second
-- one's drop is rolled back, so the second one works and starts above every id of the first.
SELECT snowflake_next('s') AS first_id \gset
BEGIN;
SAVEPOINT outer_sp;
SELECT snowflake_drop('s');
SELECT snowflake_create('s', max_nodes => 512);
SAVEPOINT inner_sp;
SELECT snowflake_drop('s');
ROLLBACK TO inner_sp;
RELEASE outer_sp;
COMMIT;
SELECT count(*) AS defined FROM snowflake_definitions WHERE name = 's';
SELECT snowflake_next('s') > :first_id AS second_works_above_first;

-- The same in a function with nested EXCEPTION blocks: drop, create, then a drop undone by the
-- inner block; the outer block completes.
SELECT snowflake_next('s') AS second_id \gset
DO $$
BEGIN
    BEGIN
        PERFORM snowflake_drop('s');
        PERFORM snowflake_create('s', max_nodes => 512);
        BEGIN
            PERFORM snowflake_drop('s');
            RAISE EXCEPTION 'undo the second drop';
        EXCEPTION WHEN raise_exception THEN
            NULL;
        END;
    END;
END $$;
SELECT snowflake_next('s') > :second_id AS third_works_above_second;

-- A committed drop still takes effect, also from a released savepoint.
BEGIN;
SAVEPOINT a;
SELECT snowflake_drop('s');
RELEASE a;
COMMIT;
SELECT snowflake_next('s');

-- Prepared transactions: a transaction that dropped a sequencer cannot be prepared (COMMIT
-- PREPARED may run in another session, or after a restart, where no callback of this library
-- runs); the failed PREPARE rolls the drop back.
SELECT snowflake_create('p', max_nodes => 512);
SELECT snowflake_next('p') > 0 AS works;
BEGIN;
SELECT snowflake_drop('p');
PREPARE TRANSACTION 'idgen_drop';
ROLLBACK PREPARED 'idgen_drop';
SELECT count(*) AS defined FROM snowflake_definitions WHERE name = 'p';
SELECT snowflake_next('p') > 0 AS survives_refused_prepare;
-- A drop that a savepoint undid does not stand in the way.
BEGIN;
SAVEPOINT a;
SELECT snowflake_drop('p');
ROLLBACK TO a;
SELECT snowflake_create('q', max_nodes => 512);
PREPARE TRANSACTION 'idgen_undone_drop';
COMMIT PREPARED 'idgen_undone_drop';
SELECT snowflake_next('p') > 0 AS survives_commit_prepared,
       snowflake_next('q') > 0 AS prepared_create_works;
-- Dropping in an ordinary transaction afterwards works as always.
SELECT snowflake_drop('p');
SELECT snowflake_next('p');

DROP EXTENSION idgen;
