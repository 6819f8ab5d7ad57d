-- idgen_backfill, the online backfill: every refusal with its SQLSTATE; then small tables filled
-- in several batches (a primary key, a composite one, none, a partitioned table; each generator
-- family), each id carrying its row's time, no id twice; a run stopped by an error and resumed;
-- a second CALL that fills nothing; the keyset by the primary key where the filled column has a
-- unique index too; an ordinary role on its own table; the progress view.
CREATE EXTENSION idgen;
SELECT snowflake_create('ev_sf', '2010-01-01 00:00:00+00', max_nodes => 1024, backfill_nodes => 16);
CREATE TABLE ev (k bigint PRIMARY KEY, created_at timestamptz, id uuid, v1 uuid, v6 uuid, live uuid,
                 sf bigint, u text, t varchar(40), num numeric, filled uuid NOT NULL DEFAULT gen_random_uuid());
-- 1,000 rows, ten to each microsecond: ids of one time must still differ.
INSERT INTO ev (k, created_at)
SELECT g, '2015-06-15 12:00:00.123456+00'::timestamptz + (g / 10) * interval '1.001001 second'
FROM generate_series(1, 1000) g;
CREATE VIEW ev_view AS SELECT * FROM ev;

\set VERBOSITY sqlstate
CALL idgen_backfill(NULL, 'id', 'uuid_v7_at', 'created_at');                        -- 22004
CALL idgen_backfill('ev', 'id', NULL, 'created_at');                                -- 22004
CALL idgen_backfill('ev_view', 'id', 'uuid_v7_at', 'created_at');                   -- 42809
CALL idgen_backfill('ev', 'nope', 'uuid_v7_at', 'created_at');                      -- 42703
CALL idgen_backfill('ev', 'id', 'uuid_v7_at', 'nope');                              -- 42703
CALL idgen_backfill('ev', 'id', 'uuid_v9_at', 'created_at');                        -- 22023: unknown
CALL idgen_backfill('ev', 'sf', 'snowflake_at', 'created_at');                      -- 22023: no sequencer
CALL idgen_backfill('ev', 'id', 'uuid_v7_at:x', 'created_at');                      -- 22023: no argument taken
CALL idgen_backfill('ev', 'id', 'uuid_v7_at');                                      -- 22023: no time column
CALL idgen_backfill('ev', 'id', 'uuid_v7', 'created_at');                           -- 22023: a live one takes none
CALL idgen_backfill('ev', 'sf', 'snowflake_at:nope', 'created_at');                 -- 42704
CALL idgen_backfill('ev', 't', 'typeid_at:Bad-Prefix', 'created_at');               -- 22023: no TypeID prefix
CALL idgen_backfill('ev', 'sf', 'uuid_v7_at', 'created_at');                        -- 42804
CALL idgen_backfill('ev', 'id', 'snowflake_at:ev_sf', 'created_at');                -- 42804
CALL idgen_backfill('ev', 'num', 'ulid_at', 'created_at');                          -- 42804
CALL idgen_backfill('ev', 'id', 'uuid_v7_at', 'k');                                 -- 42804: a time column of another type
CALL idgen_backfill('ev', 'id', 'uuid_v7_at', 'created_at', batch_rows => 0);       -- 22023
CALL idgen_backfill('ev', 'id', 'uuid_v7_at', 'created_at', pause => '-1 s');       -- 22023
CALL idgen_backfill('ev', 'id', 'uuid_v7_at', 'created_at', max_replication_lag => -1);   -- 22023
CALL idgen_backfill('ev', 'id', 'uuid_v7_at', 'created_at', notice_every => -1);    -- 22023
BEGIN;
CALL idgen_backfill('ev', 'id', 'uuid_v7_at', 'created_at');                        -- 25001
ROLLBACK;
SET default_transaction_isolation = 'repeatable read';
CALL idgen_backfill('ev', 'id', 'uuid_v7_at', 'created_at');                        -- 25000
RESET default_transaction_isolation;
CREATE ROLE idgen_backfiller;
GRANT CREATE ON SCHEMA public TO idgen_backfiller;
SET ROLE idgen_backfiller;
CALL idgen_backfill('ev', 'id', 'uuid_v7_at', 'created_at');                        -- 42501: not its table
CREATE TABLE mine (k integer PRIMARY KEY, at timestamptz NOT NULL, id uuid);
CALL idgen_backfill('mine', 'id', 'uuid_v7_at', 'at', max_replication_lag => 0);    -- 42501: cannot read the standbys
RESET ROLE;
\set VERBOSITY default
CALL idgen_backfill('ev', 'filled', 'uuid_v7');                                     -- a NOT NULL column: nothing to fill

