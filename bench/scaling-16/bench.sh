#!/bin/bash
# Scaling benchmark of idgen's generators on a machine with many cores (16 here) and no network,
# for docs/benchmark-scaling-16.md; bench/scaling-16/prepare.sh packs it with what it needs.
# Unpacks Debian 12's PostgreSQL 15 under /tmp/pgroot (never into /), starts a throwaway
# cluster in /tmp/pgdata as a non-root user, and runs pgbench with 1..16 clients per function.
# Env knobs: BENCH_T (seconds per pgbench run, 8), BENCH_CLIENTS ("1 2 4 8 16"),
#            BENCH_FUNCS (override the function list, '|' separated), BENCH_SMOKE=1 (setup only).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-/tmp/bench_out}
mkdir -p "$OUT"
R=/tmp/pgroot
PGDATA=/tmp/pgdata
PORT=5499
PGUSER_OS=pgb
T=${BENCH_T:-8}
CLIENTS=${BENCH_CLIENTS:-1 2 4 8 16}
ROWS=2000
LOG=$OUT/bench.log

exec > >(tee -a "$LOG") 2>&1

echo "nproc: $(nproc)"
echo "uname: $(uname -a)"
grep -m1 'model name' /proc/cpuinfo || true
echo "os: $(. /etc/os-release 2>/dev/null; echo "$PRETTY_NAME")"
echo "glibc: $(ldd --version 2>/dev/null | head -1)"
free -g 2>/dev/null | head -2
echo "start: $(date -u +%FT%TZ)"

