# bench/report.sh: writes the report of bench/run: the Markdown file (machine, versions,
# settings, the verdicts on the targets, every section's table) and its charts (gnuplot, with
# bench/charts.gp). Sourced by bench/run after the measurements and the report views.

# A whole number with thousands separators: 1000000 -> 1,000,000.
thousands() {
    sed -e ':a' -e 's/\B[0-9]\{3\}\>/,&/' -e 'ta' <<<"$1"
}

# Exports chart view VIEW as tab-separated rows without a header to FILE.
chart_data() {
    "${PSQL[@]}" -At -F $'\t' -c "SELECT * FROM $1" >"$2"
}

# Chart NAME (charts.gp) from DATA into OUT_DIR/benchmark-NAME.png, with gnuplot variables
# VARS; a chart gnuplot cannot draw is reported and left out, the report goes on.
plot_chart() {
    gnuplot -e "chart='$1'; data='$2'; out='$OUT_DIR/benchmark-$1.png'; $3" "$BENCH/charts.gp" || {
        rm -f "$OUT_DIR/benchmark-$1.png"
        echo "the $1 chart could not be drawn; the report goes on without it" >&2
    }
}

# The charts, as OUT_DIR/benchmark-{cost,scaling,keys}.png; a chart without data is left out.
draw_charts() {
    local data=$RUN_DIR/chart
    chart_data bench_chart_cost "$data-cost.tsv"
    [ ! -s "$data-cost.tsv" ] ||
        plot_chart cost "$data-cost.tsv" "rows=$(wc -l <"$data-cost.tsv"); n='$(thousands "$N")'"
    # One block per case, each opened by its name (gnuplot's columnheader) and closed by two
    # blank lines (gnuplot's index).
    chart_data bench_chart_scaling "$data-scaling.tsv"
    awk -F'\t' '$1 != last { if (NR > 1) printf "\n\n"; print $1; last = $1 } { print }' \
        "$data-scaling.tsv" >"$data-scaling-blocks.tsv"
    [ ! -s "$data-scaling.tsv" ] ||
        plot_chart scaling "$data-scaling-blocks.tsv" "cases=$(cut -f1 "$data-scaling.tsv" | uniq | wc -l); n='$(thousands "$N")'"
    chart_data bench_chart_keys "$data-keys.tsv"
    [ ! -s "$data-keys.tsv" ] ||
        plot_chart keys "$data-keys.tsv" "rows=$(wc -l <"$data-keys.tsv"); n='$(thousands "$BACKFILL_ROWS")'"
}

# Embeds chart NAME (benchmark-NAME.png, beside the report) if it was drawn.
md_chart() {
    [ ! -f "$OUT_DIR/benchmark-$1.png" ] || printf '\n![%s](benchmark-%s.png)\n' "$2" "$1"
}

# The machine, the versions and the settings of this run, as a Markdown list.
md_environment() {
    echo "- machine: $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)), $(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) memory;" \
         "$(. /etc/os-release && echo "$PRETTY_NAME"), Linux $(uname -r)"
    echo "- load average (1, 5, 15 min): $LOAD_START at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end" \
         "(the benchmark alone keeps up to 2 busy; more means other work shared the machine)"
    echo "- PostgreSQL $("${PSQL[@]}" -Atc 'SHOW server_version'); idgen" \
         "$("${PSQL[@]}" -Atc "SELECT extversion FROM pg_extension WHERE extname = 'idgen'") (commit $(idgen_revision));" \
         "uuid-ossp $("${PSQL[@]}" -Atc "SELECT extversion FROM pg_extension WHERE extname = 'uuid-ossp'");" \
         "$(pgbench --version); $(gnuplot --version)"
    echo "- server: a throwaway cluster (initdb) with default settings plus shared_preload_libraries = 'idgen'" \
         "and idgen.node_id = 1 (bench/run). In force:" \
         "$("${PSQL[@]}" -Atc "SELECT string_agg(name || ' = ' || coalesce(nullif(current_setting(name), ''), ''''''), ', ' ORDER BY name)
                              FROM pg_settings
                              WHERE name IN ('shared_buffers', 'work_mem', 'max_wal_size', 'checkpoint_timeout',
                                             'wal_level', 'synchronous_commit', 'fsync', 'full_page_writes', 'jit',
                                             'wal_compression', 'max_connections')
                                 OR name LIKE 'idgen.%'")"
    echo "- Snowflake sequencers:" \
         "$("${PSQL[@]}" -Atc "SELECT string_agg(format('%s (max_nodes %s, %s counter bits, backfill_nodes %s)', name,
                                                        max_nodes, counter_bits, coalesce(to_jsonb(s) ->> 'backfill_nodes', '0')),
                                                 ', ' ORDER BY name)
                              FROM snowflake_sequencers s")." \
         "128 nodes leave 32,768 ids per ms: with the default 8192 (512 per ms) a bulk loop outruns the clock and" \
         "snowflake_next waits for it by design. Each session that calls snowflake_at holds one of the reserved" \
         "node ids while it runs and parks it for the next when it ends; the benchmark opens about 95 such sessions (setup.sql)."
    echo "- run: $(thousands "$N") rows per bulk query, $ROUNDS rounds (+1 warm-up) of the cost cases, $SCALING_ROUNDS of scaling" \
         "($CLIENTS clients), $PGBENCH_ROUNDS of pgbench ($PGBENCH_SECONDS s each), latency $LATENCY_SECONDS s per script," \
         "$BACKFILL_ROUNDS of the backfill" \
         "and keys ($(thousands "$BACKFILL_ROWS") rows); memory on $(thousands "$MEMORY_ROWS") rows; $(date -u '+%Y-%m-%d %H:%M UTC');" \
         "took $((SECONDS / 60)) min $((SECONDS % 60)) s ($SECTION_TIMES)"
}