-- A row without a time stops the run (the generator's 22004) after the batches before it
-- committed; another generator is then refused (55000) until the run is finished or deleted;
-- the same one, once the row has its time, continues where it stopped.
UPDATE ev SET created_at = NULL WHERE k = 450;
\set VERBOSITY sqlstate
CALL idgen_backfill('ev', 'id', 'uuid_v7_at', 'created_at', batch_rows => 100);     -- 22004
CALL idgen_backfill('ev', 'id', 'uuid_v1_at', 'created_at', batch_rows => 100);     -- 55000
\set VERBOSITY default
SELECT state, phase, rows_done, batches, partition, count(id) AS filled
FROM idgen_backfill_progress, ev WHERE relation = 'ev'::regclass AND id_column = 'id'
GROUP BY 1, 2, 3, 4, 5;
UPDATE ev SET created_at = '2015-06-15 12:00:45.123456+00' WHERE k = 450;
CALL idgen_backfill('ev', 'id', 'uuid_v7_at', 'created_at', batch_rows => 100, notice_every => 3);
SELECT state, phase, rows_done, batches, rows_left_estimate, rows_per_second > 0 AS has_rate, finished_at IS NOT NULL AS finished
FROM idgen_backfill_progress WHERE relation = 'ev'::regclass AND id_column = 'id';

-- Every generator family, in batches of 128 rows.
CALL idgen_backfill('ev', 'v1', 'uuid_v1_at', 'created_at', batch_rows => 128);
CALL idgen_backfill('ev', 'v6', 'uuid_v6_at', 'created_at', batch_rows => 128);
CALL idgen_backfill('ev', 'sf', 'snowflake_at:ev_sf', 'created_at', batch_rows => 128);
CALL idgen_backfill('ev', 'u', 'ulid_at', 'created_at', batch_rows => 128);
CALL idgen_backfill('ev', 't', 'typeid_at:event', 'created_at', batch_rows => 128);
CALL idgen_backfill('ev', 'live', 'uuid_v7', batch_rows => 128);
SELECT count(*) AS rows,
       count(*) FILTER (WHERE id IS NULL OR v1 IS NULL OR v6 IS NULL OR sf IS NULL OR u IS NULL OR t IS NULL OR live IS NULL) AS left_null,
       count(DISTINCT id) AS v7, count(DISTINCT v1) AS v1, count(DISTINCT v6) AS v6, count(DISTINCT sf) AS sf,
       count(DISTINCT u) AS ulid, count(DISTINCT t) AS typeid, count(DISTINCT live) AS live,
       count(*) FILTER (WHERE uuid_v7_timestamp(id) = created_at AND uuid_v1_timestamp(v1) = created_at
                          AND uuid_v6_timestamp(v6) = created_at
                          AND snowflake_timestamp('ev_sf', sf) = date_trunc('milliseconds', created_at)
                          AND ulid_timestamp(u) = date_trunc('milliseconds', created_at)
                          AND typeid_prefix(t) = 'event' AND typeid_timestamp(t) = created_at) AS each_of_its_row_s_time,
       count(*) FILTER (WHERE uuid_version(live) = 7) AS live_v7
FROM ev;
SELECT id_column, generator, state, rows_done, batches FROM idgen_backfill_progress
WHERE relation = 'ev'::regclass ORDER BY id_column;

-- Again: nothing is left to fill, no id changes.
CREATE TEMP TABLE before AS SELECT k, id FROM ev;
CALL idgen_backfill('ev', 'id', 'uuid_v7_at', 'created_at', batch_rows => 100);
SELECT state, phase, rows_done, batches FROM idgen_backfill_progress WHERE relation = 'ev'::regclass AND id_column = 'id';
SELECT count(*) AS changed FROM before b JOIN ev USING (k) WHERE b.id IS DISTINCT FROM ev.id;

-- No primary key: block ranges (a never-analyzed table: at most 291 rows' worth of blocks per
-- batch), then analyzed (the table's own density).
CREATE TABLE heap_only (created_at timestamptz NOT NULL, payload text, id uuid);
INSERT INTO heap_only SELECT '2001-02-03 04:05:06+00'::timestamptz + g * interval '1 ms', repeat('x', 50)
FROM generate_series(1, 3000) g;
CALL idgen_backfill('heap_only', 'id', 'uuid_v7_at', 'created_at', batch_rows => 500);
SELECT count(*), count(DISTINCT id), count(*) FILTER (WHERE uuid_v7_timestamp(id) = created_at) AS own_time FROM heap_only;
SELECT state, rows_done, batches, last_batch_at IS NOT NULL AS has_batches FROM idgen_backfill_progress WHERE relation = 'heap_only'::regclass;
UPDATE heap_only SET id = NULL WHERE created_at < '2001-02-03 04:05:07+00';
ANALYZE heap_only;
DELETE FROM idgen_backfill_runs WHERE relation = 'heap_only'::regclass;
CALL idgen_backfill('heap_only', 'id', 'uuid_v7_at', 'created_at', batch_rows => 500);
SELECT count(*), count(DISTINCT id), count(*) FILTER (WHERE uuid_v7_timestamp(id) = created_at) AS own_time FROM heap_only;
SELECT state, rows_done, rows_left_estimate, batches > 1 AS several FROM idgen_backfill_progress WHERE relation = 'heap_only'::regclass;

-- A partitioned table with a composite key: leaf by leaf, each with its keyset.
CREATE TABLE parted (k integer, created_at timestamptz, id bigint, PRIMARY KEY (k, created_at)) PARTITION BY RANGE (created_at);
CREATE TABLE parted_2019 PARTITION OF parted FOR VALUES FROM ('2019-01-01') TO ('2020-01-01');
CREATE TABLE parted_2020 PARTITION OF parted FOR VALUES FROM ('2020-01-01') TO ('2021-01-01');
CREATE TABLE parted_rest PARTITION OF parted DEFAULT;
INSERT INTO parted SELECT g % 50, '2019-06-01'::timestamptz + g * interval '1 hour' FROM generate_series(1, 30000, 17) g;
CALL idgen_backfill('parted', 'id', 'snowflake_at:ev_sf', 'created_at', batch_rows => 200);
SELECT tableoid::regclass AS partition, count(*), count(id), count(DISTINCT id),
       count(*) FILTER (WHERE snowflake_timestamp('ev_sf', id) = created_at) AS own_time
FROM parted GROUP BY 1 ORDER BY 1;
SELECT count(DISTINCT id) AS distinct_in_all FROM parted;
SELECT state, partition, rows_done, batches > 3 AS several FROM idgen_backfill_progress WHERE relation = 'parted'::regclass;
SELECT partitions_done FROM idgen_backfill_runs WHERE relation = 'parted'::regclass;

-- By the primary key, never by the column being filled, also where that column has a unique
-- index (made before the key, as a table may have it before its backfill): the column's values
-- change under the run. Rows inserted out of key order; stopped by a row without a time, the
-- rows filled are exactly the keys of the batches before its own, and the progress row's last
-- key is the primary key's.
CREATE TABLE keyed (k integer NOT NULL, created_at timestamptz, id uuid UNIQUE);
ALTER TABLE keyed ADD PRIMARY KEY (k);
INSERT INTO keyed SELECT g, '2022-03-04 05:06:07+00'::timestamptz + g * interval '1 s'
FROM generate_series(1, 1000) g ORDER BY hashint4(g);
UPDATE keyed SET created_at = NULL WHERE k = 650;
\set VERBOSITY sqlstate
CALL idgen_backfill('keyed', 'id', 'uuid_v7_at', 'created_at', batch_rows => 100);   -- 22004
\set VERBOSITY default
SELECT r.phase, r.last_key, r.rows_done, count(t.id) AS filled, bool_and((t.id IS NOT NULL) = (t.k <= 600)) AS keys_1_to_600
FROM idgen_backfill_runs r, keyed t WHERE r.relation = 'keyed'::regclass GROUP BY 1, 2, 3;
UPDATE keyed SET created_at = '2022-03-04 05:16:57+00' WHERE k = 650;
CALL idgen_backfill('keyed', 'id', 'uuid_v7_at', 'created_at', batch_rows => 100);
SELECT count(*), count(DISTINCT id), count(*) FILTER (WHERE uuid_v7_timestamp(id) = created_at) AS own_time FROM keyed;

-- An ordinary role backfills its own table, and writes no other table's progress.
SET ROLE idgen_backfiller;
INSERT INTO mine SELECT g, '2024-01-01'::timestamptz + g * interval '1 s' FROM generate_series(1, 50) g;
CALL idgen_backfill('mine', 'id', 'uuid_v7_at', 'at', batch_rows => 20);
SELECT count(*) FILTER (WHERE uuid_v7_timestamp(id) = at) AS own_time FROM mine;
WITH u AS (UPDATE idgen_backfill_runs SET rows_done = 0 WHERE relation = 'ev'::regclass RETURNING 1)
SELECT count(*) AS others_updated FROM u;
SELECT relation, state, rows_done FROM idgen_backfill_progress WHERE relation = 'mine'::regclass;
DROP TABLE mine;
RESET ROLE;

DROP TABLE ev, heap_only, parted, keyed CASCADE;
DROP EXTENSION idgen;
REVOKE CREATE ON SCHEMA public FROM idgen_backfiller;
DROP ROLE idgen_backfiller;
