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

-- Sessions section: bench_session_times holds SESSIONS x SESSION_ROWS event times
-- (bench_event_time, in the random order of the events table), SESSION_ROWS per row, one row
-- per short session; the single session takes them all.
CREATE FUNCTION bench_make_session_times(sessions int, session_rows int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM bench_fresh_table('bench_session_times', 'session int PRIMARY KEY, times timestamptz[] NOT NULL');
    INSERT INTO bench_session_times
    SELECT (r - 1) / session_rows + 1, array_agg(t ORDER BY r)
    FROM (SELECT bench_event_time(i) AS t, row_number() OVER (ORDER BY hashint8extended(i, 11)) AS r
          FROM generate_series(1, sessions::bigint * session_rows) i) e
    GROUP BY 1;
    ANALYZE bench_session_times;
END
$$;

-- The measurement under way (one row): its round, case and session count, and where the WAL
-- and the leased namespaces stood when it began.
CREATE TABLE bench_session_mark (round int, case_ord int, sessions int, lsn pg_lsn, leased bigint);

-- All namespaces leased so far, over every id space of idgen_backfill_spaces.
CREATE FUNCTION bench_leased() RETURNS bigint LANGUAGE sql AS $$
    SELECT coalesce(sum(namespaces_leased), 0)::bigint FROM idgen_backfill_spaces
$$;

-- Waits (up to 10 s) until no other client session is left: the short sessions of a
-- measurement hand their namespaces back when their backends exit, after pgbench has returned.
CREATE FUNCTION bench_sessions_settle() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1..1000 LOOP
        EXIT WHEN NOT EXISTS (SELECT FROM pg_stat_activity
                              WHERE backend_type = 'client backend' AND pid <> pg_backend_pid());
        PERFORM pg_sleep(0.01);
    END LOOP;
END
$$;

-- Starts measurement (RND, ORD, SESSIONS): session numbers from 1 again, the marks taken.
CREATE SEQUENCE bench_session_no;
CREATE FUNCTION bench_sessions_begin(rnd int, ord int, sessions int) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM bench_sessions_settle();
    PERFORM setval('bench_session_no', 1, false);
    DELETE FROM bench_session_mark;
    INSERT INTO bench_session_mark VALUES (rnd, ord, sessions, pg_current_wal_insert_lsn(), bench_leased());
END
$$;

-- Ends the measurement under way: the namespaces it leased, its idgen LEASE WAL records
-- (pg_walinspect; NULL without it) and pgbench's sessions per second (SESSIONS_PER_S).
CREATE FUNCTION bench_sessions_end(sessions_per_s float8) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    m bench_session_mark;
    records bigint;
BEGIN
    PERFORM bench_sessions_settle();
    SELECT * INTO m FROM bench_session_mark;
    IF EXISTS (SELECT FROM pg_extension WHERE extname = 'pg_walinspect') THEN
        IF pg_current_wal_flush_lsn() > m.lsn THEN
            EXECUTE 'SELECT coalesce(sum(count), 0) FROM pg_get_wal_stats($1, pg_current_wal_flush_lsn(), true)
                     WHERE "resource_manager/record_type" = ''idgen/LEASE''' INTO records USING m.lsn;
        ELSE
            records := 0;
        END IF;
    END IF;
    INSERT INTO bench_session_runs
    VALUES (m.round, m.case_ord, m.sessions, bench_leased() - m.leased, records, sessions_per_s);
END
$$;

-- One timed statement of the measurement under way: ids for the times of sessions FIRST..LAST
-- (SELECT count(<expr>) over them, timed inside the server by bench_time), recorded in
-- bench_session_results. Before it, the same query with the no-op runs untimed, so the costs
-- of any first statement in a new backend (catalog caches, the plan machinery) stay out of the
-- measurement; idgen's own session-level work (its first call, adopting or leasing a
-- namespace) is in it.
CREATE FUNCTION bench_session_query(expr text, first int, last int) RETURNS text LANGUAGE sql AS $$
    SELECT format('SELECT count(%s) FROM bench_session_times, unnest(times) AS created_at WHERE session BETWEEN %s AND %s',
                  expr, first, last)
$$;
CREATE FUNCTION bench_session_ids(first int, last int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    m bench_session_mark;
    query text;
BEGIN
    -- The case's query first, on its own: in a join, the planner may run bench_time for every case.
    SELECT * INTO m FROM bench_session_mark;
    query := bench_session_query((SELECT expr FROM bench_session_cases WHERE ord = m.case_ord), first, last);
    PERFORM bench_time(bench_session_query('bench_noop_uuid(created_at)', first, first));
    INSERT INTO bench_session_results SELECT m.round, m.case_ord, m.sessions, first, t.counted, t.ns, t.error
    FROM bench_time(query) t;
END
$$;
