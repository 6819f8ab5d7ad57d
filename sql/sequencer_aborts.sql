-- Creations of Snowflake sequencers that abort, and names defined again. A sequencer created in a
-- transaction or subtransaction that aborts leaves nothing: no shared-memory slot held (more aborted
-- creations with draws than there are slots, and a new sequencer still gets one) and no binding
-- cached in the session that made it. A name dropped and defined again, with another epoch, node
-- count or layout, issues only ids above every id its earlier definitions issued on this server,
-- or is refused (55000) where it could not start within idgen.max_lead + idgen.max_wait of the
-- clock; snowflake_at refuses a name defined before with another definition.
CREATE EXTENSION idgen;
\set VERBOSITY sqlstate

-- A create rolled back after a draw: the session's cached binding goes with it (the name does
-- not exist), and the name created again starts above the rolled-back ids.
BEGIN;
SELECT snowflake_create('r');
SELECT max(snowflake_next('r')) AS rolled_back_max FROM generate_series(1, 5000) \gset
ROLLBACK;
SELECT snowflake_next('r');
SELECT snowflake_create('r');
SELECT min(snowflake_next('r')) > :rolled_back_max AS above_rolled_back FROM generate_series(1, 10);

-- A creation rolled back after snowflake_at alone (which binds no slot): the session's cache
-- forgets it all the same (the creation queued an invalidation, which the rollback runs here).
BEGIN;
SELECT snowflake_create('rb_at', max_nodes => 512, backfill_nodes => 4);
SELECT snowflake_at('rb_at', '2024-01-01 00:00:00+00') > 0 AS backfilled;
ROLLBACK;
SELECT snowflake_at('rb_at', '2024-01-01 00:00:00+00');

