# bench/measure.sh: the measuring sections of bench/run, one function each, in the order run
# calls them. Sourced by bench/run (with lib.sh); each section reads its cases from the
# benchmark database (loaded from the bench TSV files), skips those marked unavailable, and
# stores its raw measurements there for report.sql.

# Every case of cases.tsv as SELECT count(<expr>) FROM <source>, timed inside the server by
# bench_time(); one session for all rounds, every query its own statement (\gexec). Round 0 is
# the warm-up and is not reported.
measure_cost() {
    say "Cost per call: $("${PSQL[@]}" -Atc 'SELECT count(*) FROM bench_cases WHERE unavailable IS NULL') queries of $N rows: 1 warm-up round, then $ROUNDS rounds"
    for ((r = 0; r <= ROUNDS; r++)); do
        if ((r == 0)); then echo "\\echo '  warm-up round'"; else echo "\\echo '  round $r of $ROUNDS'"; fi
        cat <<SQL
SELECT format('INSERT INTO bench_results SELECT $r, %L, ns, counted, error FROM bench_time(%L)',
              name, format('SELECT count(%s) FROM %s', expr, replace(source, '{N}', '$N')))
FROM bench_cases WHERE unavailable IS NULL ORDER BY ord
\\gexec
SQL
    done | "${PSQL[@]}"
    "${PSQL[@]}" -At -c "SELECT DISTINCT '    ' || name || ': FAILED: ' || error FROM bench_results WHERE error IS NOT NULL"
}

# Scaling: every case of scaling.tsv as a pgbench script of its bulk query; each measurement is
# pgbench -c C -j C -t SCALING_QUERIES, so C clients start together and the tps covers the wall
# time until the last one finishes. The client counts go up in odd rounds and down in even
# ones. Parallel query is off, as for the timed queries. Cases that failed above are left out.
measure_scaling() {
    local -A names=()
    local ords=() r ord c tps line
    write_scripts scaling "
        SELECT s.ord, s.name, format('SELECT count(%s) FROM %s;', c.expr, replace(c.source, '{N}', '$N'))
        FROM bench_scaling_cases s JOIN bench_cases c USING (name)
        WHERE c.unavailable IS NULL
          AND NOT EXISTS (SELECT FROM bench_results r WHERE r.name = c.name AND r.error IS NOT NULL)
        ORDER BY s.ord" names ords
    say "Scaling: ${#ords[@]} bulk queries of $N rows with ${CLIENTS// /, } clients at once, $SCALING_ROUNDS rounds"
    for ((r = 1; r <= SCALING_ROUNDS; r++)); do
        echo "  round $r of $SCALING_ROUNDS"
        for ord in "${ords[@]}"; do
            line=$(printf '    %-28s' "${names[$ord]}")
            # shellcheck disable=SC2086 # CLIENTS: numbers separated by spaces
            for c in $(round_order "$r" $CLIENTS); do
                if ! tps=$(PGOPTIONS='-c max_parallel_workers_per_gather=0' \
                           pgbench_tps -n -f "$RUN_DIR/scaling-$ord.sql" -c "$c" -j "$c" -t "$SCALING_QUERIES"); then
                    record_error scaling "${names[$ord]}, $c clients" "$tps"
                    continue
                fi
                echo "$r $ord $c $tps" | "${PSQL[@]}" -c "\\copy bench_scaling_results (round, case_ord, clients, tps) FROM STDIN DELIMITER ' '"
                line+=$(awk -v c="$c" -v tps="$tps" -v n="$N" 'BEGIN { printf "  %d: %6.2fM/s", c, tps * n / 1e6 }')
            done
            echo "$line"
        done
    done
}

