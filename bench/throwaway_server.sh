# bench/throwaway_server.sh: the throwaway PostgreSQL of the one-file benchmarks
# (bench/partitioned, bench/hosted), sourced after scripts/lib/common.sh. start_throwaway_server
# NAME CONF makes RUN_DIR (/tmp/idgen-bench-NAME.*, the database user's, removed on exit with
# the server), starts a server there with idgen preloaded (idgen.node_id = 1), a socket of its
# own and the postgresql.conf lines CONF, and sets PSQL (psql's command line for it) and sql
# (runs one statement, prints its rows unaligned).

start_throwaway_server() {
    RUN_DIR=$(mktemp -d "/tmp/idgen-bench-$1.XXXXXX")
    trap stop_throwaway_server EXIT
    trap 'exit 130' INT TERM
    [ "$(db_user)" = "$(id -un)" ] || as_root chown "$(db_user):" "$RUN_DIR"
    cd "$RUN_DIR"          # the db user may not be able to enter the caller's directory
    say "Starting a throwaway PostgreSQL $(pg_version "$PG_BINDIR/pg_config") in $RUN_DIR with idgen preloaded"
    as_db_user initdb -D "$RUN_DIR/data" -A trust -U postgres >/dev/null
    printf "shared_preload_libraries = 'idgen'\nidgen.node_id = 1\nlisten_addresses = ''\nunix_socket_directories = '%s'\n%s\n" \
        "$RUN_DIR" "$2" | as_db_user tee -a "$RUN_DIR/data/postgresql.conf" >/dev/null
    as_db_user pg_ctl -D "$RUN_DIR/data" -l "$RUN_DIR/server.log" -w start >/dev/null
    PSQL=(psql -X -q -v ON_ERROR_STOP=1 -h "$RUN_DIR" -U postgres -d postgres)
}

stop_throwaway_server() {
    [ -f "$RUN_DIR/data/postmaster.pid" ] && as_db_user pg_ctl -D "$RUN_DIR/data" -m immediate -w stop >/dev/null 2>&1
    rm -rf "$RUN_DIR"
}

sql() { as_db_user "${PSQL[@]}" -At -c "$1"; }