-- The same, made again with an epoch 1 s later (in Sony's layout, of 10 ms ticks): above the
-- rolled-back ids too, which no table kept: the server remembers the aborted definition's layout.
BEGIN;
SELECT snowflake_create('ra', '2020-01-01 00:00:00+00', layout => 'sonyflake');
SELECT max(snowflake_next('ra')) AS rolled_back_max FROM generate_series(1, 3000) \gset
ROLLBACK;
SELECT snowflake_create('ra', '2020-01-01 00:00:01+00', layout => 'sonyflake');
SELECT min(snowflake_next('ra')) > :rolled_back_max AS above_rolled_back_later_epoch FROM generate_series(1, 10);

-- 70 creations with a draw each, undone by an EXCEPTION block, then 10 by top-level ROLLBACK:
-- more than the 64 slots, and the slots all came back.
DO $$
BEGIN
    FOR i IN 1..70 LOOP
        BEGIN
            PERFORM snowflake_create('undone' || i);
            PERFORM snowflake_next('undone' || i);
            RAISE EXCEPTION 'undo';
        EXCEPTION WHEN raise_exception THEN
            NULL;
        END;
    END LOOP;
END $$;
SELECT format('BEGIN; SELECT snowflake_create(%L); SELECT snowflake_next(%L) > 0; ROLLBACK;', 'top' || i, 'top' || i)
FROM generate_series(1, 10) i \gexec
SELECT snowflake_create('after_aborts');
SELECT snowflake_next('after_aborts') > 0 AS a_slot_is_free;
SELECT count(*) AS defined FROM snowflake_definitions WHERE name LIKE 'undone%' OR name LIKE 'top%';

-- A creation undone by ROLLBACK TO SAVEPOINT inside a transaction that commits.
BEGIN;
SAVEPOINT a;
SELECT snowflake_create('sp');
SELECT snowflake_next('sp') AS savepoint_id \gset
ROLLBACK TO a;
SELECT snowflake_next('sp');
ROLLBACK;
SELECT snowflake_create('sp');
SELECT snowflake_next('sp') > :savepoint_id AS above_savepoint_ids;

-- A prepared creation: its slot is released at PREPARE; COMMIT PREPARED makes the sequencer,
-- whose next slot starts above the prepared draws; ROLLBACK PREPARED leaves nothing.
BEGIN;
SELECT snowflake_create('prepared');
SELECT snowflake_next('prepared') AS prepared_id \gset
PREPARE TRANSACTION 'idgen_prepared_create';
COMMIT PREPARED 'idgen_prepared_create';
SELECT snowflake_next('prepared') > :prepared_id AS above_prepared_ids;
BEGIN;
SELECT snowflake_create('unprepared');
SELECT snowflake_next('unprepared') AS unprepared_id \gset
PREPARE TRANSACTION 'idgen_unprepared_create';
ROLLBACK PREPARED 'idgen_unprepared_create';
SELECT snowflake_next('unprepared');
SELECT snowflake_create('unprepared');
SELECT snowflake_next('unprepared') > :unprepared_id AS above_unprepared_ids;

-- A name defined again with an epoch 2 s later: the same time is 2,000 fewer ticks, and its ids
-- still start above every earlier one (2 s ahead of the clock, within idgen.max_lead).
SELECT snowflake_create('n', '2020-01-01 00:00:00+00');
SELECT max(snowflake_next('n')) AS n_max FROM generate_series(1, 5000) \gset
SELECT snowflake_drop('n');
SELECT snowflake_create('n', '2020-01-01 00:00:02+00');
SELECT min(snowflake_next('n')) > :n_max AS later_epoch_above FROM generate_series(1, 10);
SELECT max(snowflake_next('n')) AS n_max FROM generate_series(1, 10) \gset
-- Fewer nodes (more counter bits) and an earlier epoch: above too, with no wait.
SELECT snowflake_drop('n');
SELECT snowflake_create('n', '2019-01-01 00:00:00+00', max_nodes => 512);
SELECT min(snowflake_next('n')) > :n_max AS earlier_epoch_above FROM generate_series(1, 10);
SELECT max(snowflake_next('n')) AS n_max FROM generate_series(1, 10) \gset
-- A minute later: its first id would lie a minute ahead of the clock. Refused (how far ahead is
-- in the DETAIL), and the name can still be defined as it was.
SELECT snowflake_drop('n');
SELECT snowflake_create('n', '2019-01-01 00:01:00+00', max_nodes => 512);
\set VERBOSITY terse
SELECT snowflake_create('n', '2019-01-01 00:01:00+00', max_nodes => 512);
\set VERBOSITY sqlstate
-- Fewer bits below the time field (javascript: 12, idgen: 22): no id of it lies above.
SELECT snowflake_create('n', '2019-01-01 00:00:00+00', max_nodes => 64, layout => 'javascript');
-- Sony's ticks from its 2014 epoch: 2.5 times the time since, years ahead.
SELECT snowflake_create('n', preset => 'sonyflake');
SELECT snowflake_create('n', '2019-01-01 00:00:00+00', max_nodes => 512);
SELECT min(snowflake_next('n')) > :n_max AS as_before_above FROM generate_series(1, 10);
SELECT name, epoch, max_nodes, layout FROM snowflake_retired WHERE name = 'n' ORDER BY epoch, max_nodes;

-- Retrospective ids: a name defined again as it was goes on; with another definition,
-- snowflake_at refuses (its ids fall at past times, among the earlier definition's).
SELECT snowflake_create('b', max_nodes => 512, backfill_nodes => 4);
SELECT snowflake_at('b', '2024-01-01 00:00:00+00') > 0 AS backfills;
SELECT snowflake_drop('b');
SELECT snowflake_create('b', max_nodes => 512, backfill_nodes => 4);
SELECT snowflake_at('b', '2024-01-01 00:00:00+00') > 0 AS backfills_again;
SELECT snowflake_drop('b');
SELECT snowflake_create('b', max_nodes => 1024, backfill_nodes => 4);
SELECT snowflake_next('b') > 0 AS live_ids_work;
\set VERBOSITY default
SELECT snowflake_at('b', '2024-01-01 00:00:00+00');

-- DROP EXTENSION leaves no slot held: 40 sequencers drawn from, the extension dropped and made
-- again, 40 more (80 of the 64 slots).
DO $$
BEGIN
    FOR i IN 1..40 LOOP
        PERFORM snowflake_create('gone' || i, max_nodes => 512);
        PERFORM snowflake_next('gone' || i);
    END LOOP;
END $$;
DROP EXTENSION idgen;
CREATE EXTENSION idgen;
DO $$
BEGIN
    FOR i IN 1..40 LOOP
        PERFORM snowflake_create('again' || i, max_nodes => 512);
        PERFORM snowflake_next('again' || i);
    END LOOP;
END $$;
SELECT count(*) AS drawing FROM snowflake_sequencers WHERE ids_issued > 0;
DROP EXTENSION idgen;