# pgbench: every script of pgbench.tsv for PGBENCH_SECONDS, forward in odd rounds and backward
# in even ones, so neighbours alternate which runs first. Each run starts alike (pgbench_reset).
measure_pgbench() {
    local -A names=()
    local ords=() r ord tps
    write_scripts pgbench 'SELECT ord, name, statement FROM bench_pgbench_scripts WHERE unavailable IS NULL ORDER BY ord' names ords
    say "pgbench: ${#ords[@]} scripts, -c $PGBENCH_CLIENTS -j $PGBENCH_THREADS -T $PGBENCH_SECONDS each, $PGBENCH_ROUNDS rounds"
    for ((r = 1; r <= PGBENCH_ROUNDS; r++)); do
        echo "  round $r of $PGBENCH_ROUNDS"
        for ord in $(round_order "$r" "${ords[@]}"); do
            pgbench_reset
            if ! tps=$(pgbench_tps -n -M prepared -c "$PGBENCH_CLIENTS" -j "$PGBENCH_THREADS" -T "$PGBENCH_SECONDS" \
                       -f "$RUN_DIR/pgbench-$ord.sql"); then
                record_error pgbench "${names[$ord]}" "$tps"
                continue
            fi
            printf '    %-28s %12.0f tps\n' "${names[$ord]}" "$tps"
            echo "$r $ord $tps" | "${PSQL[@]}" -c "\\copy bench_pgbench_results (round, script_ord, tps) FROM STDIN DELIMITER ' '"
        done
    done
}

# Latency: every script of latency.tsv for LATENCY_SECONDS, one after another, by
# LATENCY_CLIENTS clients with a thread each (pgbench -M prepared), each run starting alike
# (pgbench_reset) and logging every transaction (pgbench -l, one file per thread). A log line
# is "client transaction latency script epoch µs" with the latency in µs (a word instead for a
# failed transaction: stored as NULL); the latencies go to bench_latency_samples, where
# report.sql takes their percentiles.
measure_latency() {
    local -A names=()
    local ords=() ord tps log
    write_scripts latency 'SELECT ord, name, statement FROM bench_latency_scripts WHERE unavailable IS NULL ORDER BY ord' names ords
    say "Latency: ${#ords[@]} scripts, -c $LATENCY_CLIENTS -j $LATENCY_CLIENTS -T $LATENCY_SECONDS each, every transaction logged"
    for ord in "${ords[@]}"; do
        log=$RUN_DIR/latency-log-$ord
        pgbench_reset
        if ! tps=$(pgbench_tps -n -M prepared -c "$LATENCY_CLIENTS" -j "$LATENCY_CLIENTS" -T "$LATENCY_SECONDS" \
                   -l --log-prefix="$log" -f "$RUN_DIR/latency-$ord.sql"); then
            record_error latency "${names[$ord]}" "$tps"
            rm -f "$log".*
            continue
        fi
        awk -v ord="$ord" '{ print ord, $1, ($3 ~ /^[0-9]+$/ ? $3 : "\\N") }' "$log".* |
            "${PSQL[@]}" -c "\\copy bench_latency_samples (script_ord, client, us) FROM STDIN DELIMITER ' '"
        rm -f "$log".*
        echo "$ord $tps" | "${PSQL[@]}" -c "\\copy bench_latency_results (script_ord, tps) FROM STDIN DELIMITER ' '"
        "${PSQL[@]}" -At -c "SELECT format('    %-28s %12s tps, %s transactions logged', s.name, round(r.tps),
                                   (SELECT count(*) FROM bench_latency_samples WHERE script_ord = s.ord))
                            FROM bench_latency_scripts s JOIN bench_latency_results r ON r.script_ord = s.ord
                            WHERE s.ord = $ord"
    done
}

# A fresh bench_events from TEMPLATE for backfill case ORD, frozen, after a checkpoint.
reset_events() {
    "${PSQL[@]}" -o /dev/null \
        -c "SELECT bench_events_reset(idtype, '$2') FROM bench_backfill_cases WHERE ord = $1" \
        -c 'VACUUM (FREEZE, ANALYZE) bench_events' -c 'CHECKPOINT'
}