write_report() {
    local report=$OUT_DIR/benchmark-report.md
    say "Report: $report"
    mkdir -p "$OUT_DIR"
    rm -f "$OUT_DIR"/benchmark-*.png
    draw_charts
    {
        echo "# idgen benchmark report"
        echo
        echo "Made by \`$COMMAND\` (docs/benchmark.md says what each part measures). Every figure is from this one run;"
        echo "ratios within the run are what to compare: absolute figures move with the machine and its load."
        echo
        md_environment
        echo
        echo "## Targets"
        echo
        "${PSQL[@]}" -At -c "SELECT format('%s targets: %s met, %s NOT met, %s not measured.', count(*),
                                   count(*) FILTER (WHERE result = 'met'), count(*) FILTER (WHERE result = 'NOT met'),
                                   count(*) FILTER (WHERE result = 'not measured'))
                            FROM bench_target_verdicts"
        echo
        md_view bench_target_table llllrrll
        echo
        echo "## Cost per call"
        echo
        echo "\`SELECT count(<expr>) FROM <source>\` with $(thousands "$N") rows, timed inside the server (no client round trip)," \
             "parallel query off; ns/call = median of $ROUNDS rounds / $(thousands "$N"), spread min..max. net: minus the median" \
             "of the case's bare loop. x columns: ratios of median whole-query times; the no-op twin has the" \
             "same arguments and return width (bench/noop.c). Cases and sources: bench/cases.tsv."
        md_chart cost "cost per call"
        echo
        md_view bench_table lrrrrr
        "${PSQL[@]}" -At -c "SELECT DISTINCT 'warning: \"' || name || '\" counted ' || counted || ' non-NULL results of $N'
                            FROM bench_results WHERE counted <> $N"
        echo
        echo "## Scaling: bulk throughput with ${CLIENTS// /, } clients"
        echo
        echo "C clients start together, each running its case's query of the cost table ($(thousands "$N") rows)" \
             "(pgbench -n -c C -j C -t $SCALING_QUERIES); each cell: million ids/s of all clients together, median" \
             "(min..max) of $SCALING_ROUNDS rounds · the speedup over 1 client of the same case · the ratio to the" \
             "no-op at the same count; $(nproc) CPUs. idgen.ordering = $ORDERING (bench/run's server; IDGEN_BENCH_ORDERING)."
        md_chart scaling "throughput against clients"
        echo
        md_view bench_scaling_table lrrrrr
        echo
        echo "## pgbench: one statement per transaction"
        echo
        echo "pgbench -n -M prepared -c $PGBENCH_CLIENTS -j $PGBENCH_THREADS -T $PGBENCH_SECONDS per run, $PGBENCH_ROUNDS" \
             "rounds in alternating order; tps median (min..max). The INSERT tables (primary key) are emptied and a" \
             "CHECKPOINT taken before every run."
        echo
        md_view bench_pgbench_table llrrl
        echo
        echo "## Latency: the tail of one statement per transaction"
        echo
        echo "pgbench -n -M prepared -c $LATENCY_CLIENTS -j $LATENCY_CLIENTS -T $LATENCY_SECONDS per script, one after another in" \
             "this run, every transaction logged (pgbench -l: its latency in µs, from sending the statement to" \
             "receiving the result); percentiles of all the run's transactions (bench/latency.tsv). The INSERT" \
             "tables are emptied and a CHECKPOINT taken before every run. idgen moves its durable horizon about" \
             "once per second of id time: the backend that crosses it writes and fsyncs the horizon file and" \
             "flushes its WAL record while the others that reach it wait, so p99.9 and max are where that would show." \
             "$LATENCY_CLIENTS clients and $LATENCY_CLIENTS pgbench threads share $(nproc) CPUs: the tail also holds waits for a CPU."
        echo
        md_view bench_latency_table llrrrrrrl
        echo
        echo "## Backfill: UPDATE of $(thousands "$BACKFILL_ROWS") rows"
        echo
        echo "\`bench_events (id, created_at)\`: $(thousands "$BACKFILL_ROWS") rows over the year 2025 in random physical order, 30% of" \
             "them sharing their time with two others (bench/backfill.sql). Each UPDATE starts from a fresh, frozen" \
             "copy after a CHECKPOINT; wall seconds, median (min..max) of $BACKFILL_ROUNDS rounds. Parallel:" \
             "$BACKFILL_SESSIONS sessions at once, each updating a quarter of the table's pages (ctid range)."
        echo
        md_view bench_backfill_table llrrrrr
        echo
        echo "### Many short sessions: $(thousands "$SESSION_COUNT") sessions of $(thousands "$SESSION_ROWS") ids against 1 session of $(thousands $((SESSION_COUNT * SESSION_ROWS)))"
        echo
        echo "\`SELECT count(<id>)\` over $(thousands $((SESSION_COUNT * SESSION_ROWS))) event times (over 2025, 30% shared, random order;" \
             "bench/sessions.tsv): once by one session in one statement, and once by $(thousands "$SESSION_COUNT") sessions," \
             "$BACKFILL_SESSIONS at a time, each a new connection (pgbench -C) running one statement over its own" \
             "$(thousands "$SESSION_ROWS") times and ending, so it hands its namespaces back and the next session adopts them." \
             "Each statement is timed inside the server (clock_timestamp() around it) after an untimed no-op twin of it" \
             "in the same session, so connecting and a new backend's cold caches are left out, idgen's own per-session" \
             "work (first call, adopting or leasing) is in; ids/s = ids / the statements' summed time, median (min..max)" \
             "of $BACKFILL_ROUNDS rounds. Leased: namespaces_leased of idgen_backfill_spaces after minus before, per round;" \
             "LEASE records: idgen's WAL records of leases and offset-bound raises in that WAL range (pg_walinspect), each" \
             "a lease-file fsync and a WAL flush, per round. Sessions/s: pgbench's rate with connecting."
        echo
        md_view bench_sessions_table llrrrllllr
        echo
        echo "### Keys: index size and WAL"
        echo
        echo "$(thousands "$BACKFILL_ROWS") keys in one \`INSERT INTO bench_keys SELECT ...\` into a fresh \`id PRIMARY KEY\` table" \
             "after a CHECKPOINT (bench/keys.tsv); the backfill keys come from the events' times in their random" \
             "physical order. WAL = pg_current_wal_insert_lsn() difference; sizes by pg_relation_size; median (min..max)" \
             "of $BACKFILL_ROUNDS rounds."
        md_chart keys "index size and WAL per key"
        echo
        md_view bench_keys_table llrrrrrr
        echo
        echo "### Memory of a $(thousands "$MEMORY_ROWS")-row backfill"
        echo
        if ((MEMORY_ROWS > 0)); then
            echo "One session per function updates a fresh $(thousands "$MEMORY_ROWS")-row events table in one UPDATE. Right after it," \
                 "in the same transaction, the session reads pg_backend_memory_contexts: the context named" \
                 "'idgen backfill' (where idgen keeps its per-session backfill state; none: no such context) and all" \
                 "contexts together. RssAnon: the backend's private resident memory (/proc/<pid>/status; shared" \
                 "buffers are not in it, VmHWM would count them), read by the session before and after the UPDATE" \
                 "and sampled every 0.1 s by bench/run in between; peak: the highest of these."
            echo
            md_view bench_memory_table lrrrrrrr
        else
            echo "Skipped in this run (IDGEN_BENCH_MEMORY_ROWS=0)."
        fi
        echo
        echo "## Not measured"
        echo
        "${PSQL[@]}" -At -c "SELECT coalesce(string_agg(format('- %s, %s: %s', section, name, reason), E'\n'
                                                        ORDER BY section, name), 'Everything was measured.')
                            FROM bench_skipped"
    } >"$report"
    echo "written: $report $(cd "$OUT_DIR" && ls benchmark-*.png 2>/dev/null | tr '\n' ' ')"
}