# ---- unpack ----------------------------------------------------------------------------
rm -rf "$R" "$PGDATA"; mkdir -p "$R"
for f in "$HERE"/*.deb; do
    if command -v dpkg >/dev/null 2>&1; then
        dpkg -x "$f" "$R" || { echo "dpkg -x failed: $f"; exit 1; }
    else
        d=$(mktemp -d); (cd "$d" && ar x "$f") && tar -xf "$d"/data.tar.* -C "$R" || { echo "unpack failed: $f"; exit 1; }
        rm -rf "$d"
    fi
done
BIN=$R/usr/lib/postgresql/15/bin
PKGLIB=$R/usr/lib/postgresql/15/lib
EXT=$R/usr/share/postgresql/15/extension
cp "$HERE"/idgen/idgen.so "$HERE"/idgen/bench_noop.so "$PKGLIB"/
cp "$HERE"/idgen/idgen.control "$HERE"/idgen/idgen--*.sql "$EXT"/
LIBS=$R/usr/lib/x86_64-linux-gnu:$R/lib/x86_64-linux-gnu
# tzdata: Debian's build reads /usr/share/zoneinfo; borrow Debian's only if the image has none.
if [ ! -e /usr/share/zoneinfo/UTC ]; then
    echo "no /usr/share/zoneinfo/UTC in the image: copying Debian's tzdata there"
    mkdir -p /usr/share/zoneinfo && cp -a "$R"/usr/share/zoneinfo/. /usr/share/zoneinfo/
fi

echo "--- missing libraries (should be none):"
for b in postgres initdb psql pgbench; do
    LD_LIBRARY_PATH=$LIBS ldd "$BIN/$b" | grep 'not found' | sed "s|^|$b: |"
done
LD_LIBRARY_PATH=$LIBS ldd "$PKGLIB/idgen.so" "$PKGLIB/uuid-ossp.so" | grep 'not found'
echo "---"

# ---- non-root user ---------------------------------------------------------------------
if ! id "$PGUSER_OS" >/dev/null 2>&1; then
    useradd -M -d /tmp -s /bin/sh "$PGUSER_OS" 2>/dev/null || {
        echo "$PGUSER_OS:x:7777:7777::/tmp:/bin/sh" >> /etc/passwd
        echo "$PGUSER_OS:x:7777:" >> /etc/group
    }
fi
id "$PGUSER_OS"
PGU=$(id -u "$PGUSER_OS"); PGG=$(id -g "$PGUSER_OS")
# as_pg CMD...: run CMD as the non-root user, with the unpacked libraries
as_pg() {
    if command -v setpriv >/dev/null 2>&1; then
        setpriv --reuid="$PGU" --regid="$PGG" --clear-groups env HOME=/tmp LD_LIBRARY_PATH="$LIBS" "$@"
    elif command -v runuser >/dev/null 2>&1; then
        runuser -u "$PGUSER_OS" -- env HOME=/tmp LD_LIBRARY_PATH="$LIBS" "$@"
    else
        su -s /bin/sh "$PGUSER_OS" -c "HOME=/tmp LD_LIBRARY_PATH='$LIBS' $(printf '%q ' "$@")"
    fi
}
pgx() { LD_LIBRARY_PATH=$LIBS "$@"; }   # client programs (root is fine for clients)
PSQL=(pgx "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h /tmp -p $PORT -U "$PGUSER_OS" -d postgres)

# ---- cluster ---------------------------------------------------------------------------
mkdir -p "$PGDATA" && chown "$PGU:$PGG" "$PGDATA" && chmod 700 "$PGDATA"
as_pg "$BIN/initdb" -D "$PGDATA" -U "$PGUSER_OS" -A trust --no-locale -E UTF8 >/tmp/initdb.log 2>&1 \
    || { cat /tmp/initdb.log; exit 1; }
DSM=posix
[ "$(stat -c %a /dev/shm 2>/dev/null)" = 1777 ] || DSM=sysv
cat >> "$PGDATA/postgresql.conf" <<EOF
shared_preload_libraries = 'idgen'
idgen.node_id = 1
max_connections = 100
shared_buffers = 1GB
huge_pages = off
fsync = off
synchronous_commit = off
full_page_writes = off
jit = off
listen_addresses = ''
unix_socket_directories = '/tmp'
port = $PORT
dynamic_shared_memory_type = $DSM
EOF
as_pg "$BIN/pg_ctl" -D "$PGDATA" -l /tmp/pg.log -w -t 60 start || { cat /tmp/pg.log; exit 1; }
stop_pg() { as_pg "$BIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null 2>&1; cp /tmp/pg.log "$OUT"/pg.log 2>/dev/null; }
trap stop_pg EXIT

pgx "$BIN/postgres" --version
"${PSQL[@]}" -At -c 'SELECT version()'
"${PSQL[@]}" <<EOF || { echo "setup failed"; exit 1; }
CREATE EXTENSION idgen;
SELECT snowflake_create('bench', '2024-01-01+00', 128);
CREATE SEQUENCE s1;
CREATE FUNCTION bench_noop_int8() RETURNS int8 AS '$PKGLIB/bench_noop.so', 'bench_noop_int8' LANGUAGE C VOLATILE;
CREATE FUNCTION bench_noop_uuid() RETURNS uuid AS '$PKGLIB/bench_noop.so', 'bench_noop_uuid' LANGUAGE C VOLATILE;
EOF
"${PSQL[@]}" -c 'CREATE EXTENSION "uuid-ossp"' || echo "uuid-ossp not available (not needed for the measured list)"
"${PSQL[@]}" -At -c "SELECT extversion FROM pg_extension WHERE extname='idgen'" | sed 's/^/idgen version: /'
"${PSQL[@]}" -At -F ' | ' -c "SELECT bench_noop_int8(), bench_noop_uuid(), snowflake_next('bench'), uuid_v1(), locality_uuid(), unique_timestamp(), nextval('s1'), gen_random_uuid()"
"${PSQL[@]}" -At -c "SELECT name, setting FROM pg_settings WHERE name IN ('shared_buffers','fsync','synchronous_commit','jit','max_connections','shared_preload_libraries','idgen.node_id','dynamic_shared_memory_type','huge_pages') ORDER BY 1" | tr '\n' ' '; echo
[ "${BENCH_SMOKE:-0}" = 1 ] && { echo "smoke only"; exit 0; }

# ---- measurement -----------------------------------------------------------------------
if [ -n "${BENCH_FUNCS:-}" ]; then
    IFS='|' read -r -a FUNCS <<< "$BENCH_FUNCS"
else
    FUNCS=("bench_noop_int8()" "snowflake_next('bench')" "uuid_v1()" "uuid_v7()" "locality_uuid()"
           "unique_timestamp()" "nextval('s1')" "gen_random_uuid()" "bench_noop_uuid()")
fi
SCR=/tmp/bench_scripts; rm -rf "$SCR"; mkdir -p "$SCR"
for i in "${!FUNCS[@]}"; do
    echo "SELECT count(${FUNCS[$i]}) FROM generate_series(1,$ROWS);" > "$SCR/f$i.sql"
done
chmod -R a+rX "$SCR"
PGB=(pgx "$BIN/pgbench" -h /tmp -p $PORT -U "$PGUSER_OS" -n -M prepared)

echo "warm-up: 2 s per function at 16 clients"
for i in "${!FUNCS[@]}"; do "${PGB[@]}" -c 16 -j 16 -T 2 -f "$SCR/f$i.sql" postgres >/dev/null 2>&1; done

CSV=$OUT/scaling.csv
echo "function,clients,tps,calls_per_s,latency_ms,transactions,failed" > "$CSV"
# client count outer, function inner: every function's run at N clients lies close in time
# to the no-op's run at N clients, so the 'vs no-op' ratio sees the same machine state.
for n in $CLIENTS; do
    for i in "${!FUNCS[@]}"; do
        o=$("${PGB[@]}" -c "$n" -j "$n" -T "$T" -f "$SCR/f$i.sql" postgres 2>&1)
        rc=$?
        tps=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' <<< "$o" | head -1)
        lat=$(sed -n 's/^latency average = \([0-9.]*\) ms.*/\1/p' <<< "$o" | head -1)
        tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<< "$o" | head -1)
        fl=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' <<< "$o" | head -1)
        if [ $rc -ne 0 ] || [ -z "$tps" ]; then
            echo "pgbench failed for ${FUNCS[$i]} at $n clients (rc $rc):"; echo "$o" | tail -5
            tps=NA
        fi
        cps=$(awk -v t="$tps" -v r=$ROWS 'BEGIN{ if (t=="NA") print "NA"; else printf "%.0f", t*r }')
        printf '%-26s N=%-2s tps=%-10s calls/s=%s\n' "${FUNCS[$i]}" "$n" "$tps" "$cps"
        echo "\"${FUNCS[$i]}\",$n,$tps,$cps,${lat:-NA},${tx:-NA},${fl:-0}" >> "$CSV"
    done
