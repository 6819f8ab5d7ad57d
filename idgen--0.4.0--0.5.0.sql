-- idgen 0.5.0
\echo Use "ALTER EXTENSION idgen UPDATE TO '0.5.0'" to load this file. \quit

-- ---- Parallel labels (issue 12, item 3) -------------------------------------------------
-- Generators are PARALLEL RESTRICTED: they run in the leader, never in a parallel worker.
-- A worker is another backend: uuid_v1_at and snowflake_at would draw from the worker's own
-- per-session allocator (leasing a namespace, for snowflake_at one of the sequencer's few
-- reserved node ids, per worker and statement), locality_uuid would carry the worker's process
-- id, and every generator may move the durable horizon on its slow path (a file write, and
-- WAL records later), which has no place in a worker. In the leader, calls happen in the
-- order rows come out of the Gather, so "increasing in call order" holds as without
-- parallelism. The decoders and the codec stay PARALLEL SAFE (the sequencer lookup of the
-- snowflake decoders reads the statement's snapshot in parallel mode).
ALTER FUNCTION @extschema@.snowflake_next(text) PARALLEL RESTRICTED;
ALTER FUNCTION @extschema@.snowflake_at(text, timestamptz) PARALLEL RESTRICTED;
ALTER FUNCTION @extschema@.uuid_v1() PARALLEL RESTRICTED;
ALTER FUNCTION @extschema@.uuid_v1_at(timestamptz) PARALLEL RESTRICTED;
ALTER FUNCTION @extschema@.uuid_v1_at(timestamptz, macaddr) PARALLEL RESTRICTED;
ALTER FUNCTION @extschema@.locality_uuid() PARALLEL RESTRICTED;
ALTER FUNCTION @extschema@.locality_uuid(boolean) PARALLEL RESTRICTED;
ALTER FUNCTION @extschema@.unique_timestamp() PARALLEL RESTRICTED;
-- ---- end of the parallel labels ----------------------------------------------------------