# Backfill: every case of backfill.tsv as UPDATE bench_events SET id = <expr> over the whole
# events table by one session, and for the parallel ones also by BACKFILL_SESSIONS sessions at
# once (pgbench -c S -t 1, each client its share of the pages): wall seconds = S / tps. Each
# measurement starts from a fresh, frozen copy of the events and a checkpoint; the cases run
# forward in odd rounds and backward in even ones.
measure_backfill() {
    local -A names=()
    local ords=() par=() r ord s tps left secs
    write_scripts backfill-1 "
        SELECT ord, name, format('SELECT bench_backfill(%L, :client_id, 1);', expr)
        FROM bench_backfill_cases WHERE unavailable IS NULL ORDER BY ord" names ords
    write_scripts backfill-$BACKFILL_SESSIONS "
        SELECT ord, name, format('SELECT bench_backfill(%L, :client_id, $BACKFILL_SESSIONS);', expr)
        FROM bench_backfill_cases WHERE unavailable IS NULL AND parallel = 'yes' ORDER BY ord" names par
    say "Backfill: ${#ords[@]} UPDATEs of $BACKFILL_ROWS rows by 1 session (${#par[@]} also by $BACKFILL_SESSIONS at once), $BACKFILL_ROUNDS rounds"
    for ((r = 1; r <= BACKFILL_ROUNDS; r++)); do
        echo "  round $r of $BACKFILL_ROUNDS"
        for ord in $(round_order "$r" "${ords[@]}"); do
            for s in 1 $BACKFILL_SESSIONS; do
                [ -f "$RUN_DIR/backfill-$s-$ord.sql" ] || continue
                reset_events "$ord" bench_events_template
                if ! tps=$(pgbench_tps -n -c "$s" -j "$s" -t 1 -f "$RUN_DIR/backfill-$s-$ord.sql"); then
                    record_error backfill "${names[$ord]}, $s sessions" "$tps"
                    continue
                fi
                left=$("${PSQL[@]}" -Atc 'SELECT count(*) FROM bench_events WHERE id IS NULL')
                [ "$left" = 0 ] || record_error backfill "${names[$ord]}, $s sessions" "$left rows left without an id"
                secs=$(awk -v s="$s" -v tps="$tps" 'BEGIN { printf "%.6f", s / tps }')
                printf '    %-28s %d session(s): %7.2f s\n' "${names[$ord]}" "$s" "$secs"
                echo "$r $ord $s $secs" |
                    "${PSQL[@]}" -c "\\copy bench_backfill_results (round, case_ord, sessions, seconds) FROM STDIN DELIMITER ' '"
            done
        done
    done
}