done
echo "end: $(date -u +%FT%TZ)"

# ---- table -----------------------------------------------------------------------------
MD=$OUT/scaling.md
awk -F, -v noop='"bench_noop_int8()"' -v seq='"nextval('"'"'s1'"'"')"' '
NR==1 { next }
{
    f=$1; n=$2+0; c=$4; key=f SUBSEP n
    cps[key]=c; if (!(f in seen)) { seen[f]=1; order[++nf]=f }
    if (!(n in seenn)) { seenn[n]=1; ns[++nn]=n }
}
END {
    print "| function | clients | calls/s | speedup vs 1 client | vs no-op (same N) | vs nextval (same N) |"
    print "|---|---:|---:|---:|---:|---:|"
    for (i=1; i<=nf; i++) {
        f=order[i]; g=f; gsub(/"/, "", g)
        base=cps[f SUBSEP ns[1]]
        for (j=1; j<=nn; j++) {
            n=ns[j]; c=cps[f SUBSEP n]; o=cps[noop SUBSEP n]; s=cps[seq SUBSEP n]
            sp = (c!="NA" && base!="NA" && base>0) ? sprintf("%.2fx", c/base) : "NA"
            ro = (c!="NA" && o!="NA" && o>0) ? sprintf("%.2f", c/o) : "NA"
            rs = (c!="NA" && s!="NA" && s>0) ? sprintf("%.2f", c/s) : "NA"
            cs = (c=="NA") ? "NA" : sprintf("%.2fM", c/1e6)
            printf "| `%s` | %d | %s | %s | %s | %s |\n", g, n, cs, sp, ro, rs
        }
    }
}' "$CSV" > "$MD"
cat "$MD"
