-- bench/backfill.sql: the data and helpers of bench/run's backfill, keys and memory sections.
-- Run by bench/run after setup.sql, with psql variable  rows  (the events table's row count).
\set ON_ERROR_STOP 1

-- A fresh, empty table NAME (COLUMNS) with autovacuum off, so no vacuum runs into a measurement.
CREATE FUNCTION bench_fresh_table(name text, columns text) RETURNS void LANGUAGE plpgsql
SET client_min_messages = warning AS $$
BEGIN
    EXECUTE format('DROP TABLE IF EXISTS %I', name);
    EXECUTE format('CREATE TABLE %I (%s) WITH (autovacuum_enabled = off)', name, columns);
END
$$;

-- A table of N event times in random physical order (a hash of the row number, so the same
-- order on every run), as rows arrive in a real table over a year and are later updated.
CREATE FUNCTION bench_make_events(tab text, n bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM bench_fresh_table(tab, 'created_at timestamptz NOT NULL');
    EXECUTE format('INSERT INTO %I SELECT bench_event_time(i) FROM generate_series(1, %s) i'
                   ' ORDER BY hashint8extended(i, 11)', tab, n);
END
$$;
SELECT bench_make_events('bench_events_template', :rows) \g /dev/null
VACUUM (FREEZE, ANALYZE) bench_events_template;

-- A fresh bench_events (id of type IDTYPE, still NULL; created_at) with the rows of TEMPLATE
-- in their physical order. bench/run vacuums (freezes) it and takes a checkpoint before each
-- UPDATE, so every UPDATE starts alike.
CREATE FUNCTION bench_events_reset(idtype text, template text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM bench_fresh_table('bench_events', format('id %s, created_at timestamptz NOT NULL', idtype));
    EXECUTE format('INSERT INTO bench_events (created_at) SELECT created_at FROM %I', template);
END
$$;

-- The backfill itself: UPDATE bench_events SET id = EXPR, by one session (parts = 1) or by
-- session PART (0-based) of PARTS, each taking its share of the table's pages (a TID range
-- scan: the way a backfill is split without an index). Returns the rows updated.
CREATE FUNCTION bench_backfill(expr text, part int, parts int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    pages bigint;
    updated bigint;
BEGIN
    IF parts = 1 THEN
        EXECUTE format('UPDATE bench_events SET id = %s', expr);
    ELSE
        SELECT relpages INTO pages FROM pg_class WHERE oid = 'bench_events'::regclass;
        EXECUTE format('UPDATE bench_events SET id = %s WHERE ctid >= %L::tid AND ctid < %L::tid', expr,
                       format('(%s,0)', pages * part / parts), format('(%s,0)', pages * (part + 1) / parts));
    END IF;
    GET DIAGNOSTICS updated = ROW_COUNT;
    RETURN updated;
END
$$;

-- Runs INSERT INTO bench_keys SELECT <expr> FROM <source> of key case ORD and records its time,
-- the WAL it wrote and the sizes it left; a failure is recorded in bench_errors.
CREATE FUNCTION bench_keys_insert(rnd int, ord int, query text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    lsn0 pg_lsn;
    t0 timestamptz;
    inserted bigint;
    took bigint;
    wal numeric;
BEGIN
    lsn0 := pg_current_wal_insert_lsn();
    t0 := clock_timestamp();
    EXECUTE query;
    GET DIAGNOSTICS inserted = ROW_COUNT;
    took := (extract(epoch FROM clock_timestamp() - t0) * 1e9)::bigint;
    wal := pg_wal_lsn_diff(pg_current_wal_insert_lsn(), lsn0);
    INSERT INTO bench_key_results
    VALUES (rnd, ord, inserted, took, wal, pg_relation_size('bench_keys'), pg_relation_size('bench_keys_pkey'));
EXCEPTION WHEN OTHERS THEN
    INSERT INTO bench_errors SELECT 'keys', name, SQLERRM FROM bench_key_cases k WHERE k.ord = bench_keys_insert.ord;
END
$$;

-- Memory section: this backend's private resident memory in kB (RssAnon of /proc/self/status:
-- malloc'd memory such as memory contexts, not the shared buffers it touches).
CREATE FUNCTION bench_rss_anon_kb() RETURNS bigint LANGUAGE sql AS $$
    SELECT substring(pg_read_file('/proc/self/status') FROM 'RssAnon:\s+(\d+) kB')::bigint
$$;