# Sessions: every case of sessions.tsv makes ids for the same SESSION_COUNT x SESSION_ROWS event
# times twice: in one statement of one session (pgbench -t 1), and in SESSION_COUNT short
# sessions, BACKFILL_SESSIONS at a time, each a new connection (pgbench -C) that runs one
# statement over its own SESSION_ROWS times and ends, handing its namespaces back. Every such
# statement is timed inside the server (bench_session_ids), so connecting is not in the ids/s;
# bench_sessions_begin and _end record around each measurement the namespaces it leased and
# idgen's LEASE WAL records. The cases run forward in odd rounds and backward in even ones.
measure_sessions() {
    local -A names=()
    local ords=() r ord s tps err args
    "${PSQL[@]}" -o /dev/null -c "SELECT bench_make_session_times($SESSION_COUNT, $SESSION_ROWS)"
    while IFS=$'\t' read -r ord name; do
        names[$ord]=$name
        ords+=("$ord")
    done < <("${PSQL[@]}" -At -F $'\t' -c 'SELECT ord, name FROM bench_session_cases WHERE unavailable IS NULL ORDER BY ord')
    printf 'SELECT bench_session_ids(1, %d);\n' "$SESSION_COUNT" >"$RUN_DIR/sessions-1.sql"
    printf '%s\n' "SELECT nextval('bench_session_no') AS k \\gset" 'SELECT bench_session_ids(:k, :k);' \
        >"$RUN_DIR/sessions-$SESSION_COUNT.sql"
    say "Sessions: ${#ords[@]} generators, $(thousands $((SESSION_COUNT * SESSION_ROWS))) ids by 1 session and by $SESSION_COUNT sessions of $SESSION_ROWS ($BACKFILL_SESSIONS at once), $BACKFILL_ROUNDS rounds"
    for ((r = 1; r <= BACKFILL_ROUNDS; r++)); do
        echo "  round $r of $BACKFILL_ROUNDS"
        for ord in $(round_order "$r" "${ords[@]}"); do
            for s in 1 "$SESSION_COUNT"; do
                args=(-c 1 -j 1 -t 1)
                ((s == 1)) || args=(-C -c "$BACKFILL_SESSIONS" -j "$BACKFILL_SESSIONS" -t $((s / BACKFILL_SESSIONS)))
                "${PSQL[@]}" -o /dev/null -c "SELECT bench_sessions_begin($r, $ord, $s)"
                if ! tps=$(pgbench_tps -n "${args[@]}" -f "$RUN_DIR/sessions-$s.sql"); then
                    record_error sessions "${names[$ord]}, $s sessions" "$tps"
                    continue
                fi
                "${PSQL[@]}" -o /dev/null -c "SELECT bench_sessions_end($tps)"
                err=$("${PSQL[@]}" -At -c "SELECT replace(min(error), E'\n', ' ') FROM bench_session_results
                                         WHERE (round, case_ord, sessions) = ($r, $ord, $s)")
                if [ -n "$err" ]; then
                    record_error sessions "${names[$ord]}, $s sessions" "$err"
                    continue
                fi
                "${PSQL[@]}" -At -c "
                    SELECT format('    %-30s %4s session(s): %5s M ids/s inside the server; %s namespaces leased, %s lease WAL records',
                                  c.name, $s, round(sum(r.ids) * 1e3 / sum(r.ns), 2), u.leased,
                                  coalesce(u.lease_records::text, '?'))
                    FROM bench_session_results r
                    JOIN bench_session_runs u USING (round, case_ord, sessions)
                    JOIN bench_session_cases c ON c.ord = r.case_ord
                    WHERE (r.round, r.case_ord, r.sessions) = ($r, $ord, $s)
                    GROUP BY c.name, u.leased, u.lease_records"
            done
        done
    done
}

# Keys: every case of keys.tsv inserted into a fresh table with a primary key after a
# checkpoint (bench_keys_insert records time, WAL and sizes), in alternating order by round.
measure_keys() {
    local ords=() r ord
    mapfile -t ords < <("${PSQL[@]}" -At -c 'SELECT ord FROM bench_key_cases WHERE unavailable IS NULL ORDER BY ord')
    say "Keys: ${#ords[@]} generators, $BACKFILL_ROWS keys each into a primary key, $BACKFILL_ROUNDS rounds"
    for ((r = 1; r <= BACKFILL_ROUNDS; r++)); do
        echo "  round $r of $BACKFILL_ROUNDS"
        for ord in $(round_order "$r" "${ords[@]}"); do
            "${PSQL[@]}" -At \
                -c "SELECT bench_fresh_table('bench_keys', 'id ' || idtype || ' PRIMARY KEY') FROM bench_key_cases WHERE ord = $ord" -c 'CHECKPOINT' \
                -c "SELECT bench_keys_insert($r, ord, format('INSERT INTO bench_keys SELECT %s FROM %s', expr,
                                                              replace(source, '{ROWS}', '$BACKFILL_ROWS')))
                    FROM bench_key_cases WHERE ord = $ord" \
                -c "SELECT format('    %-28s %s s, index %s MB, WAL %s MB', k.name, round(r.ns / 1e9, 2),
                                  round(r.index_bytes / 1e6, 1), round(r.wal_bytes / 1e6, 1))
                    FROM bench_key_cases k JOIN bench_key_results r ON r.case_ord = k.ord
                    WHERE k.ord = $ord AND r.round = $r
                    UNION ALL
                    SELECT format('    %-28s FAILED: %s', name, message) FROM bench_errors
                    WHERE section = 'keys' AND name = (SELECT name FROM bench_key_cases WHERE ord = $ord)" |
                grep -v '^$' | tail -n1
        done
    done
}

# The private (anonymous) resident memory of process PID in kB, from /proc: shared buffers
# the backend touches are RssShmem, not counted here (VmHWM would count them).
rss_anon_kb() {
    local key value _
    while read -r key value _; do
        [ "$key" = RssAnon: ] && { echo "$value"; return 0; }
    done 2>/dev/null <"/proc/$1/status"
    return 1
}

# Memory: each backfill case marked memory, once, on a table of MEMORY_ROWS events, in a
# session of its own. The session reads its own RssAnon (bench_rss_anon_kb) before and after
# the UPDATE, and this script samples it every 0.1 s in between for the peak; right after the
# UPDATE, in the same transaction, the session reads its memory contexts
# (pg_backend_memory_contexts): the one named 'idgen backfill', and all of them together.
measure_memory() {
    local ords=() ord pid job peak now_kb err
    if ((MEMORY_ROWS == 0)); then
        say "Memory: skipped (IDGEN_BENCH_MEMORY_ROWS=0)"
        return
    fi
    mapfile -t ords < <("${PSQL[@]}" -At -c "SELECT ord FROM bench_backfill_cases WHERE memory = 'yes' AND unavailable IS NULL ORDER BY ord")
    say "Memory: ${#ords[@]} backfills of $MEMORY_ROWS rows, one session each (making the table first)"
    "${PSQL[@]}" -o /dev/null -c "SELECT bench_make_events('bench_events_big', $MEMORY_ROWS)" \
        -c 'VACUUM (FREEZE, ANALYZE) bench_events_big'
    for ord in "${ords[@]}"; do
        reset_events "$ord" bench_events_big
        rm -f "$RUN_DIR/memory.pid"
        "${PSQL[@]}" -At >/dev/null 2>"$RUN_DIR/memory.err" <<SQL &
SELECT bench_rss_anon_kb() AS rss0 \\gset
SELECT pg_backend_pid() \\g $RUN_DIR/memory.pid
BEGIN;
SELECT extract(epoch FROM clock_timestamp()) AS t0 \\gset
SELECT bench_backfill(expr, 0, 1) AS updated FROM bench_backfill_cases WHERE ord = $ord \\gset
INSERT INTO bench_memory_results
SELECT $ord, :updated, extract(epoch FROM clock_timestamp()) - :t0,
       (SELECT sum(total_bytes) FROM pg_backend_memory_contexts WHERE name = 'idgen backfill'),
       (SELECT sum(total_bytes) FROM pg_backend_memory_contexts), :rss0, bench_rss_anon_kb();
COMMIT;
SQL
        job=$!
        while [ ! -s "$RUN_DIR/memory.pid" ] && kill -0 "$job" 2>/dev/null; do sleep 0.05; done
        pid=$(cat "$RUN_DIR/memory.pid" 2>/dev/null || true)
        peak=0
        while kill -0 "$job" 2>/dev/null; do
            now_kb=$(rss_anon_kb "$pid") && ((now_kb > peak)) && peak=$now_kb
            sleep 0.1
        done
        if ! wait "$job"; then
            err=$(grep -m1 -o 'ERROR: .*' "$RUN_DIR/memory.err" || tail -n1 "$RUN_DIR/memory.err")
            record_error memory "$("${PSQL[@]}" -Atc "SELECT name FROM bench_backfill_cases WHERE ord = $ord")" "$err"
            continue
        fi
        "${PSQL[@]}" -At \
            -c "UPDATE bench_memory_results SET rss_anon_peak_kb = greatest(rss_anon_peak_kb, $peak) WHERE case_ord = $ord" \
            -c "SELECT format('    %-28s %s rows in %s s; RssAnon %s -> peak %s kB; idgen backfill context: %s',
                              b.name, m.rows, round(m.seconds::numeric, 1), m.rss_anon_start_kb, m.rss_anon_peak_kb,
                              coalesce(m.context_bytes || ' bytes', 'none'))
                FROM bench_memory_results m JOIN bench_backfill_cases b ON b.ord = m.case_ord WHERE m.case_ord = $ord"
    done
    "${PSQL[@]}" -o /dev/null -c 'DROP TABLE bench_events_big, bench_events'
}
